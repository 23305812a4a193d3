package kaenlog.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import kaenlog.workbook.Todo;

/**
 * The controller's decisions, as pure functions of what it read (Kafka's
 * {@code PartitionLeaderElectionAlgorithms} and {@code removeReplicasFromIsr}): no ZooKeeper, no
 * clock, so every rule is tested alone. KRaft's controller decides the same way
 * ({@code PartitionChangeBuilder}).
 */
public final class LeaderElection {
    private LeaderElection() {
    }

    /**
     * A new partition's first state (Kafka's NewPartition to OnlinePartition): the first live
     * replica in assignment order leads, the live replicas (in assignment order) are the ISR,
     * leader epoch 0.
     */
    public static PartitionState initial(List<Integer> assignment, Set<Integer> live, int controllerEpoch) {
        List<Integer> isr = new ArrayList<>();
        for (int replica : assignment) {
            if (live.contains(replica)) {
                isr.add(replica);
            }
        }
        int leader = isr.isEmpty() ? PartitionState.NO_LEADER : isr.get(0);
        return new PartitionState(leader, 0, isr, controllerEpoch);
    }

    /**
     * The state after brokers died: the ISR keeps its live members (in its own order); the leader
     * stays if it is among them, else the first replica IN ASSIGNMENT ORDER that is in the new ISR
     * leads (offlinePartitionLeaderElection, unclean.leader.election.enable=false: a live replica
     * outside the ISR may lack committed records and never leads). When no ISR member is live the
     * partition is offline: leader -1, and the ISR is left as it was, never emptied: its members
     * are the only replicas known to hold every committed record, so one of them must lead when
     * it returns. Every change bumps the leader epoch; no change (all still live, or still offline
     * with every ISR member still dead) returns {@code current} itself: the controller writes only
     * what changed, as Kafka's writes a replica's removal from the ISR once, when it goes offline.
     * An epoch never wraps: at its maximum the next one is refused ({@link Epochs#next}), for a
     * wrapped epoch is older than every other and every broker would ignore the state.
     */
    public static PartitionState elect(List<Integer> assignment, PartitionState current, Set<Integer> live,
                                                  int controllerEpoch) {
        throw new Todo("ch10 task 5: offline election: first live ISR member in assignment order, no unclean election (OfflineElectionTest)");
    }
}
