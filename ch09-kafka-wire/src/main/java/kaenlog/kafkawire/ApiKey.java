package kaenlog.kafkawire;

import java.util.Optional;
import kaenlog.workbook.Todo;

/**
 * The Kafka requests this listener answers, with Kafka's own api key numbers (not kaen-log's: on
 * this port kaen-log speaks Kafka), the versions it accepts, and each request's first flexible
 * version (the {@code flexibleVersions} of its message definition in kafka-clients 4.1.1,
 * {@code common/message/*Request.json}).
 *
 * <p>The ranges stop below the flexible versions wherever a client can live with that: a client
 * picks the highest version both sides know, so Produce v8, Fetch v11, Metadata v8 and InitProducerId
 * v1 serve both kafka-clients 4.1.1 and librdkafka (kcat). Produce starts at v0 for librdkafka:
 * before it compresses a batch with gzip, snappy or lz4 it asks the broker's Produce range for a
 * version in 0..0 (lz4 also FindCoordinator in 0..0, zstd Produce 7..7 and Fetch 10..10: the
 * {@code compr_req} table of its {@code rd_kafka_msgset_writer_select_MsgVersion} and the feature
 * table of {@code rdkafka_feature.c}), and finding none it sends the batch plain. Kafka 4 removed
 * Produce v0 to v2 yet lists v0 for that reason (KAFKA-18659) and refuses the requests; this listener
 * answers them ({@link Produce}). ListOffsets goes to v7 (flexible from v6)
 * because v7 is the first that may ask for MAX_TIMESTAMP (-3, KIP-734). ApiVersions goes to
 * v3, the first flexible one, because librdkafka asks for v3 and kafka-clients 4.1.1 for v4 — and a
 * v4 request is answered in ApiVersions' documented fallback: a v0 response with
 * UNSUPPORTED_VERSION and this table, after which the client asks again at v3.
 */
public enum ApiKey {
    PRODUCE(0, 0, 8, 9),
    FETCH(1, 4, 11, 12),
    LIST_OFFSETS(2, 1, 7, 6),
    METADATA(3, 1, 8, 9),
    API_VERSIONS(18, 0, 3, 3),
    INIT_PRODUCER_ID(22, 0, 1, 2),
    // CreateTopics and DeleteTopics at the versions kafka-clients 4.1.1 asks for (v7, v6), flexible
    CREATE_TOPICS(19, 2, 7, 5),
    DELETE_TOPICS(20, 1, 6, 4),
    // The admin requests Kafka's tools and Kafka Streams send, every version kafka-clients 4.1.1 knows
    DELETE_RECORDS(21, 0, 2, 2),
    DESCRIBE_CONFIGS(32, 1, 4, 4),
    ALTER_CONFIGS(33, 0, 2, 2),
    DESCRIBE_LOG_DIRS(35, 1, 4, 2),
    CREATE_PARTITIONS(37, 0, 3, 2),
    INCREMENTAL_ALTER_CONFIGS(44, 0, 1, 1),
    // The group requests (GroupApis), classic versions only: both clients accept them. ListGroups goes
    // on to v5, flexible, for its states filter (v4: kafka-consumer-groups --list --state) and types filter (v5)
    OFFSET_COMMIT(8, 2, 7, 8),
    // OffsetFetch to v7, flexible from v6: v7 is the first with require_stable (KIP-447), which
    // kafka-clients' consumer always sets; below v7 it drops it silently
    OFFSET_FETCH(9, 1, 7, 6),
    FIND_COORDINATOR(10, 0, 2, 3),
    JOIN_GROUP(11, 2, 5, 6),
    HEARTBEAT(12, 0, 3, 4),
    LEAVE_GROUP(13, 0, 3, 4),
    SYNC_GROUP(14, 0, 3, 4),
    DESCRIBE_GROUPS(15, 0, 4, 5),
    LIST_GROUPS(16, 0, 5, 3),
    // An admin's group requests (GroupAdminApis): kafka-consumer-groups --delete, --delete-offsets
    DELETE_GROUPS(42, 0, 1, 2),
    OFFSET_DELETE(47, 0, 0, Short.MAX_VALUE), // never flexible
    // A later chapter's requests, answered only when it is on the classpath (a KafkaApiExtension):
    // chapter 11's transactions, at the classic versions (v2 is the first that answers PRODUCER_FENCED)
    ADD_PARTITIONS_TO_TXN(24, 0, 2, 3, true),
    ADD_OFFSETS_TO_TXN(25, 0, 2, 3, true),
    END_TXN(26, 0, 2, 3, true),
    // v3 is the first that names the consumer's generation and member id (KIP-447), flexible
    TXN_OFFSET_COMMIT(28, 0, 3, 3, true);

    public final short id;
    public final short minVersion;
    public final short maxVersion;
    /** Kafka's first flexible version of this request (compact types, tagged fields, header v2). */
    public final short firstFlexibleVersion;
    /** Answered by a later chapter's {@link KafkaApiExtension}, and only when one is on the classpath. */
    public final boolean laterChapter;

    ApiKey(int id, int minVersion, int maxVersion, int firstFlexibleVersion) {
        this(id, minVersion, maxVersion, firstFlexibleVersion, false);
    }

    ApiKey(int id, int minVersion, int maxVersion, int firstFlexibleVersion, boolean laterChapter) {
        this.id = (short) id;
        this.minVersion = (short) minVersion;
        this.maxVersion = (short) maxVersion;
        this.firstFlexibleVersion = (short) firstFlexibleVersion;
        this.laterChapter = laterChapter;
    }

    /**
     * The keys this listener answers, as ApiVersions lists them: this chapter's, and a later chapter's
     * only when its {@link KafkaApiExtension} is on the classpath (advertise only what is built: a
     * client picks its requests from this table).
     */
    public static ApiKey[] answered() {
        return java.util.Arrays.stream(values()).filter(ApiKey::isAnswered).toArray(ApiKey[]::new);
    }

    /** Whether this listener answers the key at all ({@link #answered}). */
    public boolean isAnswered() {
        return !laterChapter || KafkaApiExtension.answeredKeys().contains(this);
    }

    public static Optional<ApiKey> of(short id) {
        for (ApiKey key : values()) {
            if (key.id == id) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    public boolean supports(short version) {
        return version >= minVersion && version <= maxVersion && isAnswered();
    }

    public boolean isFlexible(short version) {
        return version >= firstFlexibleVersion;
    }

    /**
     * Request header v2 (tagged fields after client_id) for flexible versions, v1 before. The
     * header's version follows the request's, not the other way round: a broker must know the
     * api key and version before it can find where the body starts.
     */
    public short requestHeaderVersion(short version) {
        throw new Todo("ch09 task 3: which request header a version uses (RequestHeaderTest)");
    }

    /**
     * Response header v1 (tagged fields after correlation_id) for flexible versions, v0 before —
     * except ApiVersions, whose response header is always v0: a client that does not know yet
     * which versions the broker speaks must still be able to read the answer.
     */
    public short responseHeaderVersion(short version) {
        throw new Todo("ch09 task 3: which response header a version uses; ApiVersions is always v0 (RequestHeaderTest)");
    }
}
