package kaenlog.reliability.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.cluster.PartitionState;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.Deadline;
import kaenlog.reliability.Ledger;
import kaenlog.reliability.LogContents;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * One scenario's run: the cluster, the workload (the idempotent producer and its ledger, the
 * observer's consumer and checkpoint reader), the faults injected (each with the time and the
 * leader at that moment), the scenario's own expectations, and, at the end, the heal, the
 * convergence, the evidence read from every replica's files and ZooKeeper's transaction log, and
 * the checker's verdict.
 */
public final class ClusterRun implements Closeable {
    /** How long any one wait of a scenario may take before it counts as not happening. */
    public static final long WAIT_MS = 60_000;
    /** The producer's request timeout: how long a leader may hold an acks=all write. */
    static final int REQUEST_TIMEOUT_MS = 3_000;
    /** Each scenario's whole run is bounded by this. */
    private static final long RUN_MS = 10 * 60_000;
    /** The producer index of batches written on purpose to one broker alone, never acknowledged (a divergent tail). */
    static final int STRAY_PRODUCER = 9;

    private final String name;
    private final ClusterHarness cluster;
    private final ClusterLedger ledger = new ClusterLedger();
    private final ClusterProducer producer;
    private final ClusterObserver observer;
    private final List<Integer> assignment;
    private final int minIsr;
    private final List<ClusterChecker.Fault> faults = new ArrayList<>();
    private final List<String> expectations = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<String> notes = java.util.Collections.synchronizedList(new ArrayList<>());
    /** The zxids of the writes this run made into ZooKeeper as an attacker: not the cluster's own. */
    private final java.util.Set<Long> forged = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private long strayNextSeq;

    private ClusterRun(String name, ClusterHarness cluster, List<Integer> assignment, int minIsr, long seed,
                       int maxBatchRecords) {
        this.name = name;
        this.cluster = cluster;
        this.assignment = List.copyOf(assignment);
        this.minIsr = minIsr;
        this.producer = new ClusterProducer(cluster, ledger, 0, seed, maxBatchRecords, REQUEST_TIMEOUT_MS);
        this.observer = ClusterObserver.start(cluster, RUN_MS);
    }

