package kaenlog.broker;

import java.util.Optional;
import kaenlog.wire.ErrorCode;

/**
 * Decides when an acks=all produce may be answered: once enough replicas hold every record below
 * {@code requiredOffset} (exclusive, like the high watermark). With one replica that is at once;
 * chapter 8's IsrGate answers from the ISR and the high watermark.
 */
public interface ReplicaGate {
    boolean checkEnoughReplicasReached(long requiredOffset);

    /**
     * How a waiting acks=all produce is answered now: empty while it waits, NONE once it is done, or
     * the error its producer gets instead (chapter 8: NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR
     * shrank under the write; chapter 10: NOT_LEADER_OR_FOLLOWER when this broker stopped leading).
     * By default a gate only says "done" or "not yet".
     */
    default Optional<ErrorCode> answer(long requiredOffset) {
        return checkEnoughReplicasReached(requiredOffset) ? Optional.of(ErrorCode.NONE) : Optional.empty();
    }
}
