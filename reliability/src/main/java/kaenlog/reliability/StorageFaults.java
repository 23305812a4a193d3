package kaenlog.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.cli.Klog;
import kaenlog.log.OffsetIndex;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import kaenlog.testkit.Tmpfs;

/**
 * Storage faults, for real: a broker ({@code klog serve} in its own JVM) writes to a small tmpfs
 * until it is out of space, or out of inodes at a roll, or serves a data directory remounted
 * read-only; or a byte of a segment or an index is flipped between a stop and a start. Then the
 * broker is started again and every acknowledged record is looked for: read back at its offset
 * (readable), inside a batch the broker reports corrupt (damaged: the flipped byte destroyed that
 * batch, and the broker says so instead of serving it), somewhere else (renumbered), or nowhere
 * (lost). A new produce after the restart must get an offset past every acknowledged one
 * (otherwise an offset was given twice: renumbered too).
 *
 * <p>The tmpfs rows need root to mount; without it they are skipped with the reason.
 */
public final class StorageFaults {
    static final String PARTITION = "faults-0";
    /** A partition written before the fault: it must be served on while {@link #PARTITION} is offline. */
    static final String OTHER = "other-0";
    private static final int READ_TIMEOUT_MS = 20_000;

    /** One kind of fault, a row of the report. */
    public enum Fault {
        ENOSPC("ENOSPC in the middle of appends (tmpfs 4 MiB)"),
        INODES_AT_ROLL("no inodes left at a roll (tmpfs nr_inodes=24)"),
        READ_ONLY("data dir remounted read-only, restart"),
        FLIP_ACTIVE_CLEAN("flipped byte, active segment, clean stop"),
        FLIP_ACTIVE_UNCLEAN("flipped byte, active segment, SIGKILL (flush.messages 1)"),
        FLIP_CLOSED("flipped byte, closed segment, SIGKILL"),
        DAMAGED_INDEX("index entry lowered, clean stop");

        final String label;

        Fault(String label) {
            this.label = label;
        }

        boolean needsTmpfs() {
            return this == ENOSPC || this == INODES_AT_ROLL || this == READ_ONLY;
        }
    }

    /**
     * What one fault did to the acknowledged records.
     *
     * @param acked      records the broker acknowledged (acks=all) before the fault
     * @param readable   acknowledged records read back after the restart, at their offsets, same value
     * @param damaged    acknowledged records inside the batch whose byte was flipped, reported corrupt
     * @param lost       acknowledged records found nowhere
     * @param renumbered acknowledged records found at another offset, plus offsets given out twice
     * @param notes      what the broker said and did (its log lines, its answers)
     * @param problems   a property that did not hold
     */
    public record Outcome(Fault fault, boolean skipped, long acked, long readable, long damaged, long lost,
                          long renumbered, List<String> notes, List<String> problems) {
        public Outcome {
            notes = List.copyOf(notes);
            problems = List.copyOf(problems);
        }

        boolean ok() {
            return skipped || (lost == 0 && renumbered == 0 && acked > 0 && problems.isEmpty());
        }
    }

    /** All the rows. */
    public record Result(List<Outcome> outcomes) implements TableFigures {
        public Result {
            outcomes = List.copyOf(outcomes);
        }

        /** The table of the report: one line per fault. */
        @Override
        public List<String> table() {
            List<String> lines = new ArrayList<>();
            String header = String.format("%-58s %7s %9s %8s %5s %10s  %s", "storage fault", "acked", "readable",
                    "damaged", "lost", "renumbered", "verdict");
            lines.add(header);
            lines.add("-".repeat(header.length() + 4));
            for (Outcome o : outcomes) {
                if (o.skipped()) {
                    lines.add(String.format("%-58s %s", o.fault().label, "skipped: " + String.join("; ", o.notes())));
                    continue;
                }
                lines.add(String.format("%-58s %,7d %,9d %,8d %,5d %,10d  %s", o.fault().label, o.acked(), o.readable(),
                        o.damaged(), o.lost(), o.renumbered(), o.ok() ? "ok" : "FAILED"));
            }
            lines.add("(readable: at its acknowledged offset after the restart; damaged: in the batch whose byte was"
                    + " flipped, reported corrupt with its offsets, never served as good)");
            return lines;
        }

