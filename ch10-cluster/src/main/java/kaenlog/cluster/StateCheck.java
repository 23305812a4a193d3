package kaenlog.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A partition's state as read from ZooKeeper, checked like a request before anyone acts on it
 * (given code). Anyone who reaches ZooKeeper can write the state znode; Kafka trusts it and keeps
 * it out of reach instead (ZooKeeper ACLs, {@code zookeeper.set.acl}). kaen-log refuses what no
 * writer of this cluster ever writes: a leader that is not one of the partition's replicas, an ISR
 * outside them (or without its leader), a negative epoch, a leader epoch at its maximum (nothing
 * could ever follow it, KIP-380's fencing assumes epochs only grow) or above the state's own
 * version. That last one is the check ZooKeeper makes possible: the znode's version is counted by
 * the server, so no client can forge it, and every leader epoch this cluster wrote was one write
 * of the znode, from epoch 0 at version 0, so a leader epoch never exceeds the version it was read
 * at. A broker does not act on a refused state; the controller replaces it ({@link #trusted}).
 */
public final class StateCheck {
    private StateCheck() {
    }

    /** What is wrong with {@code state}, read at {@code zkVersion}, for a partition on {@code replicas}; empty when nothing is. */
    public static Optional<String> problem(PartitionState state, int zkVersion, List<Integer> replicas) {
        if (state.leader() != PartitionState.NO_LEADER && !replicas.contains(state.leader())) {
            return Optional.of("leader " + state.leader() + " is not one of the replicas " + replicas);
        }
        if (!Epochs.canGrow(state.leaderEpoch())) {
            return Optional.of("leader epoch " + state.leaderEpoch() + (state.leaderEpoch() < 0 ? " is negative"
                    : " is at its maximum: no leader epoch could ever follow it"));
        }
        if (state.leaderEpoch() > zkVersion) {
            return Optional.of("leader epoch " + state.leaderEpoch() + " is above the state's version " + zkVersion
                    + ": no controller wrote it (each leader epoch is one write of the znode)");
        }
        if (!replicas.containsAll(state.isr()) || new HashSet<>(state.isr()).size() != state.isr().size()) {
            return Optional.of("ISR " + state.isr() + " is not a set of the replicas " + replicas);
        }
        if (state.leader() != PartitionState.NO_LEADER && !state.isr().contains(state.leader())) {
            return Optional.of("leader " + state.leader() + " is not in its ISR " + state.isr());
        }
        if (state.controllerEpoch() < 0) {
            return Optional.of("controller epoch " + state.controllerEpoch() + " is negative");
        }
        return Optional.empty();
    }

    /**
     * What the controller can still trust of a refused state: its leader if it is a replica in the
     * trusted ISR (else no leader), its ISR's members that are replicas (once each), and its leader
     * epoch if a new one can follow it and it is not above the version; else the version, which is
     * at least every leader epoch this cluster wrote to the znode. The controller elects from this
     * and writes the result, a leader epoch beyond any a broker acted on.
     */
    public static PartitionState trusted(PartitionState state, int zkVersion, List<Integer> replicas) {
        Set<Integer> seen = new HashSet<>();
        List<Integer> isr = new ArrayList<>();
        for (int member : state.isr()) {
            if (replicas.contains(member) && seen.add(member)) {
                isr.add(member);
            }
        }
        int leader = isr.contains(state.leader()) ? state.leader() : PartitionState.NO_LEADER;
        int epoch = Epochs.canGrow(state.leaderEpoch()) && state.leaderEpoch() <= zkVersion ? state.leaderEpoch()
                : Math.max(0, zkVersion);
        return new PartitionState(leader, epoch, isr, Math.max(0, state.controllerEpoch()));
    }
}
