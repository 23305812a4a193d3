package kaenlog.coordinator;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.groups.PartitionOffset;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetCommit;
import kaenlog.wire.PartitionNames;

/**
 * Answers OFFSET_COMMIT through the group coordinator: the commit is appended to the group offsets
 * log and remembered. A bad name or offset is INVALID_REQUEST, a partition nobody produced to
 * UNKNOWN_PARTITION (nothing is written), a coordinator that holds max.committed.offset.bytes already
 * COORDINATOR_NOT_AVAILABLE.
 */
public final class OffsetCommitHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        OffsetCommit.Request request = OffsetCommit.Request.decode(body);
        Optional<PartitionNames.TopicPartition> name = PartitionNames.problem(request.partition()) == null
                ? PartitionNames.parse(request.partition()) : Optional.empty();
        ErrorCode error = ErrorCode.INVALID_REQUEST;
        if (name.isPresent()) {
            PartitionOffset offset = new PartitionOffset(name.get().topic(), name.get().partition(), request.offset());
            error = of(GroupCoordinator.of(broker).commit(broker, request.group(), List.of(offset)).get(0));
        }
        return Optional.of(new OffsetCommit.Response(error).encode());
    }

    /** The coordinator's answer in kaen-log's own codes. */
    static ErrorCode of(OffsetCommitError error) {
        return switch (error) {
            case NONE -> ErrorCode.NONE;
            case INVALID, METADATA_TOO_LARGE -> ErrorCode.INVALID_REQUEST;
            case UNKNOWN_PARTITION -> ErrorCode.UNKNOWN_PARTITION;
            case BATCH_TOO_LARGE -> ErrorCode.BATCH_TOO_LARGE;
            case COORDINATOR_FULL, COORDINATOR_NOT_AVAILABLE -> ErrorCode.COORDINATOR_NOT_AVAILABLE;
            case STORAGE_ERROR -> ErrorCode.STORAGE_ERROR;
            case NOT_COORDINATOR -> ErrorCode.NOT_LEADER_OR_FOLLOWER;
            case TIMED_OUT -> ErrorCode.REQUEST_TIMED_OUT;
        };
    }
}
