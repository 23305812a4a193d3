package kaenlog.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.Frames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Item 3: hostile clients against a broker JVM whose heap is capped ({@code -Xmx64m}, and
 * {@code -XX:+ExitOnOutOfMemoryError}: running out of memory would end it). While they attack, a
 * well-behaved client produces and consumes on its own connection, round after round, and every
 * attack waits for it to complete rounds before it ends. Each hostile connection must end one of
 * two ways: closed by the broker with one line in its log naming the reason, or answered with an
 * error (a well-formed request for something wrong, like a corrupt batch).
 *
 * <p>The attacks: random bytes (some behind a plausible frame length, some behind a real apiKey);
 * a frame length of 2^31-1; negative lengths; frames that stop halfway and never finish, held open;
 * thousands of connections opened and dropped (FIN and RST); well-formed requests that are wrong
 * (unknown apiKey, a partition name that climbs out of the data directory, a batch with a bad CRC,
 * a fetch asking for 2 GiB).
 */
public final class HostileClients {
    static final String GOOD_PARTITION = "good-0";
    static final String OPENED_AND_DROPPED = "opened and dropped";
    private static final int GOOD_PRODUCER = 500;
    private static final int SOCKET_TIMEOUT_MS = 10_000;
    /** Threads the JVM adds or removes on its own (compiler threads come and go). */
    static final int THREAD_TOLERANCE = 2;
    private static final Pattern CLOSED = Pattern.compile("^connection \\d+ \\(127\\.0\\.0\\.1:(\\d+)\\) closed: (.*)$");

    /**
     * @param seed              seeds every random byte
     * @param randomConnections connections that send random bytes
     * @param maxRandomBytes    each sends 1..max bytes
     * @param halfFrames        connections that send half a frame and then nothing, held open
     * @param openedAndDropped  connections opened and dropped without a byte
     * @param wave              of those, how many are open at once
     * @param maxHeap           the broker JVM's -Xmx
     */
    public record Config(long seed, int randomConnections, int maxRandomBytes, int halfFrames, int openedAndDropped,
                         int wave, String maxHeap) {
        /** The "thousands of connections": 5,000 opened and dropped, 1,000 of random bytes. */
        public static Config full() {
            return new Config(3, 1000, 4096, 24, 5000, 40, "64m");
        }
    }

    /**
     * How one kind of attack ended. {@code closedSilently} are connections the broker closed without a
     * log line: right only for a client that hung up between frames (a clean end, no error).
     */
    public record Attack(String name, int connections, int closedWithReason, int answered, int closedSilently,
                         int heldOpenByBroker, boolean silentIsFine, List<String> reasons) {
        public Attack {
            reasons = List.copyOf(reasons);
        }

        boolean ok() {
            return silentIsFine || closedSilently == 0;
        }
    }

