package kaenlog.reliability.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import kaenlog.client.BrokerClient;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.ZNodes;
import kaenlog.reliability.Deadline;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;

/**
 * The cluster attacked through its replica fetch and its ZooKeeper data (#36): the three rows of
 * the report that reproduce the attacks, each with the figures its acceptance names:
 * acknowledged records lost (the checker's, at the end), a leader again within 20 s of each
 * tampering, no negative epoch anywhere (every row's, at the end), and what the well-behaved
 * producer saw meanwhile (its answers, their latency). The writes into ZooKeeper are an
 * attacker's: the checker judges the cluster's own history without them.
 */
final class ClusterTampering {
    /** The spoofed fetch offset: 2^40, far past any log end. */
    static final long SPOOFED_FETCH_OFFSET = 1L << 40;
    /** How long the spoofer fetches, and how often. */
    private static final long SPOOF_MS = 6_000;
    private static final long SPOOF_EVERY_MS = 50;
    /** The bound: a leader again within 20 s of a tampering. */
    static final long LEADER_AGAIN_MS = 20_000;
    /** The broken registration: JSON cut in the middle. */
    static final byte[] BROKEN_JSON = "{\"version\":5,\"host\":\"127.0.0.1\",\"endpoints\":[\"KAEN".getBytes(
            StandardCharsets.UTF_8);

    private ClusterTampering() {
    }

    /**
     * A client sends the leader replica FETCHes on its client port, as a follower (its replica id)
     * asking from offset 2^40, while both real followers are stopped and min.insync.replicas is 2;
     * then the leader, the last in-sync replica, is killed and the followers come back. Nothing may
     * be acknowledged during the spoof (the ISR is the leader alone), no follower may lead without
     * the records (no unclean election), and the controller must not bump the leader epoch over and
     * over (the slower variant: 11 bumps a second).
     */
    static void spoofedReplicaFetch(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = cluster.leader();
        List<Integer> followers = run.assignment().stream().filter(b -> b != leader).toList();
        for (int f : followers) {
            run.pause(f);
        }
        run.expect(cluster.awaitState(s -> s.isr().equals(List.of(leader)), ClusterRun.WAIT_MS).isPresent(),
                "the ISR shrinks to the leader alone once its followers are stopped (state " + cluster.state() + ")");
        int epochBefore = cluster.state().map(PartitionState::leaderEpoch).orElse(-1);
        Spoofer spoofer = new Spoofer(cluster.node(leader).port(), followers.get(0));
        long from = System.currentTimeMillis();
        Thread thread = new Thread(spoofer, "replica-fetch-spoofer");
        thread.setDaemon(true);
        thread.start();
        TreeSet<Integer> epochs = new TreeSet<>();
        while (System.currentTimeMillis() - from < SPOOF_MS) {
            cluster.state().ifPresent(s -> epochs.add(s.leaderEpoch()));
            Deadline.pause(10);
        }
        long to = System.currentTimeMillis();
        List<ClusterLedger.Ack> acked = run.acksBy(-1, from, to);
        List<Long> latencies = run.ledger().latenciesMs(from, to);
        // The leader killed while the spoof still goes on, as in the issue, at a moment the ISR in
        // ZooKeeper names the spoofed follower if it ever does (the worst moment: it can be elected).
        boolean spoofedIn = cluster.awaitState(s -> s.isr().contains(followers.get(0)), 3_000).isPresent();
        run.otherFault("SIGKILL of the leader, the last in-sync replica");
        cluster.kill(leader);
        spoofer.stop();
        joinQuietly(thread);
        long killedAt = System.currentTimeMillis();
        for (int f : followers) {
            run.resume(f);
        }
        boolean back = Deadline.in(ClusterRun.WAIT_MS).await(() -> cluster.liveBrokers().containsAll(followers));
        run.expect(back, "the stopped followers " + followers + " register again once let go");
        Deadline.pause(2_000); // time for the controller to decide on the partition with them back
        run.restart(leader);
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        List<PartitionState> followersLed = cluster.history(1).states().stream().filter(v -> v.timeMs() >= killedAt)
                .map(ZkHistory.StateVersion::state).filter(s -> followers.contains(s.leader())).toList();
        run.expect(followersLed.isEmpty(), "no follower, which lacks what was acknowledged during the spoof if"
                + " anything was, is elected after broker " + leader + "'s kill: " + followersLed);
        int bumps = epochs.isEmpty() ? 0 : epochs.last() - Math.max(epochBefore, epochs.first());
        run.expect(acked.isEmpty(), "nothing acknowledged during the spoof (ISR [" + leader + "], min ISR 2): "
                + ClusterRun.describe(acked));
        run.expect(bumps <= 0, "no leader epoch bumped during the spoof: " + bumps + " in " + (to - from) + " ms");
        run.note("followers " + followers + " stopped; " + spoofer.sent() + " replica FETCHes as broker "
                + followers.get(0) + " from offset 2^40 on broker " + leader + "'s client port in " + (to - from)
                + " ms, answered " + spoofer.answers() + "; " + acked.size() + " batches ("
                + acked.stream().mapToLong(ClusterLedger.Ack::count).sum() + " records) acknowledged meanwhile;"
                + " leader epoch bumps meanwhile: " + bumps + "; the ISR in ZooKeeper named broker " + followers.get(0)
                + " when the leader was killed: " + spoofedIn);
        run.note("the well-behaved producer during the spoof: " + latency(latencies));
        run.note("broker " + leader + " (the last in-sync replica) killed and restarted; states naming a follower"
                + " leader after the kill: " + followersLed.size() + (followersLed.isEmpty() ? "" : ", the first "
                + followersLed.get(0)));
    }

