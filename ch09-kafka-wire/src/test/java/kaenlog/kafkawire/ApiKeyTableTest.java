package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The two tables this chapter gives you, checked against kafka-clients 4.1.1 and librdkafka 2.0.2. */
@Order(10)
@PassesOnSkeleton("checks the reference's tables (ApiKey, KafkaErrors), which are given, not exercises")
class ApiKeyTableTest {

    /**
     * Each range lies inside what a Kafka 4.1.1 broker lists for the key in its own ApiVersions
     * answer ({@code ApiKeys.toApiVersionForApiResponse}): the versions kafka-clients knows, except
     * Produce, which Kafka lists from v0 although it removed v0 to v2 (KAFKA-18659, for librdkafka).
     */
    @Test
    void everyApiKeyHasKafkasNumberNameAndARangeAKafkaBrokerLists() {
        for (ApiKey key : ApiKey.values()) {
            ApiKeys kafka = ApiKeys.forId(key.id);
            assertThat(kafka.name()).as("key %d is %s in Kafka", key.id, kafka).isEqualTo(key.name());
            ApiVersionsResponseData.ApiVersion listed = kafka.toApiVersionForApiResponse(false,
                    ApiMessageType.ListenerType.BROKER).orElseThrow();
            assertThat(key.minVersion).as("%s: a Kafka 4.1.1 broker lists versions from %d", key, listed.minVersion())
                    .isGreaterThanOrEqualTo(listed.minVersion());
            assertThat(key.maxVersion).as("%s: a Kafka 4.1.1 broker lists versions up to %d", key, listed.maxVersion())
                    .isLessThanOrEqualTo(listed.maxVersion());
        }
    }

    /**
     * librdkafka 2.0.2 (Debian's kcat 1.7.1) compresses with a codec only when the broker's
     * ApiVersions answer overlaps what the codec needs, and otherwise logs "Broker does not support
     * compression type" and sends the batch plain. Its rule, from its own sources: the {@code
     * compr_req} table of {@code rd_kafka_msgset_writer_select_MsgVersion} (gzip and snappy: a Produce
     * version in 0..0; lz4: the same and the LZ4 feature; zstd: a Produce version in 0..7 and the ZSTD
     * feature) and the feature map of {@code rdkafka_feature.c} (MsgVer2: Produce 3..3 and Fetch 4..4;
     * LZ4: FindCoordinator 0..0; ZSTD: Produce 7..7 and Fetch 10..10). The version it then sends is
     * the highest of 3..7 the broker answers: v7 here, whatever the codec.
     */
    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void librdkafkaFindsInTheTableEverythingItWantsBeforeItCompresses(String codec) {
        assertThat(overlaps(ApiKey.PRODUCE, 3, 3) && overlaps(ApiKey.FETCH, 4, 4))
                .as("librdkafka's MsgVer2 feature (RecordBatch v2): Produce v3 and Fetch v4 listed").isTrue();
        int codecProduceMax = codec.equals("zstd") ? 7 : 0;
        assertThat(overlaps(ApiKey.PRODUCE, 0, codecProduceMax))
                .as("%s: librdkafka asks the broker's Produce range for a version in 0..%d before it compresses;"
                        + " a range that starts at v3 sends its batches plain", codec, codecProduceMax).isTrue();
        if (codec.equals("lz4")) {
            assertThat(overlaps(ApiKey.FIND_COORDINATOR, 0, 0))
                    .as("lz4: librdkafka's LZ4 feature wants FindCoordinator v0 (the 0.8.2 broker that brought lz4)")
                    .isTrue();
        }
        if (codec.equals("zstd")) {
            assertThat(overlaps(ApiKey.PRODUCE, 7, 7) && overlaps(ApiKey.FETCH, 10, 10))
                    .as("zstd: librdkafka's ZSTD feature wants Produce v7 and Fetch v10 (KIP-110)").isTrue();
        }
    }

    /** librdkafka's {@code rd_kafka_ApiVersion_check}: the client's range and the broker's overlap. */
    private static boolean overlaps(ApiKey key, int clientMin, int clientMax) {
        return clientMin <= key.maxVersion && key.minVersion <= clientMax;
    }

