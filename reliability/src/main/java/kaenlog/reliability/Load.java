package kaenlog.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.client.BrokerClient;
import kaenlog.broker.BrokerConfig;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Item 5: producers and consumers at once on one broker (in this JVM, its real TCP port on
 * loopback, its ticker running). Each producer sends its records in seeded batch sizes to seeded
 * partitions, half of them with acks=1, half with acks=all; each consumer reads every partition
 * from offset 0 while they write, with parked fetches, until it has every record. Checked per
 * consumer: every record exactly once, the offsets of each partition consecutive (no gap, no
 * repeat), each producer's records in the order it sent them within a partition.
 */
public final class Load {
    /**
     * @param producers          producer threads, each on its own connection
     * @param recordsPerProducer records each one sends
     * @param consumers          consumer threads, each on its own connection, each reading everything
     * @param partitions         partitions the records are spread over
     * @param maxBatchRecords    batches of 1..max records
     */
    public record Config(long seed, int producers, int recordsPerProducer, int consumers, int partitions,
                         int maxBatchRecords) {
        /** The size: 4 producers x 50,000 records, 2 consumers. */
        public static Config full() {
            return new Config(5, 4, 50_000, 2, 2, 200);
        }
    }

    /** One consumer's figures. */
    public record ConsumerFigures(long records, long duplicates, long missing, long offsetGaps, long outOfOrder,
                                  long fetches) {
    }

    /** The figures of the run. */
    public record Result(Config config, long produced, long batches, long produceErrors, List<ConsumerFigures> consumers,
                         List<String> problems) implements Figures {
        public Result {
            consumers = List.copyOf(consumers);
            problems = List.copyOf(problems);
        }

        @Override
        public Row row() {
            return new Row("5 load " + config.producers() + "x" + config.recordsPerProducer() + ", " + config.consumers()
                    + " consumers", 1, produced, 0, consumers.stream().mapToLong(ConsumerFigures::missing).sum(),
                    consumers.stream().mapToLong(ConsumerFigures::duplicates).sum(), -1);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            lines.add(produced + " records acknowledged in " + batches + " batches over " + config.partitions()
                    + " partitions (acks=1 and acks=all), " + produceErrors + " produce errors");
            for (int c = 0; c < consumers.size(); c++) {
                ConsumerFigures f = consumers.get(c);
                lines.add("consumer " + c + ": " + f.records() + " records in " + f.fetches() + " fetches; missing "
                        + f.missing() + ", duplicates " + f.duplicates() + ", offset gaps " + f.offsetGaps()
                        + ", out of order " + f.outOfOrder());
            }
            return lines;
        }

        @Override
        public boolean ok() {
            long expected = (long) config.producers() * config.recordsPerProducer();
            return produced == expected && produceErrors == 0 && problems.isEmpty() && consumers.stream().allMatch(
                    f -> f.records() == expected && f.duplicates() == 0 && f.missing() == 0 && f.offsetGaps() == 0
                            && f.outOfOrder() == 0);
        }
    }

    private Load() {
    }

