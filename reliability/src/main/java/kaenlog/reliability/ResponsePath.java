package kaenlog.reliability;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.reliability.BoundedBroker.Probe;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;

/**
 * Scenario 7 (#23 findings 2 and 3): the broker's response path attacked on both ports of
 * {@code klog serve --kafka-port} with a 64 MiB heap, while a well-behaved client produces and
 * consumes on the kaen-log port and another asks the Kafka port for ApiVersions; the broker's RSS,
 * open file descriptors and threads before, at the peak and after, and the latency both saw.
 *
 * <ol>
 * <li>Fetch answers that inflate (finding 3): Kafka Fetches of exactly 1 MiB naming every partition
 *     once and the first one some 37,000 times, asking for 2 GiB: each must be answered once per
 *     partition, under fetch.max.bytes.</li>
 * <li>Clients that read nothing (finding 2): sixteen such Fetches (the whole request pool) whose
 *     megabytes of answer nobody reads: the pool must be free while their writes wait, and the
 *     writes must end (write.stall.max.ms).</li>
 * <li>Frames never finished (finding 2): more connections than the pool holds announce a 1 MiB
 *     frame and stop half-way: a well-behaved small request must be served within seconds, not
 *     after connections.max.idle.ms.</li>
 * </ol>
 */
public final class ResponsePath {
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final int FRAME_BYTES = 1 << 20;
    private static final String TOPIC = "big";
    /** The slowest round a well-behaved client may see while the pool is attacked. */
    static final long SERVED_WITHIN_MS = 5_000;

    /**
     * The sizes.
     *
     * @param partitions     partitions of the topic the Fetches name, each with {@code batches} batches
     * @param batches        batches per partition
     * @param batchBytes     bytes of each batch's one record
     * @param inflaters      concurrent 1 MiB Fetches that read their answers (finding 3)
     * @param nonReaders     1 MiB Fetches that read nothing (finding 2; 16 fill the default pool)
     * @param stallers       connections that announce a 1 MiB frame and stop half-way
     * @param idleMs         the broker's --connections-max-idle-ms
     * @param writeStallMs   its --write-stall-max-ms (-1: a broker without that flag, as before the fix)
     * @param holdMs         how long the non-readers and the stallers hold on
     */
    public record Config(int partitions, int batches, int batchBytes, int inflaters, int nonReaders, int stallers,
                         long idleMs, long writeStallMs, long holdMs) {
        public static Config full() {
            return new Config(8, 4, 250_000, 4, 16, 24, 15_000, 5_000, 12_000);
        }

        public static Config quick() {
            return new Config(8, 4, 250_000, 4, 16, 24, 15_000, 3_000, 8_000);
        }

        /** The same attacks on a broker that has no --write-stall-max-ms (to measure one from before the fix). */
        public Config withoutWriteStallFlag() {
            return new Config(partitions, batches, batchBytes, inflaters, nonReaders, stallers, idleMs, -1, holdMs);
        }
    }

    /** The figures of every attack, a probe each. */
    public record Result(List<Probe> probes) implements ProbeFigures {
        public Result {
            probes = List.copyOf(probes);
        }

        @Override
        public String title() {
            return "7 the response path (#23 F2, F3): both ports, -Xmx64m, well-behaved clients meanwhile";
        }
    }

    private ResponsePath() {
    }

    /**
     * Scenario 7 alone, its rows and details: {@code --quick} for the tests' sizes,
     * {@code --without-write-stall-flag} against a broker from before the fix (a classpath of it).
     */
    public static void main(String[] args) throws IOException {
        List<String> flags = List.of(args);
        Config config = flags.contains("--quick") ? Config.quick() : Config.full();
        if (flags.contains("--without-write-stall-flag")) {
            config = config.withoutWriteStallFlag();
        }
        Path root = Files.createTempDirectory("kaenlog-response-path");
        Result result = run(root, BrokerProcess.Options.ofThisClasspath(), config);
        for (Figures.Row row : result.rows()) {
            System.out.printf("%-44s %9d %9d %8d  %s%n", row.scenario(), row.runs(), row.records(), row.faultsInjected(),
                    result.ok(row) ? "ok" : "FAILED");
        }
        System.out.println(result.title() + ":");
        result.details().forEach(line -> System.out.println("  " + line));
        System.exit(result.ok() ? 0 : 1);
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        List<Probe> probes = new ArrayList<>();
        probes.add(inflatingAnswers(Files.createDirectories(dir.resolve("inflate")), options, config));
        probes.add(clientsThatReadNothing(Files.createDirectories(dir.resolve("nonreaders")), options, config));
        probes.add(framesNeverFinished(Files.createDirectories(dir.resolve("stallers")), options, config));
        return new Result(probes);
    }

