package kaenlog.cluster;

import java.util.List;

/**
 * What {@code /brokers/topics/T/partitions/P/state} holds (Kafka's {@code LeaderIsrAndControllerEpoch}):
 * the leader, its leader epoch (chapter 8's epoch, KIP-101), the ISR, and the epoch of the
 * controller that wrote it. The znode's own version (its zkVersion, Kafka's "partition epoch") is
 * not in the JSON: it comes with the read, see {@link Versioned}.
 */
public record PartitionState(int leader, int leaderEpoch, List<Integer> isr, int controllerEpoch) {
    /** No leader: the partition is offline (Kafka's {@code LeaderAndIsr.NoLeader}). */
    public static final int NO_LEADER = -1;

    public PartitionState {
        isr = List.copyOf(isr);
    }

    @Override
    public String toString() {
        return "leader " + leader + " epoch " + leaderEpoch + " isr " + isr + " (controller epoch " + controllerEpoch + ")";
    }
}
