package kaenlog.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Item 1: the broker process is killed with SIGKILL while four producers write (two with acks=1,
 * two with acks=all, on two partitions), restarted on the same directory, and checked; then the
 * producers write again, and the next kill comes. After every restart:
 * <ul>
 * <li>every segment file decodes batch by batch (length, magic, CRC, records), and the offsets run
 *     on from batch to batch without a gap;</li>
 * <li>a consumer over TCP reads exactly what the files hold;</li>
 * <li>every acknowledged record (of this and every earlier cycle) is at the offset its
 *     acknowledgement named, once; each producer's records are in the order it sent them; a batch
 *     whose answer was lost in the crash is in the log whole or not at all.</li>
 * </ul>
 * The kill comes once a seeded number of records were acknowledged in the cycle, so it always
 * lands while the producers are in the middle of their requests.
 */
public final class CrashRecovery {
    static final String[] PARTITIONS = {"crash-0", "crash-1"};

    /**
     * @param cycles            kill-and-restart cycles
     * @param seed              seeds the kill points and the batch sizes
     * @param minAckedPerCycle  the kill comes after between min and max acknowledged records
     * @param maxAckedPerCycle  (of this cycle)
     * @param maxBatchRecords   batches of 1..max records
     * @param segmentBytes      klog serve --segment-bytes: small, so segments roll between kills
     */
    public record Config(int cycles, long seed, int minAckedPerCycle, int maxAckedPerCycle, int maxBatchRecords,
                         int segmentBytes) {
        /** The size: 20 kills. */
        public static Config full() {
            return new Config(20, 1L, 300, 3000, 20, 8192);
        }
    }

    /** The figures of a run. */
    public record Result(Config config, int crashes, int crashesSurvived, long ackedRecords, long ackedBatches,
                         long inDoubtBatches, long inDoubtWritten, long recordsInLog, long batchesDecoded,
                         int segments, long lost, long misplaced, long duplicates, long outOfOrder,
                         long partialBatches, long offsetGaps, long diskConsumerMismatches, long tornTailBytes,
                         long rejectedProduces, boolean acceptsWritesAfter, List<String> problems) implements Figures {
        public Result {
            problems = List.copyOf(problems);
        }

        @Override
        public Row row() {
            return new Row("1 SIGKILL while producing (acks=1, all)", crashes, ackedRecords, crashes, lost + misplaced,
                    duplicates, crashesSurvived);
        }

        @Override
        public List<String> details() {
            return List.of(
                    crashes + " kills of the broker process; " + ackedBatches + " batches (" + ackedRecords
                            + " records) acknowledged, each found at its acknowledged offset after every later restart",
                    inDoubtBatches + " batches lost their answer in a kill: " + inDoubtWritten
                            + " were in the log whole, the rest absent, " + partialBatches + " in part",
                    "at the end: " + recordsInLog + " records in " + batchesDecoded + " batches in " + segments
                            + " segment files, every batch decoded (CRC checked), " + offsetGaps + " offset gaps, "
                            + diskConsumerMismatches + " differences between the files and a consumer",
                    "torn tails found after the kills: " + tornTailBytes + " bytes (a SIGKILL cannot interrupt one"
                            + " write(2); a torn tail takes a power cut: chapter 3's RecoveryTest cuts one byte by byte)",
                    "out of order " + outOfOrder + ", duplicates " + duplicates + ", lost " + lost + ", misplaced "
                            + misplaced + ", produce errors " + rejectedProduces + "; accepts writes after the last"
                            + " restart: " + (acceptsWritesAfter ? "yes" : "NO"));
        }

        @Override
        public boolean ok() {
            return crashesSurvived == crashes && lost == 0 && misplaced == 0 && duplicates == 0 && outOfOrder == 0
                    && partialBatches == 0 && offsetGaps == 0 && diskConsumerMismatches == 0
                    && rejectedProduces == 0 && acceptsWritesAfter && problems.isEmpty();
        }
    }

    private CrashRecovery() {
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        BrokerProcess.Options withSegments = options.withSegmentBytes(config.segmentBytes());
        Ledger ledger = new Ledger();
        List<LedgerProducer> producers = new ArrayList<>();
        short[] acks = {ProduceRequest.ACKS_LEADER, ProduceRequest.ACKS_ALL};
        for (int p = 0; p < 4; p++) {
            producers.add(new LedgerProducer(p, PARTITIONS[p / 2], acks[p % 2], config.maxBatchRecords(),
                    config.seed() * 1000 + p, ledger));
        }
        Random kills = new Random(config.seed());
        List<String> problems = new ArrayList<>();
        int survived = 0;
        long torn = 0;
        Check last = null;
        BrokerProcess broker = BrokerProcess.start(dir, withSegments);
        try {
            for (int cycle = 0; cycle < config.cycles(); cycle++) {
                int target = config.minAckedPerCycle()
                        + kills.nextInt(config.maxAckedPerCycle() - config.minAckedPerCycle() + 1);
                produceThenKill(broker, producers, target, problems, cycle);
                for (String partition : PARTITIONS) {
                    torn += LogContents.tornTailBytes(dir.resolve(partition));
                }
                broker = BrokerProcess.start(dir, withSegments);
                last = check(broker, dir, ledger);
                if (last.clean()) {
                    survived++;
                } else {
                    problems.add("after kill " + (cycle + 1) + ": " + last.describe());
                }
            }
            boolean accepts = acceptsWrites(broker, ledger, PARTITIONS);
            last = check(broker, dir, ledger);
            long rejected = producers.stream().mapToLong(LedgerProducer::rejected).sum();
            producers.stream().filter(p -> p.rejected() > 0)
                    .forEach(p -> problems.add("producer " + p.id() + ": " + p.rejected() + " produce error(s), last "
                            + p.lastRejection()));
            Ledger.Audit a = last.audit();
            return new Result(config, config.cycles(), survived, a.ackedRecords(), ledger.ackedBatches(),
                    a.inDoubtBatches(), a.inDoubtWritten(), a.recordsInLog(), last.batches(), last.segments(), a.lost(),
                    a.misplaced(), a.duplicates(), a.outOfOrder(), a.partialBatches(), last.gaps(), last.mismatches(),
                    torn, rejected, accepts, problems);
        } finally {
            broker.close();
        }
    }

