package kaenlog.wire;

/**
 * kaen-log's own error table. The numbers are kaen-log's, not Kafka's wire numbers (Kafka's
 * NOT_ENOUGH_REPLICAS is 19, NOT_ENOUGH_REPLICAS_AFTER_APPEND 20, OUT_OF_ORDER_SEQUENCE_NUMBER 45):
 * kaen-log never copied Kafka's table, and a learner should not mistake one for the other.
 */
public enum ErrorCode {
    NONE(0),
    OFFSET_OUT_OF_RANGE(1),
    /** Chapter 8: acks=all refused before the append, the ISR being smaller than min.insync.replicas. */
    NOT_ENOUGH_REPLICAS(2),
    /** Chapter 8: written, but the ISR shrank below min.insync.replicas before enough replicas had it. */
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(3),
    CORRUPT_BATCH(4),
    UNKNOWN_PARTITION(5),
    REQUEST_TIMED_OUT(6),
    INVALID_REQUEST(7),
    BATCH_TOO_LARGE(8),
    /** Chapter 7: a gap in an idempotent producer's sequence numbers. */
    OUT_OF_ORDER_SEQUENCE_NUMBER(9),
    /**
     * The partition is offline: a write to its files failed (no space, no inodes, an I/O error), or
     * it could not be opened. Nothing more is written to it until the broker restarts and recovers
     * it (Kafka's KAFKA_STORAGE_ERROR).
     */
    STORAGE_ERROR(10),
    /** The partition's directory is read-only: fetches are served, produces refused. */
    READ_ONLY_STORAGE(11),
    /**
     * A partition name that is not topic-N with a topic Kafka's Topic.validate accepts (legal
     * characters, at most 249, not . or ..) and one spelling of N, at least 0 ({@code a-0}, never
     * {@code a-00}): Kafka answers INVALID_TOPIC_EXCEPTION.
     */
    INVALID_PARTITION_NAME(15),
    /** A client produced to or fetched from the broker's own state ({@code __...}): Kafka's Topic.isInternal. */
    INTERNAL_PARTITION(16),
    /** Chapter 7: a producer id this broker never handed out with INIT_PRODUCER_ID. */
    UNKNOWN_PRODUCER_ID(17),
    /** A client batch flagged control (0x20) or transactional (0x10): only a broker writes those (LogValidator). */
    INVALID_RECORD(18),
    /** Chapter 7: a record of the broker's producer-id log that is not a valid next id; nothing is handed out. */
    CORRUPT_PRODUCER_ID_RECORD(19),
    /**
     * Chapter 10: this broker does not lead the partition (a produce, a consumer's fetch); chapters
     * 8 and 10: the replica id of a follower's fetch is not one of the partition's replicas. Ask the
     * cluster who leads it now (Kafka's 6).
     */
    NOT_LEADER_OR_FOLLOWER(20),
    /**
     * Chapter 10: the fetch named a leader epoch older than the leader's own: the one who asked is
     * behind (a follower that missed a leader change) and must learn the new state (Kafka's 74).
     */
    FENCED_LEADER_EPOCH(21),
    /**
     * Chapter 10: the fetch named a leader epoch newer than the leader's own: this broker has not
     * learnt the new state yet; the one who asked retries (Kafka's 75).
     */
    UNKNOWN_LEADER_EPOCH(22),
    /**
     * Chapter 10: a follower's fetch (replica id >= 0) on a port that takes none, the client port:
     * followers fetch on the port brokers use for each other. Kafka answers a replica Fetch whose
     * sender lacks the ClusterAction ACL on the cluster this way (its 29).
     */
    TOPIC_AUTHORIZATION_FAILED(23),
    /**
     * Chapter 6: the group coordinator cannot take this commit now: it holds
     * max.committed.offset.bytes of commits already (Kafka's 15, a client retries).
     */
    COORDINATOR_NOT_AVAILABLE(24),
    /**
     * Chapter 11: a batch of a producer epoch older than the one its producer id last wrote to this
     * partition: a zombie, fenced by a newer producer with the same transactional id (Kafka's 47).
     */
    INVALID_PRODUCER_EPOCH(25),
    /**
     * Chapter 11: a COMMIT or ABORT marker from a transaction coordinator older than the one whose
     * marker the partition took last for that producer: a zombie coordinator (Kafka's 52,
     * TRANSACTION_COORDINATOR_FENCED).
     */
    TRANSACTION_COORDINATOR_FENCED(26);

    private final short code;

    ErrorCode(int code) {
        this.code = (short) code;
    }

    public short code() {
        return code;
    }

    /** The error for a wire code; an unknown code is a malformed message. */
    public static ErrorCode of(short code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        throw new MalformedMessageException("unknown error code " + code);
    }
}
