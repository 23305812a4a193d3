package kaenlog.cluster;

/**
 * Hears when this broker becomes, or stops being, the leader of a partition (given code; Kafka's
 * {@code onLeadershipChange}, through which {@code GroupCoordinator} and
 * {@code TransactionCoordinator} learn that they coordinate the groups or transactions of a
 * {@code __consumer_offsets} or {@code __transaction_state} partition: {@code onElection},
 * {@code onResignation}). Called on the broker's metadata thread once the role has changed, in the
 * order the states came; a listener returns soon and throws nothing.
 */
public interface LeadershipListener {
    /** This broker leads {@code partition} from {@code leaderEpoch} on (again, at each new epoch it leads). */
    void onElection(String partition, int leaderEpoch);

    /** This broker no longer leads {@code partition}, which it led at {@code leaderEpoch}. */
    void onResignation(String partition, int leaderEpoch);
}