    /** Runs the producers until {@code target} records were acknowledged in this cycle, then SIGKILL. */
    private static void produceThenKill(BrokerProcess broker, List<LedgerProducer> producers, int target,
                                        List<String> problems, int cycle) throws IOException {
        AtomicLong acked = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (LedgerProducer producer : producers) {
            Thread t = new Thread(() -> producer.runUntilBroken(broker.host(), broker.port(), Integer.MAX_VALUE, acked),
                    "crash-producer-" + producer.id());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        if (!Deadline.in(120_000).await(() -> acked.get() >= target || threads.stream().noneMatch(Thread::isAlive))) {
            problems.add("cycle " + (cycle + 1) + ": the producers stalled at " + acked.get() + " of " + target);
        }
        if (threads.stream().noneMatch(Thread::isAlive)) {
            problems.add("cycle " + (cycle + 1) + ": every producer stopped before the kill (broker log: "
                    + tail(broker.log()) + ")");
        }
        broker.kill();
        for (Thread t : threads) {
            try {
                t.join(LedgerProducer.READ_TIMEOUT_MS + 10_000L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (t.isAlive()) {
                problems.add("cycle " + (cycle + 1) + ": " + t.getName() + " still waits after the kill");
            }
        }
    }

    /** A restarted broker's partitions, read by a consumer and from the files, held against the ledger. */
    record Check(Ledger.Audit audit, long batches, int segments, long gaps, long mismatches, List<String> notes) {
        boolean clean() {
            return audit.clean() && gaps == 0 && mismatches == 0 && notes.isEmpty();
        }

        String describe() {
            List<String> all = new ArrayList<>(notes);
            all.addAll(audit.problems());
            return "lost " + audit.lost() + ", misplaced " + audit.misplaced() + ", duplicates " + audit.duplicates()
                    + ", out of order " + audit.outOfOrder() + ", partial " + audit.partialBatches() + ", gaps " + gaps
                    + ", file/consumer differences " + mismatches + " " + all;
        }
    }

    static Check check(BrokerProcess broker, Path dir, Ledger ledger, String... partitions) throws IOException {
        String[] names = partitions.length == 0 ? PARTITIONS : partitions;
        Map<String, List<LogContents.Entry>> contents = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        long batches = 0;
        int segments = 0;
        long gaps = 0;
        long mismatches = 0;
        try (BrokerClient consumer = BrokerClient.connect(broker.host(), broker.port(), LedgerProducer.READ_TIMEOUT_MS)) {
            for (String partition : names) {
                // The fetch opens the partition: the broker recovers its log first. Then the files are read.
                List<LogContents.Entry> consumed = LogContents.consume(consumer, partition);
                LogContents.OnDisk disk;
                try {
                    disk = LogContents.readSegments(dir.resolve(partition));
                } catch (RuntimeException corrupt) {
                    notes.add(partition + ": a segment file does not decode after recovery: " + corrupt.getMessage());
                    contents.put(partition, consumed);
                    continue;
                }
                batches += disk.batches().size();
                segments += disk.segments();
                gaps += LogContents.offsetGaps(disk.batches());
                if (!disk.batches().isEmpty() && disk.batches().get(0).baseOffset() != 0) {
                    gaps++;
                    notes.add(partition + ": the first batch starts at " + disk.batches().get(0).baseOffset());
                }
                if (!disk.entries().equals(consumed)) {
                    mismatches++;
                    notes.add(partition + ": the files hold " + disk.entries().size() + " records, a consumer read "
                            + consumed.size());
                }
                contents.put(partition, disk.entries());
            }
        }
        return new Check(ledger.audit(contents), batches, segments, gaps, mismatches, notes);
    }

    /**
     * After the last restart: one more record per partition, acks=all (from producer 100 + i, so the
     * ledger knows it), and a consumer finds it at the end of the log.
     */
    static boolean acceptsWrites(BrokerProcess broker, Ledger ledger, String... partitions) throws IOException {
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), LedgerProducer.READ_TIMEOUT_MS)) {
            for (int i = 0; i < partitions.length; i++) {
                String value = Ledger.value(100 + i, 0);
                ByteBuffer batch = new BatchBuilder().append(0L, null, value).build();
                ProduceResponse answer = client.produce(partitions[i], ProduceRequest.ACKS_ALL, batch);
                if (answer.error() != ErrorCode.NONE) {
                    return false;
                }
                ledger.acked(partitions[i], 100 + i, 0, 1, answer.baseOffset(), answer.lastOffset());
                List<LogContents.Entry> all = LogContents.consume(client, partitions[i]);
                if (all.isEmpty() || !all.get(all.size() - 1).equals(new LogContents.Entry(answer.baseOffset(), value))) {
                    return false;
                }
            }
        }
        return true;
    }

    static String tail(List<String> lines) {
        return lines.subList(Math.max(0, lines.size() - 5), lines.size()).toString();
    }
}
