package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.Frames;

/**
 * Chapter 3's fetch, for consumers (replicaId -1, up to the high watermark) and followers (their
 * broker id, up to the log end). With nothing to return the fetch is parked: this connection's
 * thread waits until data arrives or the broker's time passes the fetch's deadline.
 *
 * <p>A fetch creates nothing: a partition nobody produced to is UNKNOWN_PARTITION, and the
 * broker's own partitions and names that are not partition names are refused ({@link ClientRules}).
 */
public final class FetchHandler implements RequestHandler {
    /** Room left in a response frame for everything but the records. */
    static final int RESPONSE_OVERHEAD_BYTES = 1024;

    @Override
    public short apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        FetchRequest request = capped(FetchRequest.decode(body));
        ErrorCode refused = ClientRules.nameRefusal(request.partition());
        if (refused != ErrorCode.NONE) {
            return Optional.of(FetchResponse.error(request.partition(), refused).encode());
        }
        Optional<Partition> partition = broker.existingPartition(request.partition());
        if (partition.isEmpty()) {
            return Optional.of(FetchResponse.error(request.partition(), ErrorCode.UNKNOWN_PARTITION).encode());
        }
        return Optional.of(broker.await(partition.get().fetch(request, broker.nowMs())).encode());
    }

    /**
     * A client may ask for up to 2 GiB; the answer must still fit in one frame the client accepts
     * (Kafka caps a fetch with fetch.max.bytes the same way).
     */
    static FetchRequest capped(FetchRequest request) {
        int max = Frames.DEFAULT_MAX_FRAME_BYTES - RESPONSE_OVERHEAD_BYTES;
        if (request.maxBytes() <= max) {
            return request;
        }
        return new FetchRequest(request.replicaId(), request.partition(), request.fetchOffset(), max,
                request.maxWaitMs());
    }
}
