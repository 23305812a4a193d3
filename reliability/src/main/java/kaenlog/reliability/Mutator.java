package kaenlog.reliability;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import kaenlog.batch.BatchHeader;

/**
 * Seeded mutations of valid inputs, the kind a fuzzer makes: flipped bits, interesting values
 * written over lengths and counts (0, -1, 2^31-1, the input's own length plus or minus one),
 * truncation, extension, insertion, deletion, duplication, splicing with another input. A batch
 * can have its CRC recomputed after the mutation, so the decoder gets past the checksum to the
 * records; a frame can have its length prefix made consistent, so the decoder gets past the frame
 * to the message. Every input is reproducible from (seed, index).
 */
final class Mutator {
    private static final int[] INTERESTING_INTS = {0, 1, -1, 2, 7, 12, 49, 61, 127, 128, 255, 256, 0x7fff, 0x8000,
            0xffff, 0x10000, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1, 1 << 20, (1 << 20) + 1,
            -2, -4096};
    private static final long[] INTERESTING_LONGS = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
            1L << 31, 1L << 32, Integer.MAX_VALUE};
    private static final byte[] INTERESTING_BYTES = {0, 1, -1, 0x7f, (byte) 0x80, (byte) 0xfe, 2, 0x40};
    /** (offset, width) of every field of the 61-byte batch header. */
    private static final int[][] HEADER_FIELDS = {{0, 8}, {8, 4}, {12, 4}, {16, 1}, {17, 4}, {21, 2}, {23, 4}, {27, 8},
            {35, 8}, {43, 8}, {51, 2}, {53, 4}, {57, 4}};

    private Mutator() {
    }

    /** What kind of input, so that mutations can aim at its structure. */
    enum Shape { BATCH, FRAME, MESSAGE }

    static byte[] mutate(byte[] input, Random r, List<byte[]> corpus, Shape shape) {
        byte[] out = input.clone();
        int ops = 1 + r.nextInt(3);
        for (int i = 0; i < ops; i++) {
            out = shape == Shape.BATCH && r.nextInt(10) < 3 ? header(out, r) : once(out, r, corpus);
        }
        if (shape == Shape.BATCH && r.nextBoolean()) {
            fixCrc(out);
        }
        if (shape == Shape.FRAME && r.nextBoolean() && out.length >= 4) {
            ByteBuffer.wrap(out).putInt(0, out.length - 4);
        }
        return out;
    }

    private static byte[] once(byte[] in, Random r, List<byte[]> corpus) {
        int n = in.length;
        switch (r.nextInt(11)) {
            case 0 -> {
                if (n > 0) {
                    in[r.nextInt(n)] ^= (byte) (1 << r.nextInt(8));
                }
                return in;
            }
            case 1 -> {
                if (n > 0) {
                    in[r.nextInt(n)] = INTERESTING_BYTES[r.nextInt(INTERESTING_BYTES.length)];
                }
                return in;
            }
            case 2 -> {
                if (n >= 4) {
                    ByteBuffer.wrap(in).putInt(r.nextInt(n - 3), interestingInt(r, n));
                }
                return in;
            }
            case 3 -> {
                if (n >= 8) {
                    ByteBuffer.wrap(in).putLong(r.nextInt(n - 7), INTERESTING_LONGS[r.nextInt(INTERESTING_LONGS.length)]);
                }
                return in;
            }
            case 4 -> {
                return overwriteVarint(in, r);
            }
            case 5 -> {
                return Arrays.copyOf(in, n == 0 ? 0 : r.nextInt(n));
            }
            case 6 -> {
                byte[] tail = new byte[1 + r.nextInt(64)];
                r.nextBytes(tail);
                return concat(in, tail);
            }
            case 7 -> {
                byte[] noise = new byte[1 + r.nextInt(16)];
                r.nextBytes(noise);
                int at = r.nextInt(n + 1);
                return concat(concat(Arrays.copyOfRange(in, 0, at), noise), Arrays.copyOfRange(in, at, n));
            }
            case 8 -> {
                if (n < 2) {
                    return in;
                }
                int from = r.nextInt(n);
                int to = from + 1 + r.nextInt(Math.min(32, n - from));
                return concat(Arrays.copyOfRange(in, 0, from), Arrays.copyOfRange(in, to, n));
            }
            case 9 -> {
                if (n < 2) {
                    return in;
                }
                int from = r.nextInt(n);
                int to = from + 1 + r.nextInt(Math.min(64, n - from));
                int at = r.nextInt(n + 1);
                return concat(concat(Arrays.copyOfRange(in, 0, at), Arrays.copyOfRange(in, from, to)),
                        Arrays.copyOfRange(in, at, n));
            }
            default -> {
                byte[] other = corpus.get(r.nextInt(corpus.size()));
                int cut = r.nextInt(n + 1);
                int otherCut = r.nextInt(other.length + 1);
                return concat(Arrays.copyOfRange(in, 0, cut), Arrays.copyOfRange(other, otherCut, other.length));
            }
        }
    }

    /** An interesting value written over one header field, at its width. */
    private static byte[] header(byte[] in, Random r) {
        if (in.length < BatchHeader.SIZE) {
            return in;
        }
        int[] field = HEADER_FIELDS[r.nextInt(HEADER_FIELDS.length)];
        ByteBuffer b = ByteBuffer.wrap(in);
        switch (field[1]) {
            case 1 -> b.put(field[0], INTERESTING_BYTES[r.nextInt(INTERESTING_BYTES.length)]);
            case 2 -> b.putShort(field[0], (short) interestingInt(r, in.length));
            case 4 -> b.putInt(field[0], interestingInt(r, in.length));
            default -> b.putLong(field[0], INTERESTING_LONGS[r.nextInt(INTERESTING_LONGS.length)]);
        }
        return in;
    }

    private static int interestingInt(Random r, int length) {
        return switch (r.nextInt(4)) {
            case 0 -> length;
            case 1 -> length - 1 - r.nextInt(2);
            case 2 -> length + 1 + r.nextInt(2);
            default -> INTERESTING_INTS[r.nextInt(INTERESTING_INTS.length)];
        };
    }

    /** A zig-zag varint of an interesting value written over the bytes at a random position. */
    private static byte[] overwriteVarint(byte[] in, Random r) {
        if (in.length == 0) {
            return in;
        }
        int value = INTERESTING_INTS[r.nextInt(INTERESTING_INTS.length)];
        long zz = ((long) value << 1) ^ (value >> 31);
        zz &= 0xffffffffL;
        byte[] varint = new byte[5];
        int len = 0;
        do {
            byte b = (byte) (zz & 0x7f);
            zz >>>= 7;
            varint[len++] = zz != 0 ? (byte) (b | 0x80) : b;
        } while (zz != 0 && len < 5);
        int at = r.nextInt(in.length);
        for (int i = 0; i < len && at + i < in.length; i++) {
            in[at + i] = varint[i];
        }
        return in;
    }

    /** Recomputes the CRC-32C of the batch at the start of {@code batch}, over attributes..its end. */
    static void fixCrc(byte[] batch) {
        if (batch.length < BatchHeader.SIZE) {
            return;
        }
        int length = ByteBuffer.wrap(batch).getInt(BatchHeader.BATCH_LENGTH_OFFSET);
        int end = length >= BatchHeader.SIZE - BatchHeader.LOG_OVERHEAD
                && (long) length + BatchHeader.LOG_OVERHEAD <= batch.length ? length + BatchHeader.LOG_OVERHEAD
                : batch.length;
        CRC32C crc = new CRC32C();
        crc.update(batch, BatchHeader.ATTRIBUTES_OFFSET, end - BatchHeader.ATTRIBUTES_OFFSET);
        ByteBuffer.wrap(batch).putInt(BatchHeader.CRC_OFFSET, (int) crc.getValue());
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
