package kaenlog.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.cluster.ClusterHarness;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;

/**
 * The tail, as users choose a broker by it (the OpenMessaging Benchmark's method): records of
 * {@code --bytes} at a fixed rate, a warm-up, then publish latency (send to acknowledgement) and
 * end-to-end latency (send to receipt by a consumer) at p50, p99, p99.9 and max, from each record's
 * intended send time ({@link LatencyRun}: HdrHistogram, coordinated omission counted). The same
 * client (kafka-clients 4.1.1, acks=all, idempotent, OMB's kafka-latency.yaml settings), a process
 * of its own for every run, against:
 * <ul>
 *   <li>one broker: {@code ./klog serve --kafka-port} against Kafka 4.1.1 (one KRaft node,
 *       {@link KafkaBrokerMain}), a topic of one partition;</li>
 *   <li>three brokers: kaen-log's cluster (three {@code klog serve --broker-id N} processes and a
 *       ZooKeeper in this JVM, reliability's {@link ClusterHarness}) against Kafka 4.1.1's three
 *       KRaft brokers (one process), a partition with replication factor 3, min.insync.replicas 2,
 *       led by the first broker.</li>
 * </ul>
 * Both brokers of a phase run side by side and the runs interleave: each round runs every rate on
 * both, the first alternating from round to round. Both keep a bounded log (segments of 128 MiB,
 * retention.bytes 512 MiB checked every 30 s): a run at 50,000 records/s writes 50 MB/s per replica.
 * Each cell is the median of the rounds' figures [their range], in milliseconds; the load column
 * is the machine's 1-minute load average across the row's runs.
 *
 * <p>{@code bench/kafka-wire/run --latency [--rates 10000,50000] [--rounds 5] [--warmup 10]
 * [--seconds 30] [--bytes 1024] [--only one|three] [--klog-jvm "OPTS"] [--kafka-jvm "OPTS"]
 * [--klog-before DIR]}; the JVM options are added to every kaen-log broker's JVM (a GC log, a JFR
 * recording) or to Kafka's; {@code --klog-before} runs another checkout's {@code ./klog serve} (the
 * code before a change, e.g. a {@code git worktree}) as a third broker of the one-broker rounds,
 * "before", with a row of ratios kaen-log / before.
 */
public final class LatencyBench {
    private static final Pattern RESULT = Pattern.compile(
            "result publish (\\d+) (\\d+) (\\d+) (\\d+) e2e (\\d+) (\\d+) (\\d+) (\\d+) sent (\\d+) acked (\\d+)"
                    + " received (\\d+) failed (\\d+) behindMaxUs (\\d+) gcMaxPauseUs (\\d+) gcCount (\\d+)");
    private static final String TOPIC = "latency";
    private static final long SEGMENT_BYTES = 128L << 20;
    private static final long RETENTION_BYTES = 512L << 20;
    private static final long RETENTION_CHECK_MS = 30_000;
    private static final String[] PERCENTILES = {"p50", "p99", "p99.9", "max"};

    private LatencyBench() {
    }

    /** One broker (or cluster) under test: its name in the table and its bootstrap. */
    record Target(String name, String bootstrap) {
    }

    /** A run's figures: publish p50, p99, p99.9, max, then the same end to end, in microseconds. */
    record Figures(long[] us, long behindMaxUs, long clientGcMaxUs) {
    }

    /** One row of the table: a setup, a rate and a latency (publish or end to end). */
    record Row(String setup, int rate, String latency) {
        String label() {
            return String.format("%-13s %,7d/s %-8s", setup, rate, latency);
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> argList = Arrays.asList(args);
        List<Integer> rates = Arrays.stream(flag(argList, "--rates", "10000,50000").split(","))
                .map(Integer::parseInt).toList();
        int rounds = Integer.parseInt(flag(argList, "--rounds", "5"));
        int warmup = Integer.parseInt(flag(argList, "--warmup", "10"));
        int seconds = Integer.parseInt(flag(argList, "--seconds", "30"));
        int bytes = Integer.parseInt(flag(argList, "--bytes", "1024"));
        String only = flag(argList, "--only", "");
        List<String> klogJvm = options(flag(argList, "--klog-jvm", ""));
        List<String> kafkaJvm = options(flag(argList, "--kafka-jvm", ""));
        String before = flag(argList, "--klog-before", "");
        String classpath = System.getProperty("bench.classpath");
        Path root = Path.of(System.getProperty("bench.root", "."));
        Settings settings = new Settings(rates, rounds, warmup, seconds, bytes, classpath);

        System.out.println("load before: " + EndToEndBench.uptime());
        Map<Row, Map<String, List<Figures>>> results = new LinkedHashMap<>();
        Map<Row, double[]> loads = new LinkedHashMap<>();
        Path work = Files.createTempDirectory("kafka-latency");
        try {
            if (!only.equals("three")) {
                onePhase(root, before.isEmpty() ? null : Path.of(before), work.resolve("one"), settings, klogJvm,
                        kafkaJvm, results, loads);
            }
            if (!only.equals("one")) {
                threePhase(work.resolve("three"), settings, klogJvm, kafkaJvm, results, loads);
            }
        } finally {
            EndToEndBench.deleteTree(work);
        }
        print(settings, results, loads);
        System.out.println("load after: " + EndToEndBench.uptime());
    }

