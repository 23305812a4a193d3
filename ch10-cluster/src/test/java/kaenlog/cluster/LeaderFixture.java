package kaenlog.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import kaenlog.batch.BatchBuilder;
import kaenlog.replication.AckVerdict;
import kaenlog.replication.Cluster;
import kaenlog.replication.HighWatermark;
import kaenlog.replication.IsrState;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.testkit.EarlierRule;
import kaenlog.wire.ErrorCode;

/**
 * Broker 1 leading orders-0 of replicas [1, 2, 3] at a given epoch, for the tests of the leader's
 * side (FollowerFetchTest, AcksAllTest, and LeaderIsrTest's shrink): its replica with some records,
 * its PartitionLeader on a state the controller wrote in ZooKeeper, and chapter 8's rule asked first.
 */
final class LeaderFixture {
    static final long T0 = 1_700_000_000_000L;
    static final long LAG = 30_000;
    static final String TOPIC = "orders";

    private LeaderFixture() {
    }

    /** Broker 1's replica, leader at {@code epoch}, with {@code records} one-record batches; the HW moves only when told. */
    static Replica leaderWith(Path dir, int epoch, int records) throws Exception {
        Replica replica = Replica.open(1, Role.FOLLOWER, dir.resolve(TOPIC + "-0"));
        replica.stopEagerHighWatermark();
        replica.becomeLeader(epoch);
        for (int i = 0; i < records; i++) {
            replica.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + i).build());
        }
        return replica;
    }

    /**
     * Chapter 8's shrink asked first ({@link EarlierRule}), on followers 2 and 3 last heard from at
     * {@code lastFetchMs}: does one of them leave the ISR at {@code nowMs}? The leader's shrink is
     * chapter 8's {@code IsrState.shrinkIsr}: when that answers wrong, chapter 10's task cannot be
     * judged, and the failure says "this fails in your chapter 8 code" (the table: "blocked by chapter 8").
     */
    static void chapter8Shrinks(Map<Integer, Long> lastFetchMs, long nowMs, boolean shrinks) {
        IsrState heard = new IsrState(1, List.of(2, 3), 1, LAG, T0);
        lastFetchMs.forEach((follower, atMs) -> heard.observe(follower, 0, atMs));
        chapter8Shrinks(heard, nowMs, shrinks);
    }

    /** The same on {@code lag} (left as it is): chapter 8's shrink on its ISR at {@code nowMs}. */
    static void chapter8Shrinks(IsrState lag, long nowMs, boolean shrinks) {
        EarlierRule.holds(lag.withIsr(lag.isr()).shrinkIsr(nowMs) == shrinks, IsrState.class, "shrinkIsr", shrinks
                ? "a follower silent for more than replica.lag.time.max.ms leaves the ISR (" + (nowMs - T0) + " ms after T0)"
                : "a follower silent for replica.lag.time.max.ms or less stays in the ISR (" + (nowMs - T0) + " ms after T0)");
    }

    /**
     * Chapter 8's check before the append asked first ({@link Cluster#produceRefusal}): a write with
     * {@code acks} while the ISR as written is {@code isr}, under min.insync.replicas {@code minIsr}.
     */
    static void chapter8Refuses(short acks, List<Integer> isr, int minIsr, ErrorCode expected) {
        IsrState written = new IsrState(1, List.of(2, 3), minIsr, LAG, T0).withIsr(isr);
        EarlierRule.holds(Cluster.produceRefusal(acks, written) == expected, Cluster.class, "produceRefusal",
                "acks=" + acks + " with the ISR " + isr + " and min.insync.replicas " + minIsr + " is answered "
                        + expected + " (acks=all under the minimum: NOT_ENOUGH_REPLICAS; acks 0 and 1: never refused)");
    }

    /** Chapter 8's verdict after the append asked first ({@link AckVerdict#decide}). */
    static void chapter8Verdict(long requiredOffset, long highWatermark, int isrSize, int minIsr, AckVerdict expected) {
        EarlierRule.holds(AckVerdict.decide(requiredOffset, highWatermark, isrSize, minIsr) == expected,
                AckVerdict.class, "decide", "a write ending before " + requiredOffset + ", HW " + highWatermark
                        + ", ISR of " + isrSize + ", min.insync.replicas " + minIsr + ": " + expected.displayName()
                        + " (NotYet while the HW is below it; then Committed, or NotEnoughReplicasAfterAppend when"
                        + " the ISR shrank under the minimum)");
    }

    /** Chapter 8's check of a replica's word asked first ({@link Cluster#checkFollowerFetch}), followers 2 and 3. */
    static void chapter8ChecksFetch(int replicaId, long fetchOffset, long logStartOffset, long logEndOffset,
                                    ErrorCode expected) {
        EarlierRule.holds(Cluster.checkFollowerFetch(replicaId, fetchOffset, List.of(2, 3), logStartOffset,
                        logEndOffset) == expected, Cluster.class, "checkFollowerFetch", "a fetch by replica "
                        + replicaId + " from " + fetchOffset + " (followers [2, 3], log " + logStartOffset + ".."
                        + logEndOffset + ") is " + expected + " (not a follower: NOT_LEADER_OR_FOLLOWER; an offset"
                        + " outside the log: OFFSET_OUT_OF_RANGE)");
    }

    /** Chapter 8's proposal of the high watermark asked first ({@link HighWatermark#advanceHw}), leader 1. */
    static void chapter8ProposesHw(long leaderLeo, Map<Integer, Long> followerLeos, Set<Integer> isr, int minIsr,
                                   OptionalLong expected) {
        EarlierRule.holds(HighWatermark.advanceHw(1, leaderLeo, followerLeos, isr, minIsr).equals(expected),
                HighWatermark.class, "advanceHw", "leader LEO " + leaderLeo + ", follower LEOs " + followerLeos
                        + ", ISR " + isr + ", min.insync.replicas " + minIsr + ": " + expected + " (the smallest LEO"
                        + " of the ISR; none under the minimum or while a member's LEO is unknown)");
    }

    /** The state {@code (leader 1, epoch, isr)} written by a controller, and the leader that reads it; every broker live. */
    static PartitionLeader leader(ZkClient zk, Replica replica, int epoch, List<Integer> isr, int minIsr)
            throws Exception {
        return leader(zk, replica, epoch, isr, minIsr, broker -> true);
    }

    /** The same, with the brokers {@code alive} says are live (the cluster as the leader last read it). */
    static PartitionLeader leader(ZkClient zk, Replica replica, int epoch, List<Integer> isr, int minIsr,
                                  IntPredicate alive) throws Exception {
        ControllerEpoch controller = ControllerElection.elect(zk, 1, T0).orElseThrow();
        return leaderOfNewTopic(zk, controller, TOPIC, replica, epoch, isr, minIsr, alive);
    }

    /**
     * The same on {@code topic}-0, a topic not created yet, by a controller already elected: a property
     * makes one topic per try, and ZooKeeper is not emptied between them.
     */
    static PartitionLeader leaderOfNewTopic(ZkClient zk, ControllerEpoch controller, String topic, Replica replica,
                                            int epoch, List<Integer> isr, int minIsr, IntPredicate alive)
            throws Exception {
        PartitionStateStore.createAssignment(zk, topic, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
        PartitionStateStore.createStates(zk, controller, topic, Map.of(0, new PartitionState(1, epoch, isr, 1)));
        return new PartitionLeader(zk, topic, 0, replica, PartitionStateStore.read(zk, topic, 0).orElseThrow(),
                List.of(1, 2, 3), minIsr, LAG, alive, T0);
    }
}
