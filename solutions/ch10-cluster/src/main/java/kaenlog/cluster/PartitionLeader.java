package kaenlog.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.function.IntPredicate;
import kaenlog.broker.ReplicaGate;
import kaenlog.replication.AckVerdict;
import kaenlog.replication.Cluster;
import kaenlog.replication.IsrState;
import kaenlog.replication.IsrView;
import kaenlog.replication.LeaderEpochCache;
import kaenlog.replication.Replica;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import org.apache.zookeeper.KeeperException;

/**
 * A partition this broker leads, for one leader epoch: chapter 8's {@link Replica} and its rules
 * (the high watermark, the fetch a follower's word must pass, acks=all before and after the
 * append), chapter 8's {@link IsrState} for who fetched when, and the {@link LeaderIsr} of
 * task 8 (LeaderIsrTest), the ISR written to ZooKeeper. It is the partition's replica gate: an
 * acks=all produce waits on it (chapter 3's {@code Partition}).
 *
 * <p>It takes no lock of its own. Followers' fetches arrive on their connections' threads, the ISR
 * timer on its own, produces on theirs: its partition ({@link PartitionReplica}) calls it under its
 * one lock. The gate's questions ({@link #answer}) come without it: the partition asks them while it
 * holds its own lock, which a change here takes to move the high watermark, so they read only what
 * is replaced whole (the maximal ISR, whether this leadership stopped). A leader that stopped (a
 * newer state names another leader, or none) refuses everything and answers the produces still
 * waiting NOT_LEADER_OR_FOLLOWER.
 */
public final class PartitionLeader implements ReplicaGate, IsrView {
    private final Replica replica;
    private final IsrState lag;
    private final LeaderIsr isr;
    private final IntPredicate alive;
    private final long leaderEpochStartOffset;
    private volatile boolean stopped;

    /**
     * @param state      the state znode that names this broker leader, with its zkVersion
     * @param assignment the partition's replicas, in assignment order
     * @param minIsr     the topic's {@code min.insync.replicas}
     * @param replicaLagTimeMaxMs silent for longer than this, a follower leaves the ISR
     * @param alive      whether a broker is live, by the cluster as this broker last read it (Kafka's
     *                   metadata cache): registered, its registration readable
     * @param nowMs      when this broker took over: every follower counts as caught up then
     */
    public PartitionLeader(ZkClient zk, String topic, int partition, Replica replica, Versioned<PartitionState> state,
                           List<Integer> assignment, int minIsr, long replicaLagTimeMaxMs, IntPredicate alive,
                           long nowMs) {
        this.replica = replica;
        this.alive = alive;
        this.leaderEpochStartOffset = epochStartOffset(replica, state.value().leaderEpoch());
        List<Integer> followers = new ArrayList<>(assignment);
        followers.remove(Integer.valueOf(replica.id()));
        this.lag = new IsrState(replica.id(), followers, minIsr, replicaLagTimeMaxMs, nowMs);
        this.isr = new LeaderIsr(zk, topic, partition, state, lag);
    }

    /**
     * Kafka's check of the leader epoch a request names against the one this broker last learnt
     * ({@code Partition.checkCurrentLeaderEpoch}, on a leader and a follower alike): a negative epoch
     * is not checked (-1, a consumer's: Kafka's {@code FetchRequest.optionalEpoch} reads any negative
     * epoch as none); an older epoch than the local one is FENCED_LEADER_EPOCH (the one who
     * asks missed a leader change); a newer one is UNKNOWN_LEADER_EPOCH (this broker has not learnt
     * the newer state yet: ask again soon); the same epoch is NONE.
     */
    public static ErrorCode checkLeaderEpoch(int currentLeaderEpoch, int localLeaderEpoch) {
        // BEGIN-SOLUTION ch10 task 9: older is fenced, newer is unknown, a negative epoch is not checked (FollowerFetchTest)
        if (currentLeaderEpoch <= FetchRequest.NO_LEADER_EPOCH) { // -1, or any negative: no epoch named
            return ErrorCode.NONE;
        }
        if (currentLeaderEpoch < localLeaderEpoch) {
            return ErrorCode.FENCED_LEADER_EPOCH;
        }
        return currentLeaderEpoch > localLeaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NONE;
        // END-SOLUTION
    }

