package kaenlog.batch;

import static kaenlog.batch.BatchFields.assertCorruptAt;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 3: the 61-byte RecordBatch v2 header, in Kafka's order, big-endian. */
@Order(3)
class BatchHeaderTest {
    /** Every field a different, recognisable value, so a field written in the wrong place shows. */
    private static final BatchHeader HEADER = new BatchHeader(
            1000L,                      // baseOffset
            75,                         // batchLength
            7,                          // partitionLeaderEpoch
            (byte) 2,                   // magic
            0xCAFEBABE,                 // crc
            (short) 0x0010,             // attributes: the transactional bit
            2,                          // lastOffsetDelta
            1_700_000_000_000L,         // baseTimestamp
            1_700_000_000_005L,         // maxTimestamp
            4242L,                      // producerId
            (short) 5,                  // producerEpoch
            40,                         // baseSequence
            3);                         // recordCount

    @Test
    void theHeaderIsSixtyOneBytesInKafkasOrder() {
        BatchFields.Layout expected = new BatchFields.Layout()
                .field("baseOffset", 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8)    // 1000, big-endian
                .field("batchLength", 0x00, 0x00, 0x00, 0x4b)                           // 75
                .field("partitionLeaderEpoch", 0x00, 0x00, 0x00, 0x07)                  // 7
                .field("magic", 0x02)                                                   // v2
                .field("crc", 0xca, 0xfe, 0xba, 0xbe)                                   // as given
                .field("attributes", 0x00, 0x10)                                        // transactional
                .field("lastOffsetDelta", 0x00, 0x00, 0x00, 0x02)                       // 2
                .field("baseTimestamp", 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00) // 1700000000000
                .field("maxTimestamp", 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05)  // 1700000000005
                .field("producerId", 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x92)    // 4242
                .field("producerEpoch", 0x00, 0x05)                                     // 5
                .field("baseSequence", 0x00, 0x00, 0x00, 0x28)                          // 40
                .field("recordCount", 0x00, 0x00, 0x00, 0x03);                          // 3

        byte[] actual = write(HEADER);

        assertThat(actual)
                .as("the v2 header is 61 bytes: baseOffset, batchLength, partitionLeaderEpoch, magic, crc, "
                        + "attributes, lastOffsetDelta, baseTimestamp, maxTimestamp, producerId, producerEpoch, "
                        + "baseSequence, recordCount, big-endian (Kafka's DefaultRecordBatch)%n%s",
                        expected.diff(actual))
                .isEqualTo(expected.bytes());
    }

