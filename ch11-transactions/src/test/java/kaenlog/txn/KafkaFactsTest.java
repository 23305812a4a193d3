package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import kaenlog.batch.ControlRecordType;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.transaction.TransactionLogConfig;
import org.apache.kafka.coordinator.transaction.TransactionStateManagerConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The numbers the chapter states, checked against Kafka's own code: a fact that drifts from Kafka
 * fails here, not in a learner's head.
 */
@Order(21)
@PassesOnSkeleton("checks the chapter's given constants against Kafka's")
class KafkaFactsTest {
    @Test
    void everyErrorIsAnsweredWithKafkasCode() {
        for (TxnError error : TxnError.values()) {
            assertThat(error.code()).as("%s's code (Kafka's Errors)", error).isEqualTo(Errors.valueOf(error.name()).code());
        }
    }

    @Test
    void theCoordinatorsDefaultsAreKafkas() {
        assertThat(TxnConfig.DEFAULT_MAX_TIMEOUT_MS).as("transaction.max.timeout.ms")
                .isEqualTo(TransactionStateManagerConfig.TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT);
        assertThat(TxnConfig.DEFAULT_STATE_LOG_PARTITIONS).as("transaction.state.log.num.partitions")
                .isEqualTo(TransactionLogConfig.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT);
        assertThat(TxnConfig.STATE_LOG_SEGMENT_BYTES).as("transaction.state.log.segment.bytes")
                .isEqualTo(TransactionLogConfig.TRANSACTIONS_TOPIC_SEGMENT_BYTES_DEFAULT);
        assertThat(PartitionStateLog.LOAD_BUFFER_SIZE).as("transaction.state.log.load.buffer.size")
                .isEqualTo(TransactionLogConfig.TRANSACTIONS_LOAD_BUFFER_SIZE_DEFAULT);
        assertThat(TxnConfig.STATE_LOG_TOPIC).isEqualTo(org.apache.kafka.common.internals.Topic.TRANSACTION_STATE_TOPIC_NAME);
    }

    @Test
    void theTransactionStateLogIsCompactedAsKafkaCreatesIt() {
        Map<String, Map<String, String>> partitions = new TransactionStateExtension().internalPartitions();
        assertThat(partitions).as("__transaction_state-0 to -49").hasSize(TransactionLogConfig.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT)
                .containsKey("__transaction_state-49");
        assertThat(partitions.get("__transaction_state-0")).containsEntry("cleanup.policy", "compact")
                .containsEntry("segment.bytes", String.valueOf(TransactionLogConfig.TRANSACTIONS_TOPIC_SEGMENT_BYTES_DEFAULT));
    }

    @Test
    void theMarkersTypesAreKafkas() {
        for (ControlRecordType type : new ControlRecordType[] {ControlRecordType.ABORT, ControlRecordType.COMMIT}) {
            assertThat(type.id()).as("%s's type in the control record's key", type)
                    .isEqualTo(org.apache.kafka.common.record.ControlRecordType.valueOf(type.name()).type());
        }
        assertThat(ControlRecordType.of((short) 2)).as("LEADER_CHANGE is no marker: UNKNOWN here")
                .isEqualTo(ControlRecordType.UNKNOWN);
    }
}
