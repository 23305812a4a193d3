package kaenlog.client;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import kaenlog.wire.WireConnection;

/**
 * A blocking client for one broker connection: one request at a time, each answer matched to its
 * question by correlationId. Used by {@code klog produce}, {@code klog consume} and the tests.
 * Not thread-safe: give each thread its own client.
 */
public final class BrokerClient implements Closeable {
    /** How long the broker may hold an acks=all produce before answering REQUEST_TIMED_OUT. */
    public static final int DEFAULT_PRODUCE_TIMEOUT_MS = 30_000;

    private final WireConnection connection;

    private BrokerClient(WireConnection connection) {
        this.connection = connection;
    }

    /** Connects; reads block for as long as the broker takes. */
    public static BrokerClient connect(String host, int port) throws IOException {
        return connect(host, port, 0);
    }

    /** Connects; a read that waits longer than {@code readTimeoutMs} (0 = forever) fails. */
    public static BrokerClient connect(String host, int port, int readTimeoutMs) throws IOException {
        return new BrokerClient(WireConnection.connect(host, port, readTimeoutMs));
    }

    /** Produces a batch with the default timeout. */
    public ProduceResponse produce(String partition, short acks, ByteBuffer batch) throws IOException {
        return produce(new ProduceRequest(partition, acks, DEFAULT_PRODUCE_TIMEOUT_MS, batch));
    }

    /**
     * Sends a produce. With acks=0 the broker never answers, so neither does this: it returns
     * error NONE with offsets -1 (Kafka's producer reports offset -1 for acks=0 too).
     */
    public ProduceResponse produce(ProduceRequest request) throws IOException {
        if (request.acks() == ProduceRequest.ACKS_NONE) {
            send(ApiKeys.PRODUCE, request.encode());
            return new ProduceResponse(request.partition(), ErrorCode.NONE, -1, -1);
        }
        return ProduceResponse.decode(call(ApiKeys.PRODUCE, request.encode()));
    }

    public FetchResponse fetch(FetchRequest request) throws IOException {
        return FetchResponse.decode(call(ApiKeys.FETCH, request.encode()));
    }

    /** Sends a request and returns the body of its answer (any apiKey: later chapters add their own). */
    public byte[] call(short apiKey, byte[] body) throws IOException {
        return connection.call(apiKey, body);
    }

    /**
     * Reads the next answer, which must be the one to {@code correlationId}: the broker answers a
     * connection's requests in the order they came, so a client may send several before reading
     * (chapter 7's producer keeps up to five in flight).
     */
    public byte[] receive(int correlationId) throws IOException {
        return connection.receive(correlationId);
    }

    /** Sends a request that gets no answer; returns its correlationId. */
    public int send(short apiKey, byte[] body) throws IOException {
        return connection.send(apiKey, body);
    }

    /** The local port of this connection (the broker's log names connections by it). */
    public int localPort() {
        return connection.localPort();
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
