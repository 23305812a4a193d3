package kaenlog.wire;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Requests and responses travel as frames: an int32 length, then that many bytes of payload (as
 * Kafka's protocol does). The length comes from the other side of a socket, so it is checked before
 * a buffer of that size exists: a negative length or one above the maximum (Kafka's
 * socket.request.max.bytes, default 100 MiB) is refused, and a frame cut off mid-way is an error,
 * not a short read.
 */
public final class Frames {
    /** kaen-log's default maximum frame: 1 MiB, enough for any batch a segment accepts here. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;
    /** A frame's buffer starts at this size and doubles as its bytes arrive. */
    static final int CHUNK_BYTES = 64 * 1024;

    private Frames() {
    }

    /** Writes the length, then the payload. */
    public static void writeFrame(OutputStream out, byte[] payload) throws IOException {
        // BEGIN-SOLUTION ch03 task 6: write a length-prefixed frame (FramesTest)
        out.write(ByteBuffer.allocate(4).putInt(payload.length).array());
        out.write(payload);
        out.flush();
        // END-SOLUTION
    }

    /**
     * Reads one frame. Returns null when the stream ends cleanly before a new frame (the peer hung
     * up); throws {@link MalformedMessageException} for a negative or oversized length and
     * {@link EOFException} for a frame that stops in the middle.
     */
    public static byte[] readFrame(InputStream in, int maxFrameBytes) throws IOException {
        // BEGIN-SOLUTION ch03 task 6: read a frame, checking its length first (FramesTest)
        int first = in.read();
        if (first < 0) {
            return null;
        }
        DataInputStream data = new DataInputStream(in);
        byte[] rest = new byte[3];
        data.readFully(rest);
        int length = ByteBuffer.wrap(new byte[] {(byte) first, rest[0], rest[1], rest[2]}).getInt();
        if (length < 0) {
            throw new MalformedMessageException("frame length " + length + " is negative");
        }
        if (length > maxFrameBytes) {
            throw new MalformedMessageException("frame length " + length + " is over the maximum of "
                    + maxFrameBytes + " bytes");
        }
        // Memory follows the bytes that arrive, not the length that was promised: a client that
        // announces a megabyte and sends nothing more holds one chunk, not a megabyte.
        byte[] payload = new byte[Math.min(length, CHUNK_BYTES)];
        int filled = 0;
        while (filled < length) {
            if (filled == payload.length) {
                payload = Arrays.copyOf(payload, (int) Math.min(length, 2L * payload.length));
            }
            int n = in.read(payload, filled, payload.length - filled);
            if (n < 0) {
                throw new EOFException("frame cut off after " + filled + " of " + length + " bytes");
            }
            filled += n;
        }
        return payload;
        // END-SOLUTION
    }
}