    /**
     * What a follower's fetch teaches the leader, before the leader reads for it (chapter 8's
     * order): the epoch is checked first, then the fetch against the log and the assignment
     * (chapter 8's {@link Cluster#checkFollowerFetch}: a replica's word the log cannot back teaches
     * nothing), then the fetch offset is recorded as the follower's LEO (and the time as when it was
     * last heard from), then a follower out of the ISR whose fetch reached the high watermark joins
     * it if it may ({@link #mayJoinIsr}), and last the high watermark moves to what the ISR now
     * holds. NONE lets the fetch be read; any other code is its answer.
     */
    public ErrorCode onFollowerFetch(int replicaId, long fetchOffset, int currentLeaderEpoch, long nowMs)
            throws IOException, KeeperException, InterruptedException {
        if (stopped) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        // BEGIN-SOLUTION ch10 task 9: check the epoch and the replica's word, learn the LEO, let a caught-up follower in, move the HW (FollowerFetchTest)
        ErrorCode epochError = checkLeaderEpoch(currentLeaderEpoch, leaderEpoch());
        if (epochError != ErrorCode.NONE) {
            return epochError; // a fetch from a stale epoch teaches the leader nothing
        }
        ErrorCode refused = Cluster.checkFollowerFetch(replicaId, fetchOffset, lag.followers(),
                replica.logStartOffset(), replica.leo());
        if (refused != ErrorCode.NONE) {
            return refused; // nor does one whose offset no log of this partition can hold, or a stranger's
        }
        lag.observe(replicaId, fetchOffset, nowMs);
        if (mayJoinIsr(replicaId, fetchOffset)) {
            isr.maybeExpand(replicaId, fetchOffset, replica.highWatermark());
        }
        Cluster.recomputeHw(replica, this);
        return ErrorCode.NONE;
        // END-SOLUTION
    }

    /**
     * What a follower needs, besides reaching the high watermark, to join the ISR (Kafka's
     * {@code Partition.isReplicaIsrEligible} and {@code isFollowerInSync}): it is a live broker, as
     * this broker last read the cluster (ZooKeeper mode's {@code hasAliveBroker}: a dead broker
     * written into the ISR would only be taken out again by the controller, at the next leader
     * epoch), and its log reaches the offset where this leader's epoch began (records between the
     * HW and that offset may be committed already: a follower without them must not become a
     * replica that can be elected).
     */
    private boolean mayJoinIsr(int replicaId, long fetchOffset) {
        // BEGIN-SOLUTION ch10 task 9: only a live follower that holds this leader's epoch from its start may join (FollowerFetchTest)
        return alive.test(replicaId) && fetchOffset >= leaderEpochStartOffset;
        // END-SOLUTION
    }

    /**
     * Where {@code epoch} began in this leader's log: the offset its epoch cache gives it (assigned
     * at the log end when the replica became leader, Kafka's {@code leaderEpochStartOffsetOpt}), or
     * the log end if the cache has no such entry.
     */
    private static long epochStartOffset(Replica replica, int epoch) {
        return replica.epochs().entries().stream().filter(e -> e.epoch() == epoch)
                .mapToLong(LeaderEpochCache.EpochEntry::startOffset).findFirst().orElse(replica.leo());
    }