    /**
     * Starts the cluster, creates {@code orders} with one partition on {@code assignment} (its first
     * broker leads) and min.insync.replicas {@code minIsr}, and waits until every replica is in the ISR.
     */
    public static ClusterRun start(String name, Path root, ClusterHarness.Config config, BrokerProcess.Options options,
                                   List<Integer> assignment, int minIsr, long seed, int maxBatchRecords)
            throws IOException {
        ClusterHarness cluster = ClusterHarness.start(root, config, options);
        try {
            cluster.createTopic(ClusterHarness.TOPIC, new TreeMap<>(Map.of(0, assignment)), minIsr);
            cluster.await("the first state, every replica in the ISR", () -> cluster.state()
                    .map(s -> s.isr().size() == assignment.size()).orElse(false), WAIT_MS);
            return new ClusterRun(name, cluster, assignment, minIsr, seed, maxBatchRecords);
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public ClusterHarness cluster() {
        return cluster;
    }

    public ClusterProducer producer() {
        return producer;
    }

    public ClusterLedger ledger() {
        return ledger;
    }

    public ClusterObserver observer() {
        return observer;
    }

    public String name() {
        return name;
    }

    /** The partition's replicas, in assignment order. */
    public List<Integer> assignment() {
        return assignment;
    }

    // ---- faults, each written down with the leader it found

    /** SIGKILL of broker {@code id}; the time it was gone. */
    public long kill(int id) throws IOException {
        return fault("SIGKILL", id, () -> cluster.kill(id));
    }

    /** SIGTERM of broker {@code id} (a clean stop; its session closes at once); the time. */
    public long terminate(int id) throws IOException {
        return fault("SIGTERM", id, () -> cluster.terminate(id));
    }

    /** SIGSTOP of broker {@code id}; the time it was stopped. */
    public long pause(int id) throws IOException {
        return fault("SIGSTOP", id, () -> cluster.pause(id));
    }

    /** Cuts broker {@code id} off its peers, and ZooKeeper too with {@code fromZooKeeper}; the time. */
    public long cutOff(int id, boolean fromZooKeeper) throws IOException {
        return fault(fromZooKeeper ? "a cut from its peers and ZooKeeper" : "a cut from its followers", id,
                () -> cluster.cutOff(id, fromZooKeeper));
    }

    /** A step of a scenario that may fail with an I/O error (a fault, a restart). */
    interface Action {
        void run() throws IOException;
    }

    /**
     * Runs a fault and writes it down with the leader it found and the time it began (what the
     * wait for a new leader is measured from); returns the time it had taken effect (the signal
     * delivered, the process gone), the one to tell a request sent before it from one sent after.
     */
    private long fault(String what, int id, Action action) throws IOException {
        int leader = cluster.leader();
        long at = System.currentTimeMillis();
        action.run();
        boolean takesLeader = leader == id && !what.equals("a cut from its followers");
        faults.add(new ClusterChecker.Fault(what, id, at, leader, takesLeader));
        return System.currentTimeMillis();
    }

    /**
     * Overwrites the znode {@code path} as an attacker with access to ZooKeeper would (a fault, for
     * the count); the checker leaves this write out of the cluster's history. The zxid of the write.
     */
    public long forge(String what, String path, byte[] data) throws IOException {
        otherFault(what);
        long zxid = cluster.overwrite(path, data);
        forged.add(zxid);
        return zxid;
    }

    /** A fault that is not a broker's (ZooKeeper's leader killed), for the count. */
    public void otherFault(String what) {
        faults.add(new ClusterChecker.Fault(what, -1, System.currentTimeMillis(), cluster.leader(), false));
    }

    public void restart(int id) throws IOException {
        cluster.restart(id);
    }

    public void resume(int id) throws IOException {
        cluster.resume(id);
    }

    public void heal(int id) {
        cluster.heal(id);
    }

    public int faultCount() {
        return faults.size();
    }

    // ---- waits and expectations

    /** Waits until a broker other than {@code old} leads; the new leader, or -1 (an expectation failed). */
    public int awaitNewLeader(int old) {
        Optional<PartitionState> s = cluster.awaitState(st -> st.leader() >= 0 && st.leader() != old, WAIT_MS);
        if (s.isEmpty()) {
            expect(false, "a leader other than broker " + old + " within " + WAIT_MS + " ms (state " + cluster.state()
                    + ")");
            return -1;
        }
        return s.get().leader();
    }

    /** Waits until the ISR holds every replica. */
    public boolean awaitFullIsr() {
        boolean full = cluster.awaitState(s -> s.isr().size() == assignment.size() && s.leader() >= 0, WAIT_MS)
                .isPresent();
        expect(full, "every replica back in the ISR within " + WAIT_MS + " ms (state " + cluster.state() + ")");
        return full;
    }

    /** Produces {@code records} more acknowledged records in this thread; an expectation that they come. */
    public void produce(long records) {
        boolean done = producer.produce(records, WAIT_MS);
        expect(done, records + " more records acknowledged within " + WAIT_MS + " ms (" + producer.acked()
                + " in all; state " + cluster.state() + ")");
    }

    /** Waits, bounded, until the background producer has {@code records} acknowledged in all. */
    public void awaitAcked(long records) {
        boolean done = producer.awaitAcked(records, WAIT_MS);
        expect(done, records + " records acknowledged within " + WAIT_MS + " ms (" + producer.acked() + "; state "
                + cluster.state() + ")");
    }

    /** A scenario's own expectation; a false one fails the row with {@code what} as its reason. */
    public void expect(boolean held, String what) {
        if (!held) {
            expectations.add(what);
        }
    }

    /** A line of the row's details. */
    public void note(String line) {
        notes.add(line);
    }

    /** Acknowledgements by {@code broker} for requests sent at or after {@code fromMs} (and answered by {@code toMs}). */
    public List<ClusterLedger.Ack> acksBy(int broker, long fromMs, long toMs) {
        return ledger.acks().stream().filter(a -> (broker < 0 || a.broker() == broker) && a.sentAtMs() >= fromMs
                && a.ackedAtMs() <= toMs).toList();
    }

    /** A few acknowledgements, for a message: how many, and the first one's offsets, broker and records. */
    static String describe(List<ClusterLedger.Ack> acks) {
        if (acks.isEmpty()) {
            return "none";
        }
        ClusterLedger.Ack first = acks.get(0);
        return acks.size() + " batches (" + acks.stream().mapToLong(ClusterLedger.Ack::count).sum() + " records), the"
                + " first at offsets " + first.baseOffset() + ".." + first.lastOffset() + " by broker " + first.broker();
    }

    /** The leader's high watermark as a consumer's fetch from it says, or -1. */
    public long highWatermarkOf(int broker) {
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", cluster.node(broker).port(), 5_000)) {
            FetchResponse r = client.fetch(FetchRequest.consumer(ClusterHarness.PARTITION, 0, 1, 0));
            return r.error() == ErrorCode.NONE ? r.highWatermark() : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Writes {@code batches} batches of 3 records straight to broker {@code broker} with acks=1 (no
     * idempotence, never retried): what a cut-off leader appends that no follower ever copies, the
     * divergent tail a failover must cut. They go to the ledger as in doubt. Returns how many the
     * broker took.
     */
    public int writeStrayTail(int broker, int batches) {
        int taken = 0;
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", cluster.node(broker).port(), 5_000)) {
            for (int i = 0; i < batches; i++) {
                BatchBuilder builder = new BatchBuilder();
                for (int r = 0; r < 3; r++) {
                    builder.append(1_700_000_000_000L, null, Ledger.value(STRAY_PRODUCER, strayNextSeq + r));
                }
                ByteBuffer batch = builder.build();
                ledger.inDoubt(STRAY_PRODUCER, strayNextSeq, 3);
                strayNextSeq += 3;
                ProduceResponse answer = client.produce(new ProduceRequest(ClusterHarness.PARTITION,
                        ProduceRequest.ACKS_LEADER, 5_000, batch));
                if (answer.error() == ErrorCode.NONE) {
                    taken++;
                }
            }
        } catch (IOException e) {
            note("the stray writer stopped: " + e.getMessage());
        }
        return taken;
    }

    /** Each replica's log end offset, read from its segment files (the broker running or not). */
    public SortedMap<Integer, Long> logEndOffsets() {
        SortedMap<Integer, Long> leos = new TreeMap<>();
        for (ClusterHarness.Node node : cluster.nodes()) {
            try {
                leos.put(node.id(), ClusterChecker.ReplicaFiles.read(node.id(), node.dir()).leo());
            } catch (IOException | RuntimeException e) {
                leos.put(node.id(), -1L); // caught mid-write: the caller reads again
            }
        }
        return leos;
    }

    // ---- the end: heal, converge, read the evidence, check

    /** One row's outcome. */
    public record Outcome(String scenario, ClusterChecker.Verdict verdict, List<String> expectations,
                          List<String> details, int faults) {
        public boolean ok() {
            return verdict != null && verdict.ok() && expectations.isEmpty();
        }
    }

    /**
     * The end of a row with claims of its own (the coordinator rows, which write to a topic of their own):
     * every row's {@link #finish} on {@link ClusterHarness#PARTITION}, whose checker's invariants must
     * hold too, then the row's {@code verdict} and its {@code samples} of violations after the details.
     */
    public Outcome finishOwnRow(ClusterChecker.Verdict verdict, List<String> samples) throws IOException {
        Outcome cluster0 = finish(1);
        List<String> expectations = new ArrayList<>(cluster0.expectations());
        if (cluster0.verdict() != null && !cluster0.verdict().ok()) {
            expectations.add("the cluster checker's invariants on " + ClusterHarness.PARTITION + ": "
                    + cluster0.verdict().counts());
        }
        List<String> details = new ArrayList<>(cluster0.details());
        samples.forEach(v -> details.add("  " + v));
        return new Outcome(name, verdict, expectations, details, cluster0.faults());
    }

    /**
     * Heals every link, lets paused brokers go on and restarts dead ones, waits until every replica is
     * in the ISR and all three have the same high watermark, reads the final leader's log as a
     * consumer, stops the brokers (SIGTERM), reads every replica's files and ZooKeeper's history,
     * and checks. {@code zooKeeperMember}: the ensemble member whose transaction log to read.
     */
    public Outcome finish(int zooKeeperMember) throws IOException {
        producer.close();
        for (ClusterHarness.Node node : cluster.nodes()) {
            cluster.heal(node.id());
            if (node.life() == ClusterHarness.Life.PAUSED) {
                cluster.resume(node.id());
            } else if (node.life() != ClusterHarness.Life.RUNNING) {
                cluster.restart(node.id());
            }
        }
        awaitFullIsr();
        int leader = cluster.leader();
        boolean converged = false;
        for (Deadline deadline = Deadline.in(WAIT_MS); !converged && !deadline.passed(); ) {
            converged = converged(cluster.leader());
            if (!converged) {
                Deadline.pause(100);
            }
        }
        expect(converged, "the replicas' high watermarks meet the leader's within " + WAIT_MS + " ms: "
                + observer.checkpointedHighWatermarks());
        leader = cluster.leader();
        List<LogContents.Entry> finalRead = List.of();
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", cluster.node(Math.max(leader, 1)).port(),
                10_000)) {
            finalRead = LogContents.consume(client, ClusterHarness.PARTITION);
        } catch (IOException e) {
            expect(false, "the final leader " + leader + " serves the partition to a consumer: " + e.getMessage());
        }
        List<Integer> finalIsr = cluster.state().map(PartitionState::isr).orElse(List.of());
        observer.close();
        stopAll(leader);
        Map<Integer, ClusterChecker.ReplicaFiles> replicas = new HashMap<>();
        Map<Integer, List<List<String>>> logs = new HashMap<>();
        for (ClusterHarness.Node node : cluster.nodes()) {
            replicas.put(node.id(), ClusterChecker.ReplicaFiles.read(node.id(), node.dir()));
            logs.put(node.id(), node.logs());
        }
        rejoinedOncePerExpiry(logs);
        ZkHistory written = cluster.history(zooKeeperMember);
        List<String> negative = NegativeEpochs.find(written, replicas, logs);
        List<String> someNegative = negative.subList(0, Math.min(4, negative.size()));
        expect(negative.isEmpty(), "no negative epoch anywhere: " + someNegative);
        ZkHistory history = written.without(forged);
        ClusterChecker.Verdict verdict = ClusterChecker.check(new ClusterChecker.Evidence(ledger, observer, history,
                logs, replicas, finalRead, leader, finalIsr, faults, assignment, minIsr,
                cluster.config().sessionTimeoutMs()));
        List<String> details;
        synchronized (notes) {
            details = new ArrayList<>(notes);
        }
        details.add(faults.size() + " faults; " + ledger.acks().size() + " batches (" + ledger.ackedRecords()
                + " records) acknowledged, " + ledger.refusedCount() + " refused (NOT_ENOUGH_REPLICAS), "
                + producer.timeouts() + " requests timed out, " + producer.attempts() + " sent; " + ledger.errorCount()
                + " other errors " + ledger.errorSamples());
        details.add("states " + epochs(history) + "; controller epochs "
                + history.controllerEpochs().stream().map(ZkHistory.ControllerEvent::epoch).toList()
                + "; final leader " + leader + ", ISR " + finalIsr + ", " + finalRead.size() + " records read back");
        details.add("a consumer was served " + observer.served().size() + " records in " + observer.fetches()
                + " fetches; checkpointed high watermarks per broker: " + sizes(observer.checkpointedHighWatermarks()));
        details.add("negative epochs anywhere (ZooKeeper's states and /controller_epoch, the brokers' logs, their"
                + " epoch checkpoints and batches): " + negative.size() + (negative.isEmpty() ? "" : ", e.g. " + someNegative)
                + (forged.isEmpty() ? "" : "; " + forged.size() + " forged write(s) left out of the checked history"));
        details.add("violations per invariant " + verdict.counts());
        verdict.samples().forEach(s -> details.add("  invariant " + s));
        List<String> unmet;
        synchronized (expectations) {
            unmet = List.copyOf(expectations);
        }
        unmet.forEach(e -> details.add("  expected: " + e));
        return new Outcome(name, verdict, unmet, details, faults.size());
    }

