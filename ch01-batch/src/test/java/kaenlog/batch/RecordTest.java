package kaenlog.batch;

import static kaenlog.batch.BatchFields.assertCorrupt;
import static kaenlog.batch.BatchFields.assertCorruptAt;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.utils.ByteUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 2: one record of a v2 batch (Kafka's DefaultRecord), written and read byte for byte. Every
 * expected byte below is worked out by hand; remember that every varint is zig-zagged first, so a
 * length of 1 is the byte 0x02 and -1 is 0x01.
 */
@Order(2)
class RecordTest {

    @Test
    void aSmallRecordIsWrittenByteForByteAsKafkaLaysItOut() {
        // offset 5 and timestamp 1300 in a batch whose baseOffset is 3 and baseTimestamp 1000:
        // the record stores only the deltas 2 and 300.
        Record record = new Record(5, 1300, bytes("k"), bytes("hi"), List.of(RecordHeader.of("h", "v")));
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x1c)                // body is 14 bytes: zigzag(14) = 28 = 0x1c
                .field("attributes", 0x00)            // unused in v2 records, always 0
                .field("timestampDelta", 0xd8, 0x04)  // 300 -> zigzag 600 = 0b100_1011000 -> 0xd8 0x04
                .field("offsetDelta", 0x04)           // 5 - 3 = 2 -> zigzag 4
                .field("key length", 0x02)            // 1 byte -> zigzag 2
                .field("key", 0x6b)                   // 'k'
                .field("value length", 0x04)          // 2 bytes -> zigzag 4
                .field("value", 0x68, 0x69)           // 'h' 'i'
                .field("header count", 0x02)          // 1 header -> zigzag 2
                .field("header[0] key length", 0x02)  // "h" is 1 UTF-8 byte
                .field("header[0] key", 0x68)         // 'h'
                .field("header[0] value length", 0x02)
                .field("header[0] value", 0x76);      // 'v'

        byte[] actual = write(record, 3, 1000);

        assertThat(actual)
                .as("a record is length · attributes · timestampDelta · offsetDelta · key · value · headers, "
                        + "all lengths and deltas as zig-zag varints (Kafka's DefaultRecord)%n%s", expected.diff(actual))
                .isEqualTo(expected.bytes());
    }

    @Test
    void theSizeOfARecordCountsTheLengthPrefixAndTheBody() {
        List<RecordHeader> headers = List.of(RecordHeader.of("h", "v"));
        assertThat(Record.bodySize(2, 300, bytes("k"), bytes("hi"), headers))
                .as("the body is what the length prefix counts: 1 + 2 + 1 + 2 + 3 + 1 + 2 + 2 = 14 bytes")
                .isEqualTo(14);
        assertThat(Record.sizeInBytes(2, 300, bytes("k"), bytes("hi"), headers))
                .as("the whole record is the length varint (1 byte for 14) plus the 14-byte body")
                .isEqualTo(15);
    }

    @Test
    void aNullKeyIsWrittenAsLengthMinusOne() {
        Record record = new Record(7, 1000, null, bytes("v"), List.of());
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x0e)          // body is 7 bytes -> zigzag 14
                .field("attributes", 0x00)
                .field("timestampDelta", 0x00)  // same as the batch's baseTimestamp
                .field("offsetDelta", 0x00)     // the batch's first offset
                .field("key length", 0x01)      // -1 -> zigzag 1: null, and no key bytes follow
                .field("value length", 0x02)
                .field("value", 0x76)
                .field("header count", 0x00);

        byte[] actual = write(record, 7, 1000);

        assertThat(actual)
                .as("a null key is the length -1 (one byte, 0x01) and nothing else: Kafka keeps null apart from empty%n%s",
                        expected.diff(actual))
                .isEqualTo(expected.bytes());
    }

    @Test
    void aTombstoneIsAValueOfLengthMinusOne() {
        Record record = new Record(7, 1000, bytes("k"), null, List.of());
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x0e)
                .field("attributes", 0x00)
                .field("timestampDelta", 0x00)
                .field("offsetDelta", 0x00)
                .field("key length", 0x02)
                .field("key", 0x6b)
                .field("value length", 0x01)    // -1: a null value, the tombstone compaction deletes by
                .field("header count", 0x00);

        byte[] actual = write(record, 7, 1000);

        assertThat(actual)
                .as("a null value (tombstone) is the length -1, a single byte 0x01%n%s", expected.diff(actual))
                .isEqualTo(expected.bytes());
    }

    @Test
    void aRecordWithNullKeyAndNullValueIsSevenBytes() {
        Record record = new Record(0, 1000, null, null, List.of());
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x0c)          // body is 6 bytes -> zigzag 12
                .field("attributes", 0x00)
                .field("timestampDelta", 0x00)
                .field("offsetDelta", 0x00)
                .field("key length", 0x01)      // -1: null
                .field("value length", 0x01)    // -1: null
                .field("header count", 0x00);
        byte[] actual = write(record, 0, 1000);
        assertThat(actual)
                .as("the smallest record: every field one byte, null key and value as -1 (0x01)%n%s",
                        expected.diff(actual))
                .isEqualTo(expected.bytes());
    }

    @Test
    void anEmptyValueIsLengthZeroNotNull() {
        Record record = new Record(0, 1000, bytes("k"), new byte[0], List.of());
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x0e)
                .field("attributes", 0x00)
                .field("timestampDelta", 0x00)
                .field("offsetDelta", 0x00)
                .field("key length", 0x02)
                .field("key", 0x6b)
                .field("value length", 0x00)    // 0: present but empty, unlike -1
                .field("header count", 0x00);
        byte[] actual = write(record, 0, 1000);
        assertThat(actual)
                .as("an empty value is length 0 (0x00); only null is -1 (0x01)%n%s", expected.diff(actual))
                .isEqualTo(expected.bytes());

        Record back = Record.readFrom(ByteBuffer.wrap(actual), 0, 1000, 0);
        assertThat(back.value())
                .as("an empty value reads back as an empty array: it is not a tombstone")
                .isNotNull()
                .isEmpty();
        assertThat(back.isTombstone()).as("only a null value is a tombstone").isFalse();
    }

    @Test
    void aHeaderValueMayBeNull() {
        Record record = new Record(0, 1000, bytes("k"), bytes("v"), List.of(new RecordHeader("h", null)));
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("length", 0x16)          // body 11 bytes -> zigzag 22
                .field("attributes", 0x00)
                .field("timestampDelta", 0x00)
                .field("offsetDelta", 0x00)
                .field("key length", 0x02)
                .field("key", 0x6b)
                .field("value length", 0x02)
                .field("value", 0x76)
                .field("header count", 0x02)
                .field("header[0] key length", 0x02)
                .field("header[0] key", 0x68)
                .field("header[0] value length", 0x01); // -1: a null header value

        byte[] actual = write(record, 0, 1000);

        assertThat(actual)
                .as("a header's value may be null, written as length -1 like a record's key and value%n%s",
                        expected.diff(actual))
                .isEqualTo(expected.bytes());
        assertThat(Record.readFrom(ByteBuffer.wrap(actual), 0, 1000, 0).headers())
                .as("the null header value reads back as null")
                .containsExactly(new RecordHeader("h", null));
    }

    @Test
    void whatIsWrittenReadsBackEqual() {
        List<Record> records = List.of(
                new Record(5, 1300, bytes("k"), bytes("hi"), List.of(RecordHeader.of("h", "v"))),
                new Record(3, 1000, null, null, List.of()),
                new Record(4, 999, bytes("key"), null, List.of()), // timestampDelta -1: deltas may be negative
                new Record(3 + 70_000, 1000 + 1_700_000_000_000L, new byte[0], new byte[300],
                        List.of(RecordHeader.of("a", null), RecordHeader.of("ünï", "çødé"))));
        for (Record record : records) {
            byte[] written = write(record, 3, 1000);
            ByteBuffer in = ByteBuffer.wrap(written);
            assertThat(Record.readFrom(in, 3, 1000, 0))
                    .as("readFrom(writeTo(r)) equals r: offset and timestamp come back as base + delta")
                    .isEqualTo(record);
            assertThat(in.position())
                    .as("readFrom consumes exactly the record (%d bytes), so the next record starts right after",
                            written.length)
                    .isEqualTo(written.length);
        }
    }

    @Test
    void writingUsesExactlyTheBytesSizeInBytesPromised() {
        Record record = new Record(3 + 70_000, 1000 + 1_700_000_000_000L, bytes("key"), new byte[300],
                List.of(RecordHeader.of("ünï", "çødé")));
        byte[] written = write(record, 3, 1000);
        assertThat(written.length)
                .as("sizeInBytes is what writeTo writes: the builder allocates the batch with it")
                .isEqualTo(Record.sizeInBytes(70_000, 1_700_000_000_000L, record.key(), record.value(), record.headers()));
        // The body here is more than 63 bytes, so its length takes a two-byte varint.
        assertThat(ByteBuffer.wrap(written).get(0) & 0x80)
                .as("a body of %d bytes needs a two-byte length varint (continuation bit set on the first)",
                        written.length - 2)
                .isEqualTo(0x80);
    }

    @Test
    void aKeyLongerThanTheRecordIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e" + "00" + "00" + "00"
                + "14"      // key length 10, but only 3 bytes of the record remain
                + "6b0100");
        assertCorruptAt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].key", 4,
                "a length is checked against the record's own bytes before anything is allocated");
    }

    @Test
    void aKeyLengthBelowMinusOneIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e000000" + "03" /* -2 */ + "6b0100");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].key",
                "-1 means null; any other negative length is corrupt (and would be a NegativeArraySizeException)");
    }

    @Test
    void theErrorNamesTheRecordByItsIndex() {
        byte[] bytes = HexFormat.of().parseHex("0e000000" + "14" + "6b0100");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 2), "record[2].key",
                "the field name carries the record's index in its batch, so a learner can find it");
    }

    @Test
    void aKeyThatReachesIntoTheNextRecordIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e" + "000000"
                + "0a"      // key length 5, but only 3 bytes of this 7-byte record remain
                + "6b0100"
                + "0e000000026b0100"); // the next record: its bytes must not be read as record 0's key
        assertCorruptAt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].key", 4,
                "no length inside a record can reach past it, even when the buffer goes on: read the fields from "
                        + "a slice of exactly the record's length, not from the rest of the buffer");
    }

    @Test
    void aValueLongerThanTheRecordIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e000000" + "026b"
                + "14"      // value length 10, one byte left
                + "00");
        assertCorruptAt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].value", 6,
                "the value's length must fit in what remains of the record");
    }

    @Test
    void aRecordLengthBeyondTheBytesIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("7e" /* 63 */ + "000000010100");
        assertCorruptAt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].length", 0,
                "the record's length (63) is more than the 6 bytes that follow it");
    }

    @Test
    void aNegativeRecordLengthIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("01" /* -1 */ + "000000010100");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].length",
                "a record's length is never negative");
    }

    @Test
    void aTruncatedRecordLengthIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("80");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].length",
                "the length varint itself is cut off");
    }

    @Test
    void anEmptyRecordIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("00");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].attributes",
                "a record of length 0 has not even its attributes byte");
    }

    @Test
    void aRecordWhoseFieldsEndBeforeItsLengthIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e" + "000000010100" + "2a"); // one byte the fields do not use
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].length",
                "the fields must use exactly the record's length: a leftover byte means the length is wrong");
    }

    @Test
    void aHeaderCountThatCannotFitIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("0e" + "0000000101" + "7e" /* 63 headers */ + "00");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].headerCount",
                "each header takes at least 2 bytes, so 63 headers cannot fit in 1 byte: rejected before allocating");
    }

    @Test
    void aHeaderCountIsBoundedByHalfTheBytesLeft() {
        // 3 headers, then 2 bytes: each header needs at least 2 (key length + value length), so 3 cannot fit
        byte[] bytes = HexFormat.of().parseHex("10" + "0000000101" + "06" /* 3 headers */ + "0000");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].headerCount",
                "3 headers of at least 2 bytes each cannot fit in the 2 bytes left: the count is refused as "
                        + "headerCount before any header is read (bound: remaining / 2, not remaining * 2)");
    }

    @Test
    void aNullHeaderKeyIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("10" + "0000000101" + "02" /* 1 header */ + "01" /* key -1 */ + "01");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].header[0].key",
                "a header key is a string and never null in Kafka");
    }

    @Test
    void aTimestampDeltaLongerThanTenBytesIsCorrupt() {
        byte[] bytes = HexFormat.of().parseHex("18" + "00" + "ffffffffffffffffffff" + "00");
        assertCorrupt(() -> Record.readFrom(ByteBuffer.wrap(bytes), 0, 0, 0), "record[0].timestampDelta",
                "timestampDelta is a varlong: 10 bytes at most, and the error names the field");
    }

    @Test
    void validatingARecordChecksItWithoutCopyingItsBytes() {
        Record record = new Record(5, 1300, bytes("k"), bytes("hi"), List.of(RecordHeader.of("h", "v")));
        byte[] written = write(record, 3, 1000);
        ByteBuffer in = ByteBuffer.wrap(written);

        Record checked = Record.read(in, 3, 1000, 0, false);

        assertThat(checked.key())
                .as("with keep false the key is stepped over, not copied: read(..., false) gives Record.SKIPPED "
                        + "(chapter 3's log validates every batch it stores and needs no copies of it)")
                .isSameAs(Record.SKIPPED);
        assertThat(checked.value())
                .as("with keep false the value is stepped over, not copied (Record.SKIPPED)")
                .isSameAs(Record.SKIPPED);
        assertThat(checked.offset()).as("the offset is still base + delta: 3 + 2").isEqualTo(5L);
        assertThat(in.position())
                .as("stepping over the fields still consumes exactly the record (%d bytes)", written.length)
                .isEqualTo(written.length);
    }

    // ---------------------------------------------------------------- Kafka judges: DefaultRecord on every record

    /** A record and where its batch starts: the deltas are what is written. */
    private record Placed(BatchGens.In in, long baseOffset, long offsetDelta, long baseTimestamp, long timestampDelta) {
        Record record() {
            return new Record(baseOffset + offsetDelta, baseTimestamp + timestampDelta, in.key(), in.value(),
                    in.headers());
        }

        byte[] kafkaBytes() throws java.io.IOException {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            DefaultRecord.writeTo(new java.io.DataOutputStream(bytes), (int) offsetDelta, timestampDelta, buffer(in.key()),
                    buffer(in.value()), BatchGens.kafkaHeaders(in.headers()));
            return bytes.toByteArray();
        }

        @Override
        public String toString() {
            return "the record " + in + " at offsetDelta " + offsetDelta + ", timestampDelta " + timestampDelta
                    + " (batch base offset " + baseOffset + ", base timestamp " + baseTimestamp + ")";
        }
    }

    private static final Gen<BatchGens.In> INS = BatchGens.ins(BatchGens.anyTimestamps());
    private static final Gen<Long> BASE_OFFSETS = Gens.longs(0, 1L << 40);
    private static final Gen<Long> OFFSET_DELTAS = Gens.ints().map(Integer::longValue);
    /** Now and then a record more than Integer.MAX_VALUE past its batch's base offset: no int holds its delta. */
    private static final Gen<Long> FAR_OFFSET_DELTAS = Gens.oneOf(OFFSET_DELTAS, OFFSET_DELTAS, OFFSET_DELTAS,
            Gens.longs(Integer.MAX_VALUE + 1L, 1L << 40));
    private static final Gen<Long> TIMESTAMP_DELTAS = Gens.longs();
    private static final Gen<Integer> SKIPS = Gens.ints(0, 3);
    private static final Gen<byte[]> AFTER = Gens.bytes(0, 4);
    private static final Gen<Gens.Faults> FAULTS = Gens.faults();

    private static Gen<Placed> placed(Gen<Long> offsetDeltas) {
        return c -> new Placed(INS.generate(c), BASE_OFFSETS.generate(c), offsetDeltas.generate(c),
                BatchGens.anyTimestamps().generate(c), TIMESTAMP_DELTAS.generate(c));
    }

    @Test
    void everyRecordIsSizedAndWrittenAsKafkasDefaultRecordDoes() {
        Property.forAll(placed(FAR_OFFSET_DELTAS)).check(p -> {
            BatchGens.In in = p.in();
            if (p.offsetDelta() != (int) p.offsetDelta()) {
                Judge.Outcome yours = Judge.Outcome.of(() -> {
                    p.record().writeTo(ByteBuffer.allocate(1 << 12), p.baseOffset(), p.baseTimestamp());
                    return "written";
                });
                Judge.agree(p.toString(), "writing", yours, "MemoryRecordsBuilder refuses it (\"Maximum offset delta"
                        + " exceeded\"):", Judge.Outcome.of(() -> {
                            throw new IllegalArgumentException("Maximum offset delta exceeded");
                        }), "an offsetDelta is an int: a record more than Integer.MAX_VALUE past its batch's base"
                                + " offset is refused, never cast to a wrong delta");
                return;
            }
            Header[] headers = BatchGens.kafkaHeaders(in.headers());
            int offsetDelta = (int) p.offsetDelta();
            Judge.agree(p.toString(), "body size", () -> Record.bodySize(offsetDelta, p.timestampDelta(), in.key(),
                            in.value(), in.headers()), "DefaultRecord.sizeOfBodyInBytes says",
                    DefaultRecord.sizeOfBodyInBytes(offsetDelta, p.timestampDelta(), size(in.key()),
                            size(in.value()), headers),
                    "the body is what the length prefix counts: attributes, both deltas, key, value, headers, each"
                            + " length a varint (-1, one byte, for null) and a header key as its UTF-8 bytes");
            Judge.agree(p.toString(), "bytes", () -> {
                ByteBuffer out = ByteBuffer.allocate(1 << 12);
                p.record().writeTo(out, p.baseOffset(), p.baseTimestamp());
                return Arrays.copyOf(out.array(), out.position());
            }, "DefaultRecord.writeTo writes",
                    p.kafkaBytes(), "length · attributes 0 · timestampDelta · offsetDelta · key · value · header count ·"
                            + " headers, every length and delta a zig-zag varint, null the length -1");
        });
    }

    /** Kafka's bytes of a record, damaged or not, after a few bytes of something else and before the next record. */
    private record Untrusted(Placed placed, ByteBuffer bytes) {
        @Override
        public String toString() {
            return "the bytes " + Property.show(bytes) + " (from " + placed + ")";
        }
    }

    private static Gen<Untrusted> untrusted() {
        Gen<Placed> placed = placed(OFFSET_DELTAS);
        return c -> {
            Gens.Faults faults = FAULTS.generate(c);
            int skip = SKIPS.generate(c);
            byte[] after = AFTER.generate(c);
            Placed p = placed.generate(c);
            byte[] record;
            try {
                record = p.kafkaBytes();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            byte[] damaged = faults.apply(record);
            ByteBuffer in = ByteBuffer.allocate(skip + damaged.length + after.length);
            in.position(skip);
            in.put(damaged).put(after).position(skip);
            return new Untrusted(p, in);
        };
    }

    /** A record read, in kaen-log's terms, and how many bytes it took. */
    private record Read(Record record, int bytes) {
    }

    @Test
    void anyRecordBytesAreReadAsKafkasDefaultRecordReadsThem() {
        Property.forAll(untrusted()).check(u -> {
            Placed p = u.placed();
            int start = u.bytes().position();
            Judge.Outcome kafkas = kafkaReads(u.bytes(), p.baseOffset(), p.baseTimestamp());
            Judge.Outcome yours = Judge.Outcome.of(() -> {
                ByteBuffer in = u.bytes().duplicate();
                return new Read(Record.readFrom(in, p.baseOffset(), p.baseTimestamp(), 0), in.position() - start);
            });
            Judge.agree(u.toString(), "record", yours, "DefaultRecord.readFrom reads", kafkas, READING);
            assertRefusalIsCorrupt(u, yours);

            Judge.Outcome validated = Judge.Outcome.of(() -> {
                ByteBuffer in = u.bytes().duplicate();
                return skipped(new Read(Record.read(in, p.baseOffset(), p.baseTimestamp(), 0, false),
                        in.position() - start));
            });
            Judge.agree(u.toString(), "validation (keep false)", validated, "DefaultRecord.readFrom reads",
                    kafkas.refused() ? kafkas : Judge.Outcome.of(() -> skipped((Read) kafkas.value())),
                    "with keep false every check still runs, and key, value and headers are stepped over");
            assertRefusalIsCorrupt(u, validated);
        });
    }

    private static final String READING = "the length prefix is checked against what remains, the fields are read"
            + " within that length and must use all of it, -1 is null and any other negative length is corrupt, a"
            + " header key is never null, and offset and timestamp are the batch's base plus the deltas";

    /**
     * Kafka's DefaultRecord.readFrom, plus kaen-log's one stricter rule (the guide's differences): a
     * key, value or header value length below -1 is corrupt, where Kafka reads it as null.
     */
    private static Judge.Outcome kafkaReads(ByteBuffer bytes, long baseOffset, long baseTimestamp) {
        int start = bytes.position();
        Judge.Outcome kafkas = Judge.Outcome.of(() -> {
            ByteBuffer in = bytes.duplicate();
            Record record = KafkaBatches.kaenLogView(DefaultRecord.readFrom(in, baseOffset, baseTimestamp, -1, null));
            return new Read(record, in.position() - start);
        });
        if (!kafkas.refused() && KafkaBatches.lengthBelowMinusOne(bytes.duplicate()) != null) {
            return Judge.Outcome.of(() -> {
                throw new IllegalArgumentException("a length below -1: kaen-log refuses it, Kafka reads a null");
            });
        }
        return kafkas;
    }

    /** What validation keeps of a record: its offset, timestamp, which fields are null, and its size. */
    private static List<Object> skipped(Read read) {
        Record r = read.record();
        return List.of(r.offset(), r.timestamp(), r.key() == null ? "null key" : "key",
                r.value() == null ? "null value" : "value", read.bytes());
    }

    private static void assertRefusalIsCorrupt(Untrusted u, Judge.Outcome yours) {
        if (yours.refused()) {
            assertThat(yours.refusal())
                    .as("for %s you refused with %s: bad bytes are a CorruptBatchException naming the field, never"
                            + " another exception", u, yours)
                    .isInstanceOf(CorruptBatchException.class);
        }
    }

    private static ByteBuffer buffer(byte[] bytes) {
        return bytes == null ? null : ByteBuffer.wrap(bytes);
    }

    private static int size(byte[] bytes) {
        return bytes == null ? -1 : bytes.length;
    }

    private static byte[] write(Record record, long baseOffset, long baseTimestamp) {
        ByteBuffer out = ByteBuffer.allocate(1024);
        record.writeTo(out, baseOffset, baseTimestamp);
        return Arrays.copyOf(out.array(), out.position());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
