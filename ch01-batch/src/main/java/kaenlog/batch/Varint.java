package kaenlog.batch;

import java.nio.ByteBuffer;
import kaenlog.workbook.Todo;

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
        throw new Todo("ch01 task 1: zig-zag an int (VarintTest)");
    }

    /** The inverse of {@link #zigzag(int)}. */
    public static int unzigzag(int encoded) {
        throw new Todo("ch01 task 1: undo zig-zag (VarintTest)");
    }

    /** Writes {@code value} zig-zag encoded, 7 bits a byte, high bit set on all but the last byte. */
    public static void writeVarint(int value, ByteBuffer out) {
        throw new Todo("ch01 task 1: write a varint (VarintTest)");
    }

    /** Writes a 64-bit value the same way (up to 10 bytes). */
    public static void writeVarlong(long value, ByteBuffer out) {
        throw new Todo("ch01 task 1: write a varlong (VarintTest)");
    }

    /**
     * Reads a varint at the buffer's position. {@code field} names what is being read, for the
     * error: a truncated varint or one longer than 5 bytes is a {@link CorruptBatchException}.
     */
    public static int readVarint(ByteBuffer in, String field) {
        throw new Todo("ch01 task 1: read a varint, at most 5 bytes (VarintTest)");
    }

    /** Reads a varlong: like {@link #readVarint} but at most 10 bytes. */
    public static long readVarlong(ByteBuffer in, String field) {
        throw new Todo("ch01 task 1: read a varlong, at most 10 bytes (VarintTest)");
    }

    /** How many bytes {@link #writeVarint} writes for {@code value}: a builder sizes its buffer with it. */
    public static int sizeOfVarint(int value) {
        throw new Todo("ch01 task 1: the size of a varint (VarintTest)");
    }

    /** How many bytes {@link #writeVarlong} writes for {@code value}. */
    public static int sizeOfVarlong(long value) {
        throw new Todo("ch01 task 1: the size of a varlong (VarintTest)");
    }
}
