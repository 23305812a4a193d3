package kaenlog.replication;

import kaenlog.wire.ErrorCode;

/**
 * The leader's answer to one produce: the offset the record got and kaen-log's error code (0,
 * NONE, when it was written; 2, NOT_ENOUGH_REPLICAS, when acks=all was refused before the append,
 * in which case {@code baseOffset} is -1: nothing got an offset).
 */
public record Produced(long baseOffset, ErrorCode error) {
    public static Produced refused(ErrorCode error) {
        return new Produced(-1, error);
    }
}
