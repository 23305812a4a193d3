package kaenlog.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a user runs, measured: {@code ./klog serve --kafka-port} as a process of its own against
 * Kafka 4.1.1 as a process of its own ({@link KafkaBrokerMain}: the same one-node KRaft broker
 * {@link KafkaWireBench} starts in-process, in its own JVM with kafka-server-start.sh's heap and
 * kafka-run-class.sh's G1 flags), each client a process of its own and the same for both brokers:
 * kafka-clients' {@code ProducerPerformance} (kafka-tools 4.1.1), {@link ConsumeLoop} (a
 * KafkaConsumer on {@code assign()}: ConsumerPerformance needs a group coordinator, which kaen-log's
 * Kafka port does not have) and kcat when it is installed. 100 B and 1 KiB records, acks 1 and all
 * (idempotent), linger.ms 5, and lz4 and zstd producers (acks 1). The rounds interleave: every case
 * runs on both brokers in each round, the first broker alternating from round to round. Each figure
 * is the median of the rounds with their range; the ratio is kaen-log's median over Kafka's; the
 * load column is the machine's 1-minute load average seen across that row's runs.
 *
 * <p>Arguments: {@code [--quick] [--records N] [--rounds R] [--no-kcat] [--only SUBSTRING]}.
 * Needs the system properties {@code bench.classpath} (for the client and Kafka JVMs) and
 * {@code bench.root} (the repository, for {@code ./klog}); {@code bench/kafka-wire/run} sets both.
 */
public final class EndToEndBench {
    private static final Pattern PRODUCED = Pattern.compile("(\\d+) records sent, ([\\d.]+) records/sec");
    private static final Pattern CONSUMED = Pattern.compile("consumed (\\d+) records/s ([\\d.]+)");
    private static final String KCAT = "/usr/bin/kcat";

    private EndToEndBench() {
    }

    /** One row of the table: which client does what with which records. */
    record Case(String client, String op, int size, String acks, String codec) {
        String label() {
            return String.format("%-6s %-8s %5d %-4s %-5s", client, op, size, acks, codec);
        }

        String topic(String system, int round) {
            String produced = op.equals("consume") ? "produce" : op; // a consumer reads what its producer wrote
            return String.join("-", "e2e", client, produced, Integer.toString(size), acks, codec, system, "r" + round);
        }
    }

    /** A broker under test: its name and where its Kafka listener is. */
    record Broker(String name, String bootstrap, Process process) {
    }

