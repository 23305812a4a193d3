package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The two tables this chapter gives you, checked against kafka-clients 4.1.1. */
@Order(10)
@PassesOnSkeleton("checks the reference's tables (ApiKey, KafkaErrors), which are given, not exercises")
class ApiKeyTableTest {

    @Test
    void everyApiKeyHasKafkasNumberNameAndARangeKafkaClientsKnows() {
        for (ApiKey key : ApiKey.values()) {
            ApiKeys kafka = ApiKeys.forId(key.id);
            assertThat(kafka.name()).as("key %d is %s in Kafka", key.id, kafka).isEqualTo(key.name());
            assertThat(key.minVersion).as("%s: kafka-clients 4.1.1 knows versions from %d", key, kafka.oldestVersion())
                    .isGreaterThanOrEqualTo(kafka.oldestVersion());
            assertThat(key.maxVersion).as("%s: kafka-clients 4.1.1 knows versions up to %d", key, kafka.latestVersion())
                    .isLessThanOrEqualTo(kafka.latestVersion());
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
