package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;
import kaenlog.log.Segment;
import kaenlog.log.StorageException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ListOffsets;

/**
 * Answers LIST_OFFSETS through the partition's log and its time index (given code: no task). Like a
 * fetch it creates nothing: an unknown partition is UNKNOWN_PARTITION. A consumer is told only of
 * offsets below the high watermark (Kafka's ReplicaManager bounds a lookup by time by the last
 * fetchable offset the same way). An offline partition is answered STORAGE_ERROR.
 */
public final class ListOffsetsHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.LIST_OFFSETS;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        ListOffsets.Request request = ListOffsets.Request.decode(body);
        ErrorCode refused = ClientRules.nameRefusal(request.partition());
        if (refused == ErrorCode.NONE) {
            refused = broker.leadership().readRefusal(request.partition(), FetchRequest.NO_LEADER_EPOCH);
        }
        if (refused != ErrorCode.NONE) {
            return Optional.of(ListOffsets.Response.error(refused).encode());
        }
        Optional<Partition> partition = broker.existingPartition(request.partition());
        if (partition.isEmpty()) {
            return Optional.of(ListOffsets.Response.error(broker.leadership().missingPartition(request.partition()))
                    .encode());
        }
        try {
            return Optional.of(answer(partition.get(), request.timestamp()).encode());
        } catch (StorageException offline) {
            // Kafka's KafkaApis.handleListOffsetRequest answers a KafkaStorageException per partition
            // (KAFKA_STORAGE_ERROR), never with a closed connection: the partitions beside it are served.
            return Optional.of(ListOffsets.Response.error(partition.get().storageError(offline)).encode());
        }
    }

    private static ListOffsets.Response answer(Partition partition, long timestamp) throws IOException {
        return partition.locked(log -> {
            if (timestamp == ListOffsets.EARLIEST) {
                return new ListOffsets.Response(ErrorCode.NONE, ListOffsets.UNKNOWN, log.logStartOffset());
            }
            if (timestamp == ListOffsets.LATEST) {
                return new ListOffsets.Response(ErrorCode.NONE, ListOffsets.UNKNOWN, log.highWatermark());
            }
            Optional<Segment.TimestampAndOffset> found = timestamp == ListOffsets.MAX_TIMESTAMP
                    ? log.largestTimestamp() : log.offsetForTimestamp(timestamp);
            return found.filter(f -> f.offset() < log.highWatermark())
                    .map(f -> new ListOffsets.Response(ErrorCode.NONE, f.timestamp(), f.offset()))
                    .orElse(ListOffsets.Response.error(ErrorCode.NONE));
        });
    }
}
