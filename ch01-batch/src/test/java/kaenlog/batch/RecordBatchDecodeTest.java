package kaenlog.batch;

import static kaenlog.batch.BatchFields.assertCorrupt;
import static kaenlog.batch.BatchFields.assertCorruptAt;
import static kaenlog.batch.BatchFields.bytesOf;
import static kaenlog.batch.BatchFields.withCrcRecomputed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.utils.Crc32C;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 6: decoding untrusted bytes. Each corruption test breaks one thing in a good batch and
 * expects a CorruptBatchException naming that field. A mutation inside the CRC range (byte 21 on)
 * would be caught by the CRC first, so those tests store a recomputed CRC to reach the check they
 * are about.
 */
@Order(6)
class RecordBatchDecodeTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void aBuiltBatchDecodesWithEveryHeaderField() {
        ByteBuffer built = goodBatch();
        int size = built.remaining();
        int storedCrc = BatchCrc.stored(built);

        BatchHeader header = RecordBatch.decode(built).header();

        assertThat(header.baseOffset()).as("baseOffset as built").isEqualTo(50L);
        assertThat(header.batchLength()).as("batchLength = size - 12").isEqualTo(size - 12);
        assertThat(header.partitionLeaderEpoch()).as("partitionLeaderEpoch as built").isEqualTo(4);
        assertThat(header.magic()).as("magic 2").isEqualTo((byte) 2);
        assertThat(header.crc()).as("crc: the stored value, bytes 17..20").isEqualTo(storedCrc);
        assertThat(header.attributes()).as("attributes 0: uncompressed").isEqualTo((short) 0);
        assertThat(header.lastOffsetDelta()).as("lastOffsetDelta = recordCount - 1").isEqualTo(2);
        assertThat(header.baseTimestamp()).as("baseTimestamp: the first record's").isEqualTo(T0);
        assertThat(header.maxTimestamp()).as("maxTimestamp: the largest").isEqualTo(T0 + 7);
        assertThat(header.producerId()).as("producerId as built").isEqualTo(1000L);
        assertThat(header.producerEpoch()).as("producerEpoch as built").isEqualTo((short) 3);
        assertThat(header.baseSequence()).as("baseSequence as built").isEqualTo(17);
        assertThat(header.recordCount()).as("recordCount: three records").isEqualTo(3);
        assertThat(header.lastOffset()).as("lastOffset = 50 + 2").isEqualTo(52L);
        assertThat(header.nextOffset()).as("the next batch starts at lastOffset + 1").isEqualTo(53L);
    }

    @Test
    void aBuiltBatchDecodesWithEveryRecord() {
        List<Record> records = RecordBatch.decode(goodBatch()).records();
        assertThat(records)
                .as("records come back with absolute offsets (baseOffset + offsetDelta) and timestamps "
                        + "(baseTimestamp + timestampDelta), keys, values, tombstones and headers")
                .containsExactly(
                        new Record(50, T0, bytes("k0"), bytes("v0"), List.of()),
                        new Record(51, T0 + 7, bytes("k1"), null, List.of()),
                        new Record(52, T0 + 3, null, bytes("v2"), List.of(RecordHeader.of("h", null))));
    }

    @Test
    void decodingMovesThePositionPastExactlyOneBatch() {
        byte[] batch = bytesOf(goodBatch());
        ByteBuffer in = ByteBuffer.allocate(7 + batch.length + 3);
        in.position(7);
        in.put(batch);
        in.put(new byte[] {1, 2, 3});
        in.position(7);

        RecordBatch decoded = RecordBatch.decode(in);

        assertThat(decoded.baseOffset()).as("the batch starting at position 7 is decoded").isEqualTo(50L);
        assertThat(in.position())
                .as("decode starts at position() and leaves it right after the batch (7 + %d), where the next "
                        + "one starts", batch.length)
                .isEqualTo(7 + batch.length);
    }

    @Test
    void decodeAllReadsConsecutiveBatches() {
        byte[] first = bytesOf(new BatchBuilder().append(T0, "a", "1").append(T0, "b", "2").build(0));
        byte[] second = bytesOf(new BatchBuilder().append(T0 + 1, "c", "3").build(2));
        byte[] third = bytesOf(goodBatch());
        ByteBuffer segment = ByteBuffer.allocate(first.length + second.length + third.length);
        segment.put(first).put(second).put(third).flip();

        List<RecordBatch> batches = RecordBatch.decodeAll(segment);

        assertThat(batches)
                .extracting(RecordBatch::baseOffset)
                .as("three batches back to back, as in a segment file: each one's batchLength says where the "
                        + "next begins")
                .containsExactly(0L, 2L, 50L);
        assertThat(batches.get(0).records()).extracting(Record::offset)
                .as("the first batch's records").containsExactly(0L, 1L);
        assertThat(segment.hasRemaining()).as("decodeAll consumes the whole buffer").isFalse();
    }

    @Test
    void sliceIsTheBatchsBytesAndDoesNotMoveTheBuffer() {
        byte[] batch = bytesOf(goodBatch());
        ByteBuffer in = ByteBuffer.allocate(batch.length + 10);
        in.put(batch).put(new byte[10]).flip();

        ByteBuffer slice = RecordBatch.slice(in);

        assertThat(bytesOf(slice))
                .as("slice is exactly 12 + batchLength bytes: the batch without what follows it%n%s",
                        BatchFields.batchDiff(batch, bytesOf(slice)))
                .isEqualTo(batch);
        assertThat(in.position()).as("slice() does not move the buffer: a scanner decides when to step").isZero();
    }

    @Test
    void fewerThanTwelveBytesIsCorrupt() {
        ByteBuffer in = ByteBuffer.wrap(bytesOf(goodBatch()), 0, 11);
        assertCorrupt(() -> RecordBatch.decode(in), "batchLength",
                "11 bytes do not even hold baseOffset (8) and batchLength (4): truncated, not a BufferUnderflowException");
    }

    @Test
    void aBatchLengthShorterThanTheHeaderIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.BATCH_LENGTH_OFFSET, 48);
        assertCorruptAt(() -> RecordBatch.decode(batch), "batchLength", BatchHeader.BATCH_LENGTH_OFFSET,
                "batchLength 48 cannot hold the 49 header bytes after it (61 - 12)");
    }

    @Test
    void aNegativeBatchLengthIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.BATCH_LENGTH_OFFSET, -1);
        assertCorrupt(() -> RecordBatch.decode(batch), "batchLength",
                "a negative length must be rejected before it is used to size or slice anything");
    }

    @Test
    void aBatchLengthBeyondTheBytesIsTruncation() {
        byte[] whole = bytesOf(goodBatch());
        ByteBuffer cut = ByteBuffer.wrap(whole, 0, whole.length - 1);
        assertCorruptAt(() -> RecordBatch.decode(cut), "batchLength", BatchHeader.BATCH_LENGTH_OFFSET,
                "batchLength promises one byte more than there is: a batch cut off by a crash mid-write");
    }

    @Test
    void everyTruncationIsReportedAsCorrupt() {
        byte[] whole = bytesOf(goodBatch());
        for (int n = 0; n < whole.length; n++) {
            ByteBuffer cut = ByteBuffer.wrap(whole, 0, n);
            int length = n;
            assertCorrupt(() -> RecordBatch.decode(cut), "batchLength",
                    "the first " + length + " of " + whole.length + " bytes: batchLength is checked against the "
                            + "bytes present before anything is read");
        }
    }

    @Test
    void magicOneIsRejected() {
        ByteBuffer batch = goodBatch();
        batch.put(BatchHeader.MAGIC_OFFSET, (byte) 1);
        assertCorruptAt(() -> RecordBatch.decode(batch), "magic", BatchHeader.MAGIC_OFFSET,
                "only magic 2 (RecordBatch v2) is this format; magic 0 and 1 are Kafka's old message sets");
    }

    @Test
    void aFlippedByteInARecordFailsTheCrc() {
        ByteBuffer batch = goodBatch();
        int last = batch.limit() - 1;
        batch.put(last, (byte) (batch.get(last) ^ 0x01));
        assertCorruptAt(() -> RecordBatch.decode(batch), "crc", BatchHeader.CRC_OFFSET,
                "one flipped bit in the last record: the stored CRC no longer matches bytes 21..end");
    }

    @Test
    void aFlippedByteInTheHeaderUnderTheCrcFailsTheCrc() {
        ByteBuffer batch = goodBatch();
        batch.put(BatchHeader.PRODUCER_ID_OFFSET + 7, (byte) 0x7f);
        assertCorrupt(() -> RecordBatch.decode(batch), "crc",
                "producerId is inside the CRC range: changing it without recomputing the CRC is caught");
    }

    @Test
    void aWrongStoredCrcIsCaught() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.CRC_OFFSET, BatchCrc.stored(batch) + 1);
        assertCorrupt(() -> RecordBatch.decode(batch), "crc", "the stored CRC itself is wrong");
    }

    @Test
    void aCodecKafkaDoesNotHaveIsRejected() {
        ByteBuffer batch = goodBatch();
        batch.putShort(BatchHeader.ATTRIBUTES_OFFSET, (short) 5); // bits 0-2: 0 none .. 4 zstd; 5-7 are no codec
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "attributes", BatchHeader.ATTRIBUTES_OFFSET,
                "attribute bits 0-2 are the compression codec; Kafka has none numbered 5, so the batch is corrupt "
                        + "(the CRC was recomputed, so this is the codec check, not the CRC)");
    }

    @Test
    void aLastOffsetPastLongMaxValueIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putLong(BatchHeader.BASE_OFFSET_OFFSET, Long.MAX_VALUE - 1); // outside the CRC: no recompute needed
        assertCorrupt(() -> RecordBatch.decode(batch), "lastOffsetDelta",
                "baseOffset + lastOffsetDelta (2) overflows a long: corrupt, never a negative offset");
    }

    @Test
    void aNegativeRecordCountIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.RECORD_COUNT_OFFSET, -1);
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "recordCount", BatchHeader.RECORD_COUNT_OFFSET,
                "a negative record count is corrupt (CRC recomputed so the count check is reached)");
    }

    @Test
    void aRecordCountTooLargeForTheBytesIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.RECORD_COUNT_OFFSET, Integer.MAX_VALUE);
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "recordCount", BatchHeader.RECORD_COUNT_OFFSET,
                "a record takes at least 7 bytes, so Integer.MAX_VALUE records cannot fit: rejected before "
                        + "allocating a list that size (never an OutOfMemoryError)");
    }

    @Test
    void aRecordCountSmallerThanTheRecordsPresentIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.RECORD_COUNT_OFFSET, 2);
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "recordCount", BatchHeader.RECORD_COUNT_OFFSET,
                "after the 2 records the count promises, a third record's bytes are left over: the count "
                        + "disagrees with the bytes");
    }

    @Test
    void aRecordCountLargerThanTheRecordsPresentIsCorrupt() {
        ByteBuffer batch = goodBatch();
        batch.putInt(BatchHeader.RECORD_COUNT_OFFSET, 4);
        withCrcRecomputed(batch);
        assertCorrupt(() -> RecordBatch.decode(batch), "record[3].length",
                "the count promises a fourth record but the batch ends after the third: its length is missing");
    }

    @Test
    void aRecordLengthBeyondTheBatchIsCorrupt() {
        ByteBuffer batch = goodBatch();
        int start = recordStart(batch, 0);
        batch.put(start, (byte) 0x7e); // length 63: more than the whole rest of this batch
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "record[0].length", start,
                "record 0 claims 63 bytes but the batch ends sooner: a record never reads past its batch");
    }

    @Test
    void aRecordOffsetThatGoesBackwardsIsCorrupt() {
        ByteBuffer batch = goodBatch();
        int start = recordStart(batch, 1);
        // record[1]: length · attributes · timestampDelta (7 -> one byte) · offsetDelta
        batch.put(start + 3, (byte) 0x00); // offsetDelta 0: the same offset as record 0
        withCrcRecomputed(batch);
        assertCorrupt(() -> RecordBatch.decode(batch), "record[1].offsetDelta",
                "offsets inside a batch strictly increase: record 1 cannot repeat record 0's offset");
    }

    @Test
    void aRecordOffsetPastTheLastOffsetIsCorrupt() {
        ByteBuffer batch = goodBatch();
        int start = recordStart(batch, 2);
        // record[2]: timestampDelta 3 is one byte, so offsetDelta is at start + 3
        batch.put(start + 3, (byte) 0x08); // offsetDelta 4 > lastOffsetDelta 2
        withCrcRecomputed(batch);
        assertCorrupt(() -> RecordBatch.decode(batch), "record[2].offsetDelta",
                "no record may lie past the header's lastOffset (baseOffset + lastOffsetDelta)");
    }

    @Test
    void eightBytesHoldTheBaseOffsetSoTheMissingBatchLengthIsAtByteEight() {
        ByteBuffer in = ByteBuffer.wrap(bytesOf(goodBatch()), 0, BatchHeader.BATCH_LENGTH_OFFSET);
        assertCorruptAt(() -> RecordBatch.decode(in), "batchLength", BatchHeader.BATCH_LENGTH_OFFSET,
                "8 bytes hold a whole baseOffset: what is missing is batchLength, which starts at byte 8 "
                        + "(byte 0 only while fewer than 8 bytes are there)");
    }

    @Test
    void twelveBytesAreEnoughToReadTheBatchLength() {
        ByteBuffer batch = goodBatch();
        int batchLength = batch.getInt(BatchHeader.BATCH_LENGTH_OFFSET);
        ByteBuffer in = ByteBuffer.wrap(bytesOf(batch), 0, BatchHeader.LOG_OVERHEAD);
        assertCorruptAt(() -> RecordBatch.decode(in), "batchLength", BatchHeader.BATCH_LENGTH_OFFSET,
                "12 bytes are the whole overhead: batchLength is readable, and it is truncation");
        assertThatThrownBy(() -> RecordBatch.decode(in))
                .as("with exactly 12 bytes the overhead is complete (remaining < 12 is truncated, not <= 12): the "
                        + "error names the length " + batchLength + " the batch announces, and that nothing follows it")
                .hasMessageContaining("length " + batchLength);
    }

    @Test
    void aRecordCountThatCannotFitIsRefusedBeforeAnyRecordIsRead() {
        ByteBuffer batch = goodBatch();
        int recordBytes = batch.remaining() - BatchHeader.SIZE;
        int count = recordBytes / 7 + 1; // one more record of the minimum 7 bytes than the bytes can hold
        batch.putInt(BatchHeader.RECORD_COUNT_OFFSET, count);
        withCrcRecomputed(batch);
        assertCorruptAt(() -> RecordBatch.decode(batch), "recordCount", BatchHeader.RECORD_COUNT_OFFSET,
                count + " records of at least 7 bytes cannot fit in the " + recordBytes + " bytes after the header: "
                        + "the count is refused up front (bound: bytes / 7), not after reading the records that are there");
    }

    @Test
    void aCorruptAttributesFieldIsACrcErrorNotACompressionError() {
        ByteBuffer batch = goodBatch();
        batch.putShort(BatchHeader.ATTRIBUTES_OFFSET, (short) 1); // a bit flipped on disk, the CRC not recomputed
        assertCorruptAt(() -> RecordBatch.decode(batch), "crc", BatchHeader.CRC_OFFSET,
                "no field under the CRC is trusted before the CRC is checked: a flipped compression bit is "
                        + "corruption, reported on crc, not an unsupported codec");
    }

    @Test
    void anEmptyBatchWhoseLastOffsetOverflowsIsCorrupt() {
        BatchHeader overflowing = new BatchHeader(Long.MAX_VALUE - 1, 0, -1, (byte) 2, 0, (short) 0, 2, -1, T0,
                1000L, (short) 3, 17, 0);
        ByteBuffer empty = BatchBuilder.encode(overflowing, List.of()); // a header and no records, as compaction keeps
        assertCorrupt(() -> RecordBatch.decode(empty), "lastOffsetDelta",
                "an empty batch whose last offset overflows is corrupt too: decode checks baseOffset + lastOffsetDelta "
                        + "itself, not only through the records' offsets");
    }

    @Test
    void aLogAppendTimeBatchGivesEveryRecordItsMaxTimestamp() {
        BatchHeader appended = new BatchHeader(10, 0, -1, (byte) 2, 0, (short) BatchHeader.TIMESTAMP_TYPE_MASK, 1, T0,
                T0 + 500, -1, (short) -1, -1, 0);
        ByteBuffer batch = BatchBuilder.encode(appended, List.of(Record.of(10, T0, "k0", "v0"),
                Record.of(11, T0 + 3, "k1", "v1")));

        assertThat(RecordBatch.decode(batch).records())
                .extracting(Record::timestamp)
                .as("a LogAppendTime batch (attribute bit 0x08): the broker's append time, the batch's maxTimestamp,"
                        + " is every record's time, as Kafka's DefaultRecordBatch reads it; the deltas keep only the"
                        + " producer's create times")
                .containsExactly(T0 + 500, T0 + 500);
    }

    @Test
    void aRefusedBatchLeavesThePositionWhereItWas() {
        byte[] batch = bytesOf(goodBatch());
        batch[batch.length - 1] ^= 0x01; // the CRC no longer matches
        ByteBuffer in = ByteBuffer.allocate(7 + batch.length);
        in.position(7);
        in.put(batch).position(7);

        assertCorrupt(() -> RecordBatch.decode(in), "crc", "the last record's bit flip fails the CRC");

        assertThat(in.position())
                .as("a refused batch leaves the position where it was (7): decode moves it only past a good batch, "
                        + "so a caller can still report, truncate or retry at the start of the bad batch")
                .isEqualTo(7);
    }

    @Test
    void validateRunsEveryCheckDecodeRuns() {
        ByteBuffer good = goodBatch();
        int size = good.remaining();
        assertThat(RecordBatch.validate(good).baseOffset()).as("validate returns the header of a good batch")
                .isEqualTo(50L);
        assertThat(good.position()).as("validate moves past a good batch like decode").isEqualTo(size);

        ByteBuffer backwards = goodBatch();
        backwards.put(recordStart(backwards, 1) + 3, (byte) 0x00); // record 1 repeats record 0's offset
        withCrcRecomputed(backwards);
        assertCorrupt(() -> RecordBatch.validate(backwards), "record[1].offsetDelta",
                "validate runs every check decode runs, each record included: it only skips building the list "
                        + "(chapter 3's log stores what validate accepts)");

        ByteBuffer leftover = goodBatch();
        leftover.putInt(BatchHeader.RECORD_COUNT_OFFSET, 2);
        withCrcRecomputed(leftover);
        assertCorrupt(() -> RecordBatch.validate(leftover), "recordCount",
                "validate runs every check decode runs: bytes left after the counted records are refused too");
    }

    // ---------------------------------------------------------------- Kafka judges: DefaultRecordBatch on every batch

    /** Kafka's batch of some shape as it arrives: damaged or not, after a few other bytes, before the next batch. */
    private record Arriving(BatchGens.Written written, String damage, ByteBuffer bytes) {
        /** What the bytes are, for the sentence of a disagreement; the bytes themselves follow it. */
        String describe() {
            return written.shape() + damage + ", at position " + bytes.position();
        }

        @Override
        public String toString() {
            return describe() + ": " + Property.show(bytes.duplicate().position(0));
        }
    }

    private static final Gen<BatchGens.Written> KAFKA_BATCHES = BatchGens.kafkaBatches();
    private static final Gen<Integer> SKIPS = Gens.ints(0, 3);
    private static final Gen<byte[]> AFTER = Gens.bytes(0, 6);
    private static final Gen<Gens.Faults> FAULTS = Gens.faults();

    /**
     * Kafka's batches of every shape with the faults of a disk or a network, half of them with the CRC
     * stored again so the fault reaches the checks after it. In a compressed batch only the 61 header
     * bytes are damaged (and the end cut off): inflating is given code, the codecs' own checks.
     */
    private static Gen<Arriving> arriving() {
        return c -> {
            // The faults and the framing first, the batch (the bulk of the draws) last: shrinking the batch
            // leaves the faults where they were.
            Gens.Faults faults = FAULTS.generate(c);
            boolean crcStoredAgain = c.oneIn(2);
            int skip = SKIPS.generate(c);
            byte[] after = AFTER.generate(c);
            BatchGens.Written written = KAFKA_BATCHES.generate(c);
            byte[] original = written.bytes();
            boolean compressed = (original[BatchHeader.ATTRIBUTES_OFFSET + 1] & BatchHeader.COMPRESSION_CODEC_MASK) != 0;
            byte[] damaged = faults.apply(original, 0, compressed ? BatchHeader.SIZE : original.length);
            String damage = java.util.Arrays.equals(damaged, original) ? "" : ", damaged";
            if (damaged.length >= BatchHeader.ATTRIBUTES_OFFSET && !damage.isEmpty() && crcStoredAgain) {
                ByteBuffer.wrap(damaged).putInt(BatchHeader.CRC_OFFSET, (int) Crc32C.compute(damaged,
                        BatchHeader.ATTRIBUTES_OFFSET, damaged.length - BatchHeader.ATTRIBUTES_OFFSET));
                damage += ", its CRC stored again";
            }
            ByteBuffer in = ByteBuffer.allocate(skip + damaged.length + after.length);
            in.position(skip);
            in.put(damaged).put(after).position(skip);
            return new Arriving(written, damage, in);
        };
    }

    @Test
    void everyBatchKafkaWritesDecodesAsKafkasDefaultRecordBatchReadsIt() {
        Property.forAll(arriving()).tries(150).shrinkBudget(BatchGens.SHRINKS).check(a -> {
            KafkaBatches.Reading kafka = KafkaBatches.kafkaReads(a.bytes().duplicate());
            ByteBuffer in = a.bytes().duplicate();
            Judge.Outcome yours = KafkaBatches.kaenLogDecodes(in);
            KafkaBatches.agreeField(a.describe(), "decoded batch's", yours, "DefaultRecordBatch reads",
                    kafka.outcome(), kafka.rule());
            if (yours.refused()) {
                assertThat(yours.refusal())
                        .as("for %s you refused with %s: bad bytes are a CorruptBatchException naming the field, never"
                                + " another exception", a.describe(), yours)
                        .isInstanceOf(CorruptBatchException.class);
                Judge.agree(a.describe(), "position after refusing", in.position(), "reader stays at",
                        a.bytes().position(), "decode moves the position only past a good batch");
            }
            Judge.Outcome validated = Judge.Outcome.of(() -> KafkaBatches.HeaderView.of(
                    RecordBatch.validate(a.bytes().duplicate())));
            Judge.agree(a.describe(), "validation", validated, "DefaultRecordBatch reads", kafka.outcome().refused()
                    ? kafka.outcome() : Judge.Outcome.of(() -> ((KafkaBatches.Decoded) kafka.outcome().value()).header()),
                    "validate runs every check decode runs, without the list of records");
        });
    }

    @Test
    void everyBatchIsSlicedWhereKafkasMemoryRecordsFindsIt() {
        Property.forAll(arriving()).tries(150).shrinkBudget(BatchGens.SHRINKS).check(a -> {
            Judge.Outcome yours = Judge.Outcome.of(() -> {
                ByteBuffer in = a.bytes().duplicate();
                ByteBuffer slice = RecordBatch.slice(in);
                if (in.position() != a.bytes().position()) {
                    return "the buffer moved to " + in.position();
                }
                return slice.remaining();
            });
            Judge.agree(a.describe(), "slice's size", yours, "MemoryRecords finds a v2 batch of",
                    KafkaBatches.kafkaSlices(a.bytes().duplicate()), KafkaBatches.RULE_LENGTH
                            + "; the buffer does not move");
        });
    }

    /** Three records at offsets 50..52 from an idempotent producer, with a tombstone and a null-valued header. */
    private static ByteBuffer goodBatch() {
        return new BatchBuilder()
                .producer(1000L, (short) 3, 17)
                .partitionLeaderEpoch(4)
                .append(T0, "k0", "v0")
                .append(T0 + 7, "k1", null)
                .append(T0 + 3, null, bytes("v2"), new RecordHeader("h", null))
                .build(50);
    }

    /** Where record {@code index} starts, stepping over the length prefixes of the records before it. */
    private static int recordStart(ByteBuffer batch, int index) {
        ByteBuffer in = batch.duplicate().position(BatchHeader.SIZE);
        for (int i = 0; i < index; i++) {
            int length = Varint.readVarint(in, "record[" + i + "].length");
            in.position(in.position() + length);
        }
        return in.position();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