    /**
     * A follower's {@code /brokers/ids/N} overwritten with broken JSON, then the leader killed: the
     * controller must not elect that broker (its registration does not parse: it is absent), some
     * other in-sync replica leads within the bound, and a log line names the znode. Healed: the old
     * leader restarted, the follower restarted (a fresh registration).
     */
    static void brokenRegistration(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = cluster.leader();
        // the follower the controller would elect first: the next in assignment order
        int victim = run.assignment().stream().filter(b -> b != leader).findFirst().orElseThrow();
        String path = ZNodes.brokerPath(victim);
        long forgedAt = System.currentTimeMillis();
        long zxid = run.forge("broker " + victim + "'s registration overwritten with broken JSON", path, BROKEN_JSON);
        Deadline.pause(1_000);
        long killedAt = run.kill(leader);
        int next = run.awaitNewLeader(leader);
        long newLeaderMs = System.currentTimeMillis() - killedAt;
        run.expect(next != victim, "broker " + victim + ", whose registration does not parse, is never elected");
        run.expect(newLeaderMs <= LEADER_AGAIN_MS, "a new leader within " + LEADER_AGAIN_MS / 1000 + " s of the"
                + " leader's kill: " + newLeaderMs + " ms");
        boolean named = Deadline.in(5_000).await(() -> cluster.nodes().stream().filter(node -> node.id() != leader)
                .anyMatch(node -> node.process().log().stream().anyMatch(l -> l.contains(path))));
        run.expect(named, "a broker's log names " + path);
        long victimLed = cluster.history(1).states().stream().filter(v -> v.zxid() > zxid)
                .filter(v -> v.state().leader() == victim).count();
        run.expect(victimLed == 0, "no state names broker " + victim + " leader while its registration is broken: "
                + victimLed);
        List<Long> latencies = run.ledger().latenciesMs(forgedAt, System.currentTimeMillis());
        run.restart(leader);
        run.terminate(victim);
        run.restart(victim);
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        run.note("broker " + victim + "'s " + path + " overwritten with broken JSON; broker " + leader + " killed;"
                + " broker " + next + " led " + newLeaderMs + " ms later; states naming broker " + victim
                + " leader meanwhile: " + victimLed + "; a log line names the znode: " + named);
        run.note("the well-behaved producer from the tampering to the new leader: " + latency(latencies));
    }