    record Settings(List<Integer> rates, int rounds, int warmup, int seconds, int bytes, String classpath) {
    }

    /**
     * {@code ./klog serve} against one Kafka 4.1.1 broker, a topic of one partition on each; with
     * {@code before} (another checkout's root, its {@code ./klog}), that broker too, as "before":
     * a change measured against the code before it in the same interleaved rounds, at the same load.
     */
    private static void onePhase(Path root, Path before, Path work, Settings settings, List<String> klogJvm,
                                 List<String> kafkaJvm, Map<Row, Map<String, List<Figures>>> results,
                                 Map<Row, double[]> loads) throws Exception {
        Files.createDirectories(work);
        List<String> serveArgs = List.of("--segment-bytes", Long.toString(SEGMENT_BYTES),
                "--config", "retention.bytes=" + RETENTION_BYTES,
                "--config", "log.retention.check.interval.ms=" + RETENTION_CHECK_MS);
        EndToEndBench.Broker klog = null;
        EndToEndBench.Broker old = null;
        EndToEndBench.Broker kafka = null;
        try {
            klog = EndToEndBench.startKlog(root, work, serveArgs, String.join(" ", klogJvm));
            List<Target> targets = new ArrayList<>(List.of(new Target("kaen-log", klog.bootstrap())));
            if (before != null) {
                Path beforeWork = work.resolve("before");
                Files.createDirectories(beforeWork);
                old = EndToEndBench.startKlog(before, beforeWork, serveArgs, String.join(" ", klogJvm));
                targets.add(new Target("before", old.bootstrap()));
            }
            kafka = EndToEndBench.startKafka(settings.classpath(), work, 1, kafkaProps(), kafkaJvm);
            targets.add(new Target("Kafka", kafka.bootstrap()));
            for (Target target : targets) {
                createTopic(target.bootstrap(), 1);
            }
            measure("one broker", targets, work, settings, results, loads);
        } finally {
            EndToEndBench.stop(klog);
            EndToEndBench.stop(old);
            EndToEndBench.stop(kafka);
        }
    }

    /** kaen-log's three-broker cluster against Kafka's three KRaft brokers, replication factor 3, min ISR 2. */
    private static void threePhase(Path work, Settings settings, List<String> klogJvm, List<String> kafkaJvm,
                                   Map<Row, Map<String, List<Figures>>> results, Map<Row, double[]> loads)
            throws Exception {
        Files.createDirectories(work);
        List<String> jvm = new ArrayList<>(List.of("-XX:+ExitOnOutOfMemoryError"));
        jvm.addAll(klogJvm);
        // As kafka-server-start.sh gives each Kafka broker (-Xmx1G); the full JIT and G1, as ./klog serve.
        BrokerProcess.Options brokers = BrokerProcess.Options.ofThisClasspath().withMaxHeap("1g")
                .withSegmentBytes((int) SEGMENT_BYTES).withJvmArgs(jvm);
        // Kafka's defaults (zookeeper.session.timeout.ms 18 s, replica.* as Kafka's), the bounded log, no proxy between brokers.
        ClusterHarness.Config config = new ClusterHarness.Config(18_000, 2_000, false, true, List.of(
                "retention.bytes=" + RETENTION_BYTES, "log.retention.check.interval.ms=" + RETENTION_CHECK_MS), false);
        EndToEndBench.Broker kafka = null;
        try (ClusterHarness klog = ClusterHarness.start(work.resolve("klog"), config, brokers)) {
            klog.createTopic(TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), 2);
            klog.await("broker 1 leads " + TOPIC + ", its ISR whole", () -> klog.state(TOPIC)
                    .map(s -> s.isr().size() == 3 && s.leader() == 1).orElse(false), 60_000);
            String klogBootstrap = String.join(",", klog.nodes().stream().map(n -> "127.0.0.1:" + n.kafkaPort())
                    .toList());
            kafka = EndToEndBench.startKafka(settings.classpath(), work, 3, kafkaProps(), kafkaJvm);
            createTopic(kafka.bootstrap(), 3);
            measure("three brokers", List.of(new Target("kaen-log", klogBootstrap),
                    new Target("Kafka", kafka.bootstrap())), work, settings, results, loads);
        } finally {
            EndToEndBench.stop(kafka);
        }
    }

