package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.Frames;
import kaenlog.wire.PartitionNames;

/**
 * Chapter 3's fetch, for consumers (replicaId -1, up to the high watermark) and followers (their
 * broker id, up to the log end). With nothing to return the fetch is parked: this connection's
 * thread waits until data arrives or the broker's time passes the fetch's deadline.
 *
 * <p>A fetch creates nothing: a partition nobody produced to is UNKNOWN_PARTITION, and the
 * broker's own partitions and names that are not partition names are refused ({@link ClientRules}).
 *
 * <p>Both ports fetch through here: {@link #read} is one partition's read (the leadership's check,
 * the one lookup, the slice), {@link #readOrPark} the wait when nothing came back. Chapter 9's Kafka
 * Fetch reads each partition it names with the first and waits with the second.
 */
public final class FetchHandler implements RequestHandler {
    /** Room left in a response frame for everything but the records. */
    static final int RESPONSE_OVERHEAD_BYTES = 1024;

    /** What a fetch read at once, on either port; close it once sent (it holds segment files open). */
    public interface Read extends AutoCloseable {
        /** True when the read found no record and no error: the fetch may wait for data. */
        boolean foundNothing();

        @Override
        void close();
    }

    /** A fetch's read at once: one partition (this port) or every partition of the request (Kafka's). */
    @FunctionalInterface
    public interface Reader<R extends Read> {
        R read() throws IOException;
    }

    @Override
    public short apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        FetchRequest request = capped(FetchRequest.decode(body));
        ErrorCode refused = followerOfACluster(request, broker) ? ErrorCode.NONE
                : ClientRules.nameRefusal(request.partition());
        if (refused != ErrorCode.NONE) {
            return Optional.of(FetchResponse.error(request.partition(), refused).encode());
        }
        Target target = Target.of(request, broker);
        if (target.partition() == null) {
            return Optional.of(FetchResponse.error(request.partition(), target.error()).encode());
        }
        Optional<ResponseChannel> connection = ResponseChannel.current().filter(ResponseChannel::servesKaenLog);
        if (connection.isEmpty()) { // no socket (a test calls the handler): in memory, Partition.fetch's answer
            return Optional.of(broker.await(target.partition().fetch(request, broker.nowMs())).encode());
        }
        FetchSlice slice = readOrPark(() -> target.partition().slice(request, true), request, broker);
        connection.get().send(frame(connection.get().kaenLogCorrelationId(), slice));
        return Optional.empty();
    }

    /**
     * A follower of a cluster (chapter 10) copies every partition it holds a replica of, the internal
     * ones too ({@code __consumer_offsets}): only a client is refused those. Which fetch is a
     * follower's the leadership checks next (chapter 10 takes a replica id on its replication port only).
     */
    private static boolean followerOfACluster(FetchRequest request, BrokerContext broker) {
        return request.replicaId() >= 0 && broker.leadership().cluster().isPresent()
                && PartitionNames.problem(request.partition()) == null;
    }

    /**
     * One partition's read for a fetch, answered at once (never parked) with the records as file
     * ranges: the leadership's check, the one lookup of the partition, then chapter 3's read
     * ({@link Partition#slice}: the learner's index lookup, the same bounds); {@code minOneMessage}
     * as Kafka's (only the first partition of a fetch with data may exceed its limits, by one batch).
     */
    public static FetchSlice read(FetchRequest request, boolean minOneMessage, BrokerContext broker)
            throws IOException {
        Target target = Target.of(request, broker);
        if (target.partition() == null) {
            return FetchSlice.error(request.partition(), target.error());
        }
        return target.partition().slice(request, minOneMessage);
    }

    /**
     * The zero-copy fetch's wait, for either port (Kafka's {@code ReplicaManager.fetchMessages} and
     * its delayed fetch): {@code reader} reads at once; when it found nothing and the fetch allows a
     * wait, the fetch {@code parkOn} parks the chapter-3 way ({@link Partition#fetch}, your
     * task 8 (FetchParkingTest), asking for one batch only: a parked read is in memory), and once
     * woken everything is read again. A follower teaches its leader its log end once, before the first read,
     * never at the read again (Kafka does not update a follower's state from its purgatory either).
     */
    public static <R extends Read> R readOrPark(Reader<R> reader, FetchRequest parkOn, BrokerContext broker)
            throws IOException {
        R now = reader.read();
        if (!now.foundNothing() || parkOn.maxWaitMs() == 0 || PartitionNames.problem(parkOn.partition()) != null) {
            return now;
        }
        Optional<Partition> partition = broker.existingPartition(parkOn.partition());
        if (partition.isEmpty()) {
            return now;
        }
        now.close();
        try {
            broker.await(partition.get().fetch(parkOn.withMaxBytes(1), broker.nowMs()));
        } catch (CompletionException closed) {
            if (!(closed.getCause() instanceof IOException)) {
                throw closed;
            }
            // the partition was closed under the wait (deleted, say: chapter 10's topic deletion): the read
            // again answers what is there now, an error for a partition gone, not a closed connection
        }
        return reader.read();
    }

    /**
     * A fetch's partition as the leadership's check (who leads, at which epoch; a follower's fetch
     * offset teaches its leader, chapter 8) and the one lookup found it: the partition, or the error
     * that answers the fetch (a partition this broker holds no log of: {@link Leadership#missingPartition}).
     */
    private record Target(Partition partition, ErrorCode error) {
        static Target of(FetchRequest request, BrokerContext broker) throws IOException {
            ErrorCode refused = broker.leadership().beforeFetch(request, broker.nowMs());
            if (refused != ErrorCode.NONE) {
                return new Target(null, refused);
            }
            Optional<Partition> partition = broker.existingPartition(request.partition());
            return partition.map(p -> new Target(p, ErrorCode.NONE))
                    .orElseGet(() -> new Target(null, broker.leadership().missingPartition(request.partition())));
        }
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