    /**
     * The partition's state znode set to leader 999 (no such broker) and leader epoch 2^31-1 (the
     * largest an int holds): the brokers must not act on it, and the controller must put a leader
     * back within 20 s at an epoch every broker can act on, never a wrapped (negative) one.
     */
    static void tamperedState(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        PartitionState before = cluster.state().orElseThrow();
        PartitionState forged = new PartitionState(999, Integer.MAX_VALUE, before.isr(), before.controllerEpoch());
        long at = System.currentTimeMillis();
        run.forge("state set to leader 999, leader epoch 2^31-1", ZNodes.statePath(ClusterHarness.TOPIC, 0),
                ZNodes.encodeState(forged));
        Optional<PartitionState> again = cluster.awaitState(s -> leadsAgain(run, s), LEADER_AGAIN_MS + 10_000);
        long waited = System.currentTimeMillis() - at;
        run.expect(again.isPresent() && waited <= LEADER_AGAIN_MS, "a leader again within " + LEADER_AGAIN_MS / 1000
                + " s: an assigned broker at an epoch it can act on, which says it leads it (state "
                + cluster.state() + " after " + waited + " ms)");
        run.awaitAcked(2 * n / 3);
        List<Long> latencies = run.ledger().latenciesMs(at, System.currentTimeMillis());
        run.awaitAcked(n);
        run.producer().stopBackground();
        run.note("state " + before + " overwritten with " + forged + "; then " + cluster.state().orElse(null)
                + (again.isPresent() ? ", a leader again " + waited + " ms after" : ", no leader again in " + waited
                + " ms"));
        run.note("the well-behaved producer from the tampering on: " + latency(latencies));
    }

    /** An assigned broker leads {@code s} at an epoch below the largest, and its own log says so. */
    private static boolean leadsAgain(ClusterRun run, PartitionState s) {
        if (!run.assignment().contains(s.leader()) || s.leaderEpoch() < 0 || s.leaderEpoch() == Integer.MAX_VALUE) {
            return false;
        }
        String says = "leads " + ClusterHarness.PARTITION + " at leader epoch " + s.leaderEpoch() + ",";
        return run.cluster().node(s.leader()).process().log().stream().anyMatch(l -> l.contains(says));
    }

    /** "N answers, latency median X ms, max Y ms", as the bounded broker's rows say it. */
    static String latency(List<Long> latenciesMs) {
        if (latenciesMs.isEmpty()) {
            return "no answer";
        }
        List<Long> sorted = latenciesMs.stream().sorted().toList();
        return sorted.size() + " answers, latency median " + sorted.get(sorted.size() / 2) + " ms, max "
                + sorted.get(sorted.size() - 1) + " ms";
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Replica FETCHes as {@code asReplica}, from offset 2^40, on a broker's client port; the answers tallied. */
    private static final class Spoofer implements Runnable {
        private final int port;
        private final int asReplica;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final Map<String, Integer> answers = new TreeMap<>();
        private int sent;

        Spoofer(int port, int asReplica) {
            this.port = port;
            this.asReplica = asReplica;
        }

        @Override
        public void run() {
            while (!stopped.get()) {
                try (BrokerClient client = BrokerClient.connect("127.0.0.1", port, 3_000)) {
                    while (!stopped.get()) {
                        FetchResponse answer = client.fetch(new FetchRequest(asReplica, ClusterHarness.PARTITION,
                                SPOOFED_FETCH_OFFSET, 64 * 1024, 0, FetchRequest.NO_LEADER_EPOCH));
                        tally(answer.error().name());
                        Deadline.pause(SPOOF_EVERY_MS);
                    }
                } catch (IOException | RuntimeException e) {
                    tally("no answer (" + e.getClass().getSimpleName() + ")");
                    Deadline.pause(SPOOF_EVERY_MS);
                }
            }
        }

        private synchronized void tally(String answer) {
            sent++;
            answers.merge(answer, 1, Integer::sum);
        }

        synchronized int sent() {
            return sent;
        }

        synchronized Map<String, Integer> answers() {
            return new TreeMap<>(answers);
        }

        void stop() {
            stopped.set(true);
        }
    }
}
