package kaenlog.coordinator;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetFetch;
import kaenlog.wire.PartitionNames;

/**
 * Answers OFFSET_FETCH from the coordinator's memory (the offsets log read once, kept in step since:
 * chapter 6's {@code CommittedOffsets}), as Kafka's coordinator does: never by reading the log
 * again. -1 when the group committed nothing there. In chapter 10's cluster, a broker that does not
 * coordinate the group answers NOT_LEADER_OR_FOLLOWER (COORDINATOR_NOT_AVAILABLE while it reads the
 * group's partition): kaen-log's port has no FindCoordinator, so {@code klog consume --group} names
 * the coordinator's broker itself.
 */
public final class OffsetFetchHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.OFFSET_FETCH;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        OffsetFetch.Request request = OffsetFetch.Request.decode(body);
        if (request.group().isEmpty() || PartitionNames.problem(request.partition()) != null) {
            return Optional.of(new OffsetFetch.Response(ErrorCode.INVALID_REQUEST, OffsetFetch.NO_OFFSET).encode());
        }
        PartitionNames.TopicPartition name = PartitionNames.parse(request.partition()).orElseThrow();
        OffsetsPlacement.Status status = GroupCoordinator.of(broker).placement().status(request.group());
        if (status != OffsetsPlacement.Status.NONE) {
            // chapter 10: another broker coordinates the group (or this one is still reading its
            // partition); "no commit" would send the consumer back to the start of the log
            return Optional.of(new OffsetFetch.Response(status == OffsetsPlacement.Status.LOAD_IN_PROGRESS
                    ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.NOT_LEADER_OR_FOLLOWER, OffsetFetch.NO_OFFSET)
                    .encode());
        }
        Optional<CommittedOffset> committed = GroupCoordinator.of(broker).committed(broker,
                new OffsetCommitKey(request.group(), name.topic(), name.partition()));
        return Optional.of(new OffsetFetch.Response(ErrorCode.NONE,
                committed.map(c -> c.value().offset()).orElse(OffsetFetch.NO_OFFSET)).encode());
    }
}
