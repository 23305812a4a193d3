package kaenlog.replication;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import kaenlog.wire.Frames;
import kaenlog.wire.MalformedMessageException;

/**
 * The wire between the two brokers of one process: a byte queue in each direction, written and
 * read with chapter 3's {@link Frames#writeFrame} / {@link Frames#readFrame}, the same
 * length-prefixed frames a producer sends over TCP. A queue is plain bytes in memory, so one
 * thread can write a frame and then read it: {@code fetchOnce} stays single-threaded and
 * deterministic (piped streams would need two threads).
 */
public final class InMemoryLink {
    private final ByteQueue toLeader = new ByteQueue("to the leader");
    private final ByteQueue toFollower = new ByteQueue("to the follower");

    /** The follower writes its fetch requests here; the leader reads them. */
    public ByteQueue toLeader() {
        return toLeader;
    }

    /** The leader writes its fetch responses here; the follower reads them. */
    public ByteQueue toFollower() {
        return toFollower;
    }

    /** One direction of the link: frames go in at the back and come out at the front, whole. */
    public static final class ByteQueue {
        private final String name;
        private byte[] pending = new byte[0];

        ByteQueue(String name) {
            this.name = name;
        }

        /** Appends one frame: an int32 length, then the payload. */
        public void send(byte[] payload) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(pending);
            Frames.writeFrame(out, payload);
            pending = out.toByteArray();
        }

        /** Takes the frame at the front; a queue with no frame in it is a protocol error, not a wait. */
        public byte[] receive() throws IOException {
            ByteArrayInputStream in = new ByteArrayInputStream(pending);
            byte[] payload = Frames.readFrame(in, Frames.DEFAULT_MAX_FRAME_BYTES);
            if (payload == null) {
                throw new MalformedMessageException("no frame waiting on the link " + name);
            }
            pending = Arrays.copyOfRange(pending, pending.length - in.available(), pending.length);
            return payload;
        }

        /** Bytes written and not yet read. */
        public int pendingBytes() {
            return pending.length;
        }
    }
}
