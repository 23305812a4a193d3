package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import kaenlog.txn.TxnTransit;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.txn.TransactionResult;
import kaenlog.txn.TxnMarker;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * WriteTxnMarkers (Kafka's api key 27, v1) as the cluster's coordinator sends it and a leader answers
 * it (given code), byte for byte against kafka-clients 4.1.1's own {@code WriteTxnMarkersRequestData}
 * and {@code WriteTxnMarkersResponseData}: each reads what the other writes.
 */
@Order(28)
@PassesOnSkeleton("the WriteTxnMarkers codec is given code")
class WriteTxnMarkersTest {
    private static final TxnMarker COMMIT = new TxnMarker("orders-app", 4000L, (short) 3, 7, TransactionResult.COMMIT,
            TxnTransit.sorted(List.of(new TopicPartition("orders", 2), new TopicPartition("orders", 0),
                    new TopicPartition("__consumer_offsets", 11))));
    private static final TxnMarker ABORT = new TxnMarker("payments", 5000L, (short) 0, 2, TransactionResult.ABORT,
            TxnTransit.sorted(List.of(new TopicPartition("payments", 1))));

    @Test
    void kafkaReadsTheRequestWeWriteAndWeReadKafkas() {
        byte[] ours = WriteTxnMarkers.request(List.of(COMMIT, ABORT));
        WriteTxnMarkersRequestData kafka = new WriteTxnMarkersRequestData(new ByteBufferAccessor(ByteBuffer.wrap(ours)),
                WriteTxnMarkers.VERSION);
        WriteTxnMarkersRequestData.WritableTxnMarker first = kafka.markers().get(0);
        assertThat(first.producerId()).as("producer id").isEqualTo(4000L);
        assertThat(first.producerEpoch()).as("producer epoch").isEqualTo((short) 3);
        assertThat(first.transactionResult()).as("transaction_result: true is COMMIT").isTrue();
        assertThat(first.coordinatorEpoch()).as("coordinator epoch").isEqualTo(7);
        assertThat(first.topics()).as("the partitions grouped by topic").hasSize(2);
        assertThat(kafka.markers().get(1).transactionResult()).as("false is ABORT").isFalse();

        byte[] kafkas = kafkaBytes(kafka);
        assertThat(ours).as("the same bytes as Kafka's own encoding of the same request").isEqualTo(kafkas);
        List<WriteTxnMarkers.Marker> read = WriteTxnMarkers.parseRequest(kafkas);
        assertThat(read).as("Kafka's request read back").hasSize(2);
        assertThat(read.get(0).partitions()).containsExactlyElementsOf(COMMIT.partitions());
        assertThat(read.get(0).result()).isEqualTo(TransactionResult.COMMIT);
        assertThat(read.get(1)).isEqualTo(new WriteTxnMarkers.Marker(5000L, (short) 0, TransactionResult.ABORT, 2,
                ABORT.partitions()));
    }

    @Test
    void kafkaReadsTheResponseWeWriteAndWeReadKafkas() {
        Map<TopicPartition, Short> errors = new LinkedHashMap<>();
        errors.put(new TopicPartition("orders", 0), KafkaErrors.NONE);
        errors.put(new TopicPartition("orders", 2), KafkaErrors.NOT_LEADER_OR_FOLLOWER);
        byte[] ours = WriteTxnMarkers.response(List.of(4000L), List.of(errors));
        WriteTxnMarkersResponseData kafka = new WriteTxnMarkersResponseData(
                new ByteBufferAccessor(ByteBuffer.wrap(ours)), WriteTxnMarkers.VERSION);
        assertThat(kafka.markers().get(0).producerId()).isEqualTo(4000L);
        assertThat(kafka.markers().get(0).topics().get(0).partitions().get(1).errorCode())
                .as("each partition's error code").isEqualTo(KafkaErrors.NOT_LEADER_OR_FOLLOWER);
        byte[] kafkas = kafkaBytes(kafka);
        assertThat(ours).as("the same bytes as Kafka's encoding").isEqualTo(kafkas);
        assertThat(WriteTxnMarkers.parseResponse(kafkas)).as("Kafka's response read back").containsExactly(errors);
    }

    @Test
    void aRequestThatIsNotOneIsMalformedNeverAnIndexError() {
        byte[] nullMarkers = {0, 0}; // a compact array of length 0 is null, then the request's tagged fields
        assertThatThrownBy(() -> WriteTxnMarkers.parseRequest(nullMarkers)).as("a null markers array")
                .isInstanceOf(MalformedMessageException.class);
        byte[] cut = WriteTxnMarkers.request(List.of(COMMIT));
        assertThatThrownBy(() -> WriteTxnMarkers.parseRequest(java.util.Arrays.copyOf(cut, cut.length - 3)))
                .as("a request cut short").isInstanceOf(MalformedMessageException.class);
    }

    /** Kafka's own encoding of {@code message} at WriteTxnMarkers' version. */
    private static byte[] kafkaBytes(Message message) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, WriteTxnMarkers.VERSION));
        message.write(new ByteBufferAccessor(buffer), cache, WriteTxnMarkers.VERSION);
        return buffer.array();
    }
}
