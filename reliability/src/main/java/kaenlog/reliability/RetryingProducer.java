package kaenlog.reliability;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.Frames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * The producer chapter 7 replaces: retries on, idempotence off (Kafka's
 * {@code enable.idempotence=false}, {@code retries > 0}). It behaves exactly like chapter 7's
 * {@code IdempotentProducer} (up to five requests in flight, and when the connection breaks, every
 * unanswered batch resent unchanged, oldest first) except that its batches carry no producer id
 * and no sequence numbers, so the broker cannot tell a resend from a new batch and writes it again.
 */
final class RetryingProducer implements Closeable {
    private final String host;
    private final int port;
    private final int maxInFlight;
    private final int maxReconnects;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int nextCorrelationId;
    private int reconnects;
    private int resent;

    private record InFlight(int index, int correlationId) {
    }

    /** The answer to each batch, in order, and how often the producer started over. */
    record Report(List<ProduceResponse> responses, int reconnects, int resentRequests) {
    }

    RetryingProducer(String host, int port, int maxInFlight, int maxReconnects) {
        this.host = host;
        this.port = port;
        this.maxInFlight = maxInFlight;
        this.maxReconnects = maxReconnects;
    }

    Report send(String partition, List<List<String>> batches, short acks) throws IOException {
        List<byte[]> requests = new ArrayList<>();
        for (List<String> values : batches) {
            BatchBuilder builder = new BatchBuilder();
            values.forEach(v -> builder.append(0L, null, v));
            ByteBuffer batch = builder.build();
            requests.add(new ProduceRequest(partition, acks, 30_000, batch).encode());
        }
        ProduceResponse[] answers = new ProduceResponse[batches.size()];
        Deque<Integer> unsent = new ArrayDeque<>();
        for (int i = 0; i < batches.size(); i++) {
            unsent.add(i);
        }
        Deque<InFlight> inFlight = new ArrayDeque<>();
        while (!unsent.isEmpty() || !inFlight.isEmpty()) {
            try {
                while (!unsent.isEmpty() && inFlight.size() < maxInFlight) {
                    int index = unsent.peek();
                    int correlationId = write(requests.get(index));
                    unsent.poll();
                    inFlight.add(new InFlight(index, correlationId));
                }
                InFlight oldest = inFlight.peek();
                ProduceResponse response = ProduceResponse.decode(read(oldest.correlationId()));
                inFlight.poll();
                if (response.error() != ErrorCode.NONE) {
                    throw new IOException("batch " + oldest.index() + " failed: " + response.error());
                }
                answers[oldest.index()] = response;
            } catch (EOFException | SocketException lost) {
                List<InFlight> unanswered = new ArrayList<>(inFlight);
                inFlight.clear();
                for (int i = unanswered.size() - 1; i >= 0; i--) {
                    unsent.addFirst(unanswered.get(i).index());
                }
                resent += unanswered.size();
                reconnect(lost);
            }
        }
        return new Report(List.of(answers), reconnects, resent);
    }

    private void reconnect(IOException why) throws IOException {
        close();
        if (++reconnects > maxReconnects) {
            throw new IOException("gave up after " + maxReconnects + " reconnects", why);
        }
    }

    private int write(byte[] body) throws IOException {
        if (socket == null) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), 10_000);
            socket = s;
            in = new BufferedInputStream(s.getInputStream());
            out = new BufferedOutputStream(s.getOutputStream());
        }
        int correlationId = nextCorrelationId++;
        Frames.writeFrame(out, new RequestEnvelope(ApiKeys.PRODUCE, correlationId, body).encode());
        return correlationId;
    }

    private byte[] read(int correlationId) throws IOException {
        byte[] payload = Frames.readFrame(in, 2 * Frames.DEFAULT_MAX_FRAME_BYTES);
        if (payload == null) {
            throw new EOFException("the connection closed before the answer came");
        }
        ResponseEnvelope response = ResponseEnvelope.decode(payload);
        if (response.correlationId() != correlationId) {
            throw new IOException("answer to " + response.correlationId() + " while waiting for " + correlationId);
        }
        return response.body();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // replaced anyway
            }
        }
        socket = null;
    }
}
