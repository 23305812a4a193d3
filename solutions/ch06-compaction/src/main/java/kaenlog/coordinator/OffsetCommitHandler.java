package kaenlog.coordinator;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetCommit;

/** Answers OFFSET_COMMIT: the commit is appended to the group offsets log. A bad name or offset is INVALID_REQUEST. */
public final class OffsetCommitHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        OffsetCommit.Request request = OffsetCommit.Request.decode(body);
        ErrorCode error = ErrorCode.NONE;
        try {
            GroupCoordinator.commit(broker, request.group(), request.partition(), request.offset());
        } catch (IllegalArgumentException e) {
            error = ErrorCode.INVALID_REQUEST;
        }
        return Optional.of(new OffsetCommit.Response(error).encode());
    }
}
