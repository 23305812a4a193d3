package kaenlog.wire;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The field encodings of kaen-log's messages, all big-endian: int16, int32, int64, a string as an
 * int16 length and UTF-8 bytes, bytes as an int32 length (-1 = null) and the bytes. Reading checks
 * every length against what the payload still holds, so a lying length is a
 * {@link MalformedMessageException}, never a huge allocation.
 */
public final class Wire {
    private Wire() {
    }

    /** Builds a payload field by field. */
    public static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        public Writer int16(int v) {
            return run(() -> out.writeShort(v));
        }

        public Writer int32(int v) {
            return run(() -> out.writeInt(v));
        }

        public Writer int64(long v) {
            return run(() -> out.writeLong(v));
        }

        public Writer string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (utf8.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("string of " + utf8.length + " bytes is too long for an int16 length");
            }
            return run(() -> {
                out.writeShort(utf8.length);
                out.write(utf8);
            });
        }

        public Writer bytes(ByteBuffer b) {
            if (b == null) {
                return int32(-1);
            }
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            return run(() -> {
                out.writeInt(copy.length);
                out.write(copy);
            });
        }

        public byte[] toByteArray() {
            return bytes.toByteArray();
        }

        private interface IoAction {
            void run() throws IOException;
        }

        private Writer run(IoAction action) {
            try {
                action.run();
            } catch (IOException impossible) {
                throw new UncheckedIOException(impossible);
            }
            return this;
        }
    }

    /** Reads a payload field by field; every read is bounds-checked. */
    public static final class Reader {
        private final ByteBuffer in;

        public Reader(byte[] payload) {
            this.in = ByteBuffer.wrap(payload);
        }

        /** Reads {@code payload} from its position to its limit, without moving it. */
        public Reader(ByteBuffer payload) {
            this.in = payload.slice();
        }

        public byte int8(String field) {
            need(1, field);
            return in.get();
        }

        public short int16(String field) {
            need(2, field);
            return in.getShort();
        }

        public int int32(String field) {
            need(4, field);
            return in.getInt();
        }

        public long int64(String field) {
            need(8, field);
            return in.getLong();
        }

        public String string(String field) {
            int length = int16(field + " length");
            if (length < 0) {
                throw new MalformedMessageException(field + ": negative string length " + length);
            }
            need(length, field);
            byte[] utf8 = new byte[length];
            in.get(utf8);
            return new String(utf8, StandardCharsets.UTF_8);
        }

        public ByteBuffer bytes(String field) {
            int length = int32(field + " length");
            if (length == -1) {
                return null;
            }
            if (length < -1) {
                throw new MalformedMessageException(field + ": negative length " + length);
            }
            return view(length, field);
        }

        /** The next {@code length} bytes as a view of the payload (no copy), after checking they are there. */
        public ByteBuffer view(int length, String field) {
            need(length, field);
            ByteBuffer slice = in.slice(in.position(), length);
            in.position(in.position() + length);
            return slice;
        }

        public int position() {
            return in.position();
        }

        public int remaining() {
            return in.remaining();
        }

        /** The payload must be used up exactly: trailing bytes mean the two sides disagree on the format. */
        public void end() {
            if (in.hasRemaining()) {
                throw new MalformedMessageException(in.remaining() + " unexpected byte(s) after the message");
            }
        }

        private void need(int bytes, String field) {
            if (bytes < 0 || in.remaining() < bytes) {
                throw new MalformedMessageException(field + ": needs " + bytes + " byte(s), " + in.remaining()
                        + " left at byte " + in.position());
            }
        }
    }

}
