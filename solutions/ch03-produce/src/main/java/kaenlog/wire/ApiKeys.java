package kaenlog.wire;

import java.util.List;
import java.util.Optional;

/**
 * The first field of every request: which message follows. A request frame's payload is
 * apiKey int16 · correlationId int32 · body; a response's is correlationId int32 · body.
 *
 * <p>This is kaen-log's one table of api keys, every chapter's, with the chapter that adds each: a
 * chapter registers handlers ({@code kaenlog.broker.RequestHandler}) only for keys listed here,
 * and a test checks it. The numbers are kaen-log's own, not Kafka's (Kafka's OffsetCommit is 8,
 * OffsetFetch 9, InitProducerId 22).
 */
public final class ApiKeys {
    public static final short PRODUCE = 0;
    public static final short FETCH = 1;
    /** Chapter 7: an idempotent producer asks for its producer id. */
    public static final short INIT_PRODUCER_ID = 2;
    /** Chapter 6: a consumer group stores its position in the group offsets log. */
    public static final short OFFSET_COMMIT = 3;
    /** Chapter 6: a consumer group reads its committed position back. */
    public static final short OFFSET_FETCH = 4;
    /** Chapter 3: the configs a partition runs with (Kafka's DescribeConfigs). */
    public static final short DESCRIBE_CONFIGS = 5;
    /** Chapter 3: where a consumer starts, by time (Kafka's ListOffsets; given code over the time index). */
    public static final short LIST_OFFSETS = 6;
    /** Chapter 9: a topic made whole, partitions 0..N-1 (Kafka's CreateTopics; {@code klog topics --create}). */
    public static final short CREATE_TOPICS = 7;
    /** Chapter 9: a topic's partitions closed and removed (Kafka's DeleteTopics; {@code klog topics --delete}). */
    public static final short DELETE_TOPICS = 8;
    /** Chapter 9: the topics and their partitions (Kafka's Metadata; {@code klog topics --describe}). */
    public static final short DESCRIBE_TOPICS = 9;
    /**
     * Chapter 10: a follower asks its leader where a leader epoch ends (Kafka's OffsetsForLeaderEpoch,
     * KIP-101 and KIP-279), before its first fetch from a new leader.
     */
    public static final short OFFSETS_FOR_LEADER_EPOCH = 10;
    /**
     * Chapter 11: a transaction coordinator asks a partition's leader to append its COMMIT or ABORT
     * markers (Kafka's WriteTxnMarkers, api key 27, whose v1 body it carries), on chapter 10's
     * inter-broker listener.
     */
    public static final short WRITE_TXN_MARKERS = 11;

    /** One row of the table. */
    public record ApiKey(short key, String name, int chapter) {
    }

    /** Every key, in key order. */
    public static final List<ApiKey> ALL = List.of(
            new ApiKey(PRODUCE, "PRODUCE", 3),
            new ApiKey(FETCH, "FETCH", 3),
            new ApiKey(INIT_PRODUCER_ID, "INIT_PRODUCER_ID", 7),
            new ApiKey(OFFSET_COMMIT, "OFFSET_COMMIT", 6),
            new ApiKey(OFFSET_FETCH, "OFFSET_FETCH", 6),
            new ApiKey(DESCRIBE_CONFIGS, "DESCRIBE_CONFIGS", 3),
            new ApiKey(LIST_OFFSETS, "LIST_OFFSETS", 3),
            new ApiKey(CREATE_TOPICS, "CREATE_TOPICS", 9),
            new ApiKey(DELETE_TOPICS, "DELETE_TOPICS", 9),
            new ApiKey(DESCRIBE_TOPICS, "DESCRIBE_TOPICS", 9),
            new ApiKey(OFFSETS_FOR_LEADER_EPOCH, "OFFSETS_FOR_LEADER_EPOCH", 10),
            new ApiKey(WRITE_TXN_MARKERS, "WRITE_TXN_MARKERS", 11));

    private ApiKeys() {
    }

    /** The row of {@code key}, if the table has one. */
    public static Optional<ApiKey> of(short key) {
        return ALL.stream().filter(k -> k.key() == key).findFirst();
    }
}
