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
 * again. -1 when the group committed nothing there.
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
        Optional<CommittedOffset> committed = GroupCoordinator.of(broker).committed(broker,
                new OffsetCommitKey(request.group(), name.topic(), name.partition()));
        return Optional.of(new OffsetFetch.Response(ErrorCode.NONE,
                committed.map(c -> c.value().offset()).orElse(OffsetFetch.NO_OFFSET)).encode());
    }
}