    /**
     * The isr-expiration tick: followers silent for longer than replica.lag.time.max.ms leave the
     * ISR (written first, counted once written), which may move the high watermark: a dead follower
     * no longer holds it back. A leader fenced by a refused write reads the state again first.
     * True when the ISR shrank.
     */
    public boolean maybeShrinkIsr(long nowMs) throws IOException, KeeperException, InterruptedException {
        if (stopped) {
            return false;
        }
        if (isr.fenced() && !isr.reread()) {
            return false; // no longer this leader's to change: a newer state will stop it
        }
        boolean shrunk = isr.maybeShrink(nowMs);
        if (shrunk) {
            Cluster.recomputeHw(replica, this);
            replica.partition().wakeWaiting(); // a write waiting for the one that left is answered now
        }
        return shrunk;
    }

    /**
     * Before an append: chapter 8's rule ({@link Cluster#produceRefusal}: acks=all under
     * {@code min.insync.replicas} is NOT_ENOUGH_REPLICAS, nothing written; acks=0 and acks=1 never),
     * asked about the ISR as WRITTEN in ZooKeeper (Kafka's {@code partitionState.isr} in
     * {@code appendRecordsToLeader}), not the maximal one: a follower whose joining is not written
     * yet does not let a write in.
     */
    public ErrorCode produceRefusal(short acks) {
        if (stopped) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        // BEGIN-SOLUTION ch10 task 10: chapter 8's refusal before the append, asked about the ISR as written (AcksAllTest)
        return Cluster.produceRefusal(acks, lag.withIsr(isr.committedIsr()));
        // END-SOLUTION
    }

    /**
     * After the append, a waiting acks=all produce whose records end before {@code requiredOffset}:
     * NOT_LEADER_OR_FOLLOWER once this broker stopped leading (its records may be cut by the new
     * leader: only the new leader can answer them), else chapter 8's verdict on the live high
     * watermark and the MAXIMAL ISR (Kafka's {@code checkEnoughReplicasReachOffset}): empty while it
     * waits, NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND.
     */
    @Override
    public Optional<ErrorCode> answer(long requiredOffset) {
        // BEGIN-SOLUTION ch10 task 10: a stopped leader answers nothing good; else the HW and the maximal ISR decide (AcksAllTest)
        if (stopped) {
            return Optional.of(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        return AckVerdict.decide(requiredOffset, replica.highWatermarkInsideLock().getAsLong(),
                isr.maximalIsr().size(), lag.minIsr()).errorCode();
        // END-SOLUTION
    }

    @Override
    public boolean checkEnoughReplicasReached(long requiredOffset) {
        return answer(requiredOffset).filter(error -> error == ErrorCode.NONE).isPresent();
    }

    /**
     * After a produce's append (Kafka's {@code appendRecordsToLeader} ends with
     * {@code maybeIncrementLeaderHW}): the leader's own LEO moved, which moves the high watermark
     * when the ISR is the leader alone (a partition with one replica, or an ISR shrunk to the leader
     * under min.insync.replicas 1). Without it only a follower's fetch moves the HW, and with no
     * follower acks=all waits until it times out and a consumer sees nothing.
     */
    public void afterAppend() throws IOException {
        if (!stopped) {
            Cluster.recomputeHw(replica, this);
        }
    }

    /** This leadership is over: nothing more is accepted, and the waiting produces are answered. */
    public void stop() throws IOException {
        stopped = true;
        replica.partition().wakeWaiting();
    }

    @Override
    public Map<Integer, Long> followerLeos() {
        return lag.followerLeos();
    }

    @Override
    public SortedSet<Integer> maximalIsr() {
        return isr.maximalIsr();
    }

    @Override
    public int minIsr() {
        return lag.minIsr();
    }

    /** The ISR as last written or read. */
    public List<Integer> committedIsr() {
        return isr.committedIsr();
    }

    /** The leader epoch of this leadership: the one of the state that made this broker leader. */
    public int leaderEpoch() {
        return isr.leaderEpoch();
    }

    public Replica replica() {
        return replica;
    }

    public boolean stopped() {
        return stopped;
    }
}
