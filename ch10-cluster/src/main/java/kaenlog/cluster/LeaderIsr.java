package kaenlog.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeSet;
import kaenlog.replication.IsrState;
import kaenlog.workbook.Todo;
import org.apache.zookeeper.KeeperException;

/**
 * The leader's own changes to its ISR, written to the partition's state znode conditionally on the
 * zkVersion it last read (ZooKeeper-era Kafka before 2.7; KRaft's successor is AlterPartition,
 * which names the partition epoch). Who fetched when comes from chapter 8's {@link IsrState}
 * ({@code observe} on every follower fetch); this class decides and writes.
 *
 * <p>While a change is not known to be written, the HW and acks=all count the LARGER of the two
 * sets (Kafka's maximal ISR, PendingShrinkIsr and PendingExpandIsr): a shrink counts only once
 * written, an expansion at once. A write refused because the state moved (the controller elected,
 * say) ends this broker's ISR changes until it reads the state again: what it decided from is stale.
 *
 * <p>Its methods hold its monitor: a broker's ISR timer, its followers' fetches and its produces ask
 * it from their own threads. It never takes a partition's lock, so a partition holding its own may
 * ask it ({@link #maximalIsr}) without a deadlock.
 */
public final class LeaderIsr {
    /** Kafka's isr-expiration task runs every replica.lag.time.max.ms / 2. */
    public static final long ISR_EXPIRATION_INTERVAL_MS = IsrState.REPLICA_LAG_TIME_MAX_MS / 2;

    private final ZkClient zk;
    private final long replicaLagTimeMaxMs;
    private final String topic;
    private final int partition;
    private final int leaderId;
    private final IsrState lag;
    private Versioned<PartitionState> committed;
    private final SortedSet<Integer> maximal = new TreeSet<>();
    private boolean fenced;

    public LeaderIsr(ZkClient zk, String topic, int partition, Versioned<PartitionState> state, IsrState lag) {
        this(zk, topic, partition, state, lag, IsrState.REPLICA_LAG_TIME_MAX_MS);
    }

    /** @param replicaLagTimeMaxMs Kafka's {@code replica.lag.time.max.ms}: silent longer than this, a follower leaves */
    public LeaderIsr(ZkClient zk, String topic, int partition, Versioned<PartitionState> state, IsrState lag,
                     long replicaLagTimeMaxMs) {
        this.zk = zk;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.topic = topic;
        this.partition = partition;
        this.leaderId = state.value().leader();
        this.lag = lag;
        this.committed = state;
        maximal.addAll(state.value().isr());
    }

    /**
     * The isr-expiration tick: the ISR members silent for more than {@code replicaLagTimeMaxMs} are
     * removed, written conditionally. True when the shrunk ISR was written.
     */
    public synchronized boolean maybeShrink(long nowMs) throws KeeperException, InterruptedException {
        if (fenced) {
            return false;
        }
        throw new Todo("ch10 task 8: shrink the ISR by lag, counted only once written (LeaderIsrTest)");
    }

    /**
     * A follower's fetch reached the high watermark: out of the ISR, it joins it, counted at once,
     * then written conditionally. True when the expanded ISR was written.
     */
    public synchronized boolean maybeExpand(int replicaId, long fetchOffset, long highWatermark)
            throws KeeperException, InterruptedException {
        if (fenced || committed.value().isr().contains(replicaId)) {
            return false;
        }
        throw new Todo("ch10 task 8: expand the ISR with a caught-up follower, counted at once (LeaderIsrTest)");
    }

    /** Writes {@code isr} on the version last read; on a refusal, stops until {@link #reread}. */
    private synchronized boolean write(List<Integer> isr) throws KeeperException, InterruptedException {
        PartitionState current = committed.value();
        PartitionState next = new PartitionState(current.leader(), current.leaderEpoch(), isr, current.controllerEpoch());
        throw new Todo("ch10 task 8: commit on success, fence on a refusal (LeaderIsrTest)");
    }

    /**
     * Reads the state again after a refusal (given): still the leader at the same leader epoch,
     * it goes on from the state read; else it has nothing to change (a {@link PartitionRole} acts
     * on the new state). True when it is back.
     */
    public synchronized boolean reread() throws KeeperException, InterruptedException {
        Optional<Versioned<PartitionState>> read;
        try {
            read = PartitionStateStore.read(zk, topic, partition);
        } catch (IllegalArgumentException unreadable) { // ZNodeFormatException: nothing to go on from
            return false;
        }
        if (read.isEmpty() || read.get().value().leader() != leaderId
                || read.get().value().leaderEpoch() != committed.value().leaderEpoch()) {
            return false;
        }
        committed = read.get();
        maximal.clear();
        maximal.addAll(committed.value().isr());
        fenced = false;
        return true;
    }

    /** The ISR the HW and acks=all count: the committed one and any change not yet known written. */
    public synchronized SortedSet<Integer> maximalIsr() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(maximal)); // a copy: the set changes under other threads
    }

    /** The ISR as last written or read, with its zkVersion. */
    public synchronized Versioned<PartitionState> committed() {
        return committed;
    }

    /** True after a refused write, until {@link #reread}. */
    public synchronized boolean fenced() {
        return fenced;
    }
}
