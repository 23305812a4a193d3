package kaenlog.replication;

import kaenlog.wire.ErrorCode;

/**
 * How an acks=all write that is already in the leader's log stands: NotYet, Committed,
 * NotEnoughReplicasAfterAppend.
 *
 * <p>The ISR is checked twice, at two different moments, and the two checks give two different
 * errors. Before the append, an ISR below {@code min.insync.replicas} refuses the write
 * (Kafka error 19, NOT_ENOUGH_REPLICAS: nothing was written). After the append, the write waits
 * for the high watermark; if the ISR shrank in the meantime the write is in the log but the answer
 * is error 20, NOT_ENOUGH_REPLICAS_AFTER_APPEND. This type is the second check only. Both errors
 * are retriable, which is how acks=all can write a batch twice without chapter 7's idempotence.
 */
public enum AckVerdict {
    /** The high watermark has not reached the write yet: keep waiting. */
    NOT_YET,
    /** The high watermark covers the write and the ISR is still large enough. */
    COMMITTED,
    /** The high watermark covers the write, but the ISR shrank below the minimum after the append. */
    NOT_ENOUGH_REPLICAS_AFTER_APPEND;

    /** The answer a waiting producer gets: none yet for NotYet, NONE or NOT_ENOUGH_REPLICAS_AFTER_APPEND. */
    public java.util.Optional<ErrorCode> errorCode() {
        return switch (this) {
            case NOT_YET -> java.util.Optional.empty();
            case COMMITTED -> java.util.Optional.of(ErrorCode.NONE);
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> java.util.Optional.of(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        };
    }

    /** The verdict's name as the demo prints it: NotYet, Committed, NotEnoughReplicasAfterAppend. */
    public String displayName() {
        return switch (this) {
            case NOT_YET -> "NotYet";
            case COMMITTED -> "Committed";
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> "NotEnoughReplicasAfterAppend";
        };
    }

    /**
     * The verdict for a write whose records end just before {@code requiredOffset} (its last
     * offset + 1: the HW is exclusive, so {@code highWatermark >= requiredOffset} means every record
     * of the write is committed). Kafka: {@code Partition.checkEnoughReplicasReachOffset}.
     *
     * @param isrSize the size of the maximal ISR now, the leader included
     */
    public static AckVerdict decide(long requiredOffset, long highWatermark, int isrSize, int minIsr) {
        if (requiredOffset < 0) {
            throw new IllegalArgumentException("requiredOffset must be >= 0, got " + requiredOffset);
        }
        if (highWatermark < 0) {
            throw new IllegalArgumentException("highWatermark must be >= 0, got " + highWatermark);
        }
        if (isrSize < 1) {
            throw new IllegalArgumentException("isrSize must be >= 1 (the leader is always in its ISR), got " + isrSize);
        }
        if (minIsr < 1) {
            throw new IllegalArgumentException("minIsr must be >= 1, got " + minIsr);
        }
        // BEGIN-SOLUTION ch08 task 3: judge an acks=all write after its append (AckVerdictTest)
        if (highWatermark < requiredOffset) {
            return NOT_YET;
        }
        return minIsr <= isrSize ? COMMITTED : NOT_ENOUGH_REPLICAS_AFTER_APPEND;
        // END-SOLUTION
    }
}