    /** The same bounded log as kaen-log's, and files of deleted segments gone after 1 s instead of 60. */
    private static List<String> kafkaProps() {
        return List.of("log.segment.bytes=" + SEGMENT_BYTES, "log.retention.bytes=" + RETENTION_BYTES,
                "log.retention.check.interval.ms=" + RETENTION_CHECK_MS, "log.segment.delete.delay.ms=1000");
    }

    /**
     * A warm-up run on each target at the highest rate (not counted: the brokers' JIT), then the
     * rounds: every rate on both targets, the first alternating.
     */
    private static void measure(String setup, List<Target> targets, Path work, Settings settings,
                                Map<Row, Map<String, List<Figures>>> results, Map<Row, double[]> loads)
            throws Exception {
        int highest = settings.rates().stream().max(Integer::compare).orElseThrow();
        for (Target target : targets) {
            Figures f = run(target, highest, settings.warmup(), settings.seconds(), settings);
            System.err.printf("warm-up %s %s %,d/s: publish p99 %s ms, e2e p99 %s ms%n", setup, target.name(), highest,
                    ms(f.us()[1]), ms(f.us()[5]));
        }
        for (int round = 0; round < settings.rounds(); round++) {
            List<Target> order = new ArrayList<>(targets);
            Collections.rotate(order, -round); // each target goes first in turn
            for (int rate : settings.rates()) {
                for (Target target : order) {
                    double load = EndToEndBench.loadAverage();
                    Figures f = run(target, rate, settings.warmup(), settings.seconds(), settings);
                    for (String latency : List.of("publish", "e2e")) {
                        Row row = new Row(setup, rate, latency);
                        results.computeIfAbsent(row, r -> new LinkedHashMap<>())
                                .computeIfAbsent(target.name(), n -> new ArrayList<>()).add(f);
                        double[] range = loads.computeIfAbsent(row, r -> new double[] {load, load});
                        range[0] = Math.min(range[0], load);
                        range[1] = Math.max(range[1], load);
                    }
                    System.err.printf("round %d %s %,d/s %-8s publish %s e2e %s ms (p50 p99 p99.9 max); behind the"
                                    + " schedule at most %s ms; client GC pause at most %s ms; load %.2f%n", round + 1,
                            setup, rate, target.name(), cells(f.us(), 0), cells(f.us(), 4), ms(f.behindMaxUs()),
                            ms(f.clientGcMaxUs()), load);
                }
            }
        }
    }

