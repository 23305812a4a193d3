package kaenlog.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.Partition;
import kaenlog.broker.RequestHandler;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.TransactionalOffsets;
import kaenlog.kafkawire.KafkaErrors;
import kaenlog.kafkawire.WriteTxnMarkers;
import kaenlog.txn.TransactionResult;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.PartitionNames.TopicPartition;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * A partition leader's side of WriteTxnMarkers (given code; Kafka's
 * {@code KafkaApis.handleWriteTxnMarkersRequest}): for each marker and each of its partitions, the
 * control batch (chapter 11's {@code EndTransactionMarker}, the producer's id and epoch, the
 * coordinator's epoch) is appended by this broker as the partition's leader, with acks=all (Kafka
 * appends markers with {@code requiredAcks = -1}), and answered once the high watermark passed it; on
 * a {@code __consumer_offsets} partition the group coordinator then commits or drops the producer's
 * pending offsets, before the answer (Kafka's {@code onTransactionCompleted}). A partition this broker
 * does not lead is NOT_LEADER_OR_FOLLOWER, one it does not hold UNKNOWN_TOPIC_OR_PARTITION: the
 * coordinator sends that marker again after it has read the metadata again.
 *
 * <p>Taken only on chapter 10's inter-broker listener: anyone who can send it ends anyone's
 * transaction. Elsewhere every partition is CLUSTER_AUTHORIZATION_FAILED, Kafka's answer to a sender
 * without the ClusterAction ACL.
 */
public final class WriteTxnMarkersHandler implements RequestHandler {
    /** How long a marker waits for its partition's replicas (Kafka: {@code request.timeout.ms}, 30 s). */
    static final int MARKER_APPEND_TIMEOUT_MS = 30_000;

    @Override
    public short apiKey() {
        return ApiKeys.WRITE_TXN_MARKERS;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        List<WriteTxnMarkers.Marker> markers = WriteTxnMarkers.parseRequest(body);
        boolean fromABroker = InterBrokerListener.serving();
        List<Long> producerIds = new ArrayList<>();
        List<Map<TopicPartition, Short>> errors = new ArrayList<>();
        for (WriteTxnMarkers.Marker marker : markers) {
            Map<TopicPartition, Short> answers = new LinkedHashMap<>();
            for (TopicPartition partition : marker.partitions()) {
                answers.put(partition, fromABroker ? append(broker, partition, marker)
                        : KafkaErrors.CLUSTER_AUTHORIZATION_FAILED);
            }
            producerIds.add(marker.producerId());
            errors.add(answers);
        }
        return Optional.of(WriteTxnMarkers.response(producerIds, errors));
    }

    /** One partition's marker, appended as its leader; its answer in Kafka's codes. */
    private static short append(BrokerContext broker, TopicPartition partition, WriteTxnMarkers.Marker marker)
            throws IOException {
        if (!(broker.leadership() instanceof ClusterLeadership leadership)) {
            return KafkaErrors.NOT_LEADER_OR_FOLLOWER;
        }
        Optional<Partition> local = broker.existingPartition(partition.name());
        if (local.isEmpty()) {
            return KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        ByteBuffer batch = new EndTransactionMarker(marker.result().markerType(), marker.coordinatorEpoch())
                .controlBatch(marker.producerId(), marker.producerEpoch(), broker.nowMs());
        ProduceRequest request = new ProduceRequest(partition.name(), ProduceRequest.ACKS_ALL, MARKER_APPEND_TIMEOUT_MS,
                batch);
        ProduceResponse response = broker.await(leadership.produce(request,
                leaderEpoch -> local.get().produce(request, leaderEpoch, broker.nowMs())));
        if (response.error() != ErrorCode.NONE) {
            return KafkaErrors.of(response.error());
        }
        if (partition.topic().equals(GroupCoordinator.OFFSETS_TOPIC)) {
            TransactionalOffsets.of(broker).markerWritten(broker, partition.name(), marker.producerId(),
                    marker.producerEpoch(), marker.result() == TransactionResult.COMMIT);
        }
        return KafkaErrors.NONE;
    }
}
