package kaenlog.reliability.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import kaenlog.cluster.PartitionState;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.Deadline;
import kaenlog.reliability.Directories;
import kaenlog.reliability.TableFigures;

/**
 * The cluster under faults (#28), the way Kafka's own system tests try it
 * ({@code replication_test.py}: clean and hard shutdown and bounce of the leader and of the
 * controller, replication factor 3, min.insync.replicas 2) and the way Kafka's
 * {@code EpochDrivenReplicationProtocolAcceptanceTest} tries leader epochs, and (#36) the way an
 * attacker who reaches a broker's client port or ZooKeeper would ({@link ClusterTampering}: a
 * spoofed replica fetch, a broken registration, a forged partition state). Each scenario starts
 * three {@code klog serve} processes on a fresh ZooKeeper, writes with an idempotent acks=all
 * producer while a consumer tails, injects its faults, heals, and hands everything to the
 * {@link ClusterChecker}; a row of the report each.
 */
public final class ClusterFaults {
    private static final List<Integer> ASSIGNMENT = List.of(1, 2, 3);
    /** The controller (broker 1, which registers first) is not the leader: broker 2 is. */
    private static final List<Integer> LEADER_NOT_CONTROLLER = List.of(2, 3, 1);
    private static final int MIN_ISR = 2;

    /** The scenarios, in the report's order; {@code ci}: the subset the tests run. */
    public enum Scenario {
        SIGKILL_LEADER("SIGKILL the leader under load", true),
        HARD_BOUNCES("hard bounce x5, chasing the leader", false),
        SIGTERM_LEADER("SIGTERM the leader", false),
        FOLLOWERS("kill a follower, then the second", true),
        SIGKILL_CONTROLLER("SIGKILL the controller", false),
        SIGSTOP_CONTROLLER("SIGSTOP the controller past its session", false),
        ZOMBIE_LEADER("SIGSTOP the leader past its session (zombie)", true),
        LEADER_ISOLATED("leader cut off from peers and ZooKeeper", false),
        FOLLOWERS_CUT("leader cut off from its followers only", false),
        CUT_LEADER_KILLED("leader killed while cut off from its followers", false),
        KIP101_HW_TRUNCATION("KIP-101 #1: lagging HW, leader lost", false),
        KIP101_DIVERGENCE("KIP-101 #2: divergent tail cut by epoch", false),
        KIP279_ABA("KIP-279: leaders A, B, then A again", true),
        FAST_LEADER_CHANGE("fast leader change: follower, leader x5", false),
        ZOOKEEPER_LEADER("ZooKeeper ensemble's leader killed", false),
        KAFKA_CLIENTS("SIGKILL the leader, kafka-clients on Kafka port", false),
        COORDINATOR_KILLED("SIGKILL the group's coordinator, 2 consumers", true),
        TXN_COORDINATOR_KILLED("SIGKILL the transaction coordinator during a commit", true),
        SPOOFED_REPLICA_FETCH("replica FETCH spoofed, followers stopped", true),
        BROKEN_REGISTRATION("a follower's registration broken, leader killed", true),
        TAMPERED_STATE("state set to leader 999, epoch 2^31-1", true);

        private final String title;
        private final boolean ci;

        Scenario(String title, boolean ci) {
            this.title = title;
            this.ci = ci;
        }

        public String title() {
            return title;
        }

        public boolean ci() {
            return ci;
        }

        /**
         * The CI subset: SIGKILL of the leader, the follower kills, the SIGSTOP zombie, KIP-279's A, B,
         * A, #36's spoofed replica fetch and tampered ZooKeeper data, #39's group whose coordinator
         * is killed (35 to 45 s at the tests' size on the shared 2-core machine, like
         * KafkaClusterFailoverTest's 29 s: two group joins of 3 s each, the 4 s session, a restart), and
         * #40's transaction coordinator killed during a commit (25 s at the tests' size, at load 28).
         */
        public static List<Scenario> ciSubset() {
            return java.util.Arrays.stream(values()).filter(Scenario::ci).toList();
        }
    }