    public static void main(String[] args) throws Exception {
        List<String> argList = Arrays.asList(args);
        String unknown = unknownArgument(argList);
        if (unknown != null) { // a misuse runs nothing: the full bench is 25 minutes and ~20 GB of Kafka's data
            System.err.println("bench/kafka-wire/run: unknown argument " + unknown + "\nusage: bench/kafka-wire/run"
                    + " [--quick] [--records N] [--rounds R] [--only SUBSTRING] [--no-kcat]"
                    + " (or --cluster, --static-restart, --latency, --in-process: see bench/kafka-wire/run --help)");
            System.exit(2);
        }
        boolean quick = argList.contains("--quick");
        int records = intFlag(argList, "--records", quick ? 200_000 : 1_000_000);
        int rounds = intFlag(argList, "--rounds", quick ? 2 : 3);
        String only = stringFlag(argList, "--only", "");
        boolean kcat = !argList.contains("--no-kcat") && Files.isExecutable(Path.of(KCAT));
        String classpath = System.getProperty("bench.classpath");
        Path root = Path.of(System.getProperty("bench.root", "."));
        List<Case> cases = cases(kcat).stream().filter(c -> c.label().contains(only)).toList();

        Path work = Files.createTempDirectory("kafka-wire-e2e");
        Map<Case, List<Double>> ours = new LinkedHashMap<>();
        Map<Case, List<Double>> theirs = new LinkedHashMap<>();
        Map<Case, double[]> loads = new LinkedHashMap<>();
        String loadBefore = uptime();
        System.out.println("load before: " + loadBefore);
        Broker klog = null;
        Broker kafka = null;
        try {
            klog = startKlog(root, work);
            kafka = startKafka(classpath, work);
            Map<Integer, Path> lines = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                List<Broker> order = round % 2 == 0 ? List.of(klog, kafka) : List.of(kafka, klog);
                for (Case c : cases) {
                    for (Broker broker : order) {
                        double load = loadAverage();
                        double rate = run(c, broker, round, records, classpath, work, lines);
                        (broker == klog ? ours : theirs).computeIfAbsent(c, k -> new ArrayList<>()).add(rate);
                        double[] range = loads.computeIfAbsent(c, k -> new double[] {load, load});
                        range[0] = Math.min(range[0], load);
                        range[1] = Math.max(range[1], load);
                        System.err.printf("round %d %s %-8s %12.0f records/s (load %.2f)%n", round + 1, c.label(),
                                broker.name(), rate, load);
                        if (lastReader(c, cases)) {
                            deleteTopic(broker.bootstrap(), c.topic(broker.name(), round));
                        }
                    }
                }
            }
        } finally {
            stop(klog);
            stop(kafka);
            deleteTree(work);
        }
        System.out.printf("%,d records a run, median of %d interleaved rounds [min-max], records/s; linger.ms 5;"
                + " acks all = idempotent%n", records, rounds);
        System.out.printf("%-6s %-8s %5s %-4s %-5s %26s %26s %7s %11s%n", "client", "op", "bytes", "acks", "codec",
                "kaen-log (klog serve)", "Kafka 4.1.1", "ratio", "load");
        for (Case c : ours.keySet()) {
            List<Double> k = ours.get(c);
            List<Double> a = theirs.get(c);
            double[] load = loads.get(c);
            System.out.printf("%s %26s %26s %6.2fx %5.2f-%-5.2f%n", c.label(), figure(k), figure(a),
                    median(k) / median(a), load[0], load[1]);
        }
        System.out.println("load after: " + uptime());
    }

    static List<Case> cases(boolean kcat) {
        List<Case> cases = new ArrayList<>();
        for (int size : new int[] {100, 1024}) {
            for (String acks : List.of("1", "all")) {
                cases.add(new Case("java", "produce", size, acks, "none"));
                cases.add(new Case("java", "consume", size, acks, "none"));
                if (kcat) {
                    cases.add(new Case("kcat", "produce", size, acks, "none"));
                    cases.add(new Case("kcat", "consume", size, acks, "none"));
                }
            }
            for (String codec : List.of("lz4", "zstd")) {
                cases.add(new Case("java", "produce", size, "1", codec));
            }
        }
        return cases;
    }

    private static double run(Case c, Broker broker, int round, int records, String classpath, Path work,
                              Map<Integer, Path> lines) throws Exception {
        String topic = c.topic(broker.name(), round);
        if (c.op().equals("produce")) {
            createTopic(broker.bootstrap(), topic);
        }
        if (c.client().equals("java") && c.op().equals("produce")) {
            List<String> command = new ArrayList<>(List.of("java", "-Xmx512m", "-cp", classpath,
                    "org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records",
                    Integer.toString(records), "--record-size", Integer.toString(c.size()), "--throughput", "-1",
                    "--producer-props", "bootstrap.servers=" + broker.bootstrap(), "acks=" + c.acks(), "linger.ms=5",
                    "enable.idempotence=" + c.acks().equals("all"), "compression.type=" + c.codec()));
            Matcher m = lastMatch(PRODUCED, output(command, null));
            return Double.parseDouble(m.group(2));
        }
        if (c.client().equals("java")) {
            List<String> command = List.of("java", "-Xmx512m", "-cp", classpath, ConsumeLoop.class.getName(),
                    broker.bootstrap(), topic, Integer.toString(records));
            Matcher m = lastMatch(CONSUMED, output(command, null));
            check(Long.parseLong(m.group(1)) >= records, "consumed only " + m.group(1) + " of " + records);
            return Double.parseDouble(m.group(2));
        }
        List<String> command = new ArrayList<>(List.of(KCAT, "-b", broker.bootstrap(), "-t", topic, "-p", "0", "-q"));
        if (c.op().equals("produce")) {
            command.addAll(List.of("-X", "acks=" + c.acks(), "-X", "linger.ms=5"));
            if (c.acks().equals("all")) {
                command.addAll(List.of("-X", "enable.idempotence=true"));
            }
            Path input = lines.computeIfAbsent(c.size(), size -> writeLines(work, size, records));
            command.addAll(List.of("-P", "-l", input.toString()));
        } else {
            command.addAll(List.of("-C", "-o", "beginning", "-c", Integer.toString(records), "-e"));
        }
        long start = System.nanoTime();
        output(command, c.op().equals("consume") ? Path.of("/dev/null") : null);
        double rate = records / ((System.nanoTime() - start) / 1e9);
        if (c.op().equals("produce")) {
            // kcat -q says nothing of a record it failed to deliver, and its consumer (-e) stops at the
            // partition's end: both figures count only when every record is in the log.
            long end = endOffset(broker.bootstrap(), topic);
            check(end >= records, "kcat produced only " + end + " of " + records + " records to " + topic);
        }
        return rate;
    }

    /**
     * Whether no later run reads {@code c}'s topic: a consumer's, or a producer's that no consumer row
     * follows (lz4, zstd). Its topic is then deleted: the default run writes about 7 GB a round to
     * each broker, 40 GB in all, if nothing is deleted.
     */
    static boolean lastReader(Case c, List<Case> cases) {
        return c.op().equals("consume") || cases.stream().noneMatch(o -> o.op().equals("consume")
                && o.client().equals(c.client()) && o.size() == c.size() && o.acks().equals(c.acks())
                && o.codec().equals(c.codec()));
    }

    /** Deletes a topic after its last run (both brokers free its files: Kafka a minute later). */
    private static void deleteTopic(String bootstrap, String topic) throws Exception {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(config)) {
            admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        }
        System.err.println("deleted " + topic);
    }

    /** The partition's log end offset, asked with ListOffsets (after the clock). */
    private static long endOffset(String bootstrap, String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            return consumer.endOffsets(List.of(partition)).get(partition);
        }
    }

    /** {@code records} lines of {@code size} letters: kcat -l sends each line (without its newline) as a record. */
    private static Path writeLines(Path work, int size, int records) {
        byte[] line = new byte[size + 1];
        for (int i = 0; i < size; i++) {
            line[i] = (byte) ('a' + i % 26);
        }
        line[size] = '\n';
        Path file = work.resolve("lines-" + size + ".txt");
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            for (int i = 0; i < records; i++) {
                out.write(line);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return file;
    }

    /** Topics are created on first use by both brokers (auto.create.topics.enable): ask once, before the clock. */
    private static void createTopic(String bootstrap, String topic) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.partitionsFor(topic);
        }
    }

    static Broker startKlog(Path root, Path work) throws IOException {
        return startKlog(root, work, List.of(), null);
    }

    /**
     * {@code ./klog serve --kafka-port 0} with {@code serveArgs} more, and {@code javaOpts} as its
     * KLOG_JAVA_OPTS when not null (else the caller's own, if any: a JFR recording, say).
     */
    static Broker startKlog(Path root, Path work, List<String> serveArgs, String javaOpts) throws IOException {
        List<String> command = new ArrayList<>(List.of(root.resolve("klog").toString(), "serve", "--dir",
                work.resolve("klog-data").toString(), "--port", "0", "--kafka-port", "0"));
        command.addAll(serveArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (javaOpts != null && !javaOpts.isBlank()) {
            builder.environment().put("KLOG_JAVA_OPTS", javaOpts);
        }
        Process p = builder.start();
        String line = awaitLine(p, "kafka protocol on ", work.resolve("klog.out"));
        return new Broker("kaen-log", line.substring("kafka protocol on ".length()).trim(), p);
    }

    private static Broker startKafka(String classpath, Path work) throws IOException {
        return startKafka(classpath, work, 1);
    }

    /** Kafka 4.1.1 as a process of its own ({@link KafkaBrokerMain}) with {@code brokers} brokers; its bootstrap. */
    static Broker startKafka(String classpath, Path work, int brokers) throws IOException {
        return startKafka(classpath, work, brokers, List.of(), List.of());
    }

    /**
     * As {@link #startKafka(String, Path, int)}, with broker configs ({@code key=value}, e.g. a
     * retention) and more JVM options (a GC log) after kafka-server-start.sh's own.
     */
    static Broker startKafka(String classpath, Path work, int brokers, List<String> configs, List<String> jvmOptions)
            throws IOException {
        List<String> command = new ArrayList<>(List.of("java", "-Xmx1G", "-Xms1G", "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, KafkaBrokerMain.class.getName(), work.resolve("kafka-data").toString(),
                Integer.toString(brokers)));
        command.addAll(configs);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String line = awaitLine(p, "bootstrap ", work.resolve("kafka.out"));
        return new Broker("Kafka", line.substring("bootstrap ".length()).trim(), p);
    }

    /** Reads the process's output until a line starts with {@code prefix}; the rest goes to {@code log}. */
    private static String awaitLine(Process p, String prefix, Path log) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (line.startsWith(prefix)) {
                drain(reader, log);
                return line;
            }
            seen.add(line);
        }
        throw new IllegalStateException("the server stopped before saying \"" + prefix + "\": " + seen);
    }

    private static void drain(BufferedReader reader, Path log) {
        Thread t = new Thread(() -> {
            try (var out = Files.newBufferedWriter(log)) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    out.write(line);
                    out.newLine();
                }
            } catch (IOException ignored) {
                // the server stopped
            }
        }, "drain-" + log.getFileName());
        t.setDaemon(true);
        t.start();
    }

    /** Runs a client to its end and returns its output; fails on a non-zero exit. */
    static String output(List<String> command, Path stdout) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(stdout == null);
        if (stdout != null) {
            builder.redirectOutput(stdout.toFile()).redirectError(ProcessBuilder.Redirect.PIPE);
        }
        Process p = builder.start();
        p.getOutputStream().close();
        InputStream in = stdout == null ? p.getInputStream() : p.getErrorStream();
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        check(p.waitFor(10, TimeUnit.MINUTES), "still running after 10 minutes: " + command);
        check(p.exitValue() == 0, "exit " + p.exitValue() + " from " + command + ":\n" + text);
        return text;
    }

    private static Matcher lastMatch(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        int last = -1;
        while (m.find()) {
            last = m.start();
        }
        check(last >= 0, "no \"" + pattern + "\" in:\n" + text);
        m.find(last);
        return m;
    }

    static void stop(Broker broker) throws InterruptedException {
        if (broker == null) {
            return;
        }
        try {
            broker.process().getOutputStream().close(); // KafkaBrokerMain stops at the end of its input
        } catch (IOException ignored) {
            // already gone
        }
        broker.process().destroy(); // klog serve stops on SIGTERM (its shutdown hook closes the broker)
        if (!broker.process().waitFor(60, TimeUnit.SECONDS)) {
            broker.process().destroyForcibly();
        }
    }

    static String figure(List<Double> rates) {
        List<Double> sorted = rates.stream().sorted().toList();
        return String.format("%,.0f [%,.0f-%,.0f]", median(rates), sorted.get(0), sorted.get(sorted.size() - 1));
    }

    static double median(List<Double> rates) {
        List<Double> sorted = rates.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static double loadAverage() throws IOException {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    static String uptime() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim() + " (1, 5, 15 min; runnable/all; last pid)";
    }

    /** The first argument this bench does not take (a flag it does not know, or a flag's value missing), else null. */
    private static String unknownArgument(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--quick") || arg.equals("--no-kcat")) {
                continue;
            }
            if ((arg.equals("--records") || arg.equals("--rounds") || arg.equals("--only")) && i + 1 < args.size()) {
                i++;
                continue;
            }
            return arg;
        }
        return null;
    }

    private static int intFlag(List<String> args, String name, int otherwise) {
        String value = stringFlag(args, name, null);
        return value == null ? otherwise : Integer.parseInt(value);
    }

    private static String stringFlag(List<String> args, String name, String otherwise) {
        int at = args.indexOf(name);
        return at < 0 || at + 1 >= args.size() ? otherwise : args.get(at + 1);
    }

    private static void check(boolean ok, String problem) {
        if (!ok) {
            throw new IllegalStateException(problem);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