    public static Result run(Path dir, Config config) throws IOException {
        ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
        List<String> problems = new ArrayList<>();
        try (Broker broker = Broker.start(BrokerConfig.of(dir), new PrintStream(brokerLog, true, StandardCharsets.UTF_8))) {
            int startupBytes = brokerLog.size(); // the start-up lines (time, handlers, tasks) are not problems
            long total = (long) config.producers() * config.recordsPerProducer();
            AtomicLong produced = new AtomicLong();
            AtomicLong batches = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < config.producers(); p++) {
                int id = p;
                threads.add(start("load-producer-" + p, () -> produce(broker.port(), config, id, produced, batches,
                        errors, problems)));
            }
            ConsumerFigures[] figures = new ConsumerFigures[config.consumers()];
            for (int c = 0; c < config.consumers(); c++) {
                int id = c;
                threads.add(start("load-consumer-" + c, () -> figures[id] = consume(broker.port(), config, total,
                        problems)));
            }
            for (Thread t : threads) {
                try {
                    t.join(300_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                if (t.isAlive()) {
                    problems.add(t.getName() + " did not finish in 5 minutes");
                }
            }
            List<ConsumerFigures> consumers = new ArrayList<>();
            for (ConsumerFigures f : figures) {
                consumers.add(f == null ? new ConsumerFigures(0, 0, total, 0, 0, 0) : f);
            }
            byte[] logged = brokerLog.toByteArray();
            String log = new String(logged, startupBytes, logged.length - startupBytes, StandardCharsets.UTF_8).trim();
            if (!log.isEmpty()) {
                problems.add("broker log: " + log.lines().limit(3).toList());
            }
            return new Result(config, produced.get(), batches.get(), errors.get(), consumers, problems);
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String partition(int p) {
        return "load-" + p;
    }

    private static void produce(int port, Config config, int id, AtomicLong produced, AtomicLong batches,
                                AtomicLong errors, List<String> problems) {
        Random random = new Random(config.seed() * 100 + id);
        short acks = id % 2 == 0 ? ProduceRequest.ACKS_LEADER : ProduceRequest.ACKS_ALL;
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, port, 30_000)) {
            for (int seq = 0; seq < config.recordsPerProducer(); ) {
                int count = Math.min(1 + random.nextInt(config.maxBatchRecords()), config.recordsPerProducer() - seq);
                BatchBuilder builder = new BatchBuilder();
                for (int i = 0; i < count; i++) {
                    builder.append(0L, null, Ledger.value(id, seq + i));
                }
                ProduceResponse answer = client.produce(partition(random.nextInt(config.partitions())), acks,
                        builder.build());
                if (answer.error() != ErrorCode.NONE) {
                    errors.incrementAndGet();
                    synchronized (problems) {
                        problems.add("producer " + id + ": " + answer.error());
                    }
                    return;
                }
                seq += count;
                produced.addAndGet(count);
                batches.incrementAndGet();
            }
        } catch (IOException | RuntimeException e) {
            synchronized (problems) {
                problems.add("producer " + id + ": " + e);
            }
        }
    }

    /** Reads every partition round-robin from offset 0 until {@code total} records came, checking as it goes. */
    private static ConsumerFigures consume(int port, Config config, long total, List<String> problems) {
        long[] next = new long[config.partitions()];
        long[][] lastSeq = new long[config.partitions()][config.producers()];
        for (long[] row : lastSeq) {
            java.util.Arrays.fill(row, -1);
        }
        BitSet[] seen = new BitSet[config.producers()];
        for (int p = 0; p < seen.length; p++) {
            seen[p] = new BitSet(config.recordsPerProducer());
        }
        long records = 0;
        long duplicates = 0;
        long gaps = 0;
        long outOfOrder = 0;
        long fetches = 0;
        Deadline deadline = Deadline.in(240_000);
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, port, 30_000)) {
            while (records < total && !deadline.passed()) {
                for (int p = 0; p < config.partitions(); p++) {
                    FetchResponse answer = client.fetch(FetchRequest.consumer(partition(p), next[p], 32 * 1024, 20));
                    fetches++;
                    if (answer.error() != ErrorCode.NONE) {
                        // a partition nobody has produced to yet does not exist yet: ask again later
                        continue;
                    }
                    for (RecordBatch batch : RecordBatch.decodeAll(answer.records())) {
                        for (Record r : batch.records()) {
                            if (r.offset() < next[p]) {
                                continue;
                            }
                            if (r.offset() != next[p]) {
                                gaps++;
                            }
                            next[p] = r.offset() + 1;
                            long[] ps = Ledger.parse(Record.show(r.value()));
                            if (ps == null || ps[0] >= config.producers() || ps[1] >= config.recordsPerProducer()) {
                                continue;
                            }
                            int producer = (int) ps[0];
                            if (seen[producer].get((int) ps[1])) {
                                duplicates++;
                            } else {
                                seen[producer].set((int) ps[1]);
                                records++;
                            }
                            if (ps[1] <= lastSeq[p][producer]) {
                                outOfOrder++;
                            }
                            lastSeq[p][producer] = ps[1];
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            synchronized (problems) {
                problems.add("consumer: " + e);
            }
        }
        long missing = 0;
        for (BitSet s : seen) {
            missing += config.recordsPerProducer() - s.cardinality();
        }
        return new ConsumerFigures(records, duplicates, missing, gaps, outOfOrder, fetches);
    }
}