    /**
     * @param records         acknowledged records each scenario writes at least
     * @param seed            the producer's batch sizes
     * @param maxBatchRecords batches of 1..max records
     */
    public record Config(long records, long seed, int maxBatchRecords) {
        /** The size: at least 1,000 acknowledged records per scenario. */
        public static Config full() {
            return new Config(1_200, 28L, 10);
        }

        /** The tests' size. */
        public static Config quick() {
            return new Config(300, 28L, 10);
        }
    }

    /** Every row. */
    public record Result(List<ClusterRun.Outcome> outcomes) implements TableFigures {
        public boolean ok() {
            return outcomes.stream().allMatch(ClusterRun.Outcome::ok);
        }

        public List<String> table() {
            List<String> lines = new ArrayList<>();
            String header = String.format("%-48s %7s %9s %5s %5s %10s %7s %10s  %s", "cluster scenario (rf 3, min ISR 2)",
                    "acked", "read back", "lost", "dups", "renumbered", "fenced", "new leader", "verdict");
            lines.add(header);
            lines.add("-".repeat(header.length() + 4));
            for (ClusterRun.Outcome o : outcomes) {
                ClusterChecker.Verdict v = o.verdict();
                lines.add(v == null ? String.format("%-48s %s", o.scenario(), "FAILED (did not run: "
                        + o.expectations() + ")") : String.format("%-48s %,7d %,9d %5d %5d %10d %7s %10s  %s",
                        o.scenario(), v.acknowledged(), v.readBack(), v.lost(), v.duplicated(), v.renumbered(),
                        v.fencedAcks() < 0 ? "-" : Long.toString(v.fencedAcks()),
                        v.newLeaderMaxMs() < 0 ? "-" : String.format("%.1f s", v.newLeaderMaxMs() / 1000.0),
                        o.ok() ? "ok" : "FAILED"));
            }
            lines.add("(fenced: acknowledged records whose batch in the final log carries a later epoch than the"
                    + " acknowledging broker led; new leader: the longest wait from a fault to ZooKeeper naming a new"
                    + " leader, bound 4 s session + 5 s)");
            if (outcomes.stream().anyMatch(o -> o.scenario().equals(Scenario.COORDINATOR_KILLED.title()))) {
                lines.add("(the coordinator row counts the group's topic: records the kafka-clients producer had"
                        + " acknowledged, and read by the group; dups: written at two offsets; new leader: the kill to"
                        + " a new coordinator named by every live broker; its records read again are in its details)");
            }
            if (outcomes.stream().anyMatch(o -> o.scenario().equals(Scenario.TXN_COORDINATOR_KILLED.title()))) {
                lines.add("(the transaction coordinator row counts the records of committed transactions: acknowledged,"
                        + " read by a read_committed consumer; lost: of a commit acknowledged, not read whole; new leader:"
                        + " the kill to the state partition's new leader; its transaction claims are in its details)");
            }
            return lines;
        }