    /**
     * No scenario cuts a broker's session twice in one life: one expiry, one rejoin. A second
     * "session expired" line is a live session thrown away (ZooKeeper tells every watcher of a
     * session of its expiry, so one expiry reaches a member that is several watchers several times).
     */
    private void rejoinedOncePerExpiry(Map<Integer, List<List<String>>> logs) {
        logs.forEach((broker, lives) -> {
            for (int life = 0; life < lives.size(); life++) {
                long rejoins = lives.get(life).stream().filter(l -> l.contains("session expired: it stops leading"))
                        .count();
                expect(rejoins <= 1, "broker " + broker + " (life " + (life + 1) + ") rejoins once per session expiry,"
                        + " not " + rejoins + " times");
            }
        });
    }

    private boolean converged(int leader) {
        if (leader < 0) {
            return false;
        }
        long hw = highWatermarkOf(leader);
        SortedMap<Integer, List<Long>> checkpointed = observer.checkpointedHighWatermarks();
        if (hw < 0 || checkpointed.size() < cluster.nodes().size()) {
            return false;
        }
        for (List<Long> hws : checkpointed.values()) {
            if (hws.get(hws.size() - 1) != hw) {
                return false;
            }
        }
        SortedMap<Integer, Long> leos = logEndOffsets();
        return leos.values().stream().allMatch(leo -> leo == hw);
    }

