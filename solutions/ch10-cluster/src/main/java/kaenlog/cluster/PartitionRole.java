package kaenlog.cluster;

import kaenlog.replication.Replica;

/**
 * One broker's part in one partition, driven by the partition's state znode (a broker watches
 * the state znodes of its partitions and hands each new state here). The broker pulls its role
 * from ZooKeeper, as a KRaft broker pulls it from the metadata log, where Kafka's ZooKeeper-era
 * controller pushed it (LeaderAndIsr requests). The role itself is chapter 8's {@link Replica}:
 * this class only decides, from the leader and the leader epoch the state names, what the replica
 * becomes, and refuses a state whose leader epoch is not newer than the last one it acted on (a
 * late watch, a read that raced a newer write): roles only move forward.
 *
 * <p>It is where the broker keeps the leader epoch it last acted on, the one every request's epoch
 * is checked against: its partition ({@link PartitionReplica}) keeps no other. It changes on the
 * broker's metadata thread, under the partition's lock; requests read it from theirs.
 */
public final class PartitionRole {
    /** What a state asked of this broker. */
    public enum Decision {
        /** This broker leads, at the state's leader epoch. */
        LEADER,
        /** Another broker leads: this one follows it (it fetches from {@link #leader()}). */
        FOLLOWER,
        /** No leader (the partition is offline): take no writes, fetch from nobody. */
        OFFLINE,
        /** The state's leader epoch is not newer than one already acted on: nothing changes. */
        IGNORED
    }

    /** No state acted on yet. */
    public static final int NO_EPOCH = -1;
    private final int brokerId;
    private final Replica replica;
    private volatile int leaderEpoch = NO_EPOCH;
    private volatile int leader = PartitionState.NO_LEADER;

    public PartitionRole(int brokerId, Replica replica) {
        this.brokerId = brokerId;
        this.replica = replica;
    }

    /**
     * Whether {@code state} is one to act on: its leader epoch is newer than the last one acted on.
     * A broker asks before it ends the role it has (a fetcher stopped for a late state would be a
     * follower lost for nothing).
     */
    public boolean isNewer(PartitionState state) {
        // BEGIN-SOLUTION ch10 task 6: only a newer leader epoch moves the role (PartitionRoleTest)
        return state.leaderEpoch() > leaderEpoch;
        // END-SOLUTION
    }

    /** Acts on a state read from the partition's state znode; returns what it decided. */
    public Decision onState(PartitionState state) {
        if (!isNewer(state)) {
            return Decision.IGNORED;
        }
        // BEGIN-SOLUTION ch10 task 6: lead, follow or stop, by the state's leader (PartitionRoleTest)
        leaderEpoch = state.leaderEpoch();
        leader = state.leader();
        if (state.leader() == brokerId) {
            replica.becomeLeader(state.leaderEpoch());
            return Decision.LEADER;
        }
        replica.becomeFollower();
        return state.leader() == PartitionState.NO_LEADER ? Decision.OFFLINE : Decision.FOLLOWER;
        // END-SOLUTION
    }

    /** The leader this broker last learnt, or -1. */
    public int leader() {
        return leader;
    }

    /** The leader epoch this broker last acted on: a follower's fetch carries it (current_leader_epoch). */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    public Replica replica() {
        return replica;
    }
}