    private static BrokerProcess start(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        List<String> args = new ArrayList<>(List.of("--kafka-port", "0", "--connections-max-idle-ms",
                Long.toString(config.idleMs())));
        if (config.writeStallMs() > 0) {
            args.addAll(List.of("--write-stall-max-ms", Long.toString(config.writeStallMs())));
        }
        return BrokerProcess.start(dir, options.withMaxHeap("64m").plusServeArgs(args.toArray(String[]::new)));
    }

    // ---- 7a answers that inflate (finding 3) -------------------------------------------------------

    private static Probe inflatingAnswers(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = start(dir, options, config)) {
            long data = fill(broker, config);
            int kafkaPort = broker.kafkaPort();
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            Resources before = Resources.of(broker);
            Sampler peak = Sampler.start(broker);
            byte[] frame = fetchFrame(config.partitions(), Integer.MAX_VALUE, 1 << 20);
            List<Long> answers = Collections.synchronizedList(new ArrayList<>());
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < config.inflaters(); i++) {
                Thread t = new Thread(() -> {
                    try (Socket s = connect(broker.host(), kafkaPort)) {
                        s.setSoTimeout(60_000);
                        send(s, frame);
                        answers.add(drainOneFrame(s.getInputStream()));
                    } catch (IOException e) {
                        failures.add(e.toString());
                    }
                }, "inflater-" + i);
                t.start();
                threads.add(t);
            }
            threads.forEach(ResponsePath::join);
            good.awaitRounds(3, 30_000);
            good.stop();
            Resources top = peak.stop();
            Deadline.pause(500);
            Resources after = Resources.of(broker);
            long largest = answers.stream().mapToLong(Long::longValue).max().orElse(-1);
            long cap = data + 64 * 1024; // every partition's data once, and the answer's own fields
            boolean ok = broker.isAlive() && good.failure == null && failures.isEmpty()
                    && answers.size() == config.inflaters() && largest <= cap;
            return new Probe("7a Fetch answers that inflate (F3)", config.inflaters(), ledger.ackedRecords(),
                    config.inflaters(), 0, ok, List.of(
                    config.inflaters() + " Kafka Fetches v11 of exactly " + FRAME_BYTES + " bytes at once, each naming "
                            + config.partitions() + " partitions once and the first " + duplicates(config.partitions())
                            + " more times, max_bytes 2 GiB, partition_max_bytes 1 MiB (" + data
                            + " bytes of records on the broker)",
                    "answers read: " + answers.size() + ", the largest " + largest + " bytes (at most " + cap
                            + ": each partition once, under fetch.max.bytes)" + (failures.isEmpty() ? ""
                            : "; failed: " + failures.get(0)),
                    "broker: " + before.and(top, after) + (broker.isAlive() ? "" : "; the broker DIED"),
                    good.summary()));
        }
    }

    // ---- 7b clients that read nothing (finding 2) --------------------------------------------------

    private static Probe clientsThatReadNothing(Path dir, BrokerProcess.Options options, Config config)
            throws IOException {
        try (BrokerProcess broker = start(dir, options, config)) {
            long data = fill(broker, config);
            int kafkaPort = broker.kafkaPort();
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            Resources before = Resources.of(broker);
            Sampler peak = Sampler.start(broker);
            byte[] frame = fetchFrame(config.partitions(), Integer.MAX_VALUE, 1 << 20);
            List<Socket> nonReaders = new ArrayList<>();
            KafkaPinger ping = KafkaPinger.start(broker.host(), kafkaPort);
            long stallLinesBefore = stallLines(broker);
            try {
                for (int i = 0; i < config.nonReaders(); i++) {
                    Socket s = new Socket();
                    s.setReceiveBufferSize(4096); // before connect: a small window, the answer stays in the broker
                    s.connect(new InetSocketAddress(broker.host(), kafkaPort), SteadyClient.SOCKET_TIMEOUT_MS);
                    send(s, frame);
                    nonReaders.add(s);
                }
                Deadline.pause(config.holdMs());
            } finally {
                ping.stop();
                closeAll(nonReaders);
            }
            good.awaitRounds(3, 30_000);
            good.stop();
            Resources top = peak.stop();
            Deadline.pause(1_000);
            Resources after = Resources.of(broker);
            long closedByTheBroker = stallLines(broker) - stallLinesBefore;
            boolean served = good.failure == null && good.maxLatencyMs() < SERVED_WITHIN_MS && ping.failures.get() == 0
                    && ping.maxMs() < SERVED_WITHIN_MS && ping.rounds.get() > 0;
            boolean ok = broker.isAlive() && served && closedByTheBroker == config.nonReaders()
                    && (after.threads() < 0 || after.threads() <= before.threads() + HostileClients.THREAD_TOLERANCE);
            return new Probe("7b clients that read nothing (F2)", config.nonReaders(), ledger.ackedRecords(),
                    config.nonReaders(), 0, ok, List.of(
                    config.nonReaders() + " Kafka Fetches of exactly " + FRAME_BYTES + " bytes (the whole request pool,"
                            + " queued.max.request.bytes) whose answers of " + data + " bytes each nobody reads, held "
                            + config.holdMs() + " ms; --connections-max-idle-ms " + config.idleMs()
                            + (config.writeStallMs() > 0 ? ", --write-stall-max-ms " + config.writeStallMs()
                            : " (a broker without --write-stall-max-ms)"),
                    "closed by the broker because their writes moved nothing: " + closedByTheBroker + " of "
                            + config.nonReaders(),
                    "broker: " + before.and(top, after) + (broker.isAlive() ? "" : "; the broker DIED"),
                    good.summary(),
                    "a Kafka client asking ApiVersions meanwhile (a new connection every 200 ms): " + ping.summary()));
        }
    }

    private static long stallLines(BrokerProcess broker) {
        return broker.log().stream().filter(l -> l.contains("write.stall.max.ms")).count();
    }

    // ---- 7c frames never finished (finding 2) ------------------------------------------------------

    private static Probe framesNeverFinished(Path dir, BrokerProcess.Options options, Config config)
            throws IOException {
        try (BrokerProcess broker = start(dir, options, config)) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            Resources before = Resources.of(broker);
            Sampler peak = Sampler.start(broker);
            List<Socket> stallers = new ArrayList<>();
            byte[] half = ByteBuffer.allocate(4 + FRAME_BYTES / 2).putInt(FRAME_BYTES).array();
            long roundsBefore = good.rounds.get();
            try {
                for (int i = 0; i < config.stallers(); i++) {
                    Socket s = connect(broker.host(), broker.port());
                    Thread writer = new Thread(() -> {
                        try {
                            send(s, half); // blocks while the broker waits for room to read it
                        } catch (IOException closed) {
                            // shed or closed: what the broker may do
                        }
                    }, "staller-" + i);
                    writer.setDaemon(true);
                    writer.start();
                    stallers.add(s);
                }
                Deadline.pause(config.holdMs());
            } finally {
                closeAll(stallers);
            }
            long roundsDuring = good.rounds.get() - roundsBefore;
            good.awaitRounds(3, 30_000);
            good.stop();
            Resources top = peak.stop();
            Deadline.pause(1_000);
            Resources after = Resources.of(broker);
            long shed = broker.log().stream().filter(l -> l.contains("closed: shed:")).count();
            boolean ok = broker.isAlive() && good.failure == null && roundsDuring > 0
                    && good.maxLatencyMs() < SERVED_WITHIN_MS;
            return new Probe("7c frames never finished, pool full (F2)", config.stallers(), ledger.ackedRecords(),
                    config.stallers(), 0, ok, List.of(
                    config.stallers() + " connections announce a " + FRAME_BYTES + "-byte frame and send half of it,"
                            + " held " + config.holdMs() + " ms (the pool holds 16 such frames);"
                            + " --connections-max-idle-ms " + config.idleMs(),
                    "shed by the broker (the oldest unfinished frame, while a request waited for room): " + shed
                            + "; well-behaved rounds during the attack: " + roundsDuring,
                    "broker: " + before.and(top, after) + (broker.isAlive() ? "" : "; the broker DIED"),
                    good.summary()));
        }
    }

    // ---- the parts ----------------------------------------------------------------------------------

    private static SteadyClient steadyClient(BrokerProcess broker, Ledger ledger) {
        SteadyClient good = SteadyClient.start(broker, new LedgerProducer(1, "good-0", ProduceRequest.ACKS_LEADER, 5,
                11, ledger));
        good.awaitRounds(3, 30_000);
        return good;
    }

    /** The topic's batches, through the kaen-log port; the bytes on the broker. */
    private static long fill(BrokerProcess broker, Config config) throws IOException {
        long bytes = 0;
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), 30_000)) {
            for (int p = 0; p < config.partitions(); p++) {
                for (int b = 0; b < config.batches(); b++) {
                    ByteBuffer batch = new BatchBuilder().append(NOW_MS, null, new byte[config.batchBytes()]).build();
                    bytes += batch.remaining();
                    ErrorCode error = client.produce(TOPIC + "-" + p, ProduceRequest.ACKS_LEADER, batch).error();
                    if (error != ErrorCode.NONE) {
                        throw new IOException("setup: produce to " + TOPIC + "-" + p + " answered " + error);
                    }
                }
            }
        }
        return bytes;
    }

    private static int duplicates(int partitions) {
        return (FRAME_BYTES - fixedBytes(0)) / PARTITION_ENTRY_BYTES - partitions;
    }

    /** partition int32, current_leader_epoch int32, fetch_offset int64, log_start_offset int64, partition_max_bytes int32. */
    private static final int PARTITION_ENTRY_BYTES = 28;

    /** A Fetch v11 frame's bytes besides the partition entries, with a client id of {@code clientIdBytes}. */
    private static int fixedBytes(int clientIdBytes) {
        int header = 2 + 2 + 4 + 2 + clientIdBytes;
        int body = 4 + 4 + 4 + 4 + 1 + 4 + 4 + 4 + (2 + TOPIC.length()) + 4 + 4 + 2;
        return header + body;
    }

    /**
     * A Kafka Fetch v11 (header v1) of exactly 1 MiB: every partition of the topic once, then the
     * first one again until the frame is full, the rest of a byte count absorbed by the client id.
     */
    static byte[] fetchFrame(int partitions, int maxBytes, int partitionMaxBytes) {
        int entries = (FRAME_BYTES - fixedBytes(0)) / PARTITION_ENTRY_BYTES;
        int clientId = FRAME_BYTES - fixedBytes(0) - entries * PARTITION_ENTRY_BYTES;
        ByteBuffer out = ByteBuffer.allocate(4 + FRAME_BYTES).putInt(FRAME_BYTES);
        out.putShort((short) 1).putShort((short) 11).putInt(1).putShort((short) clientId)
                .put("x".repeat(clientId).getBytes(StandardCharsets.US_ASCII));
        out.putInt(-1).putInt(0).putInt(0).putInt(maxBytes).put((byte) 0).putInt(0).putInt(-1); // replica .. session
        out.putInt(1).putShort((short) TOPIC.length()).put(TOPIC.getBytes(StandardCharsets.US_ASCII)).putInt(entries);
        for (int i = 0; i < entries; i++) {
            out.putInt(i < partitions ? i : 0).putInt(-1).putLong(0).putLong(-1).putInt(partitionMaxBytes);
        }
        out.putInt(0).putShort((short) 0); // forgotten_topics_data, rack_id ""
        if (out.hasRemaining()) {
            throw new IllegalStateException(out.remaining() + " bytes of the frame left unwritten");
        }
        return out.array();
    }

    private static Socket connect(String host, int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(host, port), SteadyClient.SOCKET_TIMEOUT_MS);
        return s;
    }

    private static void send(Socket s, byte[] bytes) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** Reads one frame to its end without keeping it; its length. */
    static long drainOneFrame(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length = data.readInt();
        byte[] chunk = new byte[64 * 1024];
        for (long left = length; left > 0; ) {
            int n = data.read(chunk, 0, (int) Math.min(chunk.length, left));
            if (n < 0) {
                throw new IOException("the answer stopped after " + (length - left) + " of " + length + " bytes");
            }
            left -= n;
        }
        return 4L + length;
    }

    private static void join(Thread t) {
        try {
            t.join(120_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }

    /** The broker process's RSS (kB), open file descriptors and threads; -1 where /proc is not there. */
    record Resources(long rssKb, long fds, long threads) {
        static Resources of(BrokerProcess broker) {
            return new Resources(broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads"));
        }

        Resources max(Resources other) {
            return new Resources(Math.max(rssKb, other.rssKb), Math.max(fds, other.fds),
                    Math.max(threads, other.threads));
        }

        String and(Resources peak, Resources after) {
            return String.format("RSS %d / %d / %d MiB, fds %d / %d / %d, threads %d / %d / %d (before / peak /"
                    + " after)", rssKb / 1024, peak.rssKb / 1024, after.rssKb / 1024, fds, peak.fds, after.fds,
                    threads, peak.threads, after.threads);
        }
    }

    /** Samples the broker's resources every 50 ms until stopped; the peak of each. */
    static final class Sampler {
        private final BrokerProcess broker;
        private final Thread thread;
        private volatile boolean stop;
        private volatile Resources peak;

        private Sampler(BrokerProcess broker) {
            this.broker = broker;
            this.peak = Resources.of(broker);
            this.thread = new Thread(() -> {
                while (!stop && broker.isAlive()) {
                    peak = peak.max(Resources.of(broker));
                    Deadline.pause(50);
                }
            }, "resource-sampler");
            this.thread.setDaemon(true);
        }

        static Sampler start(BrokerProcess broker) {
            Sampler s = new Sampler(broker);
            s.thread.start();
            return s;
        }

        Resources stop() {
            stop = true;
            join(thread);
            return peak;
        }
    }

    /** A well-behaved Kafka client: ApiVersions v0 on a new connection every 200 ms, timed. */
    private static final class KafkaPinger {
        private final Thread thread;
        private final List<Long> millis = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong rounds = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        private volatile boolean stop;
        private volatile String lastFailure;

        private KafkaPinger(String host, int port) {
            byte[] clientId = "good".getBytes(StandardCharsets.US_ASCII);
            ByteBuffer request = ByteBuffer.allocate(4 + 10 + clientId.length).putInt(10 + clientId.length)
                    .putShort((short) 18).putShort((short) 0).putInt(42).putShort((short) clientId.length).put(clientId);
            this.thread = new Thread(() -> {
                while (!stop) {
                    long start = System.nanoTime();
                    try (Socket s = connect(host, port)) {
                        s.setSoTimeout(SteadyClient.SOCKET_TIMEOUT_MS);
                        send(s, request.array());
                        drainOneFrame(new DataInputStream(s.getInputStream()));
                        millis.add((System.nanoTime() - start) / 1_000_000);
                        rounds.incrementAndGet();
                    } catch (IOException e) {
                        failures.incrementAndGet();
                        lastFailure = e.toString();
                    }
                    Deadline.pause(200);
                }
            }, "well-behaved-kafka-client");
            this.thread.setDaemon(true);
        }

        static KafkaPinger start(String host, int port) {
            KafkaPinger p = new KafkaPinger(host, port);
            p.thread.start();
            return p;
        }

        void stop() {
            stop = true;
            join(thread);
        }

        long maxMs() {
            synchronized (millis) {
                return millis.stream().mapToLong(Long::longValue).max().orElse(-1);
            }
        }

        String summary() {
            List<Long> sorted;
            synchronized (millis) {
                sorted = millis.stream().sorted().toList();
            }
            return rounds.get() + " answered, " + failures.get() + " failed" + (sorted.isEmpty() ? ""
                    : ", latency median " + sorted.get(sorted.size() / 2) + " ms, max " + sorted.get(sorted.size() - 1)
                    + " ms") + (lastFailure == null ? "" : " (last failure: " + lastFailure + ")");
        }
    }
}
