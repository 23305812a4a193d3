package kaenlog.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Row streams-eos (#40): Kafka Streams' word count with {@code processing.guarantee=exactly_once_v2}
 * ({@link StreamsWordCountChild}, a JVM of its own) against one {@code klog serve --kafka-port 0},
 * SIGKILLed half way and restarted, {@link Config#kills} times, while a producer keeps writing lines
 * to its input. Each kill comes once the application has committed new output since it (re)started,
 * so it lands in the middle of its work: with input flowing and a commit every 100 ms (Streams'
 * default under exactly-once), its transaction is open. What the kill left open, output, repartition
 * records, changelog updates and input offsets alike, is aborted as the {@link Restart} says: by the
 * fence of the restarted application (the same transactional id, its process id kept in its state
 * directory), or at its timeout (a new transactional id: the state directory lost, or the tasks taken
 * over by a second instance). The count store is restored from its changelog as read_committed reads
 * it, and the input is read again from the committed offsets. A last row freezes an instance instead
 * (SIGSTOP) and wakes it (SIGCONT) once the other took its tasks over: a zombie, whose late requests the
 * coordinator, the partitions and the group must all refuse.
 *
 * <p>What exactly-once promises, checked on {@value StreamsWordCountChild#OUTPUT} read with
 * {@code read_committed}: each word's counts are 1, 2, 3, ..., its number of occurrences in the
 * input, in that order, none repeated (no count double-applied) and none skipped (the store's cache is
 * off, so every update is sent; with a cache, Streams may skip intermediate counts, never repeat one).
 * read_uncommitted shows what the kills left behind and the coordinator aborted. Then: the group's
 * committed offsets are the input's end offsets; no transaction is left open on any partition the
 * application wrote (each one's last stable offset is its high watermark); the broker's log names no
 * request Streams sent that it does not answer or build; and Kafka's DumpLogSegments reads the
 * segments, with an ABORT marker in at least one of them (a kill hit a transaction in flight).
 */
final class StreamsEosKill9 {
    static final String INPUT = StreamsWordCountChild.INPUT;
    static final String OUTPUT = StreamsWordCountChild.OUTPUT;
    static final String APPLICATION = StreamsWordCountChild.APPLICATION;
    /** The topic Streams made for the count's input, keyed by word (the groupBy). */
    static final String REPARTITION = APPLICATION + "-counts-repartition";
    /** Every topic the application's transactions write records to: its output, and Streams' two. */
    static final List<String> WRITTEN = List.of(OUTPUT, REPARTITION, APPLICATION + "-counts-changelog");
    /** Every topic Metadata or CreateTopics makes here without a count: the input, the output, Streams' two. */
    static final int PARTITIONS = 2;
    /** The bound of every wait on a client, the broker or the application. */
    static final long WAIT_MS = 90_000;
    /** Kills of a single instance beyond the row's, until one left records of an open transaction in the log. */
    static final int EXTRA_KILLS = 8;

    /**
     * The row's size.
     *
     * @param kills          SIGKILLs of the application, each followed by a restart (a single instance:
     *                       more, {@link #EXTRA_KILLS} at most, until one left records of an open transaction in
     *                       the log); with two instances, SIGKILLs or SIGSTOPs
     * @param minLines       input lines at least (the producer goes on until the last restart)
     * @param linesPerSecond the producer's pace: input keeps coming while the application is killed
     * @param progress       offsets of committed output (read_committed's end offsets) the application
     *                       must have added since its start before it is killed
     */
    record Config(int kills, int minLines, int linesPerSecond, int progress) {
        static Config quick() {
            return new Config(2, 1_000, 200, 60);
        }

        static Config full() {
            return new Config(5, 3_000, 200, 60);
        }
    }

    /** What becomes of the killed application's open transaction: how it is restarted. */
    enum Restart {
        /**
         * On its state directory: Streams reads its process id back, so its producer has the killed
         * one's transactional id, and its InitProducerId fences it (the coordinator aborts what it left
         * open at a bumped epoch before the new producer may begin).
         */
        SAME_STATE("restarted on its state directory: the successor's InitProducerId fences it",
                "SIGKILL of Streams EOS, fenced at restart"),
        /**
         * Without it (a container's disk gone with it): a new process id, a new transactional id; the
         * killed transaction is aborted by the coordinator at its {@code transaction.timeout.ms}
         * (Streams' default under exactly-once: 10000), and until then it holds the last stable offset of
         * every partition it wrote, so the successor's read_committed consumers wait behind it.
         */
        STATE_LOST("restarted without its state directory: aborted at its transaction timeout",
                "SIGKILL of Streams EOS, state lost"),
        /**
         * One of two instances (dynamic members of the group, sessions of 6 s) killed: once its session
         * expired the survivor takes its tasks over (its own transactional id: the killed transaction is
         * aborted at its timeout), commits new output alone, and only then is the killed one restarted.
         */
        TAKEOVER("one of two instances killed, its tasks taken over by the other, then restarted",
                "SIGKILL of Streams EOS, tasks taken over"),
        /**
         * As {@link #TAKEOVER}, but the instance is frozen (SIGSTOP) instead of killed, and once the other
         * took its tasks over it goes on (SIGCONT) as if nothing happened: a zombie (KIP-447's case). Its
         * transaction was aborted at its timeout, its producer's epoch bumped (PRODUCER_FENCED,
         * INVALID_PRODUCER_EPOCH), its member removed from the group (its offsets refused by generation):
         * nothing it sends after it wakes up may count.
         */
        ZOMBIE("one of two instances frozen (SIGSTOP) until the other took its tasks over, then woken up (SIGCONT)",
                "SIGSTOP of Streams EOS, a zombie woken");

        final String label;
        final String row;

        Restart(String label, String row) {
            this.label = label;
            this.row = row;
        }
    }

    /** One run: what it measured, and what did not hold. */
    record Outcome(Restart restart, int kills, long countUpdates, long lost, long duplicates, List<String> lines,
                   List<String> problems) implements VariantFigures.Variant {
        @Override
        public String label() {
            return restart.label;
        }

        @Override
        public Figures.Row row() {
            return new Figures.Row(restart.row, 1, countUpdates, kills, lost, duplicates, ok() ? kills : 0);
        }
    }

    /** The runs, one row each. */
    record Result(List<Outcome> outcomes) implements VariantFigures {
        @Override
        public List<Outcome> variants() {
            return outcomes;
        }

        @Override
        public String title() {
            return "streams-eos: Kafka Streams' word count with exactly_once_v2, SIGKILLed (or SIGSTOPped) half way";
        }
    }

    private StreamsEosKill9() {
    }

    static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        for (Restart restart : Restart.values()) {
            outcomes.add(run(Files.createDirectories(dir.resolve(restart.name().toLowerCase())), options, config,
                    restart));
        }
        return new Result(outcomes);
    }

    static Outcome run(Path dir, BrokerProcess.Options options, Config config, Restart restart) throws IOException {
        List<String> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean takeover = restart == Restart.TAKEOVER || restart == Restart.ZOMBIE;
        String instance = takeover ? "-" : "wordcount-eos-instance";
        List<Path> stateDirs = new ArrayList<>();
        for (int i = 0; i < (takeover ? 2 : 1); i++) {
            stateDirs.add(Files.createDirectories(dir.resolve("streams-state-" + i)));
        }
        BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), options.plusServeArgs("--kafka-port", "0",
                "--config", "num.partitions=" + PARTITIONS, "--config", "group.initial.rebalance.delay.ms=0"));
        List<App> apps = new ArrayList<>();
        try (broker; Input input = new Input("127.0.0.1:" + broker.kafkaPort(), config.linesPerSecond())) {
            String bootstrap = "127.0.0.1:" + broker.kafkaPort();
            input.awaitFirst(); // the input topic exists (Metadata's auto-create) before the application asks for it
            int openAtKills = 0;
            List<String> restarts = new ArrayList<>();
            List<String> takeovers = new ArrayList<>();
            for (Path stateDir : stateDirs) {
                apps.add(App.start(bootstrap, stateDir, instance));
            }
            long startNs = System.nanoTime();
            int kills = 0;
            // A single instance is killed again (at most EXTRA_KILLS more times) until a kill left records of an
            // open transaction in the log: a kill in a commit, or between two transactions, leaves nothing to abort.
            for (int k = 1; k <= config.kills() || !takeover && openAtKills == 0 && k <= config.kills() + EXTRA_KILLS;
                 k++) {
                kills++;
                long before = sum(endOffsets(bootstrap, "read_committed", OUTPUT));
                if (!awaitRunning(apps, "run " + k, problems)) {
                    break;
                }
                restarts.add(String.format("%.1f", seconds(System.nanoTime() - startNs)));
                int v = victim(apps);
                App victim = apps.get(v);
                boolean progressed = Deadline.in(WAIT_MS).await(() -> {
                    Deadline.pause(50);
                    return !victim.isAlive() || sum(endOffsets(bootstrap, "read_committed", OUTPUT)) >= before
                            + config.progress();
                });
                if (!progressed || !victim.isAlive()) {
                    problems.add("run " + k + " of the application committed no new output within " + WAIT_MS
                            + " ms (alive: " + victim.isAlive() + "): " + victim.output());
                    break;
                }
                if (!takeover) {
                    awaitDataOfAnOpenTransaction(bootstrap); // aim the kill: aborted records in the log, not only markers
                }
                String tasks = victim.activeTasks();
                int status = -1;
                if (restart == Restart.ZOMBIE) {
                    victim.signal("STOP");
                    lines.add("SIGSTOP " + k + " of the instance running tasks " + tasks + " after " + input.sent()
                            + " lines sent, the other running on");
                } else {
                    status = victim.kill();
                }
                if (restart == Restart.TAKEOVER) {
                    lines.add("kill " + k + " (SIGKILL, exit status " + status + ") of the instance running tasks "
                            + tasks + " after " + input.sent() + " lines sent, the other running on");
                }
                if (takeover) {
                    App survivor = apps.get(1 - v);
                    long takeoverNs = System.nanoTime();
                    Map<TopicPartition, Long> atKill = new HashMap<>(endOffsets(bootstrap, "read_uncommitted", INPUT));
                    atKill.putAll(endOffsets(bootstrap, "read_uncommitted", REPARTITION));
                    boolean tookOver = Deadline.in(WAIT_MS).await(() -> {
                        Deadline.pause(200);
                        return !survivor.isAlive() || committedPast(bootstrap, atKill);
                    });
                    if (!tookOver || !survivor.isAlive()) {
                        problems.add("after fault " + k + " the other instance did not take the stopped one's tasks over"
                                + " within " + WAIT_MS + " ms (alive: " + survivor.isAlive() + "): " + survivor.output());
                        break;
                    }
                    takeovers.add(String.format("%.1f", seconds(System.nanoTime() - takeoverNs)));
                } else {
                    List<String> open = openTransactions(bootstrap);
                    openAtKills += open.isEmpty() ? 0 : 1;
                    lines.add("kill " + k + " (SIGKILL, exit status " + status + ") after " + input.sent()
                            + " lines sent: " + (open.isEmpty() ? "no transaction open"
                            : "a transaction open on " + open + " (last stable offset below the high watermark)"));
                }
                if (restart == Restart.STATE_LOST) {
                    Directories.deleteTree(stateDirs.get(v));
                    Files.createDirectories(stateDirs.get(v));
                }
                startNs = System.nanoTime();
                if (restart == Restart.ZOMBIE) {
                    victim.forgetTasks();
                    victim.signal("CONT");
                } else {
                    apps.set(v, App.start(bootstrap, stateDirs.get(v), instance));
                }
            }
            if (!problems.isEmpty()) {
                return new Outcome(restart, kills, -1, -1, -1, lines, problems);
            }
            if (!takeover && openAtKills == 0) {
                problems.add("none of the " + kills + " kills left records of an open transaction in the log:"
                        + " read_committed never had aborted records to skip");
            }
            awaitRunning(apps, "the last run", problems);
            restarts.add(String.format("%.1f", seconds(System.nanoTime() - startNs)));
            List<String> sent = input.finish(config.minLines(), problems);
            Map<String, Long> expected = counts(sent);
            long updates = expected.values().stream().mapToLong(Long::longValue).sum();
            boolean zombie = restart == Restart.ZOMBIE;
            lines.add(sent.size() + " lines (" + updates + " words, " + expected.size() + " distinct) sent at "
                    + config.linesPerSecond() + " lines/s while the application ran, was "
                    + (zombie ? "frozen " + kills + " times and woken"
                    : "killed " + kills + " times and restarted; seconds from each start to RUNNING: " + restarts));
            if (takeover) {
                lines.add("seconds from each " + (zombie ? "SIGSTOP" : "kill") + " until the other instance alone had"
                        + " committed every input and repartition partition past its end then (the "
                        + (zombie ? "frozen" : "killed") + " one's session expired, its tasks reassigned, its transaction"
                        + " aborted at its timeout): " + takeovers);
            }

            Map<String, List<Long>> committed = readCounts(bootstrap, "read_committed", expected, WAIT_MS);
            Map<String, List<Long>> uncommitted = readCounts(bootstrap, "read_uncommitted", expected, 0);
            long[] lostAndDuplicates = check(expected, committed, problems);
            long committedRecords = records(committed);
            long uncommittedRecords = records(uncommitted);
            lines.add("read_committed reads " + committedRecords + " counts of the " + updates + " words: "
                    + (lostAndDuplicates[0] == 0 && lostAndDuplicates[1] == 0 && problems.isEmpty()
                    ? "each word's counts are 1, 2, ..., its occurrences, none repeated, none skipped"
                    : lostAndDuplicates[0] + " missing, " + lostAndDuplicates[1] + " repeated"));
            lines.add("read_uncommitted reads " + uncommittedRecords + ": " + (uncommittedRecords - committedRecords)
                    + " counts of aborted transactions (what the killed applications had sent)");
            checkCommittedInput(bootstrap, lines, problems);
            for (App app : apps) {
                app.close();
            }
            apps.clear();
            List<String> open = openTransactions(bootstrap);
            lines.add("after a clean close: " + (open.isEmpty() ? "no transaction open on any partition it wrote"
                    : "transactions open on " + open));
            if (!open.isEmpty()) {
                problems.add("transactions still open after the application closed: " + open);
            }
            broker.terminate();
            List<String> unanswered = broker.log().stream().filter(l -> l.contains(" asked for ")).toList();
            lines.add("the broker's log names " + unanswered.size() + " requests it does not answer or build"
                    + (unanswered.isEmpty() ? "" : ": " + unanswered.subList(0, Math.min(3, unanswered.size()))));
            if (!unanswered.isEmpty()) {
                problems.add("Streams asked the broker for what it does not answer or build: " + unanswered.get(0));
            }
            checkMarkers(dir.resolve("data"), takeover ? -1 : openAtKills, kills, lines, problems);
            return new Outcome(restart, kills, updates, lostAndDuplicates[0], lostAndDuplicates[1], lines, problems);
        } catch (RuntimeException e) {
            problems.add("the run stopped: " + e);
            return new Outcome(restart, config.kills(), -1, -1, -1, lines, problems);
        } finally {
            for (App app : apps) {
                app.kill();
            }
        }
    }

    /** Waits for every instance to reach RUNNING; false, with a problem, when one did not. */
    private static boolean awaitRunning(List<App> apps, String run, List<String> problems) {
        for (App app : apps) {
            if (!app.awaitRunning()) {
                problems.add(run + " of the application did not reach RUNNING within " + WAIT_MS + " ms: " + app.output());
                return false;
            }
        }
        return true;
    }

    /**
     * The instance to kill: the one running the most tasks once one runs any (bounded). With two
     * instances Streams keeps tasks where their state is (a restarted instance may run none until a
     * later rebalance), and killing an instance without tasks kills no transaction.
     */
    private static int victim(List<App> apps) {
        Deadline.in(WAIT_MS).await(() -> apps.stream().anyMatch(a -> a.activeTaskCount() > 0));
        int victim = 0;
        for (int i = 1; i < apps.size(); i++) {
            if (apps.get(i).activeTaskCount() > apps.get(victim).activeTaskCount()) {
                victim = i;
            }
        }
        return victim;
    }

    /**
     * Each word's counts against 1, 2, ..., its occurrences: returns the updates missing (a word's
     * counts short of its occurrences, or skipped) and those repeated (a count read twice: double-applied).
     */
    static long[] check(Map<String, Long> expected, Map<String, List<Long>> read, List<String> problems) {
        long lost = 0;
        long duplicates = 0;
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Long> word : expected.entrySet()) {
            List<Long> counts = read.getOrDefault(word.getKey(), List.of());
            long distinct = counts.stream().distinct().filter(c -> c >= 1 && c <= word.getValue()).count();
            lost += word.getValue() - distinct;
            duplicates += counts.size() - counts.stream().distinct().count();
            if (!counts.equals(oneByOne(word.getValue()))) {
                wrong.add(word.getKey() + " (" + word.getValue() + " occurrences): " + shortened(counts));
            }
        }
        Set<String> unexpected = new java.util.TreeSet<>(read.keySet());
        unexpected.removeAll(expected.keySet());
        if (!wrong.isEmpty()) {
            problems.add("read_committed's counts are not 1, 2, ..., occurrences for " + wrong.size() + " words: "
                    + wrong.subList(0, Math.min(3, wrong.size())));
        }
        if (!unexpected.isEmpty()) {
            problems.add("read_committed has counts of words not in the input: " + unexpected);
        }
        return new long[] {lost, duplicates};
    }

    private static List<Long> oneByOne(long count) {
        List<Long> sequence = new ArrayList<>();
        for (long c = 1; c <= count; c++) {
            sequence.add(c);
        }
        return sequence;
    }

    private static String shortened(List<Long> counts) {
        if (counts.size() <= 12) {
            return counts.toString();
        }
        return counts.subList(0, 6) + "..." + counts.subList(counts.size() - 6, counts.size());
    }

    private static long records(Map<String, List<Long>> counts) {
        return counts.values().stream().mapToLong(List::size).sum();
    }

    /** Line i of the input: 1 to 5 words out of 13, deterministic. */
    static String line(int i) {
        String[] vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu".split(" ");
        StringBuilder line = new StringBuilder();
        for (int j = 0; j <= i % 5; j++) {
            line.append(j == 0 ? "" : " ").append(vocabulary[(i * 7 + j * 3) % vocabulary.length]);
        }
        return line.toString();
    }

    static Map<String, Long> counts(List<String> lines) {
        Map<String, Long> counts = new TreeMap<>();
        lines.forEach(l -> Arrays.stream(l.split(" ")).forEach(w -> counts.merge(w, 1L, Long::sum)));
        return counts;
    }

    /** The partitions of {@code topic} (Streams' internal topics are named after the application and the store). */
    private static List<TopicPartition> partitions(String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        return partitions;
    }

    private static KafkaConsumer<String, Long> consumer(String bootstrap, String isolation) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT_MS);
        return new KafkaConsumer<>(config, new StringDeserializer(), new LongDeserializer());
    }

    /** The end offsets of {@code topic} as {@code isolation} sees them: the high watermark, or the last stable offset. */
    private static Map<TopicPartition, Long> endOffsets(String bootstrap, String isolation, String topic) {
        try (KafkaConsumer<String, Long> consumer = consumer(bootstrap, isolation)) {
            return consumer.endOffsets(partitions(topic));
        }
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * True when the group's committed offsets of every partition in {@code ends} (the input's and the
     * repartition topic's, each consumed by one task) reached the offset given: each was processed past it,
     * by whichever instance has its task now.
     */
    private static boolean committedPast(String bootstrap, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> committed = committed(bootstrap, ends.keySet());
        return ends.entrySet().stream().allMatch(e -> committed.get(e.getKey()) >= e.getValue());
    }

    /**
     * The application's group's committed offset of each partition (-1: none), as kafka-clients' consumer
     * asks for it (OffsetFetch with require_stable: a transaction's pending offsets are waited out).
     */
    private static Map<TopicPartition, Long> committed(String bootstrap, Set<TopicPartition> partitions) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, APPLICATION);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT_MS);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            Map<TopicPartition, OffsetAndMetadata> read = consumer.committed(partitions);
            Map<TopicPartition, Long> committed = new HashMap<>();
            partitions.forEach(p -> committed.put(p, read.get(p) == null ? -1 : read.get(p).offset()));
            return committed;
        }
    }

    /**
     * Waits (10 s at most) until a partition the application writes has records of an open transaction
     * (its last stable offset below its high watermark): Streams' producer lingers up to 100 ms, as long
     * as a commit interval, so an open transaction's records are mostly still in its buffer, and a kill
     * then leaves only markers to write. A kill right after this mostly leaves aborted records that
     * read_committed must skip (not always: the transaction may end first, hence the extra kills).
     */
    private static void awaitDataOfAnOpenTransaction(String bootstrap) {
        List<TopicPartition> written = new ArrayList<>();
        for (String topic : WRITTEN) {
            written.addAll(partitions(topic));
        }
        try (KafkaConsumer<String, Long> stable = consumer(bootstrap, "read_committed");
             KafkaConsumer<String, Long> high = consumer(bootstrap, "read_uncommitted")) {
            Deadline.in(10_000).await(() -> {
                // the high watermark first: a last stable offset read after it and below it is a transaction open
                // then, never a commit appended between the two reads
                Map<TopicPartition, Long> hw = high.endOffsets(written);
                Map<TopicPartition, Long> lso = stable.endOffsets(written);
                return written.stream().anyMatch(p -> lso.get(p) < hw.get(p));
            });
        }
    }

    /** The partitions the application writes whose last stable offset is below their high watermark. */
    private static List<String> openTransactions(String bootstrap) {
        List<String> open = new ArrayList<>();
        for (String topic : WRITTEN) {
            Map<TopicPartition, Long> stable = endOffsets(bootstrap, "read_committed", topic);
            Map<TopicPartition, Long> high = endOffsets(bootstrap, "read_uncommitted", topic);
            for (TopicPartition p : partitions(topic)) {
                if (stable.get(p) < high.get(p)) {
                    open.add(p.toString());
                }
            }
        }
        return open;
    }

    /**
     * Every count of every word, in the order the output holds them, read with {@code isolation} from the
     * beginning to the end offsets; with a wait, reads on until each word's last count is {@code expected}'s.
     */
    private static Map<String, List<Long>> readCounts(String bootstrap, String isolation, Map<String, Long> expected,
                                                      long waitMs) {
        Deadline deadline = Deadline.in(waitMs);
        while (true) {
            Map<String, List<Long>> counts = readToEnd(bootstrap, isolation);
            Map<String, Long> last = new TreeMap<>();
            counts.forEach((word, sequence) -> last.put(word, sequence.get(sequence.size() - 1)));
            if (last.equals(expected) || deadline.passed()) {
                return counts;
            }
            Deadline.pause(500);
        }
    }

    private static Map<String, List<Long>> readToEnd(String bootstrap, String isolation) {
        Map<String, List<Long>> counts = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer = consumer(bootstrap, isolation)) {
            List<TopicPartition> partitions = partitions(OUTPUT);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Deadline deadline = Deadline.in(WAIT_MS);
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                if (deadline.passed()) {
                    throw new IllegalStateException("the consumer did not reach the end offsets " + ends + " within "
                            + WAIT_MS + " ms");
                }
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        return counts;
    }

    /**
     * The markers in every partition the application's transactions touched, as Kafka's DumpLogSegments
     * reads them (the broker stopped): COMMIT markers of its commits, and ABORT markers of the transactions
     * the kills left open, aborted by the restarted application's fence. Data in the log at a kill is not
     * needed for that: Streams' producer lingers (100 ms, as long as a commit interval), so an open
     * transaction's records are mostly still in its buffer, but its partitions were added, and each gets
     * its ABORT marker. Claim: at least one kill hit a transaction in flight, and Kafka's tool reads the
     * segments without an error.
     */
    private static void checkMarkers(Path data, int openAtKills, int kills, List<String> lines, List<String> problems)
            throws IOException {
        List<String> topics = List.of(OUTPUT, REPARTITION, APPLICATION + "-counts-changelog",
                "__consumer_offsets");
        List<Path> segments = new ArrayList<>();
        try (var partitions = Files.list(data)) {
            for (Path partition : partitions.sorted().toList()) {
                String name = partition.getFileName().toString();
                if (topics.contains(name.substring(0, Math.max(0, name.lastIndexOf('-'))))) {
                    try (var files = Files.list(partition)) {
                        files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().forEach(segments::add);
                    }
                }
            }
        }
        TxnKill9.Dump dump = TxnKill9.dumpLogSegments(segments);
        Map<String, int[]> markers = new TreeMap<>();
        String topic = "";
        for (String line : dump.output().split("\n")) {
            if (line.startsWith("Dumping ")) {
                String partition = Path.of(line.substring("Dumping ".length()).trim()).getParent().getFileName().toString();
                topic = partition.substring(0, partition.lastIndexOf('-'));
            } else if (line.contains("endTxnMarker: COMMIT")) {
                markers.computeIfAbsent(topic, t -> new int[2])[0]++;
            } else if (line.contains("endTxnMarker: ABORT")) {
                markers.computeIfAbsent(topic, t -> new int[2])[1]++;
            }
        }
        List<String> errors = dump.output().lines().filter(l -> l.contains("Exception") || l.contains("rror")
                || l.contains("Mismatch")).limit(3).toList();
        List<String> perTopic = new ArrayList<>();
        int aborts = 0;
        for (Map.Entry<String, int[]> t : markers.entrySet()) {
            perTopic.add(t.getKey() + " " + t.getValue()[0] + " COMMIT, " + t.getValue()[1] + " ABORT");
            aborts += t.getValue()[1];
        }
        String open = openAtKills < 0 ? ""
                : openAtKills + " of the " + kills + " kills left records of an open transaction in the log; ";
        lines.add(open + "Kafka's DumpLogSegments on the " + segments.size() + " segments it wrote (exit status "
                + dump.status() + ", " + errors.size() + " error lines): markers " + perTopic);
        if (dump.status() != 0 || !errors.isEmpty()) {
            problems.add("DumpLogSegments: exit status " + dump.status() + ", " + errors);
        }
        if (aborts == 0) {
            problems.add("no ABORT marker in any partition the application wrote: no kill hit a transaction in flight,"
                    + " the row proved nothing about what a kill leaves");
        }
    }

    /** The group's committed offsets are the input's end offsets: every line's offset went through a transaction. */
    private static void checkCommittedInput(String bootstrap, List<String> lines, List<String> problems) {
        List<TopicPartition> input = partitions(INPUT);
        Map<TopicPartition, Long> committed = committed(bootstrap, Set.copyOf(input));
        Map<TopicPartition, Long> ends = endOffsets(bootstrap, "read_uncommitted", INPUT);
        List<String> pairs = new ArrayList<>();
        for (TopicPartition p : input) {
            pairs.add(p + " " + committed.get(p) + "/" + ends.get(p));
        }
        lines.add("the group's committed input offsets / end offsets: " + pairs);
        if (!committed.equals(ends)) {
            problems.add("the group's committed offsets are not the input's end offsets: " + pairs);
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /**
     * The input: line after line to {@value #INPUT}, at a steady pace, from a thread of its own, until
     * {@link #finish} (and {@code minLines} at least). Every line is acknowledged (acks=all, idempotent).
     */
    static final class Input implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final int linesPerSecond;
        private final List<String> sent = new ArrayList<>();
        private final List<String> errors = new ArrayList<>();
        private final Thread thread;
        private volatile int minLines = Integer.MAX_VALUE;
        private volatile boolean stop;

        Input(String bootstrap, int linesPerSecond) {
            Map<String, Object> config = new HashMap<>();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) WAIT_MS);
            this.producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
            this.linesPerSecond = linesPerSecond;
            this.thread = new Thread(this::send, "streams-eos-input");
            thread.setDaemon(true);
            thread.start();
        }

        private void send() {
            long startNs = System.nanoTime();
            for (int i = 0; !stop || i < minLines; i++) {
                long dueNs = startNs + i * 1_000_000_000L / linesPerSecond;
                long waitMs = (dueNs - System.nanoTime()) / 1_000_000L;
                if (waitMs > 0) {
                    Deadline.pause(waitMs);
                }
                String line = line(i);
                producer.send(new ProducerRecord<>(INPUT, "line-" + i, line), (metadata, e) -> {
                    if (e != null) {
                        synchronized (errors) {
                            errors.add(e.toString());
                        }
                    }
                });
                synchronized (sent) {
                    sent.add(line);
                }
            }
            producer.flush();
        }

        int sent() {
            synchronized (sent) {
                return sent.size();
            }
        }

        /** Waits until the first line is acknowledged: the input topic exists. */
        void awaitFirst() {
            if (!Deadline.in(WAIT_MS).await(() -> sent() > 0)) {
                throw new IllegalStateException("no input line was sent within " + WAIT_MS + " ms");
            }
            producer.flush();
        }

        /** Stops the input once {@code atLeast} lines are sent; returns them, every one acknowledged. */
        List<String> finish(int atLeast, List<String> problems) {
            minLines = atLeast;
            stop = true;
            try {
                thread.join(WAIT_MS + (long) atLeast * 1000 / linesPerSecond);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (thread.isAlive()) {
                problems.add("the input producer did not finish");
            }
            synchronized (errors) {
                if (!errors.isEmpty()) {
                    problems.add(errors.size() + " input lines were not acknowledged: " + errors.get(0));
                }
            }
            synchronized (sent) {
                return List.copyOf(sent);
            }
        }

        @Override
        public void close() {
            stop = true;
            minLines = 0;
            try {
                thread.join(WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    /** The application's JVM: started, awaited, SIGKILLed, or closed with SIGTERM (its shutdown hook closes Streams). */
    static final class App {
        private final Process process;
        private final List<String> output = new ArrayList<>();
        /** Where in {@link #output} its tasks were last said afresh. */
        private int tasksSaidFrom;

        private App(Process process) {
            this.process = process;
            Thread drain = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        synchronized (output) {
                            if (output.size() < 10_000) {
                                output.add(line);
                            }
                        }
                    }
                } catch (IOException ended) {
                    // the process is gone
                }
            }, "streams-eos-app-output");
            drain.setDaemon(true);
            drain.start();
        }

        static App start(String bootstrap, Path stateDir, String instanceId) throws IOException {
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dfile.encoding=UTF-8",
                    "-cp", System.getProperty("java.class.path"), StreamsWordCountChild.class.getName(),
                    bootstrap, stateDir.toString(), instanceId);
            return new App(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        boolean awaitRunning() {
            return Deadline.in(WAIT_MS).await(() -> {
                synchronized (output) {
                    return output.contains(StreamsWordCountChild.STATE + "RUNNING") || !process.isAlive();
                }
            }) && process.isAlive();
        }

        boolean isAlive() {
            return process.isAlive();
        }

        /**
         * Its tasks are not known until it says them again: a woken zombie said it ran tasks the group has
         * since given to the other instance, and says so only once it notices.
         */
        void forgetTasks() {
            synchronized (output) {
                tasksSaidFrom = output.size();
            }
        }

        /** The tasks it said it runs last, e.g. "[0_0, 1_1]" ("[]" before it said any, or since {@link #forgetTasks}). */
        String activeTasks() {
            synchronized (output) {
                for (int i = output.size() - 1; i >= tasksSaidFrom; i--) {
                    if (output.get(i).startsWith(StreamsWordCountChild.TASKS)) {
                        return output.get(i).substring(StreamsWordCountChild.TASKS.length());
                    }
                }
            }
            return "[]";
        }

        int activeTaskCount() {
            String tasks = activeTasks();
            return tasks.equals("[]") ? 0 : tasks.split(",").length;
        }

        List<String> output() {
            synchronized (output) {
                return List.copyOf(output.subList(Math.max(0, output.size() - 20), output.size()));
            }
        }

        /** {@code kill -SIG pid}: STOP freezes the process between two instructions, CONT lets it go on. */
        void signal(String name) throws IOException {
            Processes.signal(process, name);
        }

        /** SIGKILL; the exit status (137). */
        int kill() throws IOException {
            process.destroyForcibly();
            return awaitExit();
        }

        /** SIGTERM: Streams closes cleanly (its last transaction committed or aborted), SIGKILL if it takes too long. */
        void close() throws IOException {
            Processes.stopGently(process, 30);
            awaitExit();
        }

        private int awaitExit() throws IOException {
            return Processes.awaitExit(process, "the application's process");
        }
    }
}
