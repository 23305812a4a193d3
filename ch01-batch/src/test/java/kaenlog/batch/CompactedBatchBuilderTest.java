package kaenlog.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 8: the builder compaction uses. Kafka's "On Compaction" rule (DefaultRecordBatch): the
 * rewritten batch keeps the original's base offset, last offset, producer id, epoch and base
 * sequence, even when the first or last record is gone, so the producer's last sequence survives
 * (chapter 7 rebuilds its deduplication window from it).
 */
@Order(8)
class CompactedBatchBuilderTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void keepingOnlyTheMiddleRecordPreservesTheBatchsOffsetsAndSequences() {
        RecordBatch original = idempotentBatch(3);
        Record middle = original.records().get(1);

        RecordBatch compacted = RecordBatch.decode(new CompactedBatchBuilder(original.header()).retain(middle).build());

        BatchHeader h = compacted.header();
        assertThat(h.baseOffset())
                .as("baseOffset stays 100 although record 100 is gone: offsets never move under compaction")
                .isEqualTo(100L);
        assertThat(h.lastOffsetDelta())
                .as("lastOffsetDelta stays 2 although record 102 is gone: Kafka preserves the last offset")
                .isEqualTo(2);
        assertThat(h.lastOffset()).as("lastOffset stays 102").isEqualTo(102L);
        assertThat(h.producerId()).as("producerId is preserved").isEqualTo(4242L);
        assertThat(h.producerEpoch()).as("producerEpoch is preserved").isEqualTo((short) 5);
        assertThat(h.baseSequence()).as("baseSequence stays 40 although the record with sequence 40 is gone")
                .isEqualTo(40);
        assertThat(h.lastSequence())
                .as("lastSequence stays 42 = 40 + 2: the producer's last sequence survives compaction")
                .isEqualTo(42);
        assertThat(h.partitionLeaderEpoch()).as("partitionLeaderEpoch is preserved").isEqualTo(6);
        assertThat(h.recordCount()).as("recordCount counts the records kept: 1").isEqualTo(1);
        assertThat(compacted.records())
                .as("the kept record keeps its offset (101), timestamp, key and value")
                .containsExactly(middle);
        assertThat(h.baseTimestamp()).as("baseTimestamp is the first kept record's").isEqualTo(middle.timestamp());
        assertThat(h.maxTimestamp()).as("maxTimestamp is the largest of the kept records").isEqualTo(middle.timestamp());
    }

    @Test
    void removingTheFirstAndLastRecordsKeepsTheBatchsEnds() {
        RecordBatch original = idempotentBatch(5);
        List<Record> inner = original.records().subList(1, 4);
        CompactedBatchBuilder builder = new CompactedBatchBuilder(original.header());
        inner.forEach(builder::retain);

        ByteBuffer bytes = builder.build();
        assertThat(BatchCrc.isValid(bytes)).as("the compacted batch carries a valid CRC").isTrue();
        RecordBatch compacted = RecordBatch.decode(bytes);

        assertThat(compacted.baseOffset()).as("baseOffset stays 100, not 101").isEqualTo(100L);
        assertThat(compacted.lastOffset()).as("lastOffset stays 104, not 103").isEqualTo(104L);
        assertThat(compacted.header().baseSequence()).as("baseSequence stays 40").isEqualTo(40);
        assertThat(compacted.header().lastSequence()).as("lastSequence stays 44").isEqualTo(44);
        assertThat(compacted.header().recordCount()).as("three records kept").isEqualTo(3);
        assertThat(compacted.records())
                .as("the kept records are the originals at offsets 101..103, unchanged")
                .containsExactlyElementsOf(inner);
    }

    @Test
    void removingAMiddleRecordLeavesAGapInTheOffsets() {
        RecordBatch original = idempotentBatch(3);
        RecordBatch compacted = RecordBatch.decode(new CompactedBatchBuilder(original.header())
                .retain(original.records().get(0))
                .retain(original.records().get(2))
                .build());
        assertThat(compacted.records())
                .extracting(Record::offset)
                .as("offsets 100 and 102 with a gap: a compacted batch's offsets need not be consecutive")
                .containsExactly(100L, 102L);
        assertThat(compacted.header().lastOffsetDelta()).as("lastOffsetDelta 2, not recordCount - 1 = 1").isEqualTo(2);
    }

    @Test
    void theTimestampsComeFromTheRecordsKept() {
        RecordBatch original = idempotentBatch(3); // timestamps T0 + 10, T0 + 20, T0 + 5
        RecordBatch compacted = RecordBatch.decode(new CompactedBatchBuilder(original.header())
                .retain(original.records().get(0))
                .retain(original.records().get(2))
                .build());
        assertThat(compacted.header().baseTimestamp())
                .as("baseTimestamp is the first kept record's (T0 + 10), not the smallest kept (T0 + 5): the "
                        + "records store deltas from it")
                .isEqualTo(T0 + 10);
        assertThat(compacted.header().maxTimestamp())
                .as("maxTimestamp is the largest of the records kept (T0 + 10), not the original's (T0 + 20): only "
                        + "the timestamps come from the kept records, and time indexes must not point at a removed one")
                .isEqualTo(T0 + 10);
    }

    @Test
    void keepingNothingWritesAnEmptyHeaderThatRemembersTheProducer() {
        RecordBatch original = idempotentBatch(3);

        ByteBuffer bytes = new CompactedBatchBuilder(original.header()).build();

        assertThat(bytes.remaining())
                .as("an empty batch is the 61-byte header alone (Kafka's writeEmptyHeader)")
                .isEqualTo(BatchHeader.SIZE);
        assertThat(BatchCrc.isValid(bytes)).as("the empty batch carries a valid CRC").isTrue();
        RecordBatch empty = RecordBatch.decode(bytes);
        BatchHeader h = empty.header();
        assertThat(h.recordCount()).as("recordCount 0").isEqualTo(0);
        assertThat(empty.records()).as("it decodes to zero records").isEmpty();
        assertThat(h.batchLength()).as("batchLength 49: the header bytes after the first 12").isEqualTo(49);
        assertThat(h.baseTimestamp()).as("baseTimestamp -1: there is no first record").isEqualTo(-1L);
        assertThat(h.maxTimestamp())
                .as("maxTimestamp is the original's (T0 + 20), as Kafka's writeEmptyHeader keeps it")
                .isEqualTo(original.header().maxTimestamp());
        assertThat(h.baseOffset()).as("baseOffset preserved").isEqualTo(100L);
        assertThat(h.lastOffsetDelta())
                .as("lastOffsetDelta 2 is preserved, not -1: the empty batch still spans offsets 100..102")
                .isEqualTo(2);
        assertThat(h.producerId()).as("producerId preserved").isEqualTo(4242L);
        assertThat(h.producerEpoch()).as("producerEpoch preserved").isEqualTo((short) 5);
        assertThat(h.baseSequence()).as("baseSequence preserved").isEqualTo(40);
        assertThat(h.lastSequence())
                .as("lastSequence 42: this header is all that is left to tell chapter 7 the producer's last sequence")
                .isEqualTo(42);
    }

    @Test
    void theTransactionalAndControlBitsSurviveCompaction() {
        short bits = (short) (BatchHeader.TRANSACTIONAL_FLAG_MASK | BatchHeader.CONTROL_FLAG_MASK);
        BatchHeader given = new BatchHeader(100, 0, 6, (byte) 2, 0, bits, 1, T0, T0 + 1, 4242L, (short) 5, 40, 0);
        ByteBuffer built = BatchBuilder.encode(given, List.of(Record.of(100, T0, "a", "1"), Record.of(101, T0 + 1, "b", "2")));
        RecordBatch original = RecordBatch.decode(built);

        RecordBatch compacted = RecordBatch.decode(new CompactedBatchBuilder(original.header())
                .retain(original.records().get(1)).build());

        assertThat(compacted.header().isTransactional())
                .as("the transactional bit is kept: it belongs to the batch, not to the removed record").isTrue();
        assertThat(compacted.header().isControl()).as("the control bit is kept").isTrue();
    }

    @Test
    void aLogAppendTimeBatchKeepsItsAppendTimeWhenCompacted() {
        long appendTime = T0 + 60_000;
        short logAppendTime = (short) BatchHeader.TIMESTAMP_TYPE_MASK;
        BatchHeader given = new BatchHeader(100, 0, 6, (byte) 2, 0, logAppendTime, 2, T0, appendTime, 4242L,
                (short) 5, 40, 0);
        ByteBuffer built = BatchBuilder.encode(given, List.of(Record.of(100, T0 + 10, "a", "1"),
                Record.of(101, T0 + 20, "b", "2"), Record.of(102, T0 + 5, "c", "3")));
        RecordBatch original = RecordBatch.decode(built.duplicate());

        ByteBuffer bytes = new CompactedBatchBuilder(original.header()).retain(original.records().get(1)).build();
        BatchHeader h = RecordBatch.decode(bytes.duplicate()).header();

        assertThat(h.attributes() & BatchHeader.TIMESTAMP_TYPE_MASK)
                .as("the timestamp type bit (LogAppendTime) is kept").isEqualTo(BatchHeader.TIMESTAMP_TYPE_MASK);
        assertThat(h.maxTimestamp())
                .as("a LogAppendTime batch's maxTimestamp is the broker's append time (T0 + 60000), and the decoder "
                        + "gives it to every record: the compacted batch keeps it, not a producer's create time (T0 + 20)")
                .isEqualTo(appendTime);
        org.apache.kafka.common.record.RecordBatch kafkaBatch = org.apache.kafka.common.record.MemoryRecords
                .readableRecords(bytes.duplicate()).batches().iterator().next();
        assertThat(kafkaBatch.iterator().next().timestamp())
                .as("kafka-clients reads the kept record at the append time, as before compaction")
                .isEqualTo(appendTime);

        byte[] want = toArray(kafkaFilterKeepingOffset(built.duplicate(), 101));
        byte[] got = toArray(bytes);
        assertThat(got)
                .as(() -> "byte for byte what Kafka's cleaner (MemoryRecords.filterTo) writes for the same batch: "
                        + "timestamps at the append time, deltas 0; "
                        + Hex.firstDifference(want, got, i -> i < BatchHeader.SIZE ? "header" : "records"))
                .isEqualTo(want);
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** What Kafka's own cleaner path writes for {@code batch} when only the record at {@code offset} is kept. */
    private static ByteBuffer kafkaFilterKeepingOffset(ByteBuffer batch, long offset) {
        ByteBuffer out = ByteBuffer.allocate(batch.remaining());
        org.apache.kafka.common.record.MemoryRecords.readableRecords(batch).filterTo(
                new org.apache.kafka.common.record.MemoryRecords.RecordFilter(T0, 0) {
                    @Override
                    protected BatchRetentionResult checkBatchRetention(org.apache.kafka.common.record.RecordBatch b) {
                        return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
                    }

                    @Override
                    protected boolean shouldRetainRecord(org.apache.kafka.common.record.RecordBatch b,
                            org.apache.kafka.common.record.Record r) {
                        return r.offset() == offset;
                    }
                }, out, org.apache.kafka.common.utils.BufferSupplier.NO_CACHING);
        out.flip();
        return out;
    }

    // ---------------------------------------------------------------- Kafka judges: the cleaner's rebuild of every batch

    /** A batch Kafka wrote, and which of its records compaction keeps. */
    private record Compaction(BatchGens.Written original, List<Long> kept) {
        @Override
        public String toString() {
            return "keeping offsets " + BatchGens.firstFew(kept, 8) + " of " + original.shape();
        }
    }

    private static final Gen<BatchGens.Written> ORIGINALS = Gens.oneOf(BatchGens.producerBatches(),
            BatchGens.controlBatches());

    private static Gen<Compaction> compactions() {
        return c -> {
            BatchGens.Written original = ORIGINALS.generate(c);
            List<Long> kept = new java.util.ArrayList<>();
            for (org.apache.kafka.common.record.Record r : BatchGens.onlyBatch(original.buffer())) {
                if (c.oneIn(2)) {
                    kept.add(r.offset());
                }
            }
            return new Compaction(original, kept);
        };
    }

    @Test
    void everyCompactedBatchIsWhatKafkasCleanerWrites() {
        Property.forAll(compactions()).tries(150).shrinkBudget(BatchGens.SHRINKS).check(compaction -> {
            RecordBatch original = RecordBatch.decode(compaction.original().buffer());
            CompactedBatchBuilder builder = new CompactedBatchBuilder(original.header());
            original.records().stream().filter(r -> compaction.kept().contains(r.offset())).forEach(builder::retain);

            org.apache.kafka.common.record.MutableRecordBatch kafkaOriginal =
                    BatchGens.onlyBatch(compaction.original().buffer());
            List<org.apache.kafka.common.record.Record> kafkaKept = new java.util.ArrayList<>();
            kafkaOriginal.forEach(r -> {
                if (compaction.kept().contains(r.offset())) {
                    kafkaKept.add(r);
                }
            });
            byte[] kafkas = BatchFields.bytesOf(BatchGens.kafkaRetained(kafkaOriginal, kafkaKept));
            KafkaBatches.agreeOnBatch(compaction.toString(), () -> BatchFields.bytesOf(builder.build()),
                    "cleaner (MemoryRecords.filterTo) writes", kafkas,
                    original.header().compressionCodec() == Compression.ZSTD.id() && !kafkaKept.isEmpty(),
                    "copy the original's base offset, lastOffsetDelta, leader epoch, attributes and producer fields"
                            + " (\"On Compaction\"); only the timestamps come from the kept records, with none kept"
                            + " baseTimestamp -1 and maxTimestamp the original's, and a LogAppendTime batch keeps its"
                            + " append time");
        });
    }

    @Test
    void aRecordOutsideTheBatchCannotBeRetained() {
        RecordBatch original = idempotentBatch(3);
        CompactedBatchBuilder builder = new CompactedBatchBuilder(original.header());
        assertThatThrownBy(() -> builder.retain(Record.of(99, T0, "k", "v")))
                .as("offset 99 is before the batch's base offset 100: IllegalArgumentException")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.retain(Record.of(103, T0, "k", "v")))
                .as("offset 103 is after the batch's last offset 102: IllegalArgumentException")
                .isInstanceOf(IllegalArgumentException.class);

        RecordBatch built = RecordBatch.decode(builder.retain(original.records().get(2)).build());
        assertThat(built.records())
                .as("refused records leave no trace: the batch holds only the one record that was accepted")
                .containsExactly(original.records().get(2));
        assertThat(built.lastOffset()).as("and it still spans the original 100..102").isEqualTo(102L);
    }

    @Test
    void recordsMustBeRetainedInOffsetOrder() {
        RecordBatch original = idempotentBatch(3);
        CompactedBatchBuilder builder = new CompactedBatchBuilder(original.header()).retain(original.records().get(2));
        assertThatThrownBy(() -> builder.retain(original.records().get(1)))
                .as("offset 101 after 102: records are kept in offset order, IllegalArgumentException")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.retain(original.records().get(2)))
                .as("the same offset twice is out of order as well")
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(RecordBatch.decode(builder.build()).records())
                .as("offsets inside a batch strictly increase, which is why retain() insists on order: "
                        + "the built batch holds record 102 once")
                .containsExactly(original.records().get(2));
    }

    /**
     * {@code count} records at offsets 100.., written by producer 4242 (epoch 5, first sequence
     * 40) under leader epoch 6, decoded. Timestamps are out of order, the largest being T0 + 20.
     */
    private static RecordBatch idempotentBatch(int count) {
        long[] timestamps = {T0 + 10, T0 + 20, T0 + 5, T0 + 15, T0 + 12};
        BatchBuilder builder = new BatchBuilder().producer(4242L, (short) 5, 40).partitionLeaderEpoch(6);
        for (int i = 0; i < count; i++) {
            builder.append(timestamps[i], "key" + i, "value" + i);
        }
        return RecordBatch.decode(builder.build(100));
    }
}