    /** Followers first, then the leader: a leader stopped first would hand its partition on. */
    private void stopAll(int leader) throws IOException {
        for (ClusterHarness.Node node : cluster.nodes()) {
            if (node.id() != leader && node.life() == ClusterHarness.Life.RUNNING) {
                cluster.terminate(node.id());
            }
        }
        if (leader >= 0 && cluster.node(leader).life() == ClusterHarness.Life.RUNNING) {
            cluster.terminate(leader);
        }
    }

    /** Each state ZooKeeper applied: epoch, leader and ISR, e.g. "e0 L1 [1, 2, 3]". */
    private static String epochs(ZkHistory history) {
        StringBuilder text = new StringBuilder();
        for (ZkHistory.StateVersion v : history.states()) {
            text.append(text.isEmpty() ? "" : "; ").append('e').append(v.state().leaderEpoch()).append(" L")
                    .append(v.state().leader() < 0 ? "-" : Integer.toString(v.state().leader())).append(' ')
                    .append(v.state().isr());
        }
        return text.toString();
    }

    private static String sizes(SortedMap<Integer, List<Long>> hws) {
        StringBuilder text = new StringBuilder();
        hws.forEach((b, list) -> text.append(text.isEmpty() ? "" : ", ").append(b).append(": ").append(list.size())
                .append(" values up to ").append(list.isEmpty() ? "-" : list.get(list.size() - 1)));
        return text.toString();
    }

    @Override
    public void close() throws IOException {
        producer.close();
        observer.close();
        cluster.close();
    }
}
