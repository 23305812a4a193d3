package kaenlog.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import kaenlog.testkit.Hex;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Decoding reads untrusted bytes: a segment after a crash, a request off the network. Whatever
 * the bytes, {@link RecordBatch#decode} must end in exactly one of two ways: a decoded batch, or
 * a {@link CorruptBatchException} naming the field and position. Never an index exception, a
 * NegativeArraySizeException, an OutOfMemoryError, or any other surprise.
 *
 * <p>The valid batches to damage are written by kafka-clients, so this test depends on your
 * decoder only. Half of the mutations recompute and restore the CRC afterwards, so the damage gets
 * past the checksum and reaches the decoder's deeper checks (lengths, counts, varints, offsets).
 * Every iteration has its own seed: a failure names it, and {@code new Random(thatSeed)} replays it.
 */
@Order(10)
class DecoderFuzzTest {
    private static final long SEED = 0x6b61656e_6c6f67L;
    private static final int MUTATIONS = 12_000;
    private static final List<byte[]> CORPUS = corpus(new Random(SEED));

    @Test
    void everyMutatedBatchDecodesOrIsRefusedWithACorruptBatchException() {
        int decoded = 0;
        Set<String> refusedFields = new TreeSet<>();
        for (int i = 0; i < MUTATIONS; i++) {
            long seed = SEED + i;
            Random random = new Random(seed);
            byte[] original = CORPUS.get(random.nextInt(CORPUS.size()));
            Mutant mutant = mutate(original, random);
            boolean restoreCrc = i % 2 == 1;
            if (restoreCrc) {
                restoreCrc(mutant.bytes());
            }
            String context = "seed " + seed + ", iteration " + i + ": " + mutant.what()
                    + (restoreCrc ? ", CRC restored" : ", CRC left as it was");
            Outcome outcome = decode(mutant.bytes(), context);
            if (outcome.batch() != null) {
                decoded++;
                assertConsistent(outcome, mutant.bytes(), context);
            } else {
                refusedFields.add(family(outcome.refusal().field()));
                assertNamesAPlaceInTheBytes(outcome.refusal(), mutant.bytes(), context);
            }
        }
        assertThat(refusedFields)
                .as("with half the CRCs restored, the damage must reach every check of the decoder: the framing"
                        + " (batchLength, magic), the checksum, the record count and the records themselves;"
                        + " refusals seen: %s", refusedFields)
                .contains("batchLength", "magic", "crc", "recordCount", "record");
        assertThat(decoded)
                .as("some mutations (a flipped timestamp or producer field under a restored CRC) leave a valid"
                        + " batch, which must decode")
                .isPositive();
    }

    @Test
    void aChangedByteUnderTheCrcIsAlwaysCaughtByTheCrc() {
        for (int i = 0; i < 3_000; i++) {
            long seed = SEED + 1_000_000 + i;
            Random random = new Random(seed);
            byte[] bytes = CORPUS.get(random.nextInt(CORPUS.size())).clone();
            // A burst of up to 32 bits: CRC-32C detects every such error, so nothing can slip past.
            int length = 1 + random.nextInt(4);
            int at = BatchHeader.ATTRIBUTES_OFFSET + random.nextInt(bytes.length - BatchHeader.ATTRIBUTES_OFFSET
                    - length + 1);
            for (int k = 0; k < length; k++) {
                bytes[at + k] ^= (byte) (1 + random.nextInt(255));
            }
            String context = "seed " + seed + ", iteration " + i + ": " + length + " byte(s) changed at " + at;
            Outcome outcome = decode(bytes, context);
            assertThat(outcome.batch())
                    .as(() -> context + ": bytes 21..end are covered by the CRC-32C, which catches any change of"
                            + " up to 32 bits; decode must refuse the batch; bytes:\n" + Hex.dump(bytes))
                    .isNull();
            assertThat(outcome.refusal().field())
                    .as("%s: the framing (bytes 0..20) is intact, so the first check to fail is the crc (%s)",
                            context, outcome.refusal().getMessage())
                    .isEqualTo("crc");
        }
    }

    @Test
    void everyTruncationOfAValidBatchIsRefusedAsCorrupt() {
        int cuts = 0;
        for (int b = 0; b < CORPUS.size(); b++) {
            byte[] whole = CORPUS.get(b);
            for (int length = 0; length < whole.length; length++) {
                byte[] cut = java.util.Arrays.copyOf(whole, length);
                String context = "corpus batch " + b + " (" + whole.length + " bytes) cut to " + length + " bytes";
                Outcome outcome = decode(cut, context);
                assertThat(outcome.batch())
                        .as("%s: batchLength promises %d bytes, fewer are there: a torn write after a crash must be"
                                + " refused, never decoded as a shorter batch", context, whole.length)
                        .isNull();
                assertNamesAPlaceInTheBytes(outcome.refusal(), cut, context);
                cuts++;
            }
        }
        assertThat(cuts).as("every cut position of every corpus batch was tried").isGreaterThan(1_000);
    }

    @Test
    void aLengthOrCountThatDisagreesWithTheBytesIsRefusedEvenUnderAValidCrc() {
        for (int i = 0; i < 3_000; i++) {
            long seed = SEED + 2_000_000 + i;
            Random random = new Random(seed);
            byte[] original = CORPUS.get(random.nextInt(CORPUS.size()));
            int recordCount = ByteBuffer.wrap(original).getInt(BatchHeader.RECORD_COUNT_OFFSET);
            int batchLength = ByteBuffer.wrap(original).getInt(BatchHeader.BATCH_LENGTH_OFFSET);
            byte[] bytes;
            String what;
            if (random.nextBoolean()) {
                int[] wrong = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, recordCount + 1, recordCount - 1,
                    recordCount + 1 + random.nextInt(1_000_000), 0x7ffffff0};
                int count = wrong[random.nextInt(wrong.length)];
                if (count == recordCount || (count == 0 && recordCount == 0)) {
                    count = -1;
                }
                bytes = original.clone();
                ByteBuffer.wrap(bytes).putInt(BatchHeader.RECORD_COUNT_OFFSET, count);
                what = "recordCount " + recordCount + " -> " + count;
            } else {
                int extra = 1 + random.nextInt(40);
                boolean longer = random.nextBoolean() || batchLength - extra < BatchHeader.SIZE - 12;
                int newLength = longer ? batchLength + extra : batchLength - extra;
                // A longer batchLength gets as many garbage bytes appended, so it is not merely "truncated".
                bytes = java.util.Arrays.copyOf(original, longer ? original.length + extra : original.length);
                for (int k = original.length; k < bytes.length; k++) {
                    bytes[k] = (byte) random.nextInt(256);
                }
                ByteBuffer.wrap(bytes).putInt(BatchHeader.BATCH_LENGTH_OFFSET, newLength);
                what = "batchLength " + batchLength + " -> " + newLength + (longer ? " with garbage appended" : "");
            }
            restoreCrc(bytes);
            String context = "seed " + seed + ", iteration " + i + ": " + what + ", CRC restored";
            Outcome outcome = decode(bytes, context);
            assertThat(outcome.batch())
                    .as(() -> context + ": a record count or batch length that disagrees with the records"
                            + " actually there is corrupt even when the CRC matches; decode must refuse it; bytes:\n"
                            + Hex.dump(bytes))
                    .isNull();
        }
    }

    // ---------------------------------------------------------------- decoding, judged

    /** A decode ends in a batch or a refusal; anything else is an AssertionError naming the case. */
    private record Outcome(RecordBatch batch, ByteBuffer input, CorruptBatchException refusal) {
    }

    private static Outcome decode(byte[] bytes, String context) {
        ByteBuffer input = ByteBuffer.wrap(bytes.clone());
        try {
            return new Outcome(RecordBatch.decode(input), input, null);
        } catch (CorruptBatchException refused) {
            return new Outcome(null, input, refused);
        } catch (RuntimeException | Error other) {
            // Anything else (a Todo of the skeleton included) fails here, with its own message kept.
            throw new AssertionError(context + ": decode must either return a batch or throw CorruptBatchException,"
                    + " but threw " + other + "\nbytes (" + bytes.length + "):\n" + Hex.dump(bytes), other);
        }
    }

    private static void assertConsistent(Outcome outcome, byte[] bytes, String context) {
        BatchHeader header = outcome.batch().header();
        assertThat(outcome.batch().records())
                .as("%s: a decoded batch holds exactly recordCount records", context)
                .hasSize(header.recordCount());
        assertThat(outcome.input().position())
                .as("%s: decode moves past batchLength + 12 bytes, no more than there are (%d)", context, bytes.length)
                .isEqualTo(header.sizeInBytes())
                .isLessThanOrEqualTo(bytes.length);
        long previous = header.baseOffset() - 1;
        for (Record record : outcome.batch().records()) {
            assertThat(record.offset())
                    .as("%s: record offsets grow and stay within baseOffset..lastOffset (%d..%d)", context,
                            header.baseOffset(), header.lastOffset())
                    .isGreaterThan(previous)
                    .isLessThanOrEqualTo(header.lastOffset());
            previous = record.offset();
        }
    }

    private static void assertNamesAPlaceInTheBytes(CorruptBatchException refusal, byte[] bytes, String context) {
        assertThat(refusal.field())
                .as("%s: a CorruptBatchException names the field that is wrong (%s)", context, refusal.getMessage())
                .isNotBlank();
        assertThat(refusal.position())
                .as("%s: the position of the problem lies within the %d bytes given (%s)", context, bytes.length,
                        refusal.getMessage())
                .isBetween(0L, (long) bytes.length);
    }

    /** "record[3].header[0].key" -> "record": one family per field kind. */
    private static String family(String field) {
        int bracket = field.indexOf('[');
        return bracket < 0 ? field : field.substring(0, bracket);
    }

    // ---------------------------------------------------------------- mutations

    private record Mutant(byte[] bytes, String what) {
    }

    private static Mutant mutate(byte[] original, Random r) {
        byte[] b = original.clone();
        int n = b.length;
        switch (r.nextInt(10)) {
            case 0 -> {
                int at = r.nextInt(n);
                int bit = r.nextInt(8);
                b[at] ^= (byte) (1 << bit);
                return new Mutant(b, "bit " + bit + " of byte " + at + " flipped");
            }
            case 1 -> {
                int at = r.nextInt(n);
                int run = 1 + r.nextInt(Math.min(8, n - at));
                for (int k = 0; k < run; k++) {
                    b[at + k] = (byte) r.nextInt(256);
                }
                return new Mutant(b, run + " byte(s) overwritten at " + at);
            }
            case 2 -> {
                int length = r.nextInt(n);
                return new Mutant(java.util.Arrays.copyOf(b, length), "truncated to " + length + " bytes");
            }
            case 3 -> {
                int at = r.nextInt(n + 1);
                byte[] inserted = new byte[1 + r.nextInt(8)];
                r.nextBytes(inserted);
                byte[] out = splice(b, at, 0, inserted);
                boolean fix = r.nextBoolean() && fixLength(out);
                return new Mutant(out, inserted.length + " byte(s) inserted at " + at + lengthNote(fix));
            }
            case 4 -> {
                int at = r.nextInt(n);
                int count = 1 + r.nextInt(Math.min(8, n - at));
                byte[] out = splice(b, at, count, new byte[0]);
                boolean fix = r.nextBoolean() && fixLength(out);
                return new Mutant(out, count + " byte(s) deleted at " + at + lengthNote(fix));
            }
            case 5 -> {
                byte[] tail = new byte[1 + r.nextInt(16)];
                r.nextBytes(tail);
                byte[] out = splice(b, n, 0, tail);
                fixLength(out);
                return new Mutant(out, tail.length + " garbage byte(s) appended and batchLength extended over them");
            }
            case 6 -> {
                int[] fields = {BatchHeader.BATCH_LENGTH_OFFSET, BatchHeader.RECORD_COUNT_OFFSET,
                    BatchHeader.LAST_OFFSET_DELTA_OFFSET, BatchHeader.PARTITION_LEADER_EPOCH_OFFSET,
                    BatchHeader.BASE_SEQUENCE_OFFSET};
                int at = fields[r.nextInt(fields.length)];
                int value = hostileInt(r, n);
                ByteBuffer.wrap(b).putInt(at, value);
                return new Mutant(b, "int at byte " + at + " set to " + value);
            }
            case 7 -> {
                int[] fields = {BatchHeader.BASE_OFFSET_OFFSET, BatchHeader.BASE_TIMESTAMP_OFFSET,
                    BatchHeader.MAX_TIMESTAMP_OFFSET, BatchHeader.PRODUCER_ID_OFFSET};
                long[] values = {Long.MAX_VALUE, Long.MIN_VALUE, -1, Long.MAX_VALUE - 1, 0};
                int at = fields[r.nextInt(fields.length)];
                long value = values[r.nextInt(values.length)];
                ByteBuffer.wrap(b).putLong(at, value);
                return new Mutant(b, "long at byte " + at + " set to " + value);
            }
            case 8 -> {
                // A hostile varint where a record's lengths and deltas live.
                byte[] varint = hostileVarint(r);
                int at = BatchHeader.SIZE + r.nextInt(Math.max(1, n - BatchHeader.SIZE));
                boolean insert = r.nextBoolean();
                byte[] out = insert ? splice(b, at, 0, varint) : overwrite(b, at, varint);
                boolean fix = insert && fixLength(out);
                return new Mutant(out, "varint " + hex(varint) + (insert ? " inserted" : " written") + " at " + at
                        + lengthNote(fix));
            }
            default -> {
                int at = BatchHeader.SIZE + r.nextInt(Math.max(1, n - BatchHeader.SIZE));
                int count = Math.min(n - at, 1 + r.nextInt(4));
                for (int k = 0; k < count; k++) {
                    b[at + k] = (byte) (r.nextBoolean() ? 0xff : 0x80);
                }
                return new Mutant(b, count + " byte(s) at " + at + " set to varint continuation bytes");
            }
        }
    }

    private static int hostileInt(Random r, int size) {
        int[] values = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, -2, 0, 0x7fffff00, size, size - 11, size - 13,
            BatchHeader.SIZE - 13, r.nextInt()};
        return values[r.nextInt(values.length)];
    }

    /** Zig-zag varints of huge, negative and over-long values, or one cut off by its continuation bit. */
    private static byte[] hostileVarint(Random r) {
        int[] values = {Integer.MAX_VALUE, Integer.MIN_VALUE, -2, -1_000, 1 << 28, 1 << 20, 300};
        return switch (r.nextInt(3)) {
            case 0 -> zigzagVarint(values[r.nextInt(values.length)]);
            case 1 -> new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01};
            default -> new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        };
    }

    /** Written here, not with the Varint under test. */
    private static byte[] zigzagVarint(int value) {
        int bits = (value << 1) ^ (value >> 31);
        ByteBuffer out = ByteBuffer.allocate(5);
        while ((bits & ~0x7f) != 0) {
            out.put((byte) ((bits & 0x7f) | 0x80));
            bits >>>= 7;
        }
        out.put((byte) bits);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    /** Sets batchLength to what the bytes now hold, when there is room for it. */
    private static boolean fixLength(byte[] b) {
        if (b.length < BatchHeader.LOG_OVERHEAD) {
            return false;
        }
        ByteBuffer.wrap(b).putInt(BatchHeader.BATCH_LENGTH_OFFSET, b.length - BatchHeader.LOG_OVERHEAD);
        return true;
    }

    private static String lengthNote(boolean fixed) {
        return fixed ? ", batchLength adjusted to match" : "";
    }

    /**
     * Recomputes the CRC over the bytes the decoder will check (batchLength + 12 when that fits,
     * else everything), so the mutation gets past the checksum.
     */
    private static void restoreCrc(byte[] b) {
        if (b.length < BatchHeader.ATTRIBUTES_OFFSET) {
            return;
        }
        ByteBuffer buffer = ByteBuffer.wrap(b);
        int end = b.length;
        if (b.length >= BatchHeader.LOG_OVERHEAD) {
            long claimed = (long) buffer.getInt(BatchHeader.BATCH_LENGTH_OFFSET) + BatchHeader.LOG_OVERHEAD;
            if (claimed >= BatchHeader.ATTRIBUTES_OFFSET && claimed <= b.length) {
                end = (int) claimed;
            }
        }
        buffer.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(buffer.slice(0, end)));
    }

    private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
        byte[] out = new byte[b.length - remove + insert.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(b, at + remove, out, at + insert.length, b.length - at - remove);
        return out;
    }

    private static byte[] overwrite(byte[] b, int at, byte[] with) {
        byte[] out = b.length >= at + with.length ? b : java.util.Arrays.copyOf(b, at + with.length);
        System.arraycopy(with, 0, out, at, with.length);
        return out;
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte x : bytes) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    // ---------------------------------------------------------------- the valid batches, written by Kafka

    private static List<byte[]> corpus(Random r) {
        List<byte[]> corpus = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            boolean idempotent = i % 2 == 1;
            boolean transactional = idempotent && i % 6 == 1;
            MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(256),
                    org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                    TimestampType.CREATE_TIME, r.nextInt(1_000_000), -1L, idempotent ? r.nextInt(100_000) : -1L,
                    (short) (idempotent ? r.nextInt(100) : -1), idempotent ? r.nextInt(Integer.MAX_VALUE) : -1,
                    transactional, r.nextBoolean() ? -1 : r.nextInt(50));
            int records = 1 + r.nextInt(i < 10 ? 2 : 8);
            long timestamp = 1_700_000_000_000L + r.nextInt(1_000_000);
            for (int k = 0; k < records; k++) {
                builder.append(timestamp + r.nextInt(10_000) - 5_000, randomBytes(r), randomBytes(r), headers(r));
            }
            corpus.add(toArray(builder.build().buffer()));
        }
        // A compacted batch that kept no record: a header alone, count 0.
        ByteBuffer empty = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(empty, org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2, 1000L,
                (short) 2, 7, 40L, 49L, 3, TimestampType.CREATE_TIME, 1_700_000_000_000L, false, false);
        corpus.add(empty.array());
        return List.copyOf(corpus);
    }

    private static byte[] randomBytes(Random r) {
        int kind = r.nextInt(10);
        if (kind == 0) {
            return null;
        }
        byte[] bytes = new byte[kind == 1 ? 0 : kind == 2 ? 130 + r.nextInt(100) : 1 + r.nextInt(20)];
        r.nextBytes(bytes);
        return bytes;
    }

    private static Header[] headers(Random r) {
        Header[] headers = new Header[r.nextInt(3)];
        for (int h = 0; h < headers.length; h++) {
            headers[h] = new org.apache.kafka.common.header.internals.RecordHeader("h" + h + "-é",
                    r.nextBoolean() ? null : "v".getBytes(StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
