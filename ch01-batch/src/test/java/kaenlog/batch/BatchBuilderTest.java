package kaenlog.batch;

import static kaenlog.batch.BatchFields.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 5: a fresh producer batch. The header is read here with plain ByteBuffer gets at the
 * documented offsets, so these tests need the tasks before this one only, not the decoding of
 * task 6 (RecordBatchDecodeTest).
 */
@Order(5)
class BatchBuilderTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void aFreshBatchStartsAtOffsetZeroWithNoProducerAndNoLeaderEpoch() {
        ByteBuffer batch = threeRecords().build();
        assertThat(batch.getLong(BatchHeader.BASE_OFFSET_OFFSET))
                .as("a producer's batch has baseOffset 0: the leader assigns the real offsets on append")
                .isEqualTo(0L);
        assertThat(batch.getInt(BatchHeader.PARTITION_LEADER_EPOCH_OFFSET))
                .as("partitionLeaderEpoch is -1 until a leader stamps it (chapter 8)")
                .isEqualTo(-1);
        assertThat(batch.get(BatchHeader.MAGIC_OFFSET)).as("magic is 2: RecordBatch v2").isEqualTo((byte) 2);
        assertThat(batch.getShort(BatchHeader.ATTRIBUTES_OFFSET))
                .as("attributes 0: no compression, CreateTime, not transactional, not control")
                .isEqualTo((short) 0);
        assertThat(batch.getLong(BatchHeader.PRODUCER_ID_OFFSET))
                .as("producerId is -1 when no idempotent producer wrote the batch").isEqualTo(-1L);
        assertThat(batch.getShort(BatchHeader.PRODUCER_EPOCH_OFFSET))
                .as("producerEpoch is -1 when no idempotent producer wrote the batch").isEqualTo((short) -1);
        assertThat(batch.getInt(BatchHeader.BASE_SEQUENCE_OFFSET))
                .as("baseSequence is -1 when no idempotent producer wrote the batch").isEqualTo(-1);
    }

    @Test
    void theHeaderCountsTheRecordsAndStoresTheLastOffsetAsADelta() {
        ByteBuffer batch = threeRecords().build();
        assertThat(batch.getInt(BatchHeader.RECORD_COUNT_OFFSET)).as("recordCount is 3: three appends").isEqualTo(3);
        assertThat(batch.getInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET))
                .as("lastOffsetDelta is recordCount - 1 = 2: Kafka stores the last record's offset as a delta")
                .isEqualTo(2);
    }

    @Test
    void theBaseTimestampIsTheFirstRecordsAndTheMaxTimestampTheLargest() {
        ByteBuffer batch = threeRecords().build();
        assertThat(batch.getLong(BatchHeader.BASE_TIMESTAMP_OFFSET))
                .as("baseTimestamp is the FIRST record's timestamp (T0 + 10), not the smallest (T0 + 5): "
                        + "later records store a delta from it, which may be negative")
                .isEqualTo(T0 + 10);
        assertThat(batch.getLong(BatchHeader.MAX_TIMESTAMP_OFFSET))
                .as("maxTimestamp is the largest timestamp of any record (T0 + 20): time indexes use it")
                .isEqualTo(T0 + 20);
    }

    @Test
    void theMaxTimestampIsTheLargestEvenWhenTheLastRecordIsOlder() {
        ByteBuffer batch = new BatchBuilder().append(T0 + 5, "a", "1").append(T0 + 30, "b", "2")
                .append(T0 + 10, "c", "3").build();
        assertThat(batch.getLong(BatchHeader.MAX_TIMESTAMP_OFFSET))
                .as("maxTimestamp is the largest timestamp of any record (T0 + 30, the middle one), not the last "
                        + "record's (T0 + 10): producers' clocks and user timestamps need not grow")
                .isEqualTo(T0 + 30);
    }

    @Test
    void theBatchLengthCountsEveryByteAfterTheFirstTwelve() {
        ByteBuffer batch = threeRecords().build();
        assertThat(batch.position()).as("build() returns the batch ready to read, position 0").isEqualTo(0);
        assertThat(batch.getInt(BatchHeader.BATCH_LENGTH_OFFSET))
                .as("batchLength = size - 12: it counts everything after baseOffset and batchLength (LOG_OVERHEAD)")
                .isEqualTo(batch.remaining() - BatchHeader.LOG_OVERHEAD);
        int expectedSize = BatchHeader.SIZE
                + Record.sizeInBytes(0, 0, bytes("a"), bytes("one"), List.of())
                + Record.sizeInBytes(1, -5, bytes("b"), null, List.of())
                + Record.sizeInBytes(2, 10, null, bytes("three"), List.of(RecordHeader.of("trace", "x")));
        assertThat(batch.remaining())
                .as("the batch is the 61-byte header plus each record's bytes, with nothing spare")
                .isEqualTo(expectedSize);
    }

    @Test
    void theStoredCrcMatchesTheBytes() {
        ByteBuffer batch = threeRecords().build();
        assertThat(Integer.toHexString(BatchCrc.stored(batch)))
                .as("the builder computes the CRC-32C of bytes 21..end last, after everything it covers is written, "
                        + "and stores it at byte 17")
                .isEqualTo(Integer.toHexString(BatchCrc.compute(batch)));
    }

    @Test
    void theRecordsFollowTheHeaderWithConsecutiveOffsets() {
        ByteBuffer batch = threeRecords().build();
        List<Record> records = readRecords(batch, 0, T0 + 10, 3);
        assertThat(records)
                .as("records sit right after the 61-byte header, offsets 0, 1, 2 in append order, with their "
                        + "keys, values (null = tombstone) and headers")
                .containsExactly(
                        new Record(0, T0 + 10, bytes("a"), bytes("one"), List.of()),
                        new Record(1, T0 + 5, bytes("b"), null, List.of()),
                        new Record(2, T0 + 20, null, bytes("three"), List.of(RecordHeader.of("trace", "x"))));
    }

    @Test
    void buildingAtABaseOffsetPlacesTheRecordsThere() {
        ByteBuffer batch = threeRecords().build(500);
        assertThat(batch.getLong(BatchHeader.BASE_OFFSET_OFFSET)).as("build(500) writes baseOffset 500").isEqualTo(500L);
        assertThat(batch.getInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET))
                .as("lastOffsetDelta is still recordCount - 1 = 2: it is relative to baseOffset")
                .isEqualTo(2);
        assertThat(readRecords(batch, 500, T0 + 10, 3))
                .extracting(Record::offset)
                .as("the records are at offsets 500, 501, 502 (baseOffset + offsetDelta)")
                .containsExactly(500L, 501L, 502L);
        assertThat(BatchCrc.isValid(batch)).as("the CRC is valid for a batch built at any base offset").isTrue();
    }

    @Test
    void aBatchBuiltAtALargeBaseOffsetIsSizedFromTheDeltas() {
        ByteBuffer atZero = threeRecords().build(0);
        ByteBuffer far = threeRecords().build(1_000_000L);
        assertThat(far.getInt(BatchHeader.BATCH_LENGTH_OFFSET))
                .as("encode sizes the batch from each record's deltas (offset - baseOffset), not from its absolute "
                        + "offset: batchLength = size - 12 at base offset 1000000 too")
                .isEqualTo(far.remaining() - BatchHeader.LOG_OVERHEAD);
        assertThat(far.remaining())
                .as("records store only deltas, so the batch is as long at base offset 1000000 as at 0")
                .isEqualTo(atZero.remaining());
    }

    @Test
    void anIdempotentProducersFieldsAreCarried() {
        ByteBuffer batch = threeRecords().producer(1000L, (short) 3, 17).partitionLeaderEpoch(4).build();
        assertThat(batch.getLong(BatchHeader.PRODUCER_ID_OFFSET))
                .as("producerId is the idempotent producer's id (chapter 7 deduplicates by it)").isEqualTo(1000L);
        assertThat(batch.getShort(BatchHeader.PRODUCER_EPOCH_OFFSET))
                .as("producerEpoch is carried as given").isEqualTo((short) 3);
        assertThat(batch.getInt(BatchHeader.BASE_SEQUENCE_OFFSET))
                .as("baseSequence is the first record's sequence number").isEqualTo(17);
        assertThat(batch.getInt(BatchHeader.PARTITION_LEADER_EPOCH_OFFSET))
                .as("partitionLeaderEpoch is carried as given").isEqualTo(4);
        assertThat(BatchCrc.isValid(batch)).as("the CRC covers the producer fields and is still valid").isTrue();
    }

    @Test
    void aSingleRecordBatchHasLastOffsetDeltaZero() {
        ByteBuffer batch = new BatchBuilder().append(T0, "k", "v").build();
        assertThat(batch.getInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET))
                .as("one record: lastOffsetDelta = 1 - 1 = 0, its last offset is its base offset")
                .isEqualTo(0);
        assertThat(batch.getLong(BatchHeader.BASE_TIMESTAMP_OFFSET))
                .as("one record: baseTimestamp is its timestamp").isEqualTo(T0);
        assertThat(batch.getLong(BatchHeader.MAX_TIMESTAMP_OFFSET))
                .as("one record: maxTimestamp is its timestamp too").isEqualTo(T0);
    }

    @Test
    void anEmptyFreshBatchIsRefused() {
        assertThat(catchThrowable(() -> new BatchBuilder().build()))
                .as("a producer never sends an empty batch: lastOffsetDelta would be -1 and there is no "
                        + "first timestamp, so build() with no records throws IllegalStateException")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void encodeFillsInLengthCountAndCrcWhateverTheGivenHeaderSays() {
        BatchHeader sloppy = new BatchHeader(42, 999, 9, (byte) 0, 12345, (short) 0, 0, T0, T0, 7L, (short) 1, 3, 99);
        ByteBuffer batch = BatchBuilder.encode(sloppy, List.of(Record.of(42, T0, "k", "v")));
        assertThat(batch.getInt(BatchHeader.BATCH_LENGTH_OFFSET))
                .as("encode computes batchLength from the bytes (size - 12), ignoring the given 999")
                .isEqualTo(batch.remaining() - BatchHeader.LOG_OVERHEAD);
        assertThat(batch.getInt(BatchHeader.RECORD_COUNT_OFFSET))
                .as("encode sets recordCount to the records it writes, ignoring the given 99")
                .isEqualTo(1);
        assertThat(batch.get(BatchHeader.MAGIC_OFFSET)).as("encode always writes magic 2").isEqualTo((byte) 2);
        assertThat(BatchCrc.isValid(batch)).as("encode computes the CRC, ignoring the given 12345").isTrue();
        assertThat(batch.getLong(BatchHeader.PRODUCER_ID_OFFSET))
                .as("encode keeps the fields it does not compute, such as producerId").isEqualTo(7L);
    }

    // ---------------------------------------------------------------- Kafka judges: MemoryRecordsBuilder on every batch

    private static final String FRESH = "lastOffsetDelta is count - 1, baseTimestamp the FIRST record's (not the"
            + " smallest), maxTimestamp the largest, the producer fields and leader epoch as given (-1 when not), each"
            + " record at base offset + its position";
    private static final String LAYOUT = "encode takes batchLength, recordCount and magic from what it writes, lays"
            + " each record out relative to the header's baseOffset and baseTimestamp, and computes the CRC last";

    @Test
    void everyBatchIsBuiltAsKafkasMemoryRecordsBuilderBuildsIt() {
        Property.forAll(BatchGens.specs()).tries(150).shrinkBudget(BatchGens.SHRINKS).check(spec -> {
            byte[] kafkas = bytesOf(BatchGens.kafkaBuild(spec));
            KafkaBatches.agreeOnBatch(spec.toString(), () -> bytesOf(BatchGens.builderFor(spec).build(spec.baseOffset())), "MemoryRecordsBuilder writes", kafkas,
                    spec.codec() == Compression.ZSTD, FRESH);
        });
    }

    /**
     * A header as compaction or a producer hands it to encode: any base offset, leader epoch, producer
     * fields and timestamps, the attribute bits Kafka names (uncompressed), a lastOffsetDelta at or past
     * the last record's, and batchLength, magic, crc and recordCount that encode must not trust; and
     * records at growing offsets with gaps, their timestamps in any order.
     */
    private record Laid(BatchHeader header, List<Record> records) {
        @Override
        public String toString() {
            return "the header " + header + " and the records " + records;
        }
    }

    private static final Gen<Integer> GAPS = Gens.oneOf(Gens.constant(0), Gens.ints(0, 3), Gens.ints(0, 100_000));
    private static final Gen<Long> BASES = Gens.longs(0, Long.MAX_VALUE >> 1);
    private static final Gen<Integer> ANY_INT = Gens.ints();
    private static final Gen<Long> ANY_LONG = Gens.longs();
    private static final Gen<Integer> ATTRIBUTE_BITS = Gens.ints(0, 0x78 >> 3);
    private static final Gen<Integer> RECORDS = Gens.ints(0, 6);
    private static final Gen<BatchGens.In> INS = BatchGens.ins(BatchGens.anyTimestamps());

    private static Gen<Laid> laid() {
        return c -> {
            long base = BASES.generate(c);
            List<Record> records = new ArrayList<>();
            long offset = base;
            int n = RECORDS.generate(c);
            for (int i = 0; i < n; i++) {
                offset += GAPS.generate(c);
                BatchGens.In in = INS.generate(c);
                records.add(new Record(offset, in.timestamp(), in.key(), in.value(), in.headers()));
                offset++;
            }
            int lastOffsetDelta = (int) (offset - 1 - base) + GAPS.generate(c);
            BatchHeader header = new BatchHeader(base, ANY_INT.generate(c), ANY_INT.generate(c),
                    (byte) (int) ANY_INT.generate(c), ANY_INT.generate(c), (short) (ATTRIBUTE_BITS.generate(c) << 3),
                    lastOffsetDelta, BatchGens.createTimes().generate(c), BatchGens.createTimes().generate(c),
                    ANY_LONG.generate(c), (short) (int) ANY_INT.generate(c), ANY_INT.generate(c), ANY_INT.generate(c));
            return new Laid(header, records);
        };
    }

    @Test
    void everyHeaderAndItsRecordsAreLaidOutAsKafkaLaysThemOut() {
        Property.forAll(laid()).shrinkBudget(BatchGens.SHRINKS).check(l -> {
            KafkaBatches.agreeOnBatch(l.toString(), () -> bytesOf(BatchBuilder.encode(l.header(), l.records())), "DefaultRecord.writeTo and DefaultRecordBatch.writeHeader write",
                    kafkaLayout(l.header(), l.records()), false, LAYOUT);
        });
    }

    /** What MemoryRecordsBuilder does when it closes a batch: each record after the 61 bytes, then the header. */
    private static byte[] kafkaLayout(BatchHeader h, List<Record> records) throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write(new byte[BatchHeader.SIZE]);
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        for (Record r : records) {
            DefaultRecord.writeTo(out, (int) (r.offset() - h.baseOffset()), r.timestamp() - h.baseTimestamp(),
                    r.key() == null ? null : ByteBuffer.wrap(r.key()), r.value() == null ? null : ByteBuffer.wrap(r.value()),
                    BatchGens.kafkaHeaders(r.headers()));
        }
        ByteBuffer batch = ByteBuffer.wrap(bytes.toByteArray());
        DefaultRecordBatch.writeHeader(batch, h.baseOffset(), h.lastOffsetDelta(), batch.capacity(), (byte) 2,
                CompressionType.NONE, (h.attributes() & BatchHeader.TIMESTAMP_TYPE_MASK) != 0
                        ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME, h.baseTimestamp(),
                h.maxTimestamp(), h.producerId(), h.producerEpoch(), h.baseSequence(), h.isTransactional(),
                h.isControl(), (h.attributes() & BatchHeader.DELETE_HORIZON_FLAG_MASK) != 0, h.partitionLeaderEpoch(),
                records.size());
        return batch.array();
    }

    /** Timestamps out of order on purpose: baseTimestamp is the first, maxTimestamp the largest. */
    private static BatchBuilder threeRecords() {
        return new BatchBuilder()
                .append(T0 + 10, "a", "one")
                .append(T0 + 5, "b", null)
                .append(T0 + 20, null, bytes("three"), RecordHeader.of("trace", "x"));
    }

    private static List<Record> readRecords(ByteBuffer batch, long baseOffset, long baseTimestamp, int count) {
        ByteBuffer in = batch.duplicate().position(BatchHeader.SIZE);
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(Record.readFrom(in, baseOffset, baseTimestamp, i));
        }
        assertThat(in.remaining()).as("the batch ends right after its last record").isZero();
        return records;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
