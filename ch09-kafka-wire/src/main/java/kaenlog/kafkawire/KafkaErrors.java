package kaenlog.kafkawire;

import kaenlog.wire.ErrorCode;

/**
 * kaen-log's error table (its own numbers, chapter 3) mapped to Kafka's wire codes
 * ({@code org.apache.kafka.common.protocol.Errors}), in one place: on this listener a client reads
 * Kafka's numbers only.
 */
public final class KafkaErrors {
    public static final short NONE = 0;
    public static final short OFFSET_OUT_OF_RANGE = 1;
    public static final short CORRUPT_MESSAGE = 2;
    public static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
    /** A partition Metadata lists that no log leads: here, one missing from the data directory. */
    public static final short LEADER_NOT_AVAILABLE = 5;
    /** Chapter 10: this broker does not lead the partition; the client asks Metadata again and follows the leader. */
    public static final short NOT_LEADER_OR_FOLLOWER = 6;
    public static final short REQUEST_TIMED_OUT = 7;
    public static final short MESSAGE_TOO_LARGE = 10;
    /** An OffsetCommit's metadata longer than offset.metadata.max.bytes. */
    public static final short OFFSET_METADATA_TOO_LARGE = 12;
    public static final short INVALID_TOPIC_EXCEPTION = 17;
    public static final short NOT_ENOUGH_REPLICAS = 19;
    public static final short NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20;
    /** A Produce whose acks is not 0, 1 or -1 (all): Kafka's ReplicaManager answers every partition so. */
    public static final short INVALID_REQUIRED_ACKS = 21;
    /** Chapter 10: the group's coordinator is still reading its offsets partition; the client retries. */
    public static final short COORDINATOR_LOAD_IN_PROGRESS = 14;
    public static final short COORDINATOR_NOT_AVAILABLE = 15;
    /** Chapter 10: this broker does not lead the group's offsets partition; the client finds the coordinator again. */
    public static final short NOT_COORDINATOR = 16;
    public static final short ILLEGAL_GENERATION = 22;
    public static final short INCONSISTENT_GROUP_PROTOCOL = 23;
    public static final short INVALID_GROUP_ID = 24;
    public static final short UNKNOWN_MEMBER_ID = 25;
    public static final short INVALID_SESSION_TIMEOUT = 26;
    public static final short REBALANCE_IN_PROGRESS = 27;
    /** An OffsetCommit's batch over the offsets partition's max.message.bytes (Kafka 3.9's coordinator). */
    public static final short INVALID_COMMIT_OFFSET_SIZE = 28;
    /** A replica Fetch from a sender without the ClusterAction ACL (KafkaApis.handleFetchRequest). */
    public static final short TOPIC_AUTHORIZATION_FAILED = 29;
    /**
     * Chapter 11: an inter-broker request (WriteTxnMarkers) from someone not allowed the cluster's
     * ClusterAction: kaen-log takes it only on chapter 10's inter-broker listener.
     */
    public static final short CLUSTER_AUTHORIZATION_FAILED = 31;
    public static final short UNSUPPORTED_VERSION = 35;
    public static final short INVALID_REQUEST = 42;
    public static final short OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
    /** A batch of a producer epoch older than the partition's (a fenced zombie's), or PRODUCER_FENCED to old versions. */
    public static final short INVALID_PRODUCER_EPOCH = 47;
    /** Kafka's answer when this client may not use a transactional id here (kafka-clients: TransactionalIdAuthorizationException). */
    /** Chapter 11: a marker from a coordinator older than the last whose marker the partition took for its producer. */
    public static final short TRANSACTION_COORDINATOR_FENCED = 52;
    public static final short TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53;
    /** A partition of a request not tried because another of the same request failed (AddPartitionsToTxn). */
    public static final short OPERATION_NOT_ATTEMPTED = 55;
    public static final short KAFKA_STORAGE_ERROR = 56;
    public static final short UNKNOWN_PRODUCER_ID = 59;
    /** DeleteGroups and OffsetDelete refuse a group with members (OffsetDelete: of another protocol than consumers'). */
    public static final short NON_EMPTY_GROUP = 68;
    public static final short GROUP_ID_NOT_FOUND = 69;
    public static final short FENCED_LEADER_EPOCH = 74;
    public static final short UNKNOWN_LEADER_EPOCH = 75;
    public static final short MEMBER_ID_REQUIRED = 79;
    public static final short GROUP_MAX_SIZE_REACHED = 81;
    /** KIP-345: another process uses this group.instance.id now (kafka-clients: FencedInstanceIdException, fatal). */
    public static final short FENCED_INSTANCE_ID = 82;
    /** OffsetDelete of a topic the group's members subscribe to. */
    public static final short GROUP_SUBSCRIBED_TO_TOPIC = 86;
    public static final short INVALID_RECORD = 87;
    /** KIP-447: OffsetFetch v7+ with require_stable, for a partition with a transaction's offset pending (retriable). */
    public static final short UNSTABLE_OFFSET_COMMIT = 88;
    /** Kafka's answer for an error it has no better code for. */
    public static final short UNKNOWN_SERVER_ERROR = -1;