    /**
     * Every Produce version the table lists is answered in its own layout: v0 a partition's index,
     * error and base offset; v1 adds throttle_time_ms at the end, v2 log_append_time_ms per partition
     * (kafka-clients 3.9.1's ProduceResponse.json; kafka-clients 4 reads no version below 3), and from
     * v3 on kafka-clients 4.1.1 reads it.
     */
    @Test
    void everyListedProduceVersionIsAnsweredInItsOwnLayout() {
        List<Produce.TopicResponse> answer = List.of(new Produce.TopicResponse("orders",
                List.of(new Produce.PartitionResponse(2, (short) 0, 41L, 7L))));
        for (short v = ApiKey.PRODUCE.minVersion; v <= ApiKey.PRODUCE.maxVersion; v++) {
            byte[] body = Produce.response(answer, v);
            if (v < 3) {
                KafkaWriter expected = new KafkaWriter().arrayLength(1).nullableString("orders").arrayLength(1)
                        .int32(2).int16(0).int64(41L);
                if (v >= 2) {
                    expected.int64(-1L);
                }
                if (v >= 1) {
                    expected.int32(0);
                }
                assertThat(body).as("Produce v%d's answer: index, error, base offset%s%s", v,
                        v >= 2 ? ", log_append_time_ms" : "", v >= 1 ? ", then throttle_time_ms" : "")
                        .isEqualTo(expected.toByteArray());
                continue;
            }
            ProduceResponseData read = new ProduceResponseData(new ByteBufferAccessor(ByteBuffer.wrap(body)), v);
            ProduceResponseData.PartitionProduceResponse p = read.responses().iterator().next().partitionResponses()
                    .get(0);
            assertThat(p.baseOffset()).as("Produce v%d: base_offset, as kafka-clients reads it", v).isEqualTo(41L);
            assertThat(p.logStartOffset()).as("Produce v%d: log_start_offset (v5+)", v).isEqualTo(v >= 5 ? 7L : -1L);
        }
    }

    @Test
    void everyKaenLogErrorTravelsAsTheKafkaErrorOfTheSameMeaning() {
        for (kaenlog.wire.ErrorCode error : kaenlog.wire.ErrorCode.values()) {
            short code = KafkaErrors.of(error);
            assertThat(code).as("%s needs a Kafka code of its own in KafkaErrors, not UNKNOWN_SERVER_ERROR", error)
                    .isNotEqualTo(KafkaErrors.UNKNOWN_SERVER_ERROR);
            assertThat(Errors.forCode(code)).as("%s travels as Kafka code %d", error, code)
                    .isNotEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        }
        assertThat(Errors.forCode(KafkaErrors.of(kaenlog.wire.ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER)))
                .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(Errors.forCode(KafkaErrors.of(kaenlog.wire.ErrorCode.CORRUPT_BATCH)))
                .as("kaen-log's CORRUPT_BATCH is Kafka's CORRUPT_MESSAGE (2)").isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(Errors.forCode(KafkaErrors.of(kaenlog.wire.ErrorCode.UNKNOWN_PARTITION)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(Errors.forCode(KafkaErrors.of(kaenlog.wire.ErrorCode.BATCH_TOO_LARGE)))
                .isEqualTo(Errors.MESSAGE_TOO_LARGE);
        assertThat(Errors.forCode(KafkaErrors.of(kaenlog.wire.ErrorCode.NOT_ENOUGH_REPLICAS)))
                .isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        assertThat(Errors.forCode(KafkaErrors.UNSUPPORTED_VERSION)).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(Errors.forCode(KafkaErrors.KAFKA_STORAGE_ERROR)).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(Errors.forCode(KafkaErrors.UNKNOWN_PRODUCER_ID)).isEqualTo(Errors.UNKNOWN_PRODUCER_ID);
        assertThat(Errors.forCode(KafkaErrors.INVALID_RECORD)).isEqualTo(Errors.INVALID_RECORD);
        assertThat(Errors.forCode(KafkaErrors.INVALID_TOPIC_EXCEPTION)).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    }
}
