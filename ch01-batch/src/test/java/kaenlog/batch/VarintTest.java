package kaenlog.batch;

import static kaenlog.batch.BatchFields.assertCorrupt;
import static kaenlog.batch.BatchFields.assertCorruptAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import java.util.function.Function;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.utils.ByteUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: Kafka's zig-zag varints and varlongs (ByteUtils.writeVarint / readVarint). */
@Order(1)
class VarintTest {
    private static final int[] INT_BOUNDARIES = {0, 1, -1, 2, -2, 63, -64, 64, -65, 300, -300, 8191, 8192, -8192,
            -8193, 1 << 20, -(1 << 20), 1 << 27, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1,
            Integer.MIN_VALUE + 1};
    private static final long[] LONG_BOUNDARIES = {0, 1, -1, 63, -64, 64, 300, Integer.MAX_VALUE,
            Integer.MIN_VALUE, 1L << 31, -(1L << 31) - 1, 1_700_000_000_000L, -1_700_000_000_000L, 1L << 62,
            Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1};

    @Test
    void zigZagMapsSmallMagnitudesToSmallNumbers() {
        int[][] table = {{0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {2, 4}, {-3, 5}, {-64, 127}, {64, 128}};
        for (int[] row : table) {
            assertThat(Varint.zigzag(row[0]))
                    .as("zigzag(%d) is %d: zig-zag interleaves signs (0,-1,1,-2,2,...) so -1 fits in one byte",
                            row[0], row[1])
                    .isEqualTo(row[1]);
        }
    }

    @Test
    void zigZagUsesAllThirtyTwoBitsAtTheExtremes() {
        assertThat(Integer.toUnsignedLong(Varint.zigzag(Integer.MAX_VALUE)))
                .as("zigzag(Integer.MAX_VALUE) is 0xFFFFFFFE: the largest positive int is the second largest unsigned")
                .isEqualTo(0xFFFF_FFFEL);
        assertThat(Integer.toUnsignedLong(Varint.zigzag(Integer.MIN_VALUE)))
                .as("zigzag(Integer.MIN_VALUE) is 0xFFFFFFFF: the most negative int is the largest unsigned "
                        + "(use >> 31, the arithmetic shift, to spread the sign bit)")
                .isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void unzigzagUndoesZigZag() {
        int[][] table = {{0, 0}, {1, -1}, {2, 1}, {3, -2}, {4, 2}, {-2, Integer.MAX_VALUE}, {-1, Integer.MIN_VALUE}};
        for (int[] row : table) {
            assertThat(Varint.unzigzag(row[0]))
                    .as("unzigzag(%d) is %d: the inverse of zig-zag (use >>> 1, the unsigned shift)", row[0], row[1])
                    .isEqualTo(row[1]);
        }
        for (int value : INT_BOUNDARIES) {
            assertThat(Varint.unzigzag(Varint.zigzag(value)))
                    .as("unzigzag(zigzag(%d)) gives %d back", value, value)
                    .isEqualTo(value);
        }
    }

    @Test
    void knownVarintsHaveKafkasExactBytes() {
        // value -> zig-zag -> 7 bits a byte, lowest group first, high bit 0x80 on every byte but the last.
        assertVarint(0, "00");
        assertVarint(-1, "01");            // the null marker of keys and values: one byte
        assertVarint(1, "02");
        assertVarint(-2, "03");
        assertVarint(63, "7e");            // zigzag 126: the largest one-byte varint
        assertVarint(-64, "7f");           // zigzag 127
        assertVarint(64, "8001");          // zigzag 128 = 0b1_0000000 -> 0x80 (continue), 0x01
        assertVarint(300, "d804");         // zigzag 600 = 0b100_1011000 -> 0x58|0x80 = 0xd8, then 0x04
        assertVarint(8192, "808001");      // zigzag 16384 = 2^14: three bytes
        assertVarint(Integer.MAX_VALUE, "feffffff0f"); // zigzag 0xFFFFFFFE: five bytes, the maximum
        assertVarint(Integer.MIN_VALUE, "ffffffff0f"); // zigzag 0xFFFFFFFF
    }

    @Test
    void knownVarlongsHaveKafkasExactBytes() {
        assertVarlong(0, "00");
        assertVarlong(-1, "01");
        assertVarlong(300, "d804");
        assertVarlong(1L << 31, "8080808010");           // does not fit an int: zigzag 2^32, five bytes
        assertVarlong(1_700_000_000_000L, "80a0abfef962"); // a millisecond timestamp: six bytes
        assertVarlong(Long.MAX_VALUE, "feffffffffffffffff01"); // ten bytes, the maximum
        assertVarlong(Long.MIN_VALUE, "ffffffffffffffffff01");
    }

    @Test
    void everyBoundaryVarintRoundTrips() {
        for (int value : INT_BOUNDARIES) {
            assertThat(roundTripVarint(value)).as("readVarint(writeVarint(%d)) is %d", value, value).isEqualTo(value);
        }
        Random random = new Random(20240101L);
        for (int i = 0; i < 1000; i++) {
            int value = random.nextInt() >> random.nextInt(32); // every magnitude, both signs
            assertThat(roundTripVarint(value)).as("readVarint(writeVarint(%d)) is %d", value, value).isEqualTo(value);
        }
    }

    @Test
    void everyBoundaryVarlongRoundTrips() {
        for (long value : LONG_BOUNDARIES) {
            assertThat(roundTripVarlong(value)).as("readVarlong(writeVarlong(%d)) is %d", value, value)
                    .isEqualTo(value);
        }
        Random random = new Random(20240102L);
        for (int i = 0; i < 1000; i++) {
            long value = random.nextLong() >> random.nextInt(64);
            assertThat(roundTripVarlong(value)).as("readVarlong(writeVarlong(%d)) is %d", value, value)
                    .isEqualTo(value);
        }
    }

    @Test
    void theVarintSizeChangesExactlyAtEachSevenBitBoundary() {
        int[][] sizes = {{0, 1}, {-1, 1}, {63, 1}, {-64, 1}, {64, 2}, {-65, 2}, {8191, 2}, {-8192, 2},
                {8192, 3}, {-8193, 3}, {(1 << 20) - 1, 3}, {1 << 20, 4}, {(1 << 27) - 1, 4}, {1 << 27, 5},
                {Integer.MAX_VALUE, 5}, {Integer.MIN_VALUE, 5}};
        for (int[] row : sizes) {
            assertThat(Varint.sizeOfVarint(row[0]))
                    .as("sizeOfVarint(%d) is %d: each byte carries 7 bits of the zig-zagged value", row[0], row[1])
                    .isEqualTo(row[1]);
        }
    }

    @Test
    void theVarlongSizeChangesExactlyAtEachSevenBitBoundary() {
        long[][] sizes = {{0, 1}, {-1, 1}, {63, 1}, {64, 2}, {-65, 2}, {Integer.MAX_VALUE, 5},
                {Integer.MIN_VALUE, 5}, {(1L << 34) - 1, 5}, {1L << 34, 6}, {(1L << 62) - 1, 9}, {1L << 62, 10},
                {Long.MAX_VALUE, 10}, {Long.MIN_VALUE, 10}};
        for (long[] row : sizes) {
            assertThat(Varint.sizeOfVarlong(row[0]))
                    .as("sizeOfVarlong(%d) is %d: each byte carries 7 bits of the zig-zagged value", row[0], row[1])
                    .isEqualTo((int) row[1]);
        }
    }

    @Test
    void theSizeIsExactlyWhatWritingTakes() {
        Random random = new Random(20240103L);
        for (int i = 0; i < 500; i++) {
            int value = random.nextInt() >> random.nextInt(32);
            ByteBuffer out = ByteBuffer.allocate(16);
            Varint.writeVarint(value, out);
            assertThat(Varint.sizeOfVarint(value))
                    .as("sizeOfVarint(%d) equals the bytes writeVarint wrote: builders size their buffers with it", value)
                    .isEqualTo(out.position());
            long wide = random.nextLong() >> random.nextInt(64);
            ByteBuffer outLong = ByteBuffer.allocate(16);
            Varint.writeVarlong(wide, outLong);
            assertThat(Varint.sizeOfVarlong(wide))
                    .as("sizeOfVarlong(%d) equals the bytes writeVarlong wrote", wide)
                    .isEqualTo(outLong.position());
        }
    }

    @Test
    void readingConsumesExactlyTheVarintsBytes() {
        ByteBuffer in = ByteBuffer.wrap(HexFormat.of().parseHex("d804" + "01" + "feffffff0f" + "aa"));
        assertThat(Varint.readVarint(in, "first")).as("d8 04 is 300").isEqualTo(300);
        assertThat(in.position()).as("a two-byte varint moves the position by 2").isEqualTo(2);
        assertThat(Varint.readVarint(in, "second")).as("01 is -1").isEqualTo(-1);
        assertThat(Varint.readVarint(in, "third")).as("fe ff ff ff 0f is Integer.MAX_VALUE").isEqualTo(Integer.MAX_VALUE);
        assertThat(in.position()).as("reading stops after the byte without the 0x80 continuation bit").isEqualTo(8);
    }

    @Test
    void aVarintLongerThanFiveBytesIsCorrupt() {
        // Six bytes, every one saying "more follows": no int needs more than 5 (5 x 7 = 35 >= 32 bits).
        ByteBuffer in = ByteBuffer.wrap(HexFormat.of().parseHex("ffffffffff01"));
        assertCorrupt(() -> Varint.readVarint(in, "record[0].offsetDelta"), "record[0].offsetDelta",
                "a varint has at most 5 bytes; a 6th is corrupt input, and the error names the field being read");
    }

    @Test
    void aVarlongLongerThanTenBytesIsCorrupt() {
        ByteBuffer in = ByteBuffer.wrap(HexFormat.of().parseHex("ffffffffffffffffffff01"));
        assertCorrupt(() -> Varint.readVarlong(in, "record[0].timestampDelta"), "record[0].timestampDelta",
                "a varlong has at most 10 bytes (10 x 7 = 70 >= 64 bits); an 11th is corrupt input");
    }

    @Test
    void aVarintOfExactlyFiveBytesAndAVarlongOfExactlyTenAreRead() {
        ByteBuffer five = ByteBuffer.wrap(HexFormat.of().parseHex("ffffffff0f"));
        int[] value = new int[1];
        assertThatCode(() -> value[0] = Varint.readVarint(five, "value"))
                .as("a varint of exactly 5 bytes (ff ff ff ff 0f) is valid: \"at most 5\" refuses a 6th byte, "
                        + "not the 5th, and Integer.MIN_VALUE and Integer.MAX_VALUE need all five")
                .doesNotThrowAnyException();
        assertThat(value[0]).as("ff ff ff ff 0f is Integer.MIN_VALUE").isEqualTo(Integer.MIN_VALUE);

        ByteBuffer ten = ByteBuffer.wrap(HexFormat.of().parseHex("feffffffffffffffff01"));
        long[] wide = new long[1];
        assertThatCode(() -> wide[0] = Varint.readVarlong(ten, "value"))
                .as("a varlong of exactly 10 bytes (Long.MAX_VALUE) is valid: a varlong's bound is 10 bytes "
                        + "(10 x 7 = 70 >= 64 bits), not a varint's 5")
                .doesNotThrowAnyException();
        assertThat(wide[0]).as("fe ff ff ff ff ff ff ff ff 01 is Long.MAX_VALUE").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aTruncatedVarintIsCorruptNotAnIndexError() {
        ByteBuffer in = ByteBuffer.wrap(HexFormat.of().parseHex("8080"));
        assertCorrupt(() -> Varint.readVarint(in, "record[0].length"), "record[0].length",
                "80 80 promises a third byte that is not there: truncated input is a CorruptBatchException, "
                        + "never a BufferUnderflowException");
        ByteBuffer empty = ByteBuffer.allocate(0);
        assertCorrupt(() -> Varint.readVarint(empty, "recordCount"), "recordCount",
                "no bytes at all is a truncated varint too");
        ByteBuffer longIn = ByteBuffer.wrap(HexFormat.of().parseHex("ffff"));
        assertCorrupt(() -> Varint.readVarlong(longIn, "record[1].timestampDelta"), "record[1].timestampDelta",
                "a truncated varlong is corrupt as well");
    }

    @Test
    void theErrorGivesThePositionWhereTheVarintStarts() {
        ByteBuffer in = ByteBuffer.wrap(HexFormat.of().parseHex("0000" + "ffffffffffff"));
        in.position(2);
        assertCorruptAt(() -> Varint.readVarint(in, "record[0].key length"), "record[0].key length", 2,
                "the position is where the six-byte varint starts (byte 2), not where reading gave up");
    }

    // ---------------------------------------------------------------- Kafka judges: ByteUtils on every int and long

    private static final String ZIGZAG = "zig-zag first ((v << 1) ^ (v >> 31), the arithmetic shift), so that small"
            + " negative numbers take one byte";
    private static final String SEVEN_BITS = "zig-zag first, then 7 bits a byte, lowest group first, 0x80 on every"
            + " byte but the last";
    private static final String READING = "reading stops at the first byte without 0x80 and undoes zig-zag with the"
            + " unsigned shift; bytes that run out, or a 6th byte (an 11th for a varlong), are refused";

    @Test
    void everyIntIsZigZaggedWrittenAndSizedAsKafkasByteUtilsDoes() {
        Property.forAll(Gens.ints()).check(value -> {
            byte[] kafkas = kafkaVarint(value);
            Judge.agree("the zig-zag of " + value, "number", () -> Integer.toUnsignedLong(Varint.zigzag(value)),
                    "ByteUtils.writeVarint zig-zags it to", Integer.toUnsignedLong(
                            ByteUtils.readUnsignedVarint(ByteBuffer.wrap(kafkas))), ZIGZAG);
            Judge.agree("the varint of " + value, "bytes", () -> varint(value), "ByteUtils.writeVarint writes", kafkas,
                    SEVEN_BITS);
            Judge.agree("the varint of " + value, "size", () -> Varint.sizeOfVarint(value), "ByteUtils.sizeOfVarint says",
                    ByteUtils.sizeOfVarint(value), "the size is exactly what writing takes: 7 bits of the zig-zagged"
                            + " value a byte");
        });
    }

    @Test
    void everyLongIsWrittenAndSizedAsKafkasByteUtilsDoes() {
        Property.forAll(Gens.longs()).check(value -> {
            ByteBuffer kafka = ByteBuffer.allocate(Varint.MAX_VARLONG_BYTES);
            ByteUtils.writeVarlong(value, kafka);
            Judge.agree("the varlong of " + value, "bytes", () -> varlong(value), "ByteUtils.writeVarlong writes",
                    java.util.Arrays.copyOf(kafka.array(), kafka.position()), SEVEN_BITS + ", over 64 bits (>> 63)");
            Judge.agree("the varlong of " + value, "size", () -> Varint.sizeOfVarlong(value),
                    "ByteUtils.sizeOfVarlong says",
                    ByteUtils.sizeOfVarlong(value), "the size is exactly what writing takes: 7 bits of the zig-zagged"
                            + " value a byte, up to 10");
        });
    }

    @Test
    void everyZigZaggedIntIsUndoneAsKafkasByteUtilsReadsIt() {
        Property.forAll(Gens.ints()).check(encoded -> {
            ByteBuffer unsigned = ByteBuffer.allocate(Varint.MAX_VARINT_BYTES);
            ByteUtils.writeUnsignedVarint(encoded, unsigned);
            Judge.agree("undoing the zig-zag of " + Integer.toUnsignedString(encoded), "number",
                    () -> Varint.unzigzag(encoded), "ByteUtils.readVarint gives", ByteUtils.readVarint(unsigned.flip()),
                    "(v >>> 1) ^ -(v & 1): the unsigned shift, so the sign bit does not spread");
        });
    }

    /** Any bytes, and Kafka's varints of every int with a few faults, after 0 to 3 bytes of something else. */
    private static Gen<ByteBuffer> untrustedVarints(int maxBytes, Function<Long, byte[]> kafkaWrites) {
        Gen<byte[]> bytes = Gens.oneOf(Gens.longs().flatMap(v -> Gens.damaged(kafkaWrites.apply(v))),
                Gens.bytes(0, maxBytes));
        return Gens.ints(0, 3).zip(bytes, (skip, b) -> {
            ByteBuffer in = ByteBuffer.allocate(skip + b.length);
            in.position(skip);
            in.put(b).position(skip);
            return in;
        });
    }

    /** A number read and how many bytes it took. */
    private record Read(long value, int bytes) {
    }

    @Test
    void anyBytesAreReadAsAVarintAsKafkasByteUtilsReadsThem() {
        Property.forAll(untrustedVarints(8, v -> kafkaVarint((int) (long) v)))
                .check(in -> readsAsKafka(in, "varint", b -> Varint.readVarint(b, "value"), ByteUtils::readVarint,
                        "ByteUtils.readVarint reads"));
    }

    @Test
    void anyBytesAreReadAsAVarlongAsKafkasByteUtilsReadsThem() {
        Property.forAll(untrustedVarints(14, v -> {
            ByteBuffer kafka = ByteBuffer.allocate(Varint.MAX_VARLONG_BYTES);
            ByteUtils.writeVarlong(v, kafka);
            return java.util.Arrays.copyOf(kafka.array(), kafka.position());
        })).check(in -> readsAsKafka(in, "varlong", b -> Varint.readVarlong(b, "value"), ByteUtils::readVarlong,
                "ByteUtils.readVarlong reads"));
    }

    /** Your reading and Kafka's of the same bytes: the number and how many bytes it took, or both refuse. */
    private static void readsAsKafka(ByteBuffer in, String what, Function<ByteBuffer, Number> yours,
                                     Function<ByteBuffer, Number> kafkas, String oracle) {
        int start = in.position();
        Judge.Outcome mine = Judge.Outcome.of(() -> {
            ByteBuffer b = in.duplicate();
            return new Read(yours.apply(b).longValue(), b.position() - start);
        });
        Judge.Outcome theirs = Judge.Outcome.of(() -> {
            ByteBuffer b = in.duplicate();
            return new Read(kafkas.apply(b).longValue(), b.position() - start);
        });
        Judge.agree("the " + what + " in the bytes " + Property.show(in), "reading", mine, oracle, theirs, READING);
        assertRefusalIsCorrupt(in, mine);
    }

    /** kaen-log's own rule for a refusal (Kafka's exceptions say neither): the field, and where the varint started. */
    private static void assertRefusalIsCorrupt(ByteBuffer in, Judge.Outcome yours) {
        if (yours.refused()) {
            assertThat(yours.refusal())
                    .as("for the bytes %s you refused with %s: a varint cut off or too long is a CorruptBatchException"
                            + " naming the field, never another exception", Property.show(in), yours)
                    .isInstanceOfSatisfying(CorruptBatchException.class, e -> {
                        assertThat(e.field()).as("for the bytes %s your refusal names the field %s: it names the field"
                                + " being read (\"value\" here)", Property.show(in), e.field()).isEqualTo("value");
                        assertThat(e.position()).as("for the bytes %s your refusal says byte %d: the error names the"
                                        + " position where the varint started (%d), not where reading gave up",
                                Property.show(in), e.position(), in.position()).isEqualTo(in.position());
                    });
        }
    }

    private static byte[] kafkaVarint(int value) {
        ByteBuffer kafka = ByteBuffer.allocate(Varint.MAX_VARINT_BYTES);
        ByteUtils.writeVarint(value, kafka);
        return java.util.Arrays.copyOf(kafka.array(), kafka.position());
    }

    private static byte[] varint(int value) {
        ByteBuffer out = ByteBuffer.allocate(16);
        Varint.writeVarint(value, out);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    private static byte[] varlong(long value) {
        ByteBuffer out = ByteBuffer.allocate(16);
        Varint.writeVarlong(value, out);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    private static void assertVarint(int value, String hex) {
        byte[] expected = HexFormat.of().parseHex(hex);
        ByteBuffer out = ByteBuffer.allocate(16);
        Varint.writeVarint(value, out);
        byte[] actual = java.util.Arrays.copyOf(out.array(), out.position());
        assertThat(actual)
                .as("writeVarint(%d) is %s (zig-zag, then 7 bits a byte, low bits first)%n%s", value, hex,
                        diff(expected, actual))
                .isEqualTo(expected);
    }

    private static void assertVarlong(long value, String hex) {
        byte[] expected = HexFormat.of().parseHex(hex);
        ByteBuffer out = ByteBuffer.allocate(16);
        Varint.writeVarlong(value, out);
        byte[] actual = java.util.Arrays.copyOf(out.array(), out.position());
        assertThat(actual)
                .as("writeVarlong(%d) is %s (zig-zag over 64 bits, then 7 bits a byte)%n%s", value, hex,
                        diff(expected, actual))
                .isEqualTo(expected);
    }

    private static String diff(byte[] expected, byte[] actual) {
        String diff = Hex.firstDifference(expected, actual, i -> "varint byte " + i);
        return diff == null ? "bytes are equal" : diff;
    }

    private static int roundTripVarint(int value) {
        ByteBuffer buffer = ByteBuffer.allocate(Varint.MAX_VARINT_BYTES);
        Varint.writeVarint(value, buffer);
        buffer.flip();
        return Varint.readVarint(buffer, "value");
    }

    private static long roundTripVarlong(long value) {
        ByteBuffer buffer = ByteBuffer.allocate(Varint.MAX_VARLONG_BYTES);
        Varint.writeVarlong(value, buffer);
        buffer.flip();
        return Varint.readVarlong(buffer, "value");
    }
}
