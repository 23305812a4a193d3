package kaenlog.coordinator;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetFetch;

/**
 * Answers OFFSET_FETCH from the group offsets log, replayed (chapter 6's
 * {@code GroupOffsetsLog.committedOffsets}); -1 when the group committed nothing there. Kafka's
 * coordinator replays the log once and keeps the result in memory; kaen-log replays it per request,
 * which the cleaner keeps short.
 */
public final class OffsetFetchHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.OFFSET_FETCH;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        OffsetFetch.Request request = OffsetFetch.Request.decode(body);
        try {
            long offset = GroupCoordinator.committed(broker, request.group(), request.partition());
            return Optional.of(new OffsetFetch.Response(ErrorCode.NONE, offset).encode());
        } catch (IllegalArgumentException e) {
            return Optional.of(new OffsetFetch.Response(ErrorCode.INVALID_REQUEST, OffsetFetch.NO_OFFSET).encode());
        }
    }
}