    /** The figures of the run. */
    public record Result(Config config, List<Attack> attacks, boolean brokerAlive, long peakRssKb, long threadsBefore,
                         long threadsAfter, long goodRounds, long goodRecords, Ledger.Audit goodAudit,
                         long internalErrorsLogged, List<String> problems) implements Figures {
        public Result {
            attacks = List.copyOf(attacks);
            problems = List.copyOf(problems);
        }

        public long hostileConnections() {
            return attacks.stream().mapToLong(Attack::connections).sum();
        }

        /** Connections that sent the broker something: opened and dropped ones sent nothing, so inject no fault. */
        public long connectionsThatSentSomething() {
            return attacks.stream().filter(a -> !a.name().equals(OPENED_AND_DROPPED)).mapToLong(Attack::connections)
                    .sum();
        }

        public Attack attack(String name) {
            return attacks.stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
        }

        @Override
        public Row row() {
            return new Row("3 hostile clients (-Xmx" + config.maxHeap() + " broker)", hostileConnections(),
                    goodAudit.recordsInLog(), connectionsThatSentSomething(), goodAudit.lost() + goodAudit.misplaced(),
                    goodAudit.duplicates(), -1);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (Attack a : attacks) {
                lines.add(String.format("%-30s %5d conns: %5d closed with a logged reason, %4d answered with an"
                                + " error, %4d closed silently%s%s", a.name(), a.connections(), a.closedWithReason(),
                        a.answered(), a.closedSilently(), a.silentIsFine() ? " (clean hang-ups: no error to log)" : "",
                        a.heldOpenByBroker() > 0 ? "; " + a.heldOpenByBroker() + " held open by the broker until"
                                + " the client left (shorter than connections.max.idle.ms, 10 minutes by default)" : ""));
            }
            lines.add("meanwhile a well-behaved client did " + goodRounds + " produce+consume rounds (" + goodRecords
                    + " records, each read back at once; at the end lost " + goodAudit.lost() + ", duplicates "
                    + goodAudit.duplicates() + ", out of order " + goodAudit.outOfOrder() + ")");
            lines.add("broker alive at the end: " + (brokerAlive ? "yes" : "NO") + " (-Xmx" + config.maxHeap()
                    + ", exits on OutOfMemoryError); peak RSS " + (peakRssKb < 0 ? "n/a" : peakRssKb / 1024 + " MiB")
                    + "; threads " + threadsBefore + " before, " + threadsAfter + " after; internal errors logged "
                    + internalErrorsLogged);
            return lines;
        }

        @Override
        public boolean ok() {
            return brokerAlive && attacks.stream().allMatch(Attack::ok) && goodAudit.clean() && goodRounds > 0
                    && internalErrorsLogged == 0 && problems.isEmpty();
        }
    }

    private final BrokerProcess broker;
    private final Random random;
    private final List<String> problems = new ArrayList<>();

