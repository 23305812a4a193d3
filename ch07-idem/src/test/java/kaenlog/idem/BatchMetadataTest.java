package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: four numbers per batch; the first sequence and the first offset are computed, not stored. */
@Order(1)
class BatchMetadataTest {
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void theFirstSequenceAndOffsetAreCountedBackFromTheLastByTheOffsetDelta() {
        // The demo's batch 7..9: three records at offsets 7, 8, 9, so offsetDelta = 2.
        BatchMetadata batch = new BatchMetadata(9, 9L, 2, NOW_MS);

        assertThat(batch.firstSeq())
                .as("firstSeq = lastSeq - offsetDelta: a 3-record batch ending at sequence 9 starts at 7")
                .isEqualTo(7);
        assertThat(batch.firstOffset())
                .as("firstOffset = lastOffset - offsetDelta: a 3-record batch ending at offset 9 starts at 7")
                .isEqualTo(7L);
    }

    @Test
    void sequencesAndOffsetsAreDifferentNumberLines() {
        // Kafka's ProducerStateManagerTest: sequences 0..5 written at offsets 15..20.
        BatchMetadata batch = new BatchMetadata(5, 20L, 5, NOW_MS);

        assertThat(batch.firstSeq())
                .as("the first sequence comes from lastSeq (5 - 5 = 0), not from the offsets")
                .isEqualTo(0);
        assertThat(batch.firstOffset())
                .as("the first offset comes from lastOffset (20 - 5 = 15), not from the sequences: "
                        + "the leader assigns offsets, the producer assigns sequences")
                .isEqualTo(15L);
    }

    @Test
    void aSingleRecordBatchStartsWhereItEnds() {
        BatchMetadata batch = new BatchMetadata(6, 6L, 0, NOW_MS);

        assertThat(batch.firstSeq())
                .as("offsetDelta is recordCount - 1, so a 1-record batch (6..6) has offsetDelta 0 and firstSeq 6")
                .isEqualTo(6);
        assertThat(batch.firstOffset())
                .as("a 1-record batch at offset 6 starts at offset 6")
                .isEqualTo(6L);
        assertThat(batch.seqRange())
                .as("the demo prints a one-record batch as 6..6")
                .isEqualTo("6..6");
    }

    @Test
    void theFirstOffsetIsALongSubtraction() {
        long lastOffset = 5_000_000_002L;
        BatchMetadata batch = new BatchMetadata(2, lastOffset, 2, NOW_MS);

        assertThat(batch.firstOffset())
                .as("offsets are 64-bit: %d - 2 must not be squeezed through an int", lastOffset)
                .isEqualTo(5_000_000_000L);
    }

    @Test
    void aBatchThatStraddlesTheWrapStartsJustBelowIntegerMaxValue() {
        // Kafka's ProducerStateManagerTest.testProducerSequenceWithWrapAroundBatchRecord:
        // first sequence MAX-10, last sequence 9, offsets 2000..2020 (21 records, offsetDelta 20).
        BatchMetadata batch = new BatchMetadata(9, 2020L, 20, NOW_MS);

        assertThat(batch.firstSeq())
                .as("sequences wrap from Integer.MAX_VALUE to 0, so counting back 20 from 9 lands on "
                        + "Integer.MAX_VALUE - 10 (Kafka's DefaultRecordBatch.decrementSequence), never on -11")
                .isEqualTo(Integer.MAX_VALUE - 10);
        assertThat(batch.firstOffset())
                .as("offsets do not wrap: 2020 - 20 = 2000")
                .isEqualTo(2000L);
    }

    @Test
    void countingBackOneFromZeroGivesIntegerMaxValue() {
        BatchMetadata batch = new BatchMetadata(0, 736L, 1, NOW_MS);

        assertThat(batch.firstSeq())
                .as("a 2-record batch ending at sequence 0 began at Integer.MAX_VALUE: sequences are never negative")
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theFirstSequenceAgreesWithKafkasDecrementSequence() {
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            int offsetDelta = random.nextInt(10_000);
            // Half the cases sit right after the wrap, where a plain subtraction would go negative.
            int lastSeq = i % 2 == 0 ? random.nextInt(Integer.MAX_VALUE) : random.nextInt(offsetDelta + 1);
            BatchMetadata batch = new BatchMetadata(lastSeq, 1_000_000L, offsetDelta, NOW_MS);

            assertThat(batch.firstSeq())
                    .as("firstSeq of lastSeq %d, offsetDelta %d must equal the real Kafka client's "
                            + "DefaultRecordBatch.decrementSequence", lastSeq, offsetDelta)
                    .isEqualTo(DefaultRecordBatch.decrementSequence(lastSeq, offsetDelta));
        }
    }

    // ---------------------------------------------------------------- Kafka judges: BatchMetadata on every batch

    private static final Gen<Integer> LAST_SEQS = Gens.oneOf(Gens.ints(0, Integer.MAX_VALUE), Gens.ints(0, 20),
            Gens.ints(Integer.MAX_VALUE - 20, Integer.MAX_VALUE));
    private static final Gen<Integer> OFFSET_DELTAS = Gens.oneOf(Gens.ints(0, 5), Gens.ints(0, Integer.MAX_VALUE));
    private static final Gen<Long> LAST_OFFSETS = Gens.oneOf(Gens.longs(0, 1000), Gens.longs(0, Long.MAX_VALUE));

    @Test
    void everyBatchsFirstSequenceAndOffsetAreKafkasBatchMetadatas() {
        Gen<BatchMetadata> batches = c -> new BatchMetadata(LAST_SEQS.generate(c), LAST_OFFSETS.generate(c),
                OFFSET_DELTAS.generate(c), NOW_MS);
        Property.forAll(batches).check(b -> {
            org.apache.kafka.storage.internals.log.BatchMetadata kafka =
                    new org.apache.kafka.storage.internals.log.BatchMetadata(b.lastSeq(), b.lastOffset(), b.offsetDelta(),
                            b.timestamp());
            String input = "the batch ending at sequence " + b.lastSeq() + " and offset " + b.lastOffset()
                    + " with offsetDelta " + b.offsetDelta();
            Judge.agree(input, "first sequence", b::firstSeq, "BatchMetadata.firstSeq gives", kafka.firstSeq(),
                    "count back by offsetDelta from lastSeq; sequences wrap, so a first sequence below 0 wraps back to"
                            + " just below Integer.MAX_VALUE + 1 (decrementSequence) and is never negative");
            Judge.agree(input, "first offset", b::firstOffset, "BatchMetadata.firstOffset gives", kafka.firstOffset(),
                    "the first offset counts back from lastOffset, not from the sequences: offsets are longs and never"
                            + " wrap");
        });
    }
}
