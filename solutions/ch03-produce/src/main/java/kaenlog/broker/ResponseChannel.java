package kaenlog.broker;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SocketChannel;
import java.util.Optional;

/**
 * The socket of the connection this thread serves, for a response that is not a byte array: a
 * fetch sends its records from the segment files with transferTo ({@link Send}), which needs the
 * socket's channel, not the stream chapter 3's {@code Broker.serve} writes frames to. Set by the
 * {@link SocketServer} on each connection's thread; absent anywhere else (a test that calls a
 * handler directly gets the byte-array answer).
 */
public final class ResponseChannel {
    private static final ThreadLocal<ResponseChannel> CURRENT = new ThreadLocal<>();

    private final SocketChannel channel;
    private final OutputStream out;
    private final PooledFrameInput in;
    private final boolean kaenLogPort;
    private final Runnable release;
    private final Runnable progress;
    private final Runnable written;

    ResponseChannel(SocketChannel channel, OutputStream out, PooledFrameInput in, boolean kaenLogPort, Runnable release,
                    Runnable progress, Runnable written) {
        this.channel = channel;
        this.out = out;
        this.in = in;
        this.kaenLogPort = kaenLogPort;
        this.release = release;
        this.progress = progress;
        this.written = written;
    }

    /** The connection this thread serves, if it is one. */
    public static Optional<ResponseChannel> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    static void bind(ResponseChannel channel) {
        CURRENT.set(channel);
    }

    static void unbind() {
        CURRENT.remove();
    }

    /**
     * True on a port that speaks kaen-log's framing: the broker's own, and chapter 10's inter-broker
     * listener; false on a port of another protocol a later chapter added (chapter 9's Kafka port).
     */
    public boolean servesKaenLog() {
        return kaenLogPort;
    }

    /** The correlationId of the kaen-log request being answered (its envelope's bytes 2..5). */
    public int kaenLogCorrelationId() {
        return in.currentFrameInt(2);
    }

    /**
     * Writes {@code response} (its parts include the frame's length) after whatever the stream still
     * buffers, then closes it (its file ranges). A failure in the middle leaves the client's framing
     * broken: it is thrown, and the connection is closed.
     */
    public void send(Send response) throws IOException {
        try (response) {
            out.flush();
            release.run(); // the request is handled: its pool bytes go back before the answer waits on the client
            progress.run(); // the write's stall clock starts
            response.writeTo(channel, progress::run);
        } finally {
            written.run();
        }
    }
}
