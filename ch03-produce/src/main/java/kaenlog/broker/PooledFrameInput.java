package kaenlog.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import kaenlog.wire.MalformedMessageException;

/**
 * The stream a connection reads its request frames from. It follows the frames as they pass (an
 * int32 length, then the payload) and does two things the frame reader does not need to know about:
 *
 * <ul>
 * <li>Memory: once a frame's length has arrived, and before its payload is read, it reserves that
 *     many bytes of the broker's {@link MemoryPool}, waiting for room if there is none. The bytes go
 *     back once the request is handled, when its answer starts ({@link #releasingOnWrite}: a client
 *     that never reads its answer must not hold the pool), or when the next frame starts (an acks=0
 *     produce is never answered; this connection serves one request at a time).</li>
 * <li>Whose turn it is: while the client owes the broker a request (between two frames, or in the
 *     middle of one) the connection's idle clock runs; once a whole request is in, or while it waits
 *     for the pool, the clock stops ({@link Turns}).</li>
 * </ul>
 *
 * A negative length reserves nothing (the frame reader refuses it); a length over
 * {@code socket.request.max.bytes} is refused here, before anything is reserved or read.
 */
final class PooledFrameInput extends InputStream {
    /** Told when the client's turn starts (the idle clock runs) and when the broker's starts. */
    interface Turns {
        void clientsTurn();

        void brokersTurn();

        /** The pool holds bytes for a frame whose payload has not all arrived (true), or no longer (false). */
        default void holdsPartialFrame(boolean holds) {
        }
    }

    private final InputStream in;
    private final MemoryPool pool;
    private final int maxFrameBytes;
    private final Turns turns;
    private final byte[] header = new byte[4];
    private int headerRead;
    /** Payload bytes still to come; -1 while the length is being read. */
    private int payloadLeft = -1;
    private int reserved;
    /** The current frame's first payload bytes (a kaen-log envelope's apiKey and correlationId). */
    private final byte[] prefix = new byte[8];
    private int prefixRead;

    PooledFrameInput(InputStream in, MemoryPool pool, int maxFrameBytes, Turns turns) {
        this.in = in;
        this.pool = pool;
        this.maxFrameBytes = maxFrameBytes;
        this.turns = turns;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (payloadLeft == 0) {
            nextFrame();
        }
        if (payloadLeft < 0) {
            return readLength(b, off, len);
        }
        int n = in.read(b, off, Math.min(len, payloadLeft));
        if (n > 0) {
            if (prefixRead < prefix.length) {
                int copy = Math.min(n, prefix.length - prefixRead);
                System.arraycopy(b, off, prefix, prefixRead, copy);
                prefixRead += copy;
            }
            payloadLeft -= n;
            if (payloadLeft == 0) {
                turns.holdsPartialFrame(false);
                turns.brokersTurn();
            }
        }
        return n;
    }

    /** The previous request has been answered (this connection serves one at a time): its bytes go back. */
    private void nextFrame() {
        releaseAll();
        headerRead = 0;
        prefixRead = 0;
        payloadLeft = -1;
        turns.clientsTurn();
    }

    private int readLength(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, Math.min(len, header.length - headerRead));
        if (n <= 0) {
            return n;
        }
        System.arraycopy(b, off, header, headerRead, n);
        headerRead += n;
        if (headerRead == header.length) {
            int length = ByteBuffer.wrap(header).getInt();
            if (length > maxFrameBytes) {
                // Kafka's NetworkReceive: "Invalid receive (size = N larger than M)", and the channel is closed.
                throw new MalformedMessageException("frame length " + length + " is over the maximum of "
                        + maxFrameBytes + " bytes (socket.request.max.bytes)");
            }
            if (length >= 0) {
                turns.brokersTurn();
                pool.reserve(length);
                reserved = length;
                turns.holdsPartialFrame(length > 0);
                turns.clientsTurn();
            }
            payloadLeft = Math.max(length, 0);
            if (payloadLeft == 0) {
                turns.brokersTurn();
            }
        }
        return n;
    }

    /** The int at {@code at} of the current frame's payload (0 when the frame is shorter). */
    int currentFrameInt(int at) {
        return at + 4 <= prefixRead ? ByteBuffer.wrap(prefix).getInt(at) : 0;
    }

    /**
     * The connection's output: the answer's first byte gives the answered request's bytes back to
     * the pool. The request was decoded and handled; only its answer is left, and a client that
     * does not read it must not hold the pool while the write waits (a request is answered only
     * once it has all arrived, so payloadLeft is 0 then).
     */
    OutputStream releasingOnWrite(OutputStream out) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                releaseAnswered();
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                releaseAnswered();
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                releaseAnswered();
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    private void releaseAnswered() {
        if (payloadLeft == 0) {
            releaseAll();
        }
    }

    /** Gives the current frame's reservation back (answered, the next frame starts, or the connection ends). */
    void releaseAll() {
        if (reserved > 0) {
            pool.release(reserved);
            reserved = 0;
        }
    }

    @Override
    public int available() throws IOException {
        return payloadLeft > 0 ? Math.min(in.available(), payloadLeft) : 0;
    }

    @Override
    public void close() throws IOException {
        releaseAll();
        in.close();
    }
}