    @Test
    void everyFieldSitsAtItsDocumentedOffset() {
        ByteBuffer out = ByteBuffer.wrap(write(HEADER));
        assertThat(out.getLong(BatchHeader.BASE_OFFSET_OFFSET))
                .as("baseOffset: 8 bytes at 0, outside the CRC so the leader can rewrite it").isEqualTo(1000L);
        assertThat(out.getInt(BatchHeader.BATCH_LENGTH_OFFSET))
                .as("batchLength: 4 bytes at 8, the bytes after it").isEqualTo(75);
        assertThat(out.getInt(BatchHeader.PARTITION_LEADER_EPOCH_OFFSET))
                .as("partitionLeaderEpoch: 4 bytes at 12, outside the CRC").isEqualTo(7);
        assertThat(out.get(BatchHeader.MAGIC_OFFSET))
                .as("magic: 1 byte at 16, 2 for RecordBatch v2").isEqualTo((byte) 2);
        assertThat(out.getInt(BatchHeader.CRC_OFFSET))
                .as("crc: 4 bytes at 17, covering bytes 21..end").isEqualTo(0xCAFEBABE);
        assertThat(out.getShort(BatchHeader.ATTRIBUTES_OFFSET))
                .as("attributes: 2 bytes at 21, the first byte the CRC covers").isEqualTo((short) 0x0010);
        assertThat(out.getInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET))
                .as("lastOffsetDelta: 4 bytes at 23").isEqualTo(2);
        assertThat(out.getLong(BatchHeader.BASE_TIMESTAMP_OFFSET))
                .as("baseTimestamp: 8 bytes at 27").isEqualTo(1_700_000_000_000L);
        assertThat(out.getLong(BatchHeader.MAX_TIMESTAMP_OFFSET))
                .as("maxTimestamp: 8 bytes at 35").isEqualTo(1_700_000_000_005L);
        assertThat(out.getLong(BatchHeader.PRODUCER_ID_OFFSET))
                .as("producerId: 8 bytes at 43").isEqualTo(4242L);
        assertThat(out.getShort(BatchHeader.PRODUCER_EPOCH_OFFSET))
                .as("producerEpoch: 2 bytes at 51").isEqualTo((short) 5);
        assertThat(out.getInt(BatchHeader.BASE_SEQUENCE_OFFSET))
                .as("baseSequence: 4 bytes at 53").isEqualTo(40);
        assertThat(out.getInt(BatchHeader.RECORD_COUNT_OFFSET))
                .as("recordCount: 4 bytes at 57, the last header field; records start at 61").isEqualTo(3);
    }

    @Test
    void writingMovesThePositionBySixtyOneBytes() {
        ByteBuffer out = ByteBuffer.allocate(100);
        out.position(10);
        HEADER.writeTo(out);
        assertThat(out.position())
                .as("writeTo writes at the buffer's position and leaves it after the 61 header bytes, "
                        + "where the first record goes")
                .isEqualTo(10 + BatchHeader.SIZE);
        assertThat(out.getLong(10))
                .as("the header starts at the position it was given, not at byte 0")
                .isEqualTo(1000L);
    }

    @Test
    void readingBackWhatWasWrittenGivesTheSameHeader() {
        ByteBuffer in = ByteBuffer.wrap(write(HEADER));
        assertThat(BatchHeader.readFrom(in))
                .as("readFrom(writeTo(h)) equals h: the same 13 fields in the same order")
                .isEqualTo(HEADER);
        assertThat(in.position()).as("readFrom consumes exactly the 61 header bytes").isEqualTo(BatchHeader.SIZE);
    }

    @Test
    void readingAHeaderFollowedByRecordsStopsAtTheFirstRecord() {
        ByteBuffer in = ByteBuffer.allocate(BatchHeader.SIZE + 8);
        HEADER.writeTo(in);
        in.putLong(0x0102_0304_0506_0708L).flip(); // the first record's bytes, as in a real batch

        BatchHeader read = BatchHeader.readFrom(in);

        assertThat(read)
                .as("each field is read at its own size (attributes and producerEpoch 2 bytes, magic 1): a field "
                        + "read too wide shifts every field after it and eats into the records")
                .isEqualTo(HEADER);
        assertThat(in.position())
                .as("readFrom leaves the position at byte 61, where the first record starts")
                .isEqualTo(BatchHeader.SIZE);
    }

    @Test
    void missingProducerFieldsAreAllOnesAndReadBackAsMinusOne() {
        BatchHeader none = new BatchHeader(0, 49, -1, (byte) 2, 0, (short) 0, 0, -1, -1,
                BatchHeader.NO_PRODUCER_ID, BatchHeader.NO_PRODUCER_EPOCH, BatchHeader.NO_SEQUENCE, 0);
        byte[] bytes = write(none);
        for (int i = BatchHeader.PRODUCER_ID_OFFSET; i < BatchHeader.RECORD_COUNT_OFFSET; i++) {
            assertThat(bytes[i])
                    .as("byte %d (%s) is 0xff: producerId, producerEpoch and baseSequence are all -1 "
                            + "when no idempotent producer wrote the batch", i, BatchFields.nameAt(i))
                    .isEqualTo((byte) 0xff);
        }
        assertThat(BatchHeader.readFrom(ByteBuffer.wrap(bytes)))
                .as("-1 reads back as -1 in every field (signed, not 255 or 65535)")
                .isEqualTo(none);
    }

    @Test
    void theLastOffsetIsTheBaseOffsetPlusTheDelta() {
        assertThat(header(1000L, 2, 0).lastOffset())
                .as("lastOffset = baseOffset + lastOffsetDelta: 1000 + 2").isEqualTo(1002L);
        assertThat(header(1000L, 0, 0).lastOffset())
                .as("a one-record batch has lastOffsetDelta 0: its last offset is its base offset").isEqualTo(1000L);
        assertThat(header(Long.MAX_VALUE - 2, 2, 0).lastOffset())
                .as("Long.MAX_VALUE is still a valid last offset").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aLastOffsetPastLongMaxValueIsCorrupt() {
        BatchHeader header = header(Long.MAX_VALUE - 1, 2, 0);
        assertCorruptAt(header::lastOffset, "lastOffsetDelta", BatchHeader.LAST_OFFSET_DELTA_OFFSET,
                "baseOffset + lastOffsetDelta overflows a long: an error, never a silent wrap to a negative offset");
    }

    @Test
    void theLastSequenceIsTheBaseSequencePlusTheDelta() {
        assertThat(header(0, 3, 40).lastSequence())
                .as("lastSequence = baseSequence + lastOffsetDelta: one sequence number per record").isEqualTo(43);
        assertThat(header(0, 1, Integer.MAX_VALUE - 1).lastSequence())
                .as("reaching Integer.MAX_VALUE exactly does not wrap").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theLastSequenceWrapsPastIntegerMaxValueToZero() {
        assertThat(header(0, 2, Integer.MAX_VALUE).lastSequence())
                .as("after Integer.MAX_VALUE comes 0, then 1: Kafka's sequences wrap to 0 and are never negative "
                        + "(DefaultRecordBatch.incrementSequence)")
                .isEqualTo(1);
        assertThat(header(0, 1, Integer.MAX_VALUE).lastSequence())
                .as("Integer.MAX_VALUE + 1 is 0, not Integer.MIN_VALUE").isEqualTo(0);
    }

    @Test
    void noSequenceStaysNoSequence() {
        assertThat(header(0, 5, -1).lastSequence())
                .as("baseSequence -1 means no idempotent producer: the last sequence is -1 too, not 4")
                .isEqualTo(-1);
    }

    // ---------------------------------------------------------------- Kafka judges: DefaultRecordBatch on every header

    private static final String LAYOUT = "the thirteen fields in the table's order and sizes, big-endian, read back"
            + " signed so -1 stays -1, and the position moves by 61";

    /** Every field any value of its type: what a header's 61 bytes can say. */
    private static Gen<BatchHeader> headers() {
        return c -> new BatchHeader(Gens.longs().generate(c), Gens.ints().generate(c), Gens.ints().generate(c),
                (byte) (int) Gens.ints(Byte.MIN_VALUE, Byte.MAX_VALUE).generate(c), Gens.ints().generate(c),
                (short) (int) Gens.ints(Short.MIN_VALUE, Short.MAX_VALUE).generate(c), Gens.ints().generate(c),
                Gens.longs().generate(c), Gens.longs().generate(c), Gens.longs().generate(c),
                (short) (int) Gens.ints(Short.MIN_VALUE, Short.MAX_VALUE).generate(c), Gens.ints().generate(c),
                Gens.ints().generate(c));
    }

    @Test
    void everyHeaderIsWrittenWhereKafkasDefaultRecordBatchReadsIt() {
        Property.forAll(Gens.ints(0, 3).zip(headers(), (skip, h) -> Map.entry(skip, h))).check(input -> {
            int skip = input.getKey();
            BatchHeader header = input.getValue();
            ByteBuffer out = ByteBuffer.allocate(skip + 2 * BatchHeader.SIZE);
            out.position(skip);
            Judge.agree("the header " + header + " written at position " + skip, "position afterwards", () -> {
                header.writeTo(out);
                return out.position();
            }, "DefaultRecordBatch.RECORDS_OFFSET puts the records at", skip + DefaultRecordBatch.RECORD_BATCH_OVERHEAD,
                    LAYOUT);
            KafkaBatches.agreeField("the header " + header, "header's",
                    Judge.Outcome.of(() -> KafkaBatches.HeaderView.of(header)), "DefaultRecordBatch reads",
                    Judge.Outcome.of(() -> KafkaBatches.HeaderView.of(
                            KafkaBatches.defaultRecordBatch(out.duplicate().position(skip)))), LAYOUT);
        });
    }

    /**
     * Any 61 bytes (and a few after them), and headers Kafka's writeHeader wrote (it refuses create
     * times below -1), damaged or not.
     */
    private static Gen<ByteBuffer> untrustedHeaders() {
        Gen<byte[]> kafkas = headers().flatMap(h -> {
            ByteBuffer kafka = ByteBuffer.allocate(BatchHeader.SIZE);
            DefaultRecordBatch.writeHeader(kafka, h.baseOffset(), h.lastOffsetDelta(), BatchHeader.SIZE, (byte) 2,
                    CompressionType.NONE, TimestampType.CREATE_TIME, Math.max(-1, h.baseTimestamp()),
                    Math.max(-1, h.maxTimestamp()), h.producerId(), h.producerEpoch(), h.baseSequence(), h.isTransactional(), false, false,
                    h.partitionLeaderEpoch(), h.recordCount());
            return Gens.damaged(kafka.array());
        });
        Gen<byte[]> bytesGen = Gens.oneOf(kafkas, Gens.bytes(BatchHeader.SIZE, BatchHeader.SIZE + 4));
        Gen<Integer> skips = Gens.ints(0, 3);
        return c -> {
            int skip = skips.generate(c);
            byte[] bytes = bytesGen.generate(c);
            ByteBuffer in = ByteBuffer.allocate(skip + Math.max(bytes.length, BatchHeader.SIZE));
            in.position(skip);
            in.put(bytes).position(skip);
            return in;
        };
    }

    @Test
    void anySixtyOneBytesAreReadAsKafkasDefaultRecordBatchReadsThem() {
        Property.forAll(untrustedHeaders()).check(in -> {
            int start = in.position();
            ByteBuffer mine = in.duplicate();
            Judge.Outcome yours = Judge.Outcome.of(() -> KafkaBatches.HeaderView.of(BatchHeader.readFrom(mine)));
            if (!yours.refused()) {
                Judge.agree("the bytes " + Property.show(in), "position afterwards", mine.position() - start,
                        "DefaultRecordBatch.RECORDS_OFFSET puts the records at", DefaultRecordBatch.RECORD_BATCH_OVERHEAD,
                        LAYOUT);
            }
            KafkaBatches.agreeField("the bytes " + Property.show(in), "header's", yours, "DefaultRecordBatch reads",
                    Judge.Outcome.of(() -> KafkaBatches.HeaderView.of(KafkaBatches.defaultRecordBatch(in.duplicate()))),
                    LAYOUT);
        });
    }

    @Test
    void theLastOffsetAndTheLastSequenceAreKafkas() {
        Gen<Integer> sequences = Gens.oneOf(Gens.constant(-1), Gens.ints(0, Integer.MAX_VALUE),
                Gens.ints(Integer.MAX_VALUE - 200, Integer.MAX_VALUE));
        Gen<BatchHeader> headers = c -> header(Gens.longs().generate(c), Gens.oneOf(Gens.ints(0, Integer.MAX_VALUE),
                Gens.ints()).generate(c), sequences.generate(c));
        Property.forAll(headers).check(h -> {
            ByteBuffer kafka = ByteBuffer.allocate(BatchHeader.SIZE);
            DefaultRecordBatch.writeHeader(kafka, h.baseOffset(), h.lastOffsetDelta(), BatchHeader.SIZE, (byte) 2,
                    CompressionType.NONE, TimestampType.CREATE_TIME, -1, -1, h.producerId(), h.producerEpoch(),
                    h.baseSequence(), false, false, false, -1, h.recordCount());
            DefaultRecordBatch batch = KafkaBatches.defaultRecordBatch(kafka.flip());
            String input = "baseOffset " + h.baseOffset() + ", lastOffsetDelta " + h.lastOffsetDelta();
            Judge.Outcome yours = Judge.Outcome.of(h::lastOffset);
            boolean overflows = (h.baseOffset() ^ batch.lastOffset()) < 0 && (h.baseOffset() ^ h.lastOffsetDelta()) >= 0;
            Judge.agree(input, "last offset", yours, "DefaultRecordBatch.lastOffset gives (kaen-log refuses where it"
                    + " wraps past Long.MAX_VALUE)", overflows ? Judge.Outcome.of(() -> {
                        throw new CorruptBatchException("lastOffsetDelta", BatchHeader.LAST_OFFSET_DELTA_OFFSET,
                                "overflows");
                    }) : Judge.Outcome.of(batch::lastOffset), "the last offset is an overflow-checked addition: an"
                            + " overflow is a CorruptBatchException on lastOffsetDelta, never a silent wrap");
            if (yours.refused()) {
                assertThat(yours.refusal())
                        .as("for %s you refused with %s: an overflowing last offset is a CorruptBatchException naming"
                                + " lastOffsetDelta", input, yours)
                        .isInstanceOfSatisfying(CorruptBatchException.class, e -> assertThat(e.field())
                                .as("the field named").isEqualTo("lastOffsetDelta"));
            }
            if (h.lastOffsetDelta() >= 0) {
                Judge.agree("baseSequence " + h.baseSequence() + ", lastOffsetDelta " + h.lastOffsetDelta(),
                        "last sequence", h::lastSequence, "DefaultRecordBatch.lastSequence gives", batch.lastSequence(),
                        "the last sequence keeps -1 as -1 and otherwise wraps past Integer.MAX_VALUE to 0, as"
                                + " incrementSequence does");
            }
        });
    }

    private static BatchHeader header(long baseOffset, int lastOffsetDelta, int baseSequence) {
        return new BatchHeader(baseOffset, 49, -1, (byte) 2, 0, (short) 0, lastOffsetDelta, -1, -1,
                baseSequence == -1 ? -1 : 1000L, baseSequence == -1 ? (short) -1 : (short) 0, baseSequence,
                lastOffsetDelta + 1);
    }

    /** What writeTo wrote; the buffer has room to spare, so a header of the wrong size shows as a byte difference. */
    private static byte[] write(BatchHeader header) {
        ByteBuffer out = ByteBuffer.allocate(2 * BatchHeader.SIZE);
        header.writeTo(out);
        return Arrays.copyOf(out.array(), out.position());
    }
}