    private HostileClients(BrokerProcess broker, long seed) {
        this.broker = broker;
        this.random = new Random(seed);
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = BrokerProcess.start(dir, options.withMaxHeap(config.maxHeap()))) {
            return new HostileClients(broker, config.seed()).attack(config);
        }
    }

    private Result attack(Config config) throws IOException {
        Ledger ledger = new Ledger();
        SteadyClient good = SteadyClient.start(broker, new LedgerProducer(GOOD_PRODUCER, GOOD_PARTITION,
                ProduceRequest.ACKS_LEADER, 5, config.seed(), ledger));
        List<Attack> attacks = new ArrayList<>();
        long threadsBefore;
        try {
            awaitRounds(good, 3, "before the attacks");
            threadsBefore = broker.procStatus("Threads");
            attacks.add(withGoodClient(good, "random bytes", () -> randomBytes(config)));
            attacks.add(withGoodClient(good, "frame length 2^31-1", () -> lengths("frame length 2^31-1",
                    new int[] {Integer.MAX_VALUE}, "over the maximum")));
            attacks.add(withGoodClient(good, "negative frame length", () -> lengths("negative frame length",
                    new int[] {-1, Integer.MIN_VALUE, -4096}, "negative")));
            attacks.add(halfFrames(config, good));
            attacks.add(withGoodClient(good, OPENED_AND_DROPPED, () -> openedAndDropped(config)));
            attacks.add(withGoodClient(good, "well-formed but wrong", this::wrongRequests));
        } finally {
            good.stop();
        }
        if (good.failure != null) {
            problems.add("the well-behaved client failed: " + good.failure);
        }
        long threadsAfter = awaitThreadsBackTo(threadsBefore);
        boolean alive = broker.isAlive();
        long peak = broker.procStatus("VmHWM");
        Ledger.Audit audit = auditGood(ledger, alive);
        long internal = broker.log().stream().filter(l -> l.contains("internal error")).count();
        if (!alive) {
            problems.add("the broker died: " + CrashRecovery.tail(broker.log()));
        }
        return new Result(config, attacks, alive, peak, threadsBefore, threadsAfter, good.rounds.get(),
                ledger.ackedRecords(), audit, internal, problems);
    }

    private interface AttackBody {
        Attack run() throws IOException;
    }

    /** Runs an attack, then waits for the well-behaved client to complete more rounds: it was not starved. */
    private Attack withGoodClient(SteadyClient good, String name, AttackBody body) throws IOException {
        Attack attack = body.run();
        awaitRounds(good, 3, "after " + name);
        return attack;
    }

    private void awaitRounds(SteadyClient good, int more, String when) {
        long target = good.rounds.get() + more;
        if (!Deadline.in(30_000).await(() -> good.rounds.get() >= target || good.failure != null)) {
            problems.add("the well-behaved client made no progress " + when);
        }
    }

    // ---- the attacks ---------------------------------------------------------------------------

    /** Random bytes; a third behind a plausible frame length, a third behind a real apiKey too. */
    private Attack randomBytes(Config config) throws IOException {
        int logMark = broker.log().size();
        List<int[]> answeredBytes = new ArrayList<>();
        for (int i = 0; i < config.randomConnections(); i++) {
            byte[] noise = new byte[1 + random.nextInt(config.maxRandomBytes())];
            random.nextBytes(noise);
            byte[] sent = switch (i % 3) {
                case 0 -> noise;
                case 1 -> frame(noise, random.nextInt(noise.length + 1));
                default -> frame(envelope((short) random.nextInt(3), noise), -1);
            };
            try (Socket s = connect()) {
                send(s, sent);
                s.shutdownOutput();
                answeredBytes.add(new int[] {s.getLocalPort(), readUntilClosed(s)});
            }
        }
        return classify("random bytes", answeredBytes, logMark, false, 0);
    }

    /** A frame header with each of {@code lengths}, then a few bytes, the connection left open. */
    private Attack lengths(String name, int[] lengths, String reasonMustSay) throws IOException {
        int logMark = broker.log().size();
        List<int[]> answered = new ArrayList<>();
        for (int length : lengths) {
            try (Socket s = connect()) {
                byte[] some = new byte[16];
                random.nextBytes(some);
                send(s, ByteBuffer.allocate(4 + some.length).putInt(length).put(some).array());
                int read = readUntilClosed(s);
                if (read == STILL_OPEN) {
                    problems.add(name + " " + length + ": the broker did not close the connection");
                }
                answered.add(new int[] {s.getLocalPort(), read});
            }
        }
        Attack attack = classify(name, answered, logMark, false, 0);
        if (!attack.reasons().stream().allMatch(r -> r.contains(reasonMustSay))) {
            problems.add(name + ": reasons " + attack.reasons() + " do not all say '" + reasonMustSay + "'");
        }
        return attack;
    }

    /**
     * Frames that stop halfway: half of them declare 1 MiB (a default producer's largest request;
     * the broker accepts up to socket.request.max.bytes, 8 MiB), reserved by the broker as soon as it
     * reads the length, half a small one. They stay open while the well-behaved client does its
     * rounds; then they leave.
     */
    private Attack halfFrames(Config config, SteadyClient good) throws IOException {
        int logMark = broker.log().size();
        List<Socket> held = new ArrayList<>();
        List<int[]> answered = new ArrayList<>();
        int heldOpen = 0;
        try {
            for (int i = 0; i < config.halfFrames(); i++) {
                int declared = i % 2 == 0 ? Frames.DEFAULT_MAX_FRAME_BYTES : 4096;
                byte[] half = new byte[i % 2 == 0 ? 1000 : 100];
                random.nextBytes(half);
                Socket s = connect();
                held.add(s);
                send(s, ByteBuffer.allocate(4 + half.length).putInt(declared).put(half).array());
            }
            awaitRounds(good, 5, "while half frames were held open");
            for (Socket s : held) {
                s.setSoTimeout(50);
                if (readUntilClosed(s) == STILL_OPEN) {
                    heldOpen++;
                }
            }
        } finally {
            for (Socket s : held) {
                answered.add(new int[] {s.getLocalPort(), 0});
                s.close();
            }
        }
        awaitRounds(good, 3, "after the half frames left");
        return classify("half frame, never finished", answered, logMark, false, heldOpen);
    }

    /**
     * Connections opened in waves and dropped without a byte, half with FIN, half with RST. A wave is
     * dropped once the broker holds it (a thread each), and the next starts once the broker has let
     * it go: connections dropped while still in the accept queue make this machine's loopback stall
     * a later connect by a SYN retry (a second), which would only slow the attacker down. The JVM
     * starts and stops compiler threads on its own, so the thread counts are compared with a
     * tolerance, and each wait is bounded.
     */
    private Attack openedAndDropped(Config config) throws IOException {
        int logMark = broker.log().size();
        List<int[]> ports = new ArrayList<>();
        for (int done = 0; done < config.openedAndDropped(); ) {
            long before = broker.procStatus("Threads");
            List<Socket> waveSockets = new ArrayList<>();
            try {
                for (int i = 0; i < config.wave() && done < config.openedAndDropped(); i++, done++) {
                    Socket s = connect();
                    if (done % 2 == 1) {
                        s.setSoLinger(true, 0); // close() sends RST: the broker's read fails with "connection reset"
                    }
                    waveSockets.add(s);
                }
                int wave = waveSockets.size();
                if (before < 0) {
                    Deadline.pause(20);
                } else {
                    Deadline.in(1_000).await(() -> broker.procStatus("Threads") >= before + wave - THREAD_TOLERANCE);
                }
            } finally {
                for (Socket s : waveSockets) {
                    ports.add(new int[] {s.getLocalPort(), 0});
                    s.close();
                }
            }
            if (before >= 0) {
                Deadline.in(1_000).await(() -> broker.procStatus("Threads") <= before + THREAD_TOLERANCE);
            }
        }
        return classify(OPENED_AND_DROPPED, ports, logMark, true, 0);
    }

    /** Well-formed frames that ask for something wrong: each is refused with a reason, or answered with an error. */
    private Attack wrongRequests() throws IOException {
        int logMark = broker.log().size();
        List<int[]> answered = new ArrayList<>();
        // 1. an apiKey nobody answers
        try (Socket s = connect()) {
            send(s, frame(envelope((short) 99, new byte[0]), -1));
            answered.add(new int[] {s.getLocalPort(), readUntilClosed(s)});
        }
        // 2. a partition name that would climb out of the data directory
        try (Socket s = connect()) {
            ByteBuffer batch = new BatchBuilder().append(0L, null, "x").build();
            send(s, frame(envelope(ApiKeys.PRODUCE, new ProduceRequest("../../etc-0", ProduceRequest.ACKS_LEADER, 1000,
                    batch).encode()), -1));
            s.shutdownOutput(); // answered INVALID_PARTITION_NAME; then the broker sees the end and closes
            answered.add(new int[] {s.getLocalPort(), readUntilClosed(s)});
        }
        // 3. a batch whose CRC is wrong: answered CORRUPT_BATCH, the connection stays usable
        // 4. a fetch for 2 GiB: capped to what a frame holds, answered
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SOCKET_TIMEOUT_MS)) {
            ByteBuffer bad = new BatchBuilder().append(0L, null, "flipped").build();
            bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) ^ 0x01));
            ProduceResponse corrupt = client.produce("wrong-0", ProduceRequest.ACKS_LEADER, bad);
            if (corrupt.error() != ErrorCode.CORRUPT_BATCH) {
                problems.add("a batch with a bad CRC was answered " + corrupt.error() + ", not CORRUPT_BATCH");
            }
            FetchResponse huge = client.fetch(new FetchRequest(-1, GOOD_PARTITION, 0, Integer.MAX_VALUE, 0));
            if (huge.error() != ErrorCode.NONE || huge.records().remaining() > Frames.DEFAULT_MAX_FRAME_BYTES) {
                problems.add("a fetch for 2 GiB was answered " + huge.error() + " with " + huge.records().remaining()
                        + " bytes");
            }
            answered.add(new int[] {client.localPort(), 2});
        }
        return classify("well-formed but wrong", answered, logMark, false, 0);
    }

    // ---- classification ------------------------------------------------------------------------

    private static final int STILL_OPEN = -2;

    /**
     * Matches the broker's log lines (after {@code logMark}) to the connections by client port, one
     * line per connection (a port can come back for a later connection): a line means "closed with a
     * reason"; bytes read back without a line mean "answered"; neither, "closed silently".
     */
    private Attack classify(String name, List<int[]> portAndBytesRead, int logMark, boolean silentIsFine,
                            int heldOpen) {
        Map<Integer, Integer> wanted = new HashMap<>();
        portAndBytesRead.forEach(c -> wanted.merge(c[0], 1, Integer::sum));
        Deadline.in(silentIsFine ? 3_000 : 10_000).await(() -> {
            Map<Integer, List<String>> now = reasonsByPort(logMark);
            return wanted.entrySet().stream().allMatch(w -> now.getOrDefault(w.getKey(), List.of()).size() >= w.getValue());
        });
        Map<Integer, List<String>> reasons = reasonsByPort(logMark);
        int withReason = 0;
        int answered = 0;
        int silent = 0;
        List<String> distinctReasons = new ArrayList<>();
        for (int[] c : portAndBytesRead) {
            List<String> r = reasons.getOrDefault(c[0], new ArrayList<>());
            if (!r.isEmpty()) {
                withReason++;
                String kind = r.remove(0).replaceAll("-?\\d+", "N");
                if (distinctReasons.size() < 12 && !distinctReasons.contains(kind)) {
                    distinctReasons.add(kind);
                }
            } else if (c[1] > 0) {
                answered++;
            } else {
                silent++;
            }
        }
        return new Attack(name, portAndBytesRead.size(), withReason, answered, silent, heldOpen, silentIsFine,
                distinctReasons);
    }

    private Map<Integer, List<String>> reasonsByPort(int logMark) {
        List<String> log = broker.log();
        Map<Integer, List<String>> byPort = new HashMap<>();
        for (String line : log.subList(Math.min(logMark, log.size()), log.size())) {
            Matcher m = CLOSED.matcher(line);
            if (m.matches()) {
                byPort.computeIfAbsent(Integer.parseInt(m.group(1)), p -> new ArrayList<>()).add(m.group(2));
            }
        }
        return byPort;
    }

    private long awaitThreadsBackTo(long before) {
        if (before < 0) {
            return -1;
        }
        Deadline.in(20_000).await(() -> broker.procStatus("Threads") <= before + THREAD_TOLERANCE);
        return broker.procStatus("Threads");
    }

    private Ledger.Audit auditGood(Ledger ledger, boolean alive) throws IOException {
        if (!alive) {
            return ledger.audit(Map.of());
        }
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SOCKET_TIMEOUT_MS)) {
            return ledger.audit(Map.of(GOOD_PARTITION, LogContents.consume(client, GOOD_PARTITION)));
        }
    }

    // ---- bytes on the wire ---------------------------------------------------------------------

    private Socket connect() throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(broker.host(), broker.port()), SOCKET_TIMEOUT_MS);
            s.setSoTimeout(SOCKET_TIMEOUT_MS);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static void send(Socket s, byte[] bytes) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
        } catch (IOException brokerClosedFirst) {
            // the broker may close before it has read everything: that is its answer
        }
    }

    /** Reads until the broker closes; the number of bytes it sent, or STILL_OPEN after the socket timeout. */
    private static int readUntilClosed(Socket s) {
        int total = 0;
        byte[] buffer = new byte[8192];
        try {
            InputStream in = s.getInputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                total += n;
            }
            return total;
        } catch (SocketTimeoutException open) {
            return STILL_OPEN;
        } catch (IOException reset) {
            return total;
        }
    }

    /** A length prefix and the payload; {@code cut} >= 0 keeps only that many payload bytes (the length still says all). */
    private static byte[] frame(byte[] payload, int cut) {
        int kept = cut < 0 ? payload.length : cut;
        return ByteBuffer.allocate(4 + kept).putInt(payload.length).put(payload, 0, kept).array();
    }

    private byte[] envelope(short apiKey, byte[] body) {
        return new RequestEnvelope(apiKey, random.nextInt(), body).encode();
    }
}