    /** One {@link LatencyRun} in a JVM of its own. */
    private static Figures run(Target target, int rate, int warmup, int seconds, Settings settings) throws Exception {
        List<String> command = List.of("java", "-Xms512m", "-Xmx512m", "-cp", settings.classpath(),
                LatencyRun.class.getName(), target.bootstrap(), TOPIC, Integer.toString(rate), Integer.toString(warmup),
                Integer.toString(seconds), Integer.toString(settings.bytes()));
        String out = EndToEndBench.output(command, null);
        Matcher m = RESULT.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("no result line from " + command + ":\n" + out);
        }
        long[] us = new long[8];
        for (int i = 0; i < 8; i++) {
            us[i] = Long.parseLong(m.group(i + 1));
        }
        return new Figures(us, Long.parseLong(m.group(13)), Long.parseLong(m.group(14)));
    }

    /** The topic: one partition; with three brokers replication factor 3 and min.insync.replicas 2, led by the first. */
    private static void createTopic(String bootstrap, int replicas) throws Exception {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(config)) {
            List<Integer> ids = admin.describeCluster().nodes().get().stream().map(Node::id).sorted().toList();
            NewTopic topic = new NewTopic(TOPIC, Map.of(0, ids.subList(0, replicas)));
            if (replicas > 1) {
                topic.configs(Map.of("min.insync.replicas", "2"));
            }
            admin.createTopics(List.of(topic)).all().get();
        }
    }

    private static void print(Settings s, Map<Row, Map<String, List<Figures>>> results, Map<Row, double[]> loads) {
        System.out.printf("%,d-byte records at a fixed rate to one partition, kafka-clients 4.1.1 (acks=all, idempotent,"
                        + " linger.ms 1, batch.size 131072), %d s warm-up then %d s measured a run, from each record's"
                        + " intended send time; ms, median of %d interleaved rounds [min-max]; behind: the most the"
                        + " producer fell behind its schedule in any round (OMB's publish delay: a broker that cannot take"
                        + " the rate shows here first)%n", s.bytes(), s.warmup(), s.seconds(), s.rounds());
        System.out.printf("%-13s %9s %-8s %-8s %22s %22s %22s %22s %7s %11s%n", "setup", "rate", "latency", "broker",
                PERCENTILES[0], PERCENTILES[1], PERCENTILES[2], PERCENTILES[3], "behind", "load");
        for (Map.Entry<Row, Map<String, List<Figures>>> e : results.entrySet()) {
            Row row = e.getKey();
            int offset = row.latency().equals("publish") ? 0 : 4;
            double[] load = loads.get(row);
            for (Map.Entry<String, List<Figures>> broker : e.getValue().entrySet()) {
                StringBuilder line = new StringBuilder(String.format("%s %-8s", row.label(), broker.getKey()));
                for (int p = 0; p < 4; p++) {
                    line.append(String.format(" %22s", figure(broker.getValue(), offset + p)));
                }
                long behind = broker.getValue().stream().mapToLong(Figures::behindMaxUs).max().orElse(0);
                line.append(String.format(" %7s %5.2f-%-5.2f", ms(behind), load[0], load[1]));
                System.out.println(line);
            }
            List<Figures> ours = e.getValue().get("kaen-log");
            List<Figures> theirs = e.getValue().get("Kafka");
            System.out.printf("%s %-8s %22s %22s %22s %22s%n", row.label(), "ratio", ratio(ours, theirs, offset),
                    ratio(ours, theirs, offset + 1), ratio(ours, theirs, offset + 2), ratio(ours, theirs, offset + 3));
            List<Figures> before = e.getValue().get("before");
            if (before != null) {
                System.out.printf("%s %-8s %22s %22s %22s %22s%n", row.label(), "/before", ratio(ours, before, offset),
                        ratio(ours, before, offset + 1), ratio(ours, before, offset + 2), ratio(ours, before, offset + 3));
            }
        }
    }

    private static String figure(List<Figures> runs, int index) {
        List<Double> values = runs.stream().map(f -> (double) f.us()[index]).sorted().toList();
        return ms(EndToEndBench.median(values)) + " [" + ms(values.get(0)) + "-" + ms(values.get(values.size() - 1)) + "]";
    }

    /** kaen-log's median over Kafka's: below 1 is kaen-log the lower (the better). */
    private static String ratio(List<Figures> ours, List<Figures> theirs, int index) {
        double o = EndToEndBench.median(ours.stream().map(f -> (double) f.us()[index]).toList());
        double t = EndToEndBench.median(theirs.stream().map(f -> (double) f.us()[index]).toList());
        return String.format("%.2fx", o / t);
    }

    private static String cells(long[] us, int from) {
        return ms(us[from]) + " " + ms(us[from + 1]) + " " + ms(us[from + 2]) + " " + ms(us[from + 3]);
    }

    /** Microseconds as milliseconds: two decimals below 10 ms, one below 100, none above. */
    static String ms(double us) {
        double ms = us / 1000;
        return ms < 10 ? String.format("%.2f", ms) : ms < 100 ? String.format("%.1f", ms) : String.format("%,.0f", ms);
    }

    private static List<String> options(String line) {
        return line.isBlank() ? List.of() : List.of(line.trim().split("\\s+"));
    }

    private static String flag(List<String> args, String name, String otherwise) {
        int at = args.indexOf(name);
        return at < 0 || at + 1 >= args.size() ? otherwise : args.get(at + 1);
    }
}
