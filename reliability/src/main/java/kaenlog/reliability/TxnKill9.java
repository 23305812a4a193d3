package kaenlog.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Row txn-kill9 (#40): SIGKILL of a {@code klog serve --kafka-port 0} in the middle of a transaction.
 * kafka-clients 4.1.1's transactional producer commits {@value #COMMITTED} transactions of
 * {@value #PER_COMMITTED} records over the {@value #PARTITIONS} partitions of a topic, begins one more,
 * sends {@value #OPEN} records over the three partitions and flushes them: they are in the log, no
 * marker follows them. The broker is killed and restarted on the same directory, twice over:
 * <ul>
 * <li>{@link Ending#ABORT_AT_TIMEOUT}: the producer is gone; the restarted coordinator replays
 *     {@code __transaction_state}, finds the transaction Ongoing and aborts it once its
 *     {@code transaction.timeout.ms} ({@value #SHORT_TIMEOUT_MS} ms) passed (Kafka's
 *     {@code abortTimedOutTransactions}): an ABORT marker in each partition, an entry in each
 *     partition's {@code .txnindex};</li>
 * <li>{@link Ending#COMPLETED_BY_PRODUCER}: the broker comes back on the same Kafka port and the same
 *     {@code KafkaProducer} calls {@code commitTransaction()}: its EndTxn is retried on the new
 *     connection, the restarted coordinator commits (a COMMIT marker in each partition).</li>
 * </ul>
 * Checked with figures: read_committed never reads a record of the open transaction and its end
 * offsets stop at the transaction's first offsets while it is open, before the kill and after the
 * restart; then it reads exactly what Kafka's semantics say (the committed records; read_uncommitted
 * those and the aborted ones too); Kafka's own {@code kafka.tools.DumpLogSegments --deep-iteration}
 * reads every segment and {@code .txnindex} file of the three partitions without an error and shows
 * the control batches and the aborted transaction's entries.
 */
final class TxnKill9 {
    static final String TOPIC = "txn-orders";
    static final int PARTITIONS = 3;
    static final int COMMITTED = 3;
    static final int PER_COMMITTED = 30;
    static final int OPEN = 100;
    /** transaction.timeout.ms of the abandoned transaction: short, so that the row stays short. */
    static final int SHORT_TIMEOUT_MS = 10_000;
    /** transaction.timeout.ms of the one its producer completes: longer than the kill and restart take. */
    static final int LONG_TIMEOUT_MS = 120_000;
    /** The bound of every wait on a client or the broker. */
    static final long WAIT_MS = 60_000;

    /** DumpLogSegments' lines: a batch's (its attributes), a control record's (its marker), a .txnindex entry's. */
    private static final Pattern CONTROL_BATCH = Pattern.compile("isControl: true");
    private static final Pattern MARKER = Pattern.compile("endTxnMarker: (ABORT|COMMIT)");
    private static final Pattern TXN_ENTRY = Pattern.compile("producerId: \\d+ firstOffset: (\\d+) lastOffset: (\\d+)");

    /** How the transaction left open at the kill ends. */
    enum Ending {
        ABORT_AT_TIMEOUT("abort at timeout", "SIGKILL mid-transaction, aborted at timeout"),
        COMPLETED_BY_PRODUCER("completed by the producer", "SIGKILL mid-transaction, producer commits");

        final String label;
        final String row;

        Ending(String label, String row) {
            this.label = label;
            this.row = row;
        }
    }

    /** One run: what it measured, and what did not hold. */
    record Outcome(Ending ending, long committedLost, long duplicates, List<String> lines, List<String> problems)
            implements VariantFigures.Variant {
        @Override
        public String label() {
            return ending.label;
        }

        @Override
        public Figures.Row row() {
            return new Figures.Row(ending.row, 1, COMMITTED * PER_COMMITTED + OPEN, 1, committedLost, duplicates,
                    ok() ? 1 : 0);
        }
    }

    /** Both runs, one row each. */
    record Result(List<Outcome> outcomes) implements VariantFigures {
        @Override
        public List<Outcome> variants() {
            return outcomes;
        }

        @Override
        public String title() {
            return "txn-kill9: SIGKILL of klog serve in the middle of a kafka-clients transaction";
        }
    }

    private TxnKill9() {
    }

    static Result run(Path dir, BrokerProcess.Options options) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        for (Ending ending : Ending.values()) {
            outcomes.add(run(Files.createDirectories(dir.resolve(ending.name().toLowerCase())), options, ending));
        }
        return new Result(outcomes);
    }

    static Outcome run(Path dir, BrokerProcess.Options options, Ending ending) throws IOException {
        Path data = dir.resolve("data");
        List<String> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> committed = new ArrayList<>();
        List<String> open = new ArrayList<>();
        Map<TopicPartition, Long> firstOffsets = new TreeMap<>(TxnKill9::byPartition);
        BrokerProcess broker = BrokerProcess.start(data, options.plusServeArgs("--kafka-port", "0"));
        KafkaProducer<String, String> producer = null;
        try {
            int kafkaPort = broker.kafkaPort();
            createTopic(kafkaPort);
            producer = producer(kafkaPort, ending);
            producer.initTransactions();
            for (int t = 0; t < COMMITTED; t++) {
                producer.beginTransaction();
                send(producer, "committed" + t, PER_COMMITTED, committed);
                producer.commitTransaction();
            }
            producer.beginTransaction();
            long begunNs = System.nanoTime();
            List<Future<RecordMetadata>> sent = send(producer, "open", OPEN, open);
            producer.flush(); // in the log, no marker after them
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata m = get(f);
                firstOffsets.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::min);
            }
            lines.add(COMMITTED + " transactions of " + PER_COMMITTED + " records committed over " + PARTITIONS
                    + " partitions, then one of " + OPEN + " records begun and flushed, no marker: its first offsets "
                    + firstOffsets.values());
            checkHeldBack(kafkaPort, firstOffsets, committed, open, "before the kill", lines, problems);

            int status = broker.kill();
            lines.add("SIGKILL of the broker (exit status " + status + "), restarted on the same directory"
                    + (ending == Ending.COMPLETED_BY_PRODUCER ? " and the same Kafka port" : ", the producer gone"));
            if (ending == Ending.ABORT_AT_TIMEOUT) {
                producer.close(Duration.ZERO);
                producer = null;
            }
            broker = BrokerProcess.start(data, options.plusServeArgs("--kafka-port",
                    ending == Ending.COMPLETED_BY_PRODUCER ? Integer.toString(kafkaPort) : "0"));
            kafkaPort = broker.kafkaPort();
            checkHeldBack(kafkaPort, firstOffsets, committed, open, "after the restart", lines, problems);

            List<String> expectCommitted = new ArrayList<>(committed);
            if (ending == Ending.ABORT_AT_TIMEOUT) {
                awaitAbort(kafkaPort, firstOffsets, begunNs, lines, problems);
            } else {
                long startNs = System.nanoTime();
                try {
                    producer.commitTransaction();
                    expectCommitted.addAll(open);
                    lines.add(String.format("the same KafkaProducer's commitTransaction() after the restart committed it"
                            + " in %.1f s (kafka-clients keeps the open transaction in the producer, and sends a"
                            + " transaction request cut by a disconnect again after a new FindCoordinator)",
                            seconds(System.nanoTime() - startNs)));
                } catch (RuntimeException e) {
                    problems.add("commitTransaction() after the restart threw " + e);
                }
            }
            List<String> all = new ArrayList<>(committed);
            all.addAll(open);
            long[] lostAndDuplicates = checkReads(kafkaPort, expectCommitted, all, lines, problems);
            broker.terminate();
            dump(data, ending, firstOffsets, lines, problems);
            return new Outcome(ending, lostAndDuplicates[0], lostAndDuplicates[1], lines, problems);
        } catch (RuntimeException e) {
            problems.add("the run stopped: " + e);
            return new Outcome(ending, -1, -1, lines, problems);
        } finally {
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            broker.close();
        }
    }

    /** The topic's three partitions, made with kafka-clients' Admin (CreateTopics). */
    private static void createTopic(int kafkaPort) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafkaPort,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT_MS))) {
            get(admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all());
        }
    }

    private static KafkaProducer<String, String> producer(int kafkaPort, Ending ending) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafkaPort);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-kill9");
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                ending == Ending.ABORT_AT_TIMEOUT ? SHORT_TIMEOUT_MS : LONG_TIMEOUT_MS);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) WAIT_MS);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) WAIT_MS);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(int kafkaPort, String isolation) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafkaPort);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT_MS);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer());
        consumer.assign(partitions());
        consumer.seekToBeginning(partitions());
        return consumer;
    }

    private static List<TopicPartition> partitions() {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(TOPIC, p));
        }
        return partitions;
    }

    /** {@code count} records named {@code name}-i, record i to partition i % 3. */
    private static List<Future<RecordMetadata>> send(KafkaProducer<String, String> producer, String name, int count,
                                                     List<String> values) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = name + "-" + i;
            sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value)));
            values.add(value);
        }
        return sent;
    }

    /**
     * Claim (a): while the transaction is open, read_committed's end offsets are its first offsets
     * and it reads the committed records, none of the open transaction's.
     */
    private static void checkHeldBack(int kafkaPort, Map<TopicPartition, Long> firstOffsets, List<String> committed,
                                      List<String> open, String when, List<String> lines, List<String> problems) {
        try (KafkaConsumer<String, String> consumer = consumer(kafkaPort, "read_committed")) {
            Map<TopicPartition, Long> ends = sorted(consumer.endOffsets(partitions()));
            List<String> read = readToEnd(consumer, ends);
            long ofOpen = read.stream().filter(open::contains).count();
            lines.add("read_committed " + when + ": end offsets " + ends.values() + ", read " + read.size()
                    + " records: " + count(read, committed) + " of the " + committed.size() + " committed, " + ofOpen
                    + " of the open transaction's " + open.size());
            if (!ends.equals(firstOffsets)) {
                problems.add(when + ": read_committed's end offsets " + ends.values()
                        + " are not the open transaction's first offsets " + firstOffsets.values());
            }
            if (ofOpen > 0 || !sameRecords(read, committed)) {
                problems.add(when + ": read_committed read " + read.size() + " records, " + ofOpen
                        + " of the open transaction; expected exactly the " + committed.size() + " committed");
            }
        }
    }

    /** Claim (b): the restarted coordinator aborts the transaction past its timeout: the LSO moves past it. */
    private static void awaitAbort(int kafkaPort, Map<TopicPartition, Long> firstOffsets, long begunNs,
                                   List<String> lines, List<String> problems) {
        try (KafkaConsumer<String, String> consumer = consumer(kafkaPort, "read_committed")) {
            Deadline deadline = Deadline.in(SHORT_TIMEOUT_MS + WAIT_MS);
            boolean moved = deadline.await(() -> {
                Deadline.pause(200); // one ListOffsets round trip in five per second
                Map<TopicPartition, Long> ends = consumer.endOffsets(partitions());
                return ends.entrySet().stream().allMatch(e -> e.getValue() > firstOffsets.get(e.getKey()));
            });
            double after = seconds(System.nanoTime() - begunNs);
            if (moved) {
                lines.add(String.format("the restarted coordinator aborted it %.1f s after it began (transaction.timeout.ms"
                        + " %d): read_committed's end offsets moved past it, to %s", after, SHORT_TIMEOUT_MS,
                        sorted(consumer.endOffsets(partitions())).values()));
                if (after * 1000 < SHORT_TIMEOUT_MS) {
                    problems.add(String.format("the transaction was aborted %.1f s after it began, before its timeout", after));
                }
            } else {
                problems.add(String.format("the open transaction was still holding read_committed's end offsets at %s"
                        + " %.1f s after it began (timeout %d ms): the restarted coordinator did not abort it",
                        sorted(consumer.endOffsets(partitions())).values(), after, SHORT_TIMEOUT_MS));
            }
        }
    }

    /**
     * What each isolation reads once the transaction ended; returns the committed records read_committed
     * missed and those it read twice.
     */
    private static long[] checkReads(int kafkaPort, List<String> expectCommitted, List<String> all, List<String> lines,
                                   List<String> problems) {
        List<String> committedRead;
        List<String> uncommittedRead;
        try (KafkaConsumer<String, String> consumer = consumer(kafkaPort, "read_committed")) {
            committedRead = readToEnd(consumer, consumer.endOffsets(partitions()));
        }
        try (KafkaConsumer<String, String> consumer = consumer(kafkaPort, "read_uncommitted")) {
            uncommittedRead = readToEnd(consumer, consumer.endOffsets(partitions()));
        }
        lines.add("then read_committed reads " + committedRead.size() + " records (expected exactly the "
                + expectCommitted.size() + " committed), read_uncommitted " + uncommittedRead.size() + " (expected "
                + all.size() + ": every record written)");
        if (!sameRecords(committedRead, expectCommitted)) {
            problems.add("read_committed read " + committedRead.size() + " records, not exactly the "
                    + expectCommitted.size() + " committed");
        }
        if (!sameRecords(uncommittedRead, all)) {
            problems.add("read_uncommitted read " + uncommittedRead.size() + " records, not exactly the " + all.size()
                    + " written");
        }
        return new long[] {expectCommitted.size() - count(committedRead, expectCommitted),
            committedRead.size() - committedRead.stream().distinct().count()};
    }

    /**
     * Claim (d): Kafka's DumpLogSegments --deep-iteration on every file of the three partitions (the
     * broker stopped): no error, the control batches, and the .txnindex entries of the aborted transaction.
     */
    private static void dump(Path data, Ending ending, Map<TopicPartition, Long> firstOffsets, List<String> lines,
                             List<String> problems) throws IOException {
        List<Path> segments = new ArrayList<>();
        List<Path> txnIndexes = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Stream<Path> files = Files.list(data.resolve(TOPIC + "-" + p))) {
                for (Path f : files.sorted().toList()) {
                    String name = f.getFileName().toString();
                    if (name.endsWith(".log")) {
                        segments.add(f);
                    } else if (name.endsWith(".txnindex")) {
                        txnIndexes.add(f);
                    }
                }
            }
        }
        List<Path> files = new ArrayList<>(segments);
        files.addAll(txnIndexes);
        Dump dump = dumpLogSegments(files);
        Map<String, Integer> markers = new TreeMap<>();
        List<String> entries = new ArrayList<>();
        int controlBatches = 0;
        for (String line : dump.output().split("\n")) {
            controlBatches += CONTROL_BATCH.matcher(line).find() ? 1 : 0;
            Matcher marker = MARKER.matcher(line);
            if (marker.find()) {
                markers.merge(marker.group(1), 1, Integer::sum);
            }
            Matcher entry = TXN_ENTRY.matcher(line);
            if (entry.find()) {
                entries.add("[" + entry.group(1) + ".." + entry.group(2) + "]");
            }
        }
        List<String> errors = dump.output().lines().filter(l -> l.contains("Exception") || l.contains("rror")
                || l.contains("Mismatch") || l.contains("Found ")).limit(3).toList();
        lines.add("DumpLogSegments --deep-iteration: " + segments.size() + " segments and " + txnIndexes.size()
                + " .txnindex files of the " + PARTITIONS + " partitions, exit status " + dump.status() + ", "
                + errors.size() + " error lines; " + controlBatches + " control batches (isControl: true), their markers: "
                + markers.getOrDefault("COMMIT", 0) + " COMMIT, " + markers.getOrDefault("ABORT", 0)
                + " ABORT; .txnindex entries " + entries);
        if (dump.status() != 0 || !errors.isEmpty()) {
            problems.add("DumpLogSegments: exit status " + dump.status() + ", " + errors);
        }
        int commits = COMMITTED * PARTITIONS + (ending == Ending.COMPLETED_BY_PRODUCER ? PARTITIONS : 0);
        int aborts = ending == Ending.ABORT_AT_TIMEOUT ? PARTITIONS : 0;
        if (markers.getOrDefault("COMMIT", 0) != commits || markers.getOrDefault("ABORT", 0) != aborts
                || controlBatches != commits + aborts) {
            problems.add("DumpLogSegments shows " + controlBatches + " control batches, markers " + markers + "; expected " + commits + " COMMIT and "
                    + aborts + " ABORT (one per partition of each transaction)");
        }
        if (entries.size() != aborts || entries.stream().anyMatch(e -> firstOffsets.values().stream()
                .noneMatch(first -> e.startsWith("[" + first + "..")))) {
            problems.add(".txnindex entries " + entries + "; expected " + aborts + ", each from an open transaction's"
                    + " first offset " + firstOffsets.values());
        }
    }

    record Dump(int status, String output) {
    }

    /** kafka.tools.DumpLogSegments in its own JVM on this classpath (it prints with Scala's Console). */
    static Dump dumpLogSegments(List<Path> files) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "kafka.tools.DumpLogSegments", "--deep-iteration",
                "--files", String.join(",", files.stream().map(Path::toString).toList())));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("DumpLogSegments did not finish within " + WAIT_MS + " ms");
            }
            return new Dump(process.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while DumpLogSegments ran", e);
        }
    }

    /** Every record until the consumer's positions reach {@code ends}, bounded. */
    private static List<String> readToEnd(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
        List<String> values = new ArrayList<>();
        Deadline deadline = Deadline.in(WAIT_MS);
        while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            if (deadline.passed()) {
                throw new IllegalStateException("the consumer did not reach the end offsets " + ends + " within "
                        + WAIT_MS + " ms (" + values.size() + " records read)");
            }
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                values.add(r.value());
            }
        }
        return values;
    }

    private static boolean sameRecords(List<String> read, List<String> expected) {
        return read.size() == expected.size() && Set.copyOf(read).equals(Set.copyOf(expected))
                && Set.copyOf(read).size() == read.size();
    }

    private static long count(List<String> read, List<String> of) {
        Set<String> set = Set.copyOf(of);
        return read.stream().distinct().filter(set::contains).count();
    }

    private static Map<TopicPartition, Long> sorted(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, Long> sorted = new TreeMap<>(TxnKill9::byPartition);
        sorted.putAll(offsets);
        return sorted;
    }

    private static int byPartition(TopicPartition a, TopicPartition b) {
        return Integer.compare(a.partition(), b.partition());
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static <T> T get(Future<T> future) {
        try {
            return future.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + WAIT_MS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
