package kaenlog.replication;

import java.util.Objects;
import java.util.Optional;

/**
 * A leader's answer to "where does my epoch end?": the largest epoch it knows that is not above
 * the one asked about, and the offset at which that epoch ends (exclusive: the first offset of the
 * next epoch, or the log end offset for the latest epoch).
 *
 * <p>"No answer" is an empty {@code Optional}, never a value. Kafka's wire format has no optional
 * fields, so it sends {@code UNDEFINED_EPOCH} (-1) and {@code UNDEFINED_EPOCH_OFFSET} (-1)
 * instead; that pair exists only at the wire edge ({@link #toWire}, {@link #fromWire}).
 */
public record EpochEndOffset(int epoch, long endOffset) {
    /** OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH. */
    public static final int UNDEFINED_EPOCH = -1;
    /** OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET. */
    public static final long UNDEFINED_EPOCH_OFFSET = -1L;

    public EpochEndOffset {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
        if (endOffset < 0) {
            throw new IllegalArgumentException("endOffset must be >= 0, got " + endOffset);
        }
    }

    /** Prints as {@code (epoch, endOffset)}, so an answer prints as {@code Optional[(1, 6)]} or {@code Optional.empty}. */
    @Override
    public String toString() {
        return "(" + epoch + ", " + endOffset + ")";
    }

    /** The two int fields of an OffsetForLeaderEpoch partition response (LeaderEpoch, EndOffset). */
    public record Wire(int leaderEpoch, long endOffset) {
    }

    /** In memory: an Optional. On the wire: the pair, with (-1, -1) for "none". */
    public static Wire toWire(Optional<EpochEndOffset> answer) {
        Objects.requireNonNull(answer, "answer");
        return answer.map(a -> new Wire(a.epoch(), a.endOffset()))
                .orElse(new Wire(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET));
    }

    /**
     * Reads a pair off the wire. Either field at -1 means "none" (Kafka's follower treats the answer
     * as undefined when the epoch or the offset is undefined); any other negative value is corrupt.
     */
    public static Optional<EpochEndOffset> fromWire(int leaderEpoch, long endOffset) {
        if (leaderEpoch == UNDEFINED_EPOCH || endOffset == UNDEFINED_EPOCH_OFFSET) {
            return Optional.empty();
        }
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch on the wire must be >= -1, got " + leaderEpoch);
        }
        if (endOffset < 0) {
            throw new IllegalArgumentException("endOffset on the wire must be >= -1, got " + endOffset);
        }
        return Optional.of(new EpochEndOffset(leaderEpoch, endOffset));
    }
}