    private KafkaErrors() {
    }

    /** The Kafka code a kaen-log error travels as on the Kafka port. */
    public static short of(ErrorCode error) {
        return switch (error) {
            case NONE -> NONE;
            case OFFSET_OUT_OF_RANGE -> OFFSET_OUT_OF_RANGE;
            case NOT_ENOUGH_REPLICAS -> NOT_ENOUGH_REPLICAS;
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> NOT_ENOUGH_REPLICAS_AFTER_APPEND;
            case CORRUPT_BATCH -> CORRUPT_MESSAGE;
            case UNKNOWN_PARTITION -> UNKNOWN_TOPIC_OR_PARTITION;
            case REQUEST_TIMED_OUT -> REQUEST_TIMED_OUT;
            case INVALID_REQUEST -> INVALID_REQUEST;
            case BATCH_TOO_LARGE -> MESSAGE_TOO_LARGE;
            case OUT_OF_ORDER_SEQUENCE_NUMBER -> OUT_OF_ORDER_SEQUENCE_NUMBER;
            case STORAGE_ERROR -> KAFKA_STORAGE_ERROR;
            // Kafka has no read-only log: a log dir it cannot write is a storage error there too.
            case READ_ONLY_STORAGE -> KAFKA_STORAGE_ERROR;
            case INVALID_PARTITION_NAME -> INVALID_TOPIC_EXCEPTION;
            // Kafka's ReplicaManager: "Cannot append to internal topic", an InvalidTopicException.
            case INTERNAL_PARTITION -> INVALID_TOPIC_EXCEPTION;
            case UNKNOWN_PRODUCER_ID -> UNKNOWN_PRODUCER_ID;
            case INVALID_RECORD -> INVALID_RECORD;
            // The broker's own producer-id log is damaged on disk.
            case CORRUPT_PRODUCER_ID_RECORD -> KAFKA_STORAGE_ERROR;
            case NOT_LEADER_OR_FOLLOWER -> NOT_LEADER_OR_FOLLOWER;
            case FENCED_LEADER_EPOCH -> FENCED_LEADER_EPOCH;
            case UNKNOWN_LEADER_EPOCH -> UNKNOWN_LEADER_EPOCH;
            case TOPIC_AUTHORIZATION_FAILED -> TOPIC_AUTHORIZATION_FAILED;
            case COORDINATOR_NOT_AVAILABLE -> COORDINATOR_NOT_AVAILABLE;
            case INVALID_PRODUCER_EPOCH -> INVALID_PRODUCER_EPOCH;
            case TRANSACTION_COORDINATOR_FENCED -> TRANSACTION_COORDINATOR_FENCED;
            // A code a later change adds lands here until it is mapped (KafkaErrorsTest insists it is).
            default -> UNKNOWN_SERVER_ERROR;
        };
    }
}
