package kaenlog.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeSet;
import kaenlog.replication.IsrState;
import org.apache.zookeeper.KeeperException;

/**
 * A leader's ISR, the one place it is kept: as last written to (or read from) the partition's state
 * znode, with its zkVersion, and as the high watermark and acks=all count it. The leader changes it
 * itself, conditionally on the zkVersion it last read (ZooKeeper-era Kafka before 2.7; KRaft's
 * successor is AlterPartition, which names the partition epoch). Who is silent, and for how long,
 * is chapter 8's {@link IsrState} ({@code observe} on every follower fetch), and so is the rule of
 * the shrink: this class asks it about the ISR as written and writes what it answers.
 *
 * <p>While a change is not known to be written, the HW and acks=all count the LARGER of the two
 * sets (Kafka's maximal ISR, PendingShrinkIsr and PendingExpandIsr): a shrink counts only once
 * written, an expansion at once. A write refused because the state moved (the controller elected,
 * say) ends this broker's ISR changes until it reads the state again: what it decided from is stale.
 *
 * <p>It takes no lock of its own: its changes come under its partition's lock
 * ({@link PartitionReplica}), and each set is replaced whole, so the partition's replica gate reads
 * {@link #maximalIsr} from any thread without one (Kafka's volatile {@code partitionState}).
 */
public final class LeaderIsr {
    private final ZkClient zk;
    private final String topic;
    private final int partition;
    private final int leaderId;
    private final IsrState lag;
    private volatile Versioned<PartitionState> committed;
    private volatile SortedSet<Integer> maximal;
    private boolean fenced;

    /**
     * @param state the state that names this broker leader, with its zkVersion
     * @param lag   chapter 8's record of the followers' fetches, and its rules
     */
    public LeaderIsr(ZkClient zk, String topic, int partition, Versioned<PartitionState> state, IsrState lag) {
        this.zk = zk;
        this.topic = topic;
        this.partition = partition;
        this.leaderId = state.value().leader();
        this.lag = lag;
        this.committed = state;
        this.maximal = counted(state.value().isr());
    }

    /**
     * The isr-expiration tick: chapter 8's {@code shrinkIsr}, asked about the ISR as written; the
     * members it removes leave, written conditionally, the ISR's order kept. True when the shrunk
     * ISR was written.
     */
    public boolean maybeShrink(long nowMs) throws KeeperException, InterruptedException {
        if (fenced) {
            return false;
        }
        // BEGIN-SOLUTION ch10 task 8: chapter 8's shrink on the ISR as written, counted only once written (LeaderIsrTest)
        List<Integer> written = committed.value().isr();
        IsrState asWritten = lag.withIsr(written);
        if (!asWritten.shrinkIsr(nowMs)) {
            return false;
        }
        List<Integer> kept = new ArrayList<>();
        for (int replica : written) {
            if (asWritten.maximalIsr().contains(replica)) {
                kept.add(replica);
            }
        }
        return write(kept);
        // END-SOLUTION
    }

    /**
     * A follower's fetch reached the high watermark: out of the ISR, it joins it, counted at once,
     * then written conditionally. True when the expanded ISR was written.
     */
    public boolean maybeExpand(int replicaId, long fetchOffset, long highWatermark)
            throws KeeperException, InterruptedException {
        if (fenced || committed.value().isr().contains(replicaId)) {
            return false;
        }
        // BEGIN-SOLUTION ch10 task 8: expand the ISR with a caught-up follower, counted at once (LeaderIsrTest)
        if (fetchOffset < highWatermark) {
            return false;
        }
        List<Integer> expanded = new ArrayList<>(committed.value().isr());
        expanded.add(replicaId);
        maximal = counted(expanded);
        return write(expanded);
        // END-SOLUTION
    }

    /** Writes {@code isr} on the version last read; on a refusal, stops until {@link #reread}. */
    private boolean write(List<Integer> isr) throws KeeperException, InterruptedException {
        PartitionState current = committed.value();
        PartitionState next = new PartitionState(current.leader(), current.leaderEpoch(), isr, current.controllerEpoch());
        // BEGIN-SOLUTION ch10 task 8: commit on success, fence on a refusal (LeaderIsrTest)
        OptionalInt written = PartitionStateStore.updateAsLeader(zk, topic, partition, next, committed.zkVersion());
        if (written.isEmpty()) {
            fenced = true;
            return false;
        }
        committed = new Versioned<>(next, written.getAsInt());
        maximal = counted(isr);
        return true;
        // END-SOLUTION
    }

    /**
     * Reads the state again after a refusal (given): still the leader at the same leader epoch,
     * it goes on from the state read; else it has nothing to change (a {@link PartitionRole} acts
     * on the new state). True when it is back.
     */
    public boolean reread() throws KeeperException, InterruptedException {
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
        maximal = counted(committed.value().isr());
        fenced = false;
        return true;
    }

    /** {@code isr} as the set the HW and acks=all count: a copy no later change touches. */
    private static SortedSet<Integer> counted(List<Integer> isr) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(isr));
    }

    /** The ISR the HW and acks=all count: the committed one and any change not yet known written. */
    public SortedSet<Integer> maximalIsr() {
        return maximal;
    }

    /** The ISR as last written or read, with its zkVersion. */
    public Versioned<PartitionState> committed() {
        return committed;
    }

    /** The ISR as last written or read, in its written order. */
    public List<Integer> committedIsr() {
        return committed.value().isr();
    }

    /** The leader epoch this ISR belongs to: the one of the state it was read from. */
    public int leaderEpoch() {
        return committed.value().leaderEpoch();
    }

    /** True after a refused write, until {@link #reread}. */
    public boolean fenced() {
        return fenced;
    }
}
