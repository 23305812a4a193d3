package kaenlog.wire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * One connection to a broker, spoken in this protocol's frames: a request goes out in its envelope,
 * its answer comes back matched by correlationId. Blocking, one request at a time; not thread-safe.
 * It is the wire's own exchange, below both who uses it: a client ({@code BrokerClient}) and a
 * broker that asks another (chapter 10's follower fetching from its leader).
 */
public final class WireConnection implements Closeable {
    /** A response may be a little larger than the largest request (a batch plus the response fields). */
    public static final int MAX_RESPONSE_BYTES = 2 * Frames.DEFAULT_MAX_FRAME_BYTES;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private int nextCorrelationId;

    private WireConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    /** Connects; a read that waits longer than {@code readTimeoutMs} (0 = forever) fails. */
    public static WireConnection connect(String host, int port, int readTimeoutMs) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(readTimeoutMs);
            socket.connect(new InetSocketAddress(host, port));
            return new WireConnection(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends a request and returns the body of its answer. */
    public byte[] call(short apiKey, byte[] body) throws IOException {
        return receive(send(apiKey, body));
    }

    /** Sends a request; returns its correlationId. */
    public int send(short apiKey, byte[] body) throws IOException {
        int correlationId = nextCorrelationId++;
        Frames.writeFrame(out, new RequestEnvelope(apiKey, correlationId, body).encode());
        return correlationId;
    }

    /**
     * Reads the next answer, which must be the one to {@code correlationId}: the broker answers a
     * connection's requests in the order they came, so a client may send several before reading.
     */
    public byte[] receive(int correlationId) throws IOException {
        byte[] payload = Frames.readFrame(in, MAX_RESPONSE_BYTES);
        if (payload == null) {
            throw new EOFException("the broker closed the connection instead of answering (see the broker's log)");
        }
        ResponseEnvelope response = ResponseEnvelope.decode(payload);
        if (response.correlationId() != correlationId) {
            throw new MalformedMessageException("answer to request " + response.correlationId()
                    + " while waiting for request " + correlationId);
        }
        return response.body();
    }

    /** The local port of this connection (the broker's log names connections by it). */
    public int localPort() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