        @Override
        public String title() {
            return "the cluster under faults (three klog serve processes, ZooKeeper, a proxy on every link)";
        }

        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (ClusterRun.Outcome o : outcomes) {
                lines.add(o.scenario() + ":");
                o.details().forEach(d -> lines.add("  " + d));
            }
            return lines;
        }
    }

    private ClusterFaults() {
    }

    /**
     * {@code java kaenlog.reliability.cluster.ClusterFaults [--quick] [SCENARIO...]}: the named rows
     * (all by default), their details, exit 0 when every one held.
     */
    public static void main(String[] args) {
        try {
            report(args);
        } catch (IOException | RuntimeException e) {
            // said here: the ZooKeeper server in this JVM (NIOServerCnxnFactory) replaces the default
            // uncaught-exception handler with one that logs to slf4j, a no-op here
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void report(String[] args) throws IOException {
        boolean quick = List.of(args).contains("--quick");
        List<Scenario> chosen = java.util.Arrays.stream(args).filter(a -> !a.startsWith("--")).map(Scenario::valueOf)
                .toList();
        // -Dcluster.faults.keep=DIR keeps the brokers' directories (their logs, checkpoints, ZooKeeper's) there
        String keep = System.getProperty("cluster.faults.keep");
        Path root = keep != null ? Files.createDirectories(Path.of(keep)) : Files.createTempDirectory("kaenlog-cluster-faults");
        Result result;
        try {
            result = run(root, BrokerProcess.Options.ofThisClasspath(), quick ? Config.quick() : Config.full(),
                    chosen.isEmpty() ? List.of(Scenario.values()) : chosen);
        } finally {
            if (keep == null) {
                Directories.deleteTree(root);
            }
        }
        result.table().forEach(System.out::println);
        System.out.println();
        result.details().forEach(System.out::println);
        System.exit(result.ok() ? 0 : 1);
    }

    /** Runs {@code scenarios}, each on a fresh cluster in a directory of its own under {@code root}. */
    public static Result run(Path root, BrokerProcess.Options options, Config config, List<Scenario> scenarios)
            throws IOException {
        List<ClusterRun.Outcome> outcomes = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            outcomes.add(run(Files.createDirectories(root.resolve(scenario.name().toLowerCase())), options, config,
                    scenario));
        }
        return new Result(outcomes);
    }

    /** One scenario: its row. A scenario that could not run (the cluster did not start) is a FAILED row. */
    public static ClusterRun.Outcome run(Path dir, BrokerProcess.Options options, Config config, Scenario scenario)
            throws IOException {
        ClusterHarness.Config cluster = ClusterHarness.Config.standard();
        if (scenario == Scenario.ZOOKEEPER_LEADER) {
            cluster = cluster.withEnsemble();
        }
        if (scenario == Scenario.KAFKA_CLIENTS) {
            cluster = cluster.withKafkaPorts();
        }
        if (scenario == Scenario.COORDINATOR_KILLED) {
            cluster = cluster.withKafkaPorts().withBrokerConfigs(CoordinatorFailover.BROKER_CONFIGS);
        }
        if (scenario == Scenario.TXN_COORDINATOR_KILLED) {
            cluster = cluster.withKafkaPorts().withBrokerConfigs(TxnCoordinatorFailover.BROKER_CONFIGS);
        }
        List<Integer> assignment = scenario == Scenario.SIGKILL_CONTROLLER || scenario == Scenario.SIGSTOP_CONTROLLER
                ? LEADER_NOT_CONTROLLER : ASSIGNMENT;
        try (ClusterRun run = ClusterRun.start(scenario.title(), dir, cluster, options, assignment, MIN_ISR,
                config.seed(), config.maxBatchRecords())) {
            if (scenario == Scenario.COORDINATOR_KILLED) {
                return CoordinatorFailover.run(run, config.records()); // its own figures, then the cluster's end
            }
            if (scenario == Scenario.TXN_COORDINATOR_KILLED) {
                return TxnCoordinatorFailover.run(run); // its own figures, then the cluster's end
            }
            int zooKeeperMember = script(run, scenario, config.records());
            return run.finish(zooKeeperMember);
        } catch (IOException | RuntimeException e) {
            return new ClusterRun.Outcome(scenario.title(), null, List.of(e.getClass().getSimpleName() + ": "
                    + e.getMessage()), List.of("did not run: " + e), 0);
        }
    }

    /** The scenario's faults and writes; the ZooKeeper member whose transaction log to read (1 but for the ensemble row). */
    private static int script(ClusterRun run, Scenario scenario, long n) throws IOException {
        switch (scenario) {
            case SIGKILL_LEADER -> sigkillLeader(run, n);
            case HARD_BOUNCES -> hardBounces(run, n);
            case SIGTERM_LEADER -> sigtermLeader(run, n);
            case FOLLOWERS -> followers(run, n);
            case SIGKILL_CONTROLLER -> controller(run, n, false);
            case SIGSTOP_CONTROLLER -> controller(run, n, true);
            case ZOMBIE_LEADER -> zombieLeader(run, n);
            case LEADER_ISOLATED -> leaderIsolated(run, n);
            case FOLLOWERS_CUT -> followersCut(run, n);
            case CUT_LEADER_KILLED -> cutLeaderKilled(run, n);
            case KIP101_HW_TRUNCATION -> kip101HwTruncation(run, n);
            case KIP101_DIVERGENCE -> kip101Divergence(run, n);
            case KIP279_ABA -> kip279(run, n);
            case FAST_LEADER_CHANGE -> fastLeaderChange(run, n);
            case ZOOKEEPER_LEADER -> {
                return zooKeeperLeader(run, n);
            }
            case KAFKA_CLIENTS -> KafkaClientsWorkload.sigkillLeader(run, n);
            case COORDINATOR_KILLED -> throw new IllegalStateException("CoordinatorFailover runs it, with its own figures");
            case TXN_COORDINATOR_KILLED -> throw new IllegalStateException("TxnCoordinatorFailover runs it, with its own"
                    + " figures");
            case SPOOFED_REPLICA_FETCH -> ClusterTampering.spoofedReplicaFetch(run, n);
            case BROKEN_REGISTRATION -> ClusterTampering.brokenRegistration(run, n);
            case TAMPERED_STATE -> ClusterTampering.tamperedState(run, n);
            default -> throw new IllegalArgumentException(scenario.name());
        }
        return 1;
    }

    /** Kafka's replication_test hard_shutdown of the leader: kill -9 while the producer writes, restart later. */
    private static void sigkillLeader(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = run.cluster().leader();
        run.kill(leader);
        int next = failover(run, leader, n, () -> run.restart(leader));
        run.note("broker " + leader + " killed; broker " + next + " took over; broker " + leader
                + " restarted and back in the ISR");
    }

    /**
     * How a leader's fault ends: a new leader, which the producer writes through up to two thirds of
     * {@code n}; then {@code back} brings the old leader back, the ISR is whole again and all of
     * {@code n} is written. Returns the new leader.
     */
    private static int failover(ClusterRun run, int leader, long n, ClusterRun.Action back) throws IOException {
        int next = run.awaitNewLeader(leader);
        run.awaitAcked(2 * n / 3);
        back.run();
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        return next;
    }

    /** Kafka's hard_bounce: five times, kill -9 whoever leads now and start it again. */
    private static void hardBounces(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        List<Integer> leaders = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            run.awaitAcked(i * n / 6);
            int leader = run.cluster().leader();
            leaders.add(leader);
            run.kill(leader);
            run.awaitNewLeader(leader);
            run.restart(leader);
            run.awaitFullIsr();
        }
        run.awaitAcked(n);
        run.producer().stopBackground();
        run.note("leaders killed in turn: " + leaders);
    }

    /** Kafka's clean_shutdown of the leader: SIGTERM closes the session, so the new leader comes at once. */
    private static void sigtermLeader(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 2);
        int leader = run.cluster().leader();
        run.terminate(leader);
        run.awaitNewLeader(leader);
        run.restart(leader);
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
    }

    /**
     * One follower killed: acks=all goes on with an ISR of 2. The second killed: with an ISR of 1 the
     * producer is refused (NOT_ENOUGH_REPLICAS) and nothing is acknowledged. Both restarted: the logs
     * converge.
     */
    private static void followers(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 4);
        int leader = run.cluster().leader();
        List<Integer> followers = ASSIGNMENT.stream().filter(b -> b != leader).toList();
        run.kill(followers.get(0));
        run.expect(run.cluster().awaitState(s -> s.isr().size() == 2, ClusterRun.WAIT_MS).isPresent(),
                "the ISR shrinks to 2 after broker " + followers.get(0) + " is killed");
        long isrTwoAt = System.currentTimeMillis();
        run.awaitAcked(run.producer().acked() + n / 4);
        long ackedWithTwo = run.acksBy(leader, isrTwoAt, Long.MAX_VALUE).size();
        run.expect(ackedWithTwo > 0, "acknowledgements go on with an ISR of 2");
        run.kill(followers.get(1));
        run.expect(run.cluster().awaitState(s -> s.isr().size() == 1, ClusterRun.WAIT_MS).isPresent(),
                "the ISR shrinks to the leader alone after broker " + followers.get(1) + " is killed");
        long isrOneAt = System.currentTimeMillis();
        long refusedBefore = run.ledger().refusedCount();
        // The producer sends one request at a time, and the one on its way when the ISR shrank may
        // wait out its timeout: below min.insync.replicas the high watermark stands still (chapter
        // 8), so the write appended before the shrink is answered REQUEST_TIMED_OUT, as Kafka's is.
        // Its resend is the first to be refused: wait for it, then watch 3 s more.
        Deadline.in(ClusterRun.REQUEST_TIMEOUT_MS + 3_000L).await(() -> run.ledger().refusedCount() > refusedBefore);
        Deadline.pause(3_000);
        long isrOneUntil = System.currentTimeMillis();
        List<ClusterLedger.Ack> acked = run.acksBy(-1, isrOneAt, isrOneUntil);
        long refused = run.ledger().refusedCount() - refusedBefore;
        long seconds = Math.round((isrOneUntil - isrOneAt) / 1000.0);
        run.expect(acked.isEmpty(), "nothing acknowledged during " + seconds + " s with an ISR of 1: "
                + ClusterRun.describe(acked));
        run.expect(refused > 0, "the producer refused (NOT_ENOUGH_REPLICAS) with an ISR of 1");
        run.restart(followers.get(0));
        run.restart(followers.get(1));
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        run.note("followers " + followers + " killed in turn: " + ackedWithTwo + " batches acknowledged with an ISR"
                + " of 2; with an ISR of 1, " + refused + " refusals in " + seconds + " s and " + acked.size()
                + " acknowledgements");
    }

    /**
     * The controller (broker 1, a follower here) killed, or stopped past its session then let go:
     * the new controller has the next epoch, and the old one writes nothing after it.
     */
    private static void controller(ClusterRun run, long n, boolean pause) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int old = run.cluster().controller();
        ClusterHarness.Node node = run.cluster().node(old);
        if (pause) {
            run.pause(old);
        } else {
            run.kill(old);
        }
        boolean moved = Deadline.in(ClusterRun.WAIT_MS).await(() -> {
            int now = run.cluster().controller();
            return now >= 0 && now != old;
        });
        run.expect(moved, "a new controller after broker " + old + " stopped");
        int next = run.cluster().controller();
        run.awaitAcked(2 * n / 3);
        int linesBefore = node.logs().get(node.logs().size() - 1).size();
        if (pause) {
            run.resume(old);
            run.expect(node.process().awaitLog(l -> l.contains("session expired"), ClusterRun.WAIT_MS),
                    "broker " + old + " learns that its session expired once it runs again");
        } else {
            run.restart(old);
        }
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        List<String> life = node.logs().get(node.logs().size() - 1);
        List<String> after = pause ? life.subList(linesBefore, life.size()) : life;
        List<String> writes = after.stream().filter(l -> l.startsWith("cluster: controller " + old + ":")).toList();
        run.expect(writes.isEmpty(), "the old controller " + old + " writes nothing once it is back: " + writes);
        run.expect(run.cluster().controller() != old, "broker " + old + " is not the controller again");
        run.note("controller " + old + (pause ? " stopped and let go" : " killed and restarted") + "; broker " + next
                + " took over; the old one's controller writes afterwards: " + writes.size());
    }

    /**
     * The leader stopped (SIGSTOP) past its session: a new leader is elected; let go (SIGCONT), the
     * zombie must acknowledge nothing it was sent after it stopped, stop leading when it learns its
     * session expired, truncate by epoch and rejoin as a follower.
     */
    private static void zombieLeader(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = run.cluster().leader();
        long stoppedAt = run.pause(leader);
        int next = failover(run, leader, n, () -> {
            ClusterHarness.Node node = run.cluster().node(leader);
            run.resume(leader);
            run.expect(node.process().awaitLog(l -> l.contains("session expired: it stops leading"),
                    ClusterRun.WAIT_MS), "the zombie " + leader + " learns that its session expired and stops leading");
        });
        List<ClusterLedger.Ack> zombie = run.acksBy(leader, stoppedAt, Long.MAX_VALUE);
        run.expect(zombie.isEmpty(), "the zombie " + leader + " acknowledges nothing sent after it stopped: " + ClusterRun.describe(zombie));
        run.note("broker " + leader + " stopped past its session; broker " + next + " took over; the zombie"
                + " acknowledged " + zombie.size() + " batches sent after it stopped");
    }

    /**
     * The leader cut off from its peers and from ZooKeeper, alive throughout: its session expires,
     * another leads; it acknowledges nothing (its followers cannot fetch, and it cannot shrink its
     * ISR without ZooKeeper); healed, it learns of the expiry and follows.
     */
    private static void leaderIsolated(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = run.cluster().leader();
        long cutAt = run.cutOff(leader, true);
        int next = failover(run, leader, n, () -> run.heal(leader));
        List<ClusterLedger.Ack> zombie = run.acksBy(leader, cutAt, Long.MAX_VALUE);
        run.expect(zombie.isEmpty(), "the cut-off leader " + leader + " acknowledges nothing sent after the cut: "
                + ClusterRun.describe(zombie));
        run.note("broker " + leader + " cut off; broker " + next + " took over; the cut-off one acknowledged "
                + zombie.size() + " batches sent after the cut");
    }

    /**
     * The leader cut off from its followers only (ZooKeeper still reachable): it shrinks its ISR to
     * itself, its high watermark freezes, the producer gets errors or timeouts and no
     * acknowledgement; no leader change. Healed, the followers catch up and rejoin.
     */
    private static void followersCut(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = run.cluster().leader();
        int epoch = run.cluster().state().map(PartitionState::leaderEpoch).orElse(-1);
        long cutAt = run.cutOff(leader, false);
        boolean shrunk = run.cluster().awaitState(s -> s.isr().equals(List.of(leader)), ClusterRun.WAIT_MS)
                .isPresent();
        run.expect(shrunk, "the leader " + leader + " shrinks its ISR to itself");
        long hwAtShrink = run.highWatermarkOf(leader);
        Deadline.pause(3_000);
        long hwLater = run.highWatermarkOf(leader);
        long healAt = System.currentTimeMillis();
        run.expect(hwAtShrink == hwLater && hwAtShrink >= 0, "the high watermark freezes: " + hwAtShrink + " then "
                + hwLater);
        // a request already out when the link was cut may have been copied before it: only later ones count
        List<ClusterLedger.Ack> during = run.acksBy(-1, cutAt + 1, healAt);
        run.expect(during.isEmpty(), "no acknowledgement while the followers are cut off: " + ClusterRun.describe(during));
        run.heal(leader);
        run.awaitFullIsr();
        run.awaitAcked(n);
        run.producer().stopBackground();
        PartitionState end = run.cluster().state().orElseThrow();
        run.expect(end.leader() == leader && end.leaderEpoch() == epoch, "no leader change: broker " + leader
                + " at epoch " + epoch + " throughout, not " + end);
        run.note("followers cut off from broker " + leader + ": ISR " + (shrunk ? "[" + leader + "]" : "not shrunk")
                + ", high watermark " + hwAtShrink + " then " + hwLater + ", " + during.size()
                + " acknowledgements while cut");
    }

    /**
     * The leader cut off from its followers, then killed before its ISR shrinks (within
     * replica.lag.time.max.ms): the followers hold nothing written since the cut, the first of them
     * leads. Whatever the old leader acknowledged during the cut would be lost: it must have
     * acknowledged nothing (acks=all waits for a high watermark that cannot move).
     */
    private static void cutLeaderKilled(ClusterRun run, long n) throws IOException {
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        int leader = run.cluster().leader();
        long cutAt = run.cutOff(leader, false);
        Deadline.pause(1_000); // less than replica.lag.time.max.ms: the ISR still names the followers
        run.kill(leader);
        run.heal(leader);
        int next = failover(run, leader, n, () -> run.restart(leader));
        List<ClusterLedger.Ack> cut = run.acksBy(leader, cutAt + 1, Long.MAX_VALUE);
        run.expect(cut.isEmpty(), "the leader acknowledges nothing sent after its followers were cut off: "
                + ClusterRun.describe(cut));
        run.note("followers cut off from broker " + leader + ", which was killed 1 s later; broker " + next
                + " took over; " + cut.size() + " acknowledgements by broker " + leader + " during the cut");
    }

    /**
     * KIP-101's first scenario, where truncating to the high watermark loses acknowledged records:
     * the followers hold the last acknowledged batch but not yet the high watermark that covers it
     * (it comes in their next fetch's answer, which the leader's death cuts off); the leader and a
     * follower are killed, the follower restarts; the next leader must still hold every acknowledged
     * record, so no follower may have cut its log back to its own high watermark meanwhile.
     */
    private static void kip101HwTruncation(ClusterRun run, long n) throws IOException {
        run.produce(n / 3);
        int leader = run.cluster().leader();
        run.kill(leader);
        List<Integer> followers = ASSIGNMENT.stream().filter(b -> b != leader).toList();
        Deadline.pause(300); // their last checkpoints (every 100 ms) hold the high watermark they knew
        SortedMap<Integer, Long> leos = run.logEndOffsets();
        StringBuilder lag = new StringBuilder();
        for (int f : followers) {
            Long hw = run.observer().checkpointedHighWatermarks().getOrDefault(f, List.of(-1L)).stream()
                    .reduce((a, b) -> b).orElse(-1L);
            lag.append(lag.isEmpty() ? "" : ", ").append("broker ").append(f).append(" HW ").append(hw)
                    .append(" LEO ").append(leos.get(f));
        }
        run.kill(followers.get(0));
        run.restart(followers.get(0));
        int next = run.awaitNewLeader(leader);
        run.produce(n / 3);
        run.restart(leader);
        run.awaitFullIsr();
        run.produce(n - run.producer().acked());
        run.note("leader " + leader + " killed right after an acknowledgement (" + lag + "); broker "
                + followers.get(0) + " bounced; broker " + next + " took over");
    }

    /**
     * KIP-101's second scenario, divergence: the leader, cut off from its peers and ZooKeeper,
     * takes writes no follower copies (acks=1, never acknowledged as acks=all); another leads and
     * writes at those offsets; healed, the old leader must cut its divergent tail by epoch and hold
     * the new leader's batches, CRC by CRC.
     */
    private static void kip101Divergence(ClusterRun run, long n) throws IOException {
        run.produce(n / 3);
        int leader = run.cluster().leader();
        run.cutOff(leader, true);
        int stray = run.writeStrayTail(leader, 5);
        int next = run.awaitNewLeader(leader);
        run.produce(n / 3);
        run.heal(leader);
        run.awaitFullIsr();
        run.produce(n - run.producer().acked());
        run.expect(stray > 0, "the cut-off leader takes the divergent writes");
        run.note("broker " + leader + " took " + stray + " batches no one copied; broker " + next
                + " took over and wrote at the same offsets");
    }

    /**
     * KIP-279's fast leader changes: A leads, B leads (A cut off), A catches up; B takes writes no one
     * copies and is cut off; A leads again (the first in-sync replica in assignment order). B, healed,
     * holds an epoch whose end it must learn from A, and cuts back to it.
     */
    private static void kip279(ClusterRun run, long n) throws IOException {
        run.produce(n / 4);
        int a = run.cluster().leader();
        run.cutOff(a, true);
        int b = run.awaitNewLeader(a);
        run.produce(n / 4);
        run.heal(a);
        run.awaitFullIsr();
        run.cutOff(b, true);
        int stray = run.writeStrayTail(b, 4);
        int again = run.awaitNewLeader(b);
        run.expect(again == a, "A leads again: broker " + a + ", the first in-sync replica in assignment order, not "
                + again);
        run.produce(n / 4);
        run.heal(b);
        run.awaitFullIsr();
        run.produce(n - run.producer().acked());
        run.note("leaders " + a + ", " + b + ", " + again + "; broker " + b + " took " + stray
                + " batches no one copied before it was cut off");
    }

    /**
     * Kafka's shouldSurviveFastLeaderChange: five times, write, bounce a follower (SIGTERM and
     * start), then the leader; after each round every replica's log ends at the count written.
     */
    private static void fastLeaderChange(ClusterRun run, long n) throws IOException {
        List<String> rounds = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            run.produce(n / 5);
            int leader = run.cluster().leader();
            int follower = ASSIGNMENT.stream().filter(x -> x != leader).findFirst().orElseThrow();
            run.terminate(follower);
            run.restart(follower);
            run.awaitFullIsr();
            int nowLeader = run.cluster().leader();
            run.terminate(nowLeader);
            run.restart(nowLeader);
            run.awaitFullIsr();
            long written = run.producer().acked();
            boolean all = Deadline.in(ClusterRun.WAIT_MS).await(() -> run.logEndOffsets().values().stream()
                    .allMatch(leo -> leo == written));
            run.expect(all, "round " + i + ": every log ends at " + written + ", not " + run.logEndOffsets());
            rounds.add("round " + i + ": follower " + follower + ", leader " + nowLeader + " bounced, LEOs "
                    + run.logEndOffsets().values());
        }
        rounds.forEach(run::note);
    }

    /**
     * The ZooKeeper ensemble's leader killed while the producer writes: the ensemble elects another
     * within the brokers' session, so no session expires and no broker leader changes; nothing lost.
     */
    private static int zooKeeperLeader(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        run.producer().startBackground(10 * ClusterRun.WAIT_MS);
        run.awaitAcked(n / 3);
        SortedMap<Integer, String> modes = cluster.zooKeeperModes();
        int zkLeader = modes.entrySet().stream().filter(e -> e.getValue().equals("leader")).map(e -> e.getKey())
                .findFirst().orElse(-1);
        run.expect(zkLeader > 0, "one ensemble member is the leader: " + modes);
        PartitionState before = cluster.state().orElseThrow();
        run.otherFault("SIGKILL of ZooKeeper's leader");
        cluster.killZooKeeper(zkLeader);
        boolean reelected = Deadline.in(ClusterRun.WAIT_MS).await(() -> cluster.zooKeeperModes().values().stream()
                .anyMatch("leader"::equals));
        run.expect(reelected, "the two live members elect a leader");
        run.awaitAcked(2 * n / 3);
        cluster.restartZooKeeper(zkLeader);
        run.awaitAcked(n);
        run.producer().stopBackground();
        PartitionState after = cluster.state().orElseThrow();
        run.expect(after.leader() == before.leader() && after.leaderEpoch() == before.leaderEpoch(),
                "no broker leader change: " + before + " then " + after);
        run.note("ZooKeeper member " + zkLeader + " (the leader) killed; modes after: " + cluster.zooKeeperModes()
                + "; partition state " + before + " then " + after);
        return zkLeader == 1 ? 2 : 1;
    }
}
