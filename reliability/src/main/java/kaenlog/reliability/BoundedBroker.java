package kaenlog.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.broker.Broker;
import kaenlog.client.BrokerClient;
import kaenlog.idem.Idempotence;
import kaenlog.wire.InitProducerId;
import kaenlog.broker.InitProducerIdHandler;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Scenario 6 (the hostile-client issue's item 4): the broker bounded as a whole, each limit hit on
 * purpose against a broker process while a well-behaved client ({@link SteadyClient}) produces and
 * consumes, and the latency it saw meanwhile. One row per limit:
 *
 * <ol>
 * <li>full-frame stallers against a 64 MiB heap without ExitOnOutOfMemoryError
 *     ({@link StalledFramesProbe}: queued.max.request.bytes, connections.max.idle.ms);</li>
 * <li>idle connections and slowloris clients (one byte of a frame now and then) past max.connections;</li>
 * <li>the broker under a pids limit (a cgroup's pids.max): threads that cannot start;</li>
 * <li>the broker under a low file-descriptor limit (prlimit --nofile): accept fails with EMFILE;</li>
 * <li>thousands of fetches for partitions that do not exist;</li>
 * <li>writes to the broker's own partitions and produces with producer ids it never issued;</li>
 * <li>produces that create partitions past max.partitions;</li>
 * <li>client strings in the log, and too large as an answer ({@link AnswersNotDisconnects}: both ports).</li>
 * </ol>
 */
public final class BoundedBroker {
    private static final long NOW_MS = 1_700_000_000_000L;

    /**
     * The sizes.
     *
     * @param stalled          the stallers' probe
     * @param idle             idle connections opened (beyond the cap most are refused)
     * @param slowloris        clients that send one byte of a frame every {@code slowlorisByteMs}
     * @param maxConnections   the broker's --max-connections for rows 2..4
     * @param idleMs           its --connections-max-idle-ms
     * @param threadAttackers  connections opened under the pids limit
     * @param fdAttackers      connections opened under the fd limit
     * @param unknownFetches   fetches of partitions nobody produced to
     * @param partitionFlood   produces to new partitions, past max.partitions (6g)
     */
    public record Config(StalledFramesProbe.Config stalled, int idle, int slowloris, long slowlorisByteMs,
                         int maxConnections, long idleMs, int threadAttackers, int fdAttackers, int unknownFetches,
                         int partitionFlood) {
        public static Config full() {
            return new Config(StalledFramesProbe.Config.full(), 2_000, 200, 200, 100, 2_000, 100, 300, 3_000, 10_000);
        }

        /** What the tests run: every limit hit, smaller numbers. */
        public static Config quick() {
            return new Config(new StalledFramesProbe.Config(60, 5_000, 1_500), 300, 40, 200, 50, 1_500, 60, 120,
                    3_000, 1_000);
        }
    }

    /** One limit, hit: a row of the report and what it means. */
    public record Probe(String name, long runs, long records, long faults, long lost, boolean ok, List<String> details) {
        public Probe {
            details = List.copyOf(details);
        }
    }

    /** The figures of every probe. */
    public record Result(StalledFramesProbe.Result stalled, List<Probe> probes) implements ProbeFigures {
        public Result {
            probes = List.copyOf(probes);
        }

        @Override
        public String title() {
            return "6 the broker bounded: each limit hit on purpose, a well-behaved client meanwhile";
        }
    }

    private BoundedBroker() {
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        List<Probe> probes = new ArrayList<>();
        StalledFramesProbe.Result stalled = StalledFramesProbe.run(Files.createDirectories(dir.resolve("stalled")),
                options, config.stalled());
        probes.add(new Probe("6a full-frame stallers, -Xmx64m, no ExitOnOOM", stalled.stallers(),
                stalled.goodRecords(), stalled.sentSomething(), 0, stalled.ok(), stalled.lines()));
        probes.add(idleAndSlowloris(Files.createDirectories(dir.resolve("idle")), options, config));
        probes.add(pidsLimit(Files.createDirectories(dir.resolve("pids")), options, config));
        probes.add(fdLimit(Files.createDirectories(dir.resolve("fds")), options, config));
        probes.add(unknownFetches(Files.createDirectories(dir.resolve("unknown")), options, config));
        probes.add(internalAndUnissued(Files.createDirectories(dir.resolve("internal")), options));
        probes.add(partitionFlood(Files.createDirectories(dir.resolve("flood")), options, config));
        probes.add(KafkaPartitionFlood.run(Files.createDirectories(dir.resolve("kafka-flood")), options));
        AnswersNotDisconnects.Config answers = config.equals(Config.quick()) ? AnswersNotDisconnects.Config.quick()
                : AnswersNotDisconnects.Config.full();
        probes.add(AnswersNotDisconnects.clientStrings(Files.createDirectories(dir.resolve("strings")), options, answers));
        probes.add(AnswersNotDisconnects.tooLarge(Files.createDirectories(dir.resolve("large")), options, answers));
        return new Result(stalled, probes);
    }

    // ---- 6b idle and slowloris past max.connections ------------------------------------------------

    private static Probe idleAndSlowloris(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        BrokerProcess.Options limited = options.withMaxHeap("64m").plusServeArgs("--max-connections",
                Integer.toString(config.maxConnections()), "--connections-max-idle-ms", Long.toString(config.idleMs()));
        try (BrokerProcess broker = BrokerProcess.start(dir, limited)) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            long threadsBefore = broker.procStatus("Threads");
            List<Socket> idle = new ArrayList<>();
            List<Socket> slow = new ArrayList<>();
            long peakThreads = threadsBefore;
            int closedEarly;
            int closedLate;
            try {
                for (int i = 0; i < config.idle(); i++) {
                    idle.add(connect(broker));
                    if (i % 50 == 0) {
                        peakThreads = Math.max(peakThreads, broker.procStatus("Threads"));
                    }
                }
                for (int i = 0; i < config.slowloris(); i++) {
                    slow.add(connect(broker));
                }
                Deadline.pause(300);
                List<Socket> all = new ArrayList<>(idle);
                all.addAll(slow);
                closedEarly = countClosed(all);
                // the slowloris clients dribble a frame, a byte at a time, for twice the idle limit
                byte[] frame = ByteBuffer.allocate(4 + 1000).putInt(1000).array();
                int[] position = new int[slow.size()];
                Deadline dribble = Deadline.in(2 * config.idleMs());
                while (!dribble.passed()) {
                    for (int i = 0; i < slow.size(); i++) {
                        position[i] = sendOneByte(slow.get(i), frame, position[i]);
                    }
                    peakThreads = Math.max(peakThreads, broker.procStatus("Threads"));
                    Deadline.pause(config.slowlorisByteMs());
                }
                closedLate = countClosed(all) - closedEarly;
            } finally {
                closeAll(idle);
                closeAll(slow);
            }
            good.awaitRounds(3, 30_000);
            good.stop();
            long threadCap = threadsBefore + config.maxConnections() + HostileClients.THREAD_TOLERANCE;
            int attackers = config.idle() + config.slowloris();
            boolean ok = broker.isAlive() && good.failure == null && good.rounds.get() > 0
                    && closedEarly + closedLate == attackers && (threadsBefore < 0 || peakThreads <= threadCap);
            List<String> log = broker.log();
            long refused = log.stream().filter(l -> l.contains("refused: max.connections")).mapToLong(
                    BoundedBroker::linesStoodFor).sum();
            long idleClosed = log.stream().filter(l -> l.contains("connections.max.idle.ms")).count();
            return new Probe("6b idle + slowloris past max.connections", attackers, ledger.ackedRecords(),
                    config.slowloris(), 0, ok, List.of(
                    config.idle() + " idle connections and " + config.slowloris() + " slowloris clients (a byte every "
                            + config.slowlorisByteMs() + " ms) against --max-connections " + config.maxConnections()
                            + " --connections-max-idle-ms " + config.idleMs(),
                    "limits hit: max.connections (at least " + refused + " connections refused at once, as the"
                            + " broker's rate-limited lines count them: refusals after its last line wait for the"
                            + " next), connections.max.idle.ms (" + idleClosed + " closed"
                            + " when their turn to send a whole request ran out, the slowloris ones too, dribbling;"
                            + " a line each)",
                    "the attackers saw " + closedEarly + " closed before the dribbling began, " + closedLate
                            + " during it, " + (attackers - closedEarly - closedLate) + " still open at the end",
                    "broker threads: " + threadsBefore + " before, peak " + peakThreads + " (cap " + threadCap
                            + "); broker log lines: " + broker.log().size() + " " + kinds(broker.log()),
                    good.summary()));
        }
    }

    // ---- 6c a pids limit ----------------------------------------------------------------------------

    private static Probe pidsLimit(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        Optional<PidsLimit> cgroup = PidsLimit.create("kaenlog-reliability-" + ProcessHandle.current().pid());
        if (cgroup.isEmpty()) {
            return new Probe("6c under a pids limit (SKIPPED)", -1, -1, -1, -1, true, List.of(
                    "no writable pids cgroup here (cgroup v1 /sys/fs/cgroup/pids or v2 with pids): not measured;"
                            + " BrokerTest.theAcceptorOutlivesConnectionThreadsThatCannotStart covers it in-process"));
        }
        try (PidsLimit limit = cgroup.get(); BrokerProcess broker = BrokerProcess.start(dir, options)) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            limit.add(broker.pid());
            long tasks = limit.current();
            long headroom = 5;
            limit.setMax(tasks + headroom);
            int logBefore = broker.log().size();
            List<Socket> attackers = new ArrayList<>();
            long start = System.nanoTime();
            int refused;
            try {
                for (int i = 0; i < config.threadAttackers(); i++) {
                    attackers.add(connect(broker));
                }
                Deadline.pause(500);
                refused = countClosed(attackers);
                good.awaitRounds(3, 30_000);
            } finally {
                closeAll(attackers);
            }
            long troubleLines = broker.log().subList(logBefore, broker.log().size()).stream()
                    .filter(l -> l.contains("thread did not start")).count();
            long seconds = secondsSince(start);
            Deadline.in(5_000).await(() -> {
                try {
                    return limit.current() <= tasks;
                } catch (IOException e) {
                    return false;
                }
            });
            // the attackers still queued are accepted first, with a pause after each thread that fails
            boolean servedAfter = Deadline.in(20_000).await(() -> producesOnANewConnection(broker));
            good.stop();
            limit.lift();
            boolean ok = broker.isAlive() && good.failure == null && refused > 0 && servedAfter
                    && troubleLines <= linesAllowedIn(seconds);
            return new Probe("6c under a pids limit (cgroup pids.max)", config.threadAttackers(),
                    ledger.ackedRecords(), config.threadAttackers(), 0, ok, List.of(
                    "the broker's cgroup allowed " + headroom + " tasks more than its " + tasks + " (pids.max "
                            + (tasks + headroom) + "), then " + config.threadAttackers() + " connections came",
                    "limit hit: pids.max (" + refused + " connections closed because their thread did not start:"
                            + " OutOfMemoryError 'unable to create native thread', caught around Thread.start);"
                            + " log lines about it: " + troubleLines + " in " + seconds + " s (one per "
                            + Broker.TROUBLE_LOG_INTERVAL_MS + " ms of broker time)",
                    "afterwards a new connection was " + (servedAfter ? "served" : "NOT served")
                            + ": the acceptor lived on",
                    good.summary()));
        }
    }

    // ---- 6d a low fd limit --------------------------------------------------------------------------

    private static Probe fdLimit(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = BrokerProcess.start(dir, options)) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            long fds = broker.openFds();
            long limit = fds + 20;
            if (fds < 0 || !broker.limitOpenFiles(limit)) {
                good.stop();
                return new Probe("6d under a low fd limit (SKIPPED)", -1, -1, -1, -1, true,
                        List.of("prlimit --pid or /proc/PID/fd is not available here: not measured"));
            }
            int logBefore = broker.log().size();
            List<Socket> attackers = new ArrayList<>();
            long start = System.nanoTime();
            int queued = 0;
            try {
                for (int i = 0; i < config.fdAttackers() && queued < 3; i++) {
                    Socket s = connectWithoutWaiting(broker);
                    attackers.add(s);
                    queued = s.isConnected() ? 0 : queued + 1; // three in a row timed out: the accept queue is full
                }
                Deadline.pause(3_000);
                good.awaitRounds(3, 30_000);
            } finally {
                closeAll(attackers);
            }
            long seconds = secondsSince(start);
            List<String> during = broker.log().subList(logBefore, broker.log().size());
            long acceptLines = during.stream().filter(l -> l.contains("accept failed")).count();
            String sample = during.stream().filter(l -> l.contains("accept failed")).reduce((a, b) -> b)
                    .orElse("(none)");
            boolean servedAfter = Deadline.in(10_000).await(() -> producesOnANewConnection(broker));
            good.stop();
            boolean ok = broker.isAlive() && good.failure == null && acceptLines >= 1 && acceptLines <= linesAllowedIn(seconds)
                    && servedAfter;
            return new Probe("6d under a low fd limit (prlimit --nofile)", config.fdAttackers(),
                    ledger.ackedRecords(), config.fdAttackers(), 0, ok, List.of(
                    "RLIMIT_NOFILE lowered to " + limit + " (" + fds + " open), then " + attackers.size()
                            + " connections (until the accept queue was full) held for 3 s",
                    "limit hit: EMFILE; " + acceptLines + " 'accept failed' log line(s) of " + during.size()
                            + " in " + seconds + " s (one per " + Broker.TROUBLE_LOG_INTERVAL_MS + " ms of broker time),"
                            + " the last: '" + sample + "'",
                    "after the connections left, a new one was " + (servedAfter ? "served" : "NOT served")
                            + ": the acceptor backed off and recovered",
                    good.summary()));
        }
    }

    // ---- 6e fetches of partitions that do not exist ------------------------------------------------

    private static Probe unknownFetches(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = BrokerProcess.start(dir, options)) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            long dirsBefore = directories(dir);
            long fdsBefore = broker.openFds();
            int unknown = 0;
            try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SteadyClient.SOCKET_TIMEOUT_MS)) {
                for (int i = 0; i < config.unknownFetches(); i++) {
                    if (client.fetch(FetchRequest.consumer("ghost" + i + "-0", 0, 1024, 0)).error()
                            == ErrorCode.UNKNOWN_PARTITION) {
                        unknown++;
                    }
                }
            }
            good.awaitRounds(3, 30_000);
            good.stop();
            long dirsAfter = directories(dir);
            long fdsAfter = broker.openFds();
            boolean ok = broker.isAlive() && good.failure == null && unknown == config.unknownFetches()
                    && dirsAfter == dirsBefore && (fdsBefore < 0 || fdsAfter <= fdsBefore + 2);
            return new Probe("6e fetches of unknown partitions", config.unknownFetches(), ledger.ackedRecords(),
                    config.unknownFetches(), 0, ok, List.of(
                    config.unknownFetches() + " fetches, each for a partition nobody produced to: " + unknown
                            + " answered UNKNOWN_PARTITION",
                    "limit: only a produce creates a partition; directories " + dirsBefore + " before, " + dirsAfter
                            + " after; broker fds " + fdsBefore + " before, " + fdsAfter + " after",
                    good.summary()));
        }
    }

    // ---- 6g produces that create partitions past max.partitions (#23 finding 1) --------------------

    /** max.partitions for 6g: a client creates partitions by producing, the broker holds at most these. */
    static final int FLOOD_MAX_PARTITIONS = 200;

    private static Probe partitionFlood(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        int attempts = config.partitionFlood();
        try (BrokerProcess broker = BrokerProcess.start(dir, options.plusServeArgs("--config",
                "max.partitions=" + FLOOD_MAX_PARTITIONS))) {
            Ledger ledger = new Ledger();
            SteadyClient good = steadyClient(broker, ledger);
            long[] before = {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
            long[] peak = before.clone();
            int created = 0;
            int refused = 0;
            try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SteadyClient.SOCKET_TIMEOUT_MS)) {
                for (int i = 0; i < attempts; i++) {
                    ErrorCode error = client.produce("flood" + i + "-0", ProduceRequest.ACKS_LEADER,
                            new BatchBuilder().append(NOW_MS, null, "x").build()).error();
                    if (error == ErrorCode.NONE) {
                        created++;
                    } else if (error == ErrorCode.UNKNOWN_PARTITION) {
                        refused++;
                    }
                    if (i % 100 == 0) {
                        peak[0] = Math.max(peak[0], broker.procStatus("VmRSS"));
                        peak[1] = Math.max(peak[1], broker.openFds());
                        peak[2] = Math.max(peak[2], broker.procStatus("Threads"));
                    }
                }
            }
            good.awaitRounds(3, 30_000);
            good.stop();
            long[] after = {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
            long dirs = directories(dir);
            // the well-behaved client's partition is one of those the broker holds; its own (__...) are not counted
            boolean ok = broker.isAlive() && good.failure == null && created == FLOOD_MAX_PARTITIONS - 1
                    && refused == attempts - created && dirs <= FLOOD_MAX_PARTITIONS + 2
                    && broker.log().stream().noneMatch(l -> l.contains("ticker stopped"));
            return new Probe("6g produces past max.partitions", attempts, ledger.ackedRecords(), refused, 0, ok, List.of(
                    attempts + " produces, each to a new partition, under --config max.partitions="
                            + FLOOD_MAX_PARTITIONS + ": " + created + " created, " + refused
                            + " answered UNKNOWN_PARTITION; directories in the data dir: " + dirs,
                    "broker RSS kB " + before[0] + " before, peak " + peak[0] + ", " + after[0] + " after; fds "
                            + before[1] + ", peak " + peak[1] + ", " + after[1] + "; threads " + before[2] + ", peak "
                            + peak[2] + ", " + after[2],
                    good.summary()));
        }
    }

    // ---- 6f internal partitions and producer ids never issued -------------------------------------

    private static Probe internalAndUnissued(Path dir, BrokerProcess.Options options) throws IOException {
        Ledger ledger = new Ledger();
        List<String> refusals = new ArrayList<>();
        long issued;
        long fresh;
        ProduceResponse owners;
        SteadyClient good;
        try (BrokerProcess broker = BrokerProcess.start(dir, options)) {
            good = steadyClient(broker, ledger);
            try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SteadyClient.SOCKET_TIMEOUT_MS)) {
                issued = initProducerId(client).producerId();
                for (String value : List.of("-1", "garbage", "9223372036854775807")) {
                    refusals.add(client.produce(InitProducerIdHandler.PARTITION, ProduceRequest.ACKS_LEADER,
                            new BatchBuilder().append(NOW_MS, null, value).build()).error().name());
                }
                refusals.add(client.fetch(FetchRequest.consumer(InitProducerIdHandler.PARTITION, 0, 1024, 0)).error()
                        .name());
                for (long unissued : new long[] {issued + 1, issued + 1000, Long.MAX_VALUE}) {
                    refusals.add(client.produce(GOOD, ProduceRequest.ACKS_LEADER, Idempotence.producerBatch(unissued,
                            (short) 0, 0, List.of("squat"), NOW_MS)).error().name());
                }
            }
            good.awaitRounds(3, 30_000);
            good.stop();
        }
        try (BrokerProcess restarted = BrokerProcess.start(dir, options);
             BrokerClient client = BrokerClient.connect(restarted.host(), restarted.port(),
                     SteadyClient.SOCKET_TIMEOUT_MS)) {
            fresh = initProducerId(client).producerId();
            owners = client.produce("owner-0", ProduceRequest.ACKS_LEADER, Idempotence.producerBatch(fresh, (short) 0,
                    0, List.of("mine"), NOW_MS));
        }
        List<String> expected = List.of("INTERNAL_PARTITION", "INTERNAL_PARTITION", "INTERNAL_PARTITION",
                "INTERNAL_PARTITION", "UNKNOWN_PRODUCER_ID", "UNKNOWN_PRODUCER_ID", "UNKNOWN_PRODUCER_ID");
        boolean ok = refusals.equals(expected) && fresh == issued + 1 && owners.error() == ErrorCode.NONE
                && owners.baseOffset() == 0 && good.failure == null;
        return new Probe("6f internal partitions, unissued producer ids", refusals.size(), ledger.ackedRecords(),
                refusals.size(), 0, ok, List.of(
                "produce -1, garbage, 2^63-1 to " + InitProducerIdHandler.PARTITION + ", fetch it, produce as ids "
                        + (issued + 1) + ", " + (issued + 1000) + ", 2^63-1 (issued so far: " + issued + "): " + refusals,
                "limits: Topic.isInternal (the broker's own partitions), producer ids only from INIT_PRODUCER_ID",
                "after a restart the next INIT handed out " + fresh + " (fresh: the last issued was " + issued
                        + "), and its first batch was " + owners.error() + " at offset " + owners.baseOffset(),
                good.summary()));
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** A rate-limited line stands for itself and the ones it says it held back. */
    private static long linesStoodFor(String line) {
        Matcher held = HELD_BACK.matcher(line);
        return 1 + (held.find() ? Long.parseLong(held.group(1)) : 0);
    }

    private static final Pattern HELD_BACK = Pattern.compile("\\((\\d+) more like it");

    /** Whole seconds since {@code startNanos}, at least 1. */
    private static long secondsSince(long startNanos) {
        return Math.max(1, (System.nanoTime() - startNanos) / 1_000_000_000L);
    }

    /** One line per kind of trouble per interval of broker time (about real time), and one to start. */
    private static long linesAllowedIn(long seconds) {
        return 2 + seconds * 1000 / Broker.TROUBLE_LOG_INTERVAL_MS;
    }

    /** The log's lines by kind (numbers and addresses masked), the most frequent three. */
    private static String kinds(List<String> log) {
        Map<String, Long> counts = new TreeMap<>();
        for (String line : log) {
            String kind = line.replaceAll("\\(127[^)]*\\)", "(peer)").replaceAll("\\d+", "N");
            counts.merge(kind.length() > 90 ? kind.substring(0, 90) + "..." : kind, 1L, Long::sum);
        }
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(3).map(e -> e.getValue() + " x '" + e.getKey() + "'").toList().toString();
    }

    private static final String GOOD = "good-0";

    /** The well-behaved client, started and past its first rounds before an attack begins. */
    static SteadyClient steadyClient(BrokerProcess broker, Ledger ledger) {
        SteadyClient good = SteadyClient.start(broker, new LedgerProducer(1, GOOD, ProduceRequest.ACKS_LEADER, 5, 11,
                ledger));
        good.awaitRounds(3, 30_000);
        return good;
    }

    private static InitProducerId.Response initProducerId(BrokerClient client) throws IOException {
        return InitProducerId.Response.decode(client.call(InitProducerId.API_KEY, InitProducerId.encodeRequest()));
    }

    private static boolean producesOnANewConnection(BrokerProcess broker) {
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), 2_000)) {
            return client.produce(GOOD, ProduceRequest.ACKS_LEADER, new BatchBuilder().append(NOW_MS, null, "after")
                    .build()).error() == ErrorCode.NONE;
        } catch (IOException | RuntimeException notYet) {
            return false;
        }
    }

    private static Socket connect(BrokerProcess broker) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(broker.host(), broker.port()), SteadyClient.SOCKET_TIMEOUT_MS);
        return s;
    }

    /** A connection that may sit in the broker's accept queue: the kernel completes it, the broker may never take it. */
    private static Socket connectWithoutWaiting(BrokerProcess broker) {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(broker.host(), broker.port()), 200);
        } catch (IOException queueFull) {
            // the listen backlog is full: the attacker got no further
        }
        return s;
    }

    /** How many of these sockets the broker has closed (end of stream or reset); each is read for at most 1 ms. */
    private static int countClosed(List<Socket> sockets) {
        int closed = 0;
        for (Socket s : sockets) {
            try {
                s.setSoTimeout(1);
                InputStream in = s.getInputStream();
                if (in.read() < 0) {
                    closed++;
                }
            } catch (SocketTimeoutException open) {
                // still open
            } catch (IOException reset) {
                closed++;
            }
        }
        return closed;
    }

    /** Sends the next byte of {@code frame} (starting over at the end); a closed socket stays where it is. */
    private static int sendOneByte(Socket s, byte[] frame, int position) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(frame[position % frame.length]);
            out.flush();
            return position + 1;
        } catch (IOException closedByBroker) {
            return position;
        }
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }

    private static long directories(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isDirectory).count();
        }
    }
}
