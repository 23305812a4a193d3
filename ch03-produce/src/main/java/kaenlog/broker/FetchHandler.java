package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
        ErrorCode notHere = broker.leadership().beforeFetch(request, broker.nowMs());
        if (notHere != ErrorCode.NONE) {
            return Optional.of(FetchResponse.error(request.partition(), notHere).encode());
        }
        Optional<Partition> partition = broker.existingPartition(request.partition());
        if (partition.isEmpty()) {
            return Optional.of(FetchResponse.error(request.partition(), ErrorCode.UNKNOWN_PARTITION).encode());
        }
        Optional<ResponseChannel> connection = ResponseChannel.current().filter(ResponseChannel::servesKaenLog);
        if (connection.isPresent()) {
            return sendFromTheFiles(request, partition.get(), broker, connection.get());
        }
        return Optional.of(broker.await(partition.get().fetch(request, broker.nowMs())).encode());
    }

    /**
     * The zero-copy fetch, where the records go from the segment files to the socket with
     * transferTo (sendfile) instead of through the heap: chapter 3's read decides which batches
     * ({@link Partition#slice}: the learner's index lookup, the same bounds), and the answer is
     * their positions. With nothing to return the fetch parks the chapter-3 way ({@link
     * Partition#fetch}, asking for one batch only: a parked read is in memory) and reads again
     * once woken. Answered here, on the connection's socket: the handler returns nothing to write.
     */
    private static Optional<byte[]> sendFromTheFiles(FetchRequest request, Partition partition, BrokerContext broker,
                                                     ResponseChannel connection) throws IOException {
        FetchSlice slice = partition.slice(request, true);
        if (slice.error() == ErrorCode.NONE && slice.recordBytes() == 0 && request.maxWaitMs() > 0) {
            slice.close();
            FetchResponse woken = broker.await(partition.fetch(request.withMaxBytes(1), broker.nowMs()));
            if (woken.error() != ErrorCode.NONE) {
                return Optional.of(woken.encode());
            }
            slice = partition.slice(request, true);
        }
        connection.send(frame(connection.kaenLogCorrelationId(), slice));
        return Optional.empty();
    }

    /**
     * The response frame as chapter 3's {@link FetchResponse#encode} lays it out, inside a
     * {@code ResponseEnvelope}, inside a frame: one buffer from the frame length to the records'
     * length (one write), then the records.
     */
    static Send frame(int correlationId, FetchSlice slice) {
        byte[] name = slice.partition().getBytes(StandardCharsets.UTF_8);
        int records = slice.recordBytes();
        int head = 4 + 4 + 2 + name.length + 2 + 8 + 8 + 4;
        ByteBuffer header = ByteBuffer.allocate(head).putInt(head - 4 + records).putInt(correlationId)
                .putShort((short) name.length).put(name).putShort(slice.error().code()).putLong(slice.highWatermark())
                .putLong(slice.logStartOffset()).putInt(records).flip();
        Send send = new Send().bytes(header);
        return slice.corruptBatch() != null ? send.bytes(slice.corruptBatch()) : send.file(slice.records());
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
        return request.withMaxBytes(max);
    }
}
