package kaenlog.kafkawire;

/**
 * What creating, deleting or describing a topic can answer, each with Kafka's error code: the Kafka
 * port sends the code, kaen-log's port the name (its own error table, {@code kaenlog.wire.ErrorCode},
 * never copied Kafka's numbers).
 */
public enum TopicError {
    NONE(0),
    UNKNOWN_TOPIC_OR_PARTITION(3),
    /** A cluster's creation or deletion not seen done within the request's timeout (chapter 10). */
    REQUEST_TIMED_OUT(7),
    /** A partition Metadata lists whose directory is missing (a hole in 0..N-1): no log leads it. */
    LEADER_NOT_AVAILABLE(5),
    INVALID_TOPIC_EXCEPTION(17),
    TOPIC_ALREADY_EXISTS(36),
    INVALID_PARTITIONS(37),
    INVALID_REPLICATION_FACTOR(38),
    INVALID_REPLICA_ASSIGNMENT(39),
    INVALID_CONFIG(40),
    /** A cluster's topics are created and deleted by its controller: the client asks Metadata who it is. */
    NOT_CONTROLLER(41),
    INVALID_REQUEST(42),
    /** Kafka's answer when a request would create too many partitions; here: over max.partitions. */
    POLICY_VIOLATION(44),
    KAFKA_STORAGE_ERROR(56),
    /** Kafka's answer when {@code delete.topic.enable} is false; here: a cluster member (chapter 10). */
    TOPIC_DELETION_DISABLED(73),
    UNKNOWN_TOPIC_ID(100);

    /** Kafka's number for it (org.apache.kafka.common.protocol.Errors). */
    public final short kafkaCode;

    TopicError(int kafkaCode) {
        this.kafkaCode = (short) kafkaCode;
    }

    /** The error called {@code name}; an unknown name is a malformed message. */
    public static TopicError named(String name) {
        for (TopicError e : values()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new kaenlog.wire.MalformedMessageException("unknown topic error '" + name + "'");
    }
}
