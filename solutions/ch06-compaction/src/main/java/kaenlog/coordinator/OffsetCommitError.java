package kaenlog.coordinator;

/**
 * How the coordinator answers one partition of a commit; each port says it in its own codes
 * (kaen-log's {@code ErrorCode} here, Kafka's in chapter 9).
 */
public enum OffsetCommitError {
    NONE,
    /** An empty group id, a name that is not topic-N, a negative offset. */
    INVALID,
    /** No such partition (Kafka: UNKNOWN_TOPIC_OR_PARTITION): nothing is written for it. */
    UNKNOWN_PARTITION,
    /** The metadata is longer than offset.metadata.max.bytes (Kafka: OFFSET_METADATA_TOO_LARGE). */
    METADATA_TOO_LARGE,
    /** The commit's batch would be over the offsets partition's max.message.bytes (Kafka 3.9: INVALID_COMMIT_OFFSET_SIZE). */
    BATCH_TOO_LARGE,
    /** The coordinator holds max.committed.offset.bytes already (kaen-log's own bound; Kafka has none). */
    COORDINATOR_FULL,
    /** The offsets partition cannot be written or read. */
    STORAGE_ERROR,
    /**
     * Chapter 10: this broker does not lead the group's offsets partition, or stopped leading it
     * before the commit was replicated (Kafka: NOT_COORDINATOR; the client finds the coordinator again).
     */
    NOT_COORDINATOR,
    /** Chapter 10: too few in-sync replicas of the offsets partition (Kafka: COORDINATOR_NOT_AVAILABLE). */
    COORDINATOR_NOT_AVAILABLE,
    /** Chapter 10: the commit was not replicated within the request's time (Kafka: REQUEST_TIMED_OUT). */
    TIMED_OUT
}