        @Override
        public String title() {
            return "storage faults";
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (Outcome o : outcomes) {
                lines.add(o.fault() + ": " + String.join("; ", o.notes()) + (o.problems().isEmpty() ? ""
                        : "; PROBLEMS: " + o.problems()));
            }
            return lines;
        }

        @Override
        public boolean ok() {
            return outcomes.stream().allMatch(Outcome::ok);
        }
    }

    /** One acknowledged batch: where the broker said it went, and what it holds. */
    record Acked(long baseOffset, List<String> values) {
        long lastOffset() {
            return baseOffset + values.size() - 1;
        }
    }

    /** What a run produced and noticed while producing. */
    private static final class Run {
        final List<Acked> acked = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        ErrorCode firstError;
        int serial;
    }

    private StorageFaults() {
    }

    public static Result run(Path root, BrokerProcess.Options options) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            outcomes.add(run(Files.createDirectories(root.resolve(fault.name().toLowerCase())), options, fault));
        }
        return new Result(outcomes);
    }

    static Outcome run(Path dir, BrokerProcess.Options options, Fault fault) throws IOException {
        if (!fault.needsTmpfs()) {
            return flipped(dir, options, fault);
        }
        String size = fault == Fault.INODES_AT_ROLL ? "size=16m,nr_inodes=24" : "size=4m";
        Tmpfs tmpfs;
        try {
            tmpfs = Tmpfs.mount(dir.resolve("mnt"), size);
        } catch (Tmpfs.NotPermitted e) {
            return new Outcome(fault, true, 0, 0, 0, 0, 0, List.of(e.getMessage()), List.of());
        }
        try {
            return onTmpfs(tmpfs, options, fault);
        } finally {
            tmpfs.close();
        }
    }

    /** ENOSPC, inodes, read-only: the broker's data dir is the tmpfs. */
    private static Outcome onTmpfs(Tmpfs tmpfs, BrokerProcess.Options options, Fault fault) throws IOException {
        Path data = tmpfs.dir();
        Run run = new Run();
        BrokerProcess.Options opts = fault == Fault.INODES_AT_ROLL ? options.withSegmentBytes(1024) : options;
        try (BrokerProcess broker = BrokerProcess.start(data, opts)) {
            if (fault == Fault.READ_ONLY) {
                produce(broker, run, 200, 4, 100);
            } else {
                try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
                    client.produce(OTHER, ProduceRequest.ACKS_ALL, batch(run, 1, 10));
                }
                produce(broker, run, 100_000, fault == Fault.ENOSPC ? 8 : 2, fault == Fault.ENOSPC ? 1000 : 100);
                checkFailStop(broker, run);
            }
        }
        if (fault == Fault.READ_ONLY) {
            tmpfs.remountReadOnly();
        } else {
            tmpfs.remount(fault == Fault.ENOSPC ? "remount,size=16m" : "remount,nr_inodes=4096");
            run.notes.add("room made (tmpfs remounted larger), broker restarted");
        }
        try (BrokerProcess broker = BrokerProcess.start(data, opts)) {
            return audit(broker, run, fault, fault != Fault.READ_ONLY);
        } finally {
            if (fault == Fault.READ_ONLY) {
                tmpfs.remountReadWrite();
            }
        }
    }

    /** After the first failed produce: the partition must be offline, for produces and fetches, and say so once. */
    private static void checkFailStop(BrokerProcess broker, Run run) throws IOException {
        if (run.firstError != ErrorCode.STORAGE_ERROR) {
            run.problems.add("the first failed produce was answered " + run.firstError + ", not STORAGE_ERROR");
        }
        run.notes.add("produce failed with " + run.firstError + " after " + run.acked.size() + " acknowledged batches");
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
            ProduceResponse again = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch(run, 1, 10));
            FetchResponse fetch = client.fetch(FetchRequest.consumer(PARTITION, 0, 1024, 0));
            FetchResponse other = client.fetch(FetchRequest.consumer(OTHER, 0, 1024, 0));
            run.notes.add("then a produce: " + again.error() + ", a fetch: " + fetch.error() + "; a fetch from " + OTHER
                    + ": " + other.error() + " with " + RecordBatch.decodeAll(other.records().duplicate()).size() + " batch(es)");
            if (again.error() != ErrorCode.STORAGE_ERROR || fetch.error() != ErrorCode.STORAGE_ERROR) {
                run.problems.add("fail-stop: after a storage error every request must get STORAGE_ERROR");
            }
            if (other.error() != ErrorCode.NONE || !other.records().hasRemaining()) {
                run.problems.add("another partition must be served on while " + PARTITION + " is offline");
            }
        }
        broker.awaitLog(line -> line.contains("is offline"), 10_000); // stderr reaches us through a pipe
        List<String> offline = broker.log().stream().filter(line -> line.contains("is offline")).toList();
        if (offline.size() != 1) {
            run.problems.add("expected one 'is offline' line in the broker's log, found " + offline.size());
        } else {
            run.notes.add("broker log: " + withoutPath(offline.get(0)));
        }
    }

    /** The flipped-byte and damaged-index rows: a plain directory. */
    private static Outcome flipped(Path dir, BrokerProcess.Options options, Fault fault) throws IOException {
        Run run = new Run();
        BrokerProcess.Options opts = switch (fault) {
            case FLIP_ACTIVE_UNCLEAN -> options.withServeArgs(List.of("--flush-messages", "1"));
            case FLIP_CLOSED -> options.withSegmentBytes(2048);
            case DAMAGED_INDEX -> options.withSegmentBytes(64 * 1024);
            default -> options;
        };
        int batches = fault == Fault.DAMAGED_INDEX ? 150 : 100;
        int valueBytes = fault == Fault.DAMAGED_INDEX ? 1000 : 100;
        BrokerProcess broker = BrokerProcess.start(dir, opts);
        try {
            produce(broker, run, batches, 1, valueBytes);
        } finally {
            if (fault == Fault.FLIP_ACTIVE_UNCLEAN || fault == Fault.FLIP_CLOSED) {
                broker.kill();
                run.notes.add("SIGKILL after " + run.acked.size() + " acknowledged batches");
            } else {
                broker.close();
            }
        }
        Path partition = dir.resolve(PARTITION);
        List<Path> segments = LogContents.segmentFiles(partition);
        Path victim = fault == Fault.FLIP_CLOSED || fault == Fault.DAMAGED_INDEX ? segments.get(0)
                : segments.get(segments.size() - 1);
        if (fault == Fault.DAMAGED_INDEX) {
            lowerSecondIndexEntry(victim.resolveSibling(victim.getFileName().toString()
                    .replace(Segment.LOG_SUFFIX, Segment.INDEX_SUFFIX)), run);
        } else {
            flipInsideBatch(victim, fault == Fault.FLIP_CLOSED ? 1 : 50, run);
        }
        try (BrokerProcess restarted = BrokerProcess.start(dir, opts)) {
            return audit(restarted, run, fault, true);
        }
    }

    /** Inverts a byte inside the last record of the n-th batch of a segment file (a byte the CRC covers). */
    private static void flipInsideBatch(Path file, int n, Run run) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        List<ByteBuffer> batches = RecordBatch.sliceAll(ByteBuffer.wrap(bytes));
        int at = 0;
        for (int i = 0; i < n; i++) {
            at += batches.get(i).remaining();
        }
        ByteBuffer victim = batches.get(n);
        bytes[at + victim.remaining() - 2] ^= (byte) 0xFF;
        Files.write(file, bytes);
        run.notes.add("flipped byte " + (at + victim.remaining() - 2) + " of " + file.getFileName() + " (batch at offset "
                + victim.getLong(BatchHeader.BASE_OFFSET_OFFSET) + ")");
    }

    /** Lowers the offset of an index's second entry between the first entry's and its own: sorted, in range, wrong. */
    private static void lowerSecondIndexEntry(Path index, Run run) throws IOException {
        ByteBuffer entries = ByteBuffer.wrap(Files.readAllBytes(index));
        if (entries.remaining() < 2 * OffsetIndex.ENTRY_SIZE) {
            run.problems.add("setup: " + index.getFileName() + " has fewer than 2 entries");
            return;
        }
        int first = entries.getInt(0);
        int second = entries.getInt(OffsetIndex.ENTRY_SIZE);
        entries.putInt(OffsetIndex.ENTRY_SIZE, first + 1);
        Files.write(index, entries.array());
        run.notes.add(index.getFileName() + ": entry 2's relative offset " + second + " lowered to " + (first + 1));
    }

    /** Produces batches (acks=all) until {@code max} were acknowledged or one fails. */
    private static void produce(BrokerProcess broker, Run run, int max, int records, int valueBytes) throws IOException {
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
            for (int i = 0; i < max; i++) {
                List<String> values = new ArrayList<>();
                ByteBuffer batch = batch(run, records, valueBytes, values);
                ProduceResponse response = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch);
                if (response.error() != ErrorCode.NONE) {
                    run.firstError = response.error();
                    return;
                }
                if (response.lastOffset() - response.baseOffset() != records - 1) {
                    run.problems.add("a batch of " + records + " got offsets " + response.baseOffset() + ".."
                            + response.lastOffset());
                }
                run.acked.add(new Acked(response.baseOffset(), values));
            }
        }
    }

    private static ByteBuffer batch(Run run, int records, int valueBytes) {
        return batch(run, records, valueBytes, new ArrayList<>());
    }

    /** A batch of distinct values (serial number, padded), each remembered in {@code values}. */
    private static ByteBuffer batch(Run run, int records, int valueBytes, List<String> values) {
        BatchBuilder builder = new BatchBuilder();
        for (int r = 0; r < records; r++) {
            String value = String.format("v%08d-", run.serial++);
            value = value + "x".repeat(Math.max(0, valueBytes - value.length()));
            values.add(value);
            builder.append(1_700_000_000_000L, null, value.getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    /**
     * Reads everything back: a consume from 0 that steps over batches the broker reports corrupt,
     * a fetch at every acknowledged batch's own offset (the index is what finds it), and a
     * produce that must land past every acknowledged offset (or be refused, read-only).
     */
    private static Outcome audit(BrokerProcess broker, Run run, Fault fault, boolean writable) throws IOException {
        Map<String, Long> found = new HashMap<>();
        List<long[]> corrupt = new ArrayList<>();
        long renumbered = 0;
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
            consumeAll(client, found, corrupt, run);
            for (Acked a : run.acked) {
                FetchResponse at = client.fetch(FetchRequest.consumer(PARTITION, a.baseOffset(), 1, 0));
                if (at.error() == ErrorCode.NONE) {
                    List<RecordBatch> got = RecordBatch.decodeAll(at.records());
                    if (got.isEmpty() || got.get(0).baseOffset() > a.baseOffset() || got.get(0).lastOffset() < a.baseOffset()) {
                        run.problems.add("a fetch at offset " + a.baseOffset() + " returned "
                                + (got.isEmpty() ? "nothing" : "the batch at " + got.get(0).baseOffset()));
                    }
                } else if (at.error() != ErrorCode.CORRUPT_BATCH) {
                    run.problems.add("a fetch at offset " + a.baseOffset() + " failed: " + at.error());
                }
            }
            long lastAcked = run.acked.isEmpty() ? -1 : run.acked.get(run.acked.size() - 1).lastOffset();
            ProduceResponse next = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch(run, 1, 10));
            if (writable) {
                if (next.error() != ErrorCode.NONE) {
                    run.problems.add("a produce after the restart failed: " + next.error());
                } else if (next.baseOffset() <= lastAcked) {
                    renumbered += lastAcked - next.baseOffset() + 1;
                    run.problems.add("offset " + next.baseOffset() + " was given again after the restart");
                }
                run.notes.add("a produce after the restart: offset " + next.baseOffset());
            } else {
                run.notes.add("a produce after the restart: " + next.error());
                if (next.error() != ErrorCode.READ_ONLY_STORAGE) {
                    run.problems.add("a produce to a read-only data dir must be refused with READ_ONLY_STORAGE, not "
                            + next.error());
                }
            }
        }
        long readable = 0;
        long damaged = 0;
        long lost = 0;
        for (Acked a : run.acked) {
            for (int i = 0; i < a.values().size(); i++) {
                long offset = a.baseOffset() + i;
                Long where = found.get(a.values().get(i));
                if (where != null && where == offset) {
                    readable++;
                } else if (where != null) {
                    renumbered++;
                } else if (corrupt.stream().anyMatch(r -> r[0] <= offset && offset <= r[1])) {
                    damaged++;
                } else {
                    lost++;
                }
            }
        }
        if (fault.name().startsWith("FLIP") && corrupt.size() != 1) {
            run.problems.add("expected exactly one batch reported corrupt, got " + corrupt.size());
        }
        broker.log().stream().filter(line -> line.startsWith("partition " + PARTITION))
                .map(line -> "broker log: " + withoutPath(line)).forEach(run.notes::add);
        if (fault.name().startsWith("FLIP")) {
            checkConsumeCommand(broker, corrupt, run);
        }
        long acked = run.acked.stream().mapToLong(a -> a.values().size()).sum();
        return new Outcome(fault, false, acked, readable, damaged, lost, renumbered, run.notes, run.problems);
    }

    /** A broker log line without the temporary directory it names. */
    private static String withoutPath(String line) {
        return line.replaceAll("/\\S*/" + PARTITION + "/", "<data>/" + PARTITION + "/");
    }

    /** A consumer's read of the whole partition; a batch reported corrupt is noted and stepped over. */
    private static void consumeAll(BrokerClient client, Map<String, Long> found, List<long[]> corrupt, Run run)
            throws IOException {
        long offset = 0;
        for (int fetches = 0; fetches < 100_000; fetches++) {
            FetchResponse response = client.fetch(FetchRequest.consumer(PARTITION, offset, 256 * 1024, 0));
            if (response.error() == ErrorCode.CORRUPT_BATCH) {
                BatchHeader header = BatchHeader.readFrom(response.records().duplicate());
                long last = header.baseOffset() + Math.max(0, header.lastOffsetDelta());
                corrupt.add(new long[] {header.baseOffset(), last});
                offset = Math.max(offset + 1, last + 1);
                continue;
            }
            if (response.error() != ErrorCode.NONE) {
                run.problems.add("consuming at offset " + offset + ": " + response.error());
                return;
            }
            List<RecordBatch> batches;
            try {
                batches = RecordBatch.decodeAll(response.records());
            } catch (CorruptBatchException e) {
                run.problems.add("the broker served a corrupt batch as good at offset " + offset + ": " + e.getMessage());
                return;
            }
            if (batches.isEmpty()) {
                return;
            }
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    found.putIfAbsent(Record.show(r.value()), r.offset());
                }
                offset = batch.nextOffset();
            }
        }
        run.problems.add("consuming took more than 100,000 fetches");
    }

    /** {@code klog consume} reports the corrupt batch with its offsets and fails; {@code --skip-corrupt} goes past it. */
    private static void checkConsumeCommand(BrokerProcess broker, List<long[]> corrupt, Run run) {
        if (corrupt.isEmpty()) {
            return;
        }
        String range = corrupt.get(0)[0] + ".." + corrupt.get(0)[1];
        String[] args = {"consume", "--host", broker.host(), "--port", Integer.toString(broker.port()), "--partition",
                PARTITION, "--wait-ms", "0"};
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int plain = Klog.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String said = err.toString(StandardCharsets.UTF_8);
        List<String> more = new ArrayList<>(List.of(args));
        more.add("--skip-corrupt");
        ByteArrayOutputStream err2 = new ByteArrayOutputStream();
        int skipping = Klog.run(more.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), new PrintStream(err2, true, StandardCharsets.UTF_8));
        run.notes.add("klog consume: exit " + plain + ", with --skip-corrupt: exit " + skipping);
        if (plain == Klog.OK || !said.contains("offsets " + range)) {
            run.problems.add("klog consume must name the corrupt batch (offsets " + range + ") and fail; it said: " + said);
        }
        if (skipping != Klog.OK || !err2.toString(StandardCharsets.UTF_8).contains("skipped")) {
            run.problems.add("klog consume --skip-corrupt must go past the corrupt batch; exit " + skipping);
        }
    }
}
