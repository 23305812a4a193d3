package kaenlog.batch;

import java.nio.ByteBuffer;

/**
 * Kafka's variable-length integers: zig-zag, then 7 bits a byte, low bits first.
 *
 * <p>Zig-zag maps small negative numbers to small unsigned ones (0→0, -1→1, 1→2, -2→3, ...), so
 * the -1 that marks a null key or value costs one byte, not five. A varint carries at most 5
 * bytes (32 bits), a varlong at most 10 (64 bits); anything longer is corrupt input, not a number.
 * Source: Kafka's {@code org.apache.kafka.common.utils.ByteUtils} (writeVarint, readVarint).
 */
public final class Varint {
    public static final int MAX_VARINT_BYTES = 5;
    public static final int MAX_VARLONG_BYTES = 10;

    private Varint() {
    }

    /** Zig-zag: the sign moves to bit 0, so small magnitudes stay small. */
    public static int zigzag(int value) {
        // BEGIN-SOLUTION ch01 task 1: zig-zag an int (VarintTest)
        return (value << 1) ^ (value >> 31);
        // END-SOLUTION
    }

    /** The inverse of {@link #zigzag(int)}. */
    public static int unzigzag(int encoded) {
        // BEGIN-SOLUTION ch01 task 1: undo zig-zag (VarintTest)
        return (encoded >>> 1) ^ -(encoded & 1);
        // END-SOLUTION
    }

    /** Writes {@code value} zig-zag encoded, 7 bits a byte, high bit set on all but the last byte. */
    public static void writeVarint(int value, ByteBuffer out) {
        // BEGIN-SOLUTION ch01 task 1: write a varint (VarintTest)
        int bits = zigzag(value);
        while ((bits & ~0x7F) != 0) {
            out.put((byte) ((bits & 0x7F) | 0x80));
            bits >>>= 7;
        }
        out.put((byte) bits);
        // END-SOLUTION
    }

    /** Writes a 64-bit value the same way (up to 10 bytes). */
    public static void writeVarlong(long value, ByteBuffer out) {
        // BEGIN-SOLUTION ch01 task 1: write a varlong (VarintTest)
        long bits = (value << 1) ^ (value >> 63);
        while ((bits & ~0x7FL) != 0) {
            out.put((byte) ((bits & 0x7F) | 0x80));
            bits >>>= 7;
        }
        out.put((byte) bits);
        // END-SOLUTION
    }

    /**
     * Reads a varint at the buffer's position. {@code field} names what is being read, for the
     * error: a truncated varint or one longer than 5 bytes is a {@link CorruptBatchException}.
     */
    public static int readVarint(ByteBuffer in, String field) {
        // BEGIN-SOLUTION ch01 task 1: read a varint, at most 5 bytes (VarintTest)
        int start = in.position();
        int bits = 0;
        for (int i = 0; i < MAX_VARINT_BYTES; i++) {
            if (!in.hasRemaining()) {
                throw new CorruptBatchException(field, start, "varint cut off after " + i + " byte(s)");
            }
            int b = in.get();
            bits |= (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return unzigzag(bits);
            }
        }
        throw new CorruptBatchException(field, start, "varint longer than " + MAX_VARINT_BYTES + " bytes");
        // END-SOLUTION
    }

    /** Reads a varlong: like {@link #readVarint} but at most 10 bytes. */
    public static long readVarlong(ByteBuffer in, String field) {
        // BEGIN-SOLUTION ch01 task 1: read a varlong, at most 10 bytes (VarintTest)
        int start = in.position();
        long bits = 0;
        for (int i = 0; i < MAX_VARLONG_BYTES; i++) {
            if (!in.hasRemaining()) {
                throw new CorruptBatchException(field, start, "varlong cut off after " + i + " byte(s)");
            }
            long b = in.get();
            bits |= (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return (bits >>> 1) ^ -(bits & 1);
            }
        }
        throw new CorruptBatchException(field, start, "varlong longer than " + MAX_VARLONG_BYTES + " bytes");
        // END-SOLUTION
    }

    /** How many bytes {@link #writeVarint} writes for {@code value}: a builder sizes its buffer with it. */
    public static int sizeOfVarint(int value) {
        // BEGIN-SOLUTION ch01 task 1: the size of a varint (VarintTest)
        int bits = zigzag(value);
        int bytes = 1;
        while ((bits & ~0x7F) != 0) {
            bytes++;
            bits >>>= 7;
        }
        return bytes;
        // END-SOLUTION
    }

    /** How many bytes {@link #writeVarlong} writes for {@code value}. */
    public static int sizeOfVarlong(long value) {
        // BEGIN-SOLUTION ch01 task 1: the size of a varlong (VarintTest)
        long bits = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((bits & ~0x7FL) != 0) {
            bytes++;
            bits >>>= 7;
        }
        return bytes;
        // END-SOLUTION
    }
}
