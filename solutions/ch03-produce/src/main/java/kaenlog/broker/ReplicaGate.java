package kaenlog.broker;

/**
 * Decides when an acks=all produce may be answered: once enough replicas hold every record below
 * {@code requiredOffset} (exclusive, like the high watermark). With one replica that is at once;
 * chapter 8's IsrGate answers from the ISR and the high watermark.
 */
public interface ReplicaGate {
    boolean checkEnoughReplicasReached(long requiredOffset);
}
