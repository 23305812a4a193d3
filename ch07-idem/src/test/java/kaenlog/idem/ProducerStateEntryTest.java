package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 2: the window of five batches (record) and the next expected sequence (expectedFirstSeq). */
@Order(2)
class ProducerStateEntryTest {
    private static final short EPOCH = 0;
    private static final long NOW_MS = 1_700_000_000_000L;

    /** A batch of sequences first..last written at offsets baseOffset onwards. */
    static BatchMetadata batch(int first, int last, long baseOffset, long timestamp) {
        int offsetDelta = last - first;
        return new BatchMetadata(last, baseOffset + offsetDelta, offsetDelta, timestamp);
    }

    @Test
    void aNewProducerExpectsSequenceZero() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);

        assertThat(entry.expectedFirstSeq())
                .as("KIP-98: for a given producer id, sequence numbers start from zero")
                .isEqualTo(0);
    }

    @Test
    void theNextExpectedSequenceFollowsTheNewestBatch() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);

        entry.record(batch(0, 1, 0L, NOW_MS));
        assertThat(entry.expectedFirstSeq())
                .as("after batch 0..1 the next batch must start at 2 (lastSeq + 1)")
                .isEqualTo(2);

        entry.record(batch(2, 3, 2L, NOW_MS));
        entry.record(batch(4, 5, 4L, NOW_MS));
        entry.record(batch(6, 6, 6L, NOW_MS));
        entry.record(batch(7, 9, 7L, NOW_MS));
        assertThat(entry.expectedFirstSeq())
                .as("after batch 7..9 the next batch must start at 10: the NEWEST batch (the tail) decides")
                .isEqualTo(10);
    }

    @Test
    void theWindowFillsOneBatchAtATimeAsInTheDemo() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        int[][] sent = {{0, 1}, {2, 3}, {4, 5}, {6, 6}, {7, 9}};
        String[] windows = {"[0..1]", "[0..1 2..3]", "[0..1 2..3 4..5]", "[0..1 2..3 4..5 6..6]",
                "[0..1 2..3 4..5 6..6 7..9]"};
        long offset = 0;
        for (int i = 0; i < sent.length; i++) {
            entry.record(batch(sent[i][0], sent[i][1], offset, NOW_MS));
            offset += sent[i][1] - sent[i][0] + 1;

            assertThat(entry.window())
                    .as("after sending %d..%d the window holds every batch so far, oldest first",
                            sent[i][0], sent[i][1])
                    .isEqualTo(windows[i]);
        }
        assertThat(entry.batches())
                .as("five batches fit exactly, nothing evicted yet")
                .hasSize(5);
        assertThat(ProducerStateEntry.NUM_BATCHES_TO_RETAIN)
                .as("Kafka's NUM_BATCHES_TO_RETAIN is 5, the same 5 that caps max.in.flight.requests.per.connection")
                .isEqualTo(5);
    }

    @Test
    void theSixthBatchEvictsTheOldest() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        for (int seq = 0; seq < 6; seq++) {
            entry.record(batch(seq, seq, seq, NOW_MS + seq));
        }

        assertThat(entry.batches())
                .as("Kafka's ProducerStateEntry: when the queue is at capacity (5) the head is removed "
                        + "to make room for the incoming batch")
                .extracting(BatchMetadata::lastSeq)
                .containsExactly(1, 2, 3, 4, 5);
        assertThat(entry.window())
                .as("batch 0..0 fell out of the window; 1..1 is now the oldest")
                .isEqualTo("[1..1 2..2 3..3 4..4 5..5]");
        assertThat(entry.expectedFirstSeq())
                .as("eviction drops the oldest batch, never the newest: the next expected sequence is still 6")
                .isEqualTo(6);
    }

    @Test
    void theWindowCountsBatchesNotRecords() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        int seq = 0;
        for (int i = 0; i < 5; i++) {
            entry.record(batch(seq, seq + 999, seq, NOW_MS));
            seq += 1000;
        }

        assertThat(entry.batches())
                .as("five batches of 1000 records each all fit: the window holds 5 BATCHES, not 5 records")
                .hasSize(5);
        assertThat(entry.window())
                .as("each slot is one whole batch, printed firstSeq..lastSeq")
                .isEqualTo("[0..999 1000..1999 2000..2999 3000..3999 4000..4999]");
        assertThat(entry.expectedFirstSeq())
                .as("after 5000 records in 5 batches the next sequence is 5000")
                .isEqualTo(5000);
    }

    @Test
    void fiveMoreSingleRecordBatchesReplaceTheWholeWindow() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        entry.record(batch(0, 1, 0L, NOW_MS));
        entry.record(batch(2, 3, 2L, NOW_MS));
        entry.record(batch(4, 5, 4L, NOW_MS));
        entry.record(batch(6, 6, 6L, NOW_MS));
        entry.record(batch(7, 9, 7L, NOW_MS));
        for (int seq = 10; seq <= 14; seq++) {
            entry.record(batch(seq, seq, seq, NOW_MS));
        }

        assertThat(entry.window())
                .as("the demo's overflow: after 10..10 .. 14..14 none of the first five batches is left")
                .isEqualTo("[10..10 11..11 12..12 13..13 14..14]");
        assertThat(entry.expectedFirstSeq())
                .as("after 14..14 the next expected sequence is 15")
                .isEqualTo(15);
    }

    @Test
    void afterIntegerMaxValueTheNextSequenceIsZero() {
        // Kafka's ProducerStateManagerTest.testProducerSequenceWrapAround: sequence MAX, then 0.
        ProducerStateEntry entry = new ProducerStateEntry((short) 15);
        entry.record(new BatchMetadata(Integer.MAX_VALUE, 735L, 0, NOW_MS));

        assertThat(entry.expectedFirstSeq())
                .as("sequences wrap from Integer.MAX_VALUE to 0 (Kafka's ProducerAppendInfo.inSequence), "
                        + "never to Integer.MIN_VALUE: a plain int + 1 overflows to the wrong number")
                .isEqualTo(0);
    }

    @Test
    void theNewestBatchDecidesEvenAcrossTheWrap() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        entry.record(new BatchMetadata(Integer.MAX_VALUE - 1, 100L, 0, NOW_MS));
        // MAX, 0, 1: a 3-record batch straddling the wrap ends at sequence 1.
        entry.record(new BatchMetadata(1, 103L, 2, NOW_MS));

        assertThat(entry.expectedFirstSeq())
                .as("after a batch ending at sequence 1 the next starts at 2, even though the older batch's "
                        + "numbers are larger: order in the queue, not numeric size, says which is newest")
                .isEqualTo(2);
        assertThat(entry.window())
                .as("the straddling batch prints as %d..1", Integer.MAX_VALUE)
                .isEqualTo("[" + (Integer.MAX_VALUE - 1) + ".." + (Integer.MAX_VALUE - 1) + " "
                        + Integer.MAX_VALUE + "..1]");
    }

    @Test
    void theLastTimestampIsTheNewestBatchs() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        entry.record(batch(0, 1, 0L, NOW_MS));
        entry.record(batch(2, 3, 2L, NOW_MS + 5));

        assertThat(entry.lastTimestamp())
                .as("record(meta) sets lastTimestamp to the batch's timestamp, as Kafka's addBatch does")
                .isEqualTo(NOW_MS + 5);
    }

    @Test
    void batchesAreOldestFirstAndReadOnly() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        BatchMetadata first = batch(0, 1, 0L, NOW_MS);
        BatchMetadata second = batch(2, 3, 2L, NOW_MS);
        entry.record(first);
        entry.record(second);
        List<BatchMetadata> batches = entry.batches();

        assertThat(batches)
                .as("batches() lists the window oldest first, each batch exactly as recorded")
                .containsExactly(first, second);
        assertThatThrownBy(() -> batches.add(batch(4, 5, 4L, NOW_MS)))
                .as("batches() is a read-only copy: only record(meta) may change the window")
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(entry.batches())
                .as("the entry's own window is untouched by the attempt")
                .hasSize(2);
    }

    // ---------------------------------------------------------------- Kafka judges: ProducerStateEntry on every history

    /** A producer's batches in sequence, or any four numbers in any order (the window never checks them). */
    private static final Gen<List<KafkaProducerState.Slot>> SLOTS = Gens.oneOf(KafkaProducerState.histories(12),
            Gens.lists(c -> new KafkaProducerState.Slot(KafkaProducerState.STARTS.generate(c),
                    KafkaProducerState.OFFSETS.generate(c), KafkaProducerState.SIZES.generate(c) - 1,
                    KafkaProducerState.TIMESTAMPS.generate(c)), 0, 12));

    @Test
    void everyWindowKeepsWhatKafkasProducerStateEntryKeeps() {
        Property.forAll(SLOTS).check(slots -> {
            ProducerStateEntry yours = new ProducerStateEntry(EPOCH);
            org.apache.kafka.storage.internals.log.ProducerStateEntry kafka = KafkaProducerState.entry(1000L, EPOCH);
            Judge.agree("a producer with no batch yet", "next expected sequence", yours::expectedFirstSeq,
                    "ProducerAppendInfo accepts only", KafkaProducerState.expectedFirstSeq(kafka),
                    "KIP-98: for a given producer id, sequence numbers start from zero");
            for (int i = 0; i < slots.size(); i++) {
                KafkaProducerState.Slot slot = slots.get(i);
                String input = "the batches " + slots.subList(0, i + 1) + " recorded in this order";
                Judge.agree(input, "recording", () -> {
                    yours.record(KafkaProducerState.yours(slot));
                    return "recorded";
                }, "ProducerStateEntry.addBatch has", "recorded", "record(meta) remembers a batch that was just written");
                KafkaProducerState.add(kafka, slot);
                Judge.agree(input, "window", () -> KafkaProducerState.Window.of(yours).slots(),
                        "ProducerStateEntry.batchMetadata keeps", KafkaProducerState.Window.of(kafka).slots(),
                        "keep the newest five BATCHES, oldest first: when five are kept, the oldest goes before the new"
                                + " one is added");
                Judge.agree(input, "last timestamp", yours::lastTimestamp, "ProducerStateEntry.lastTimestamp is",
                        kafka.lastTimestamp(), "remember the newest batch's timestamp");
                Judge.agree(input, "next expected sequence", yours::expectedFirstSeq,
                        "ProducerAppendInfo accepts only", KafkaProducerState.expectedFirstSeq(kafka),
                        "one past the NEWEST batch's last sequence, and after Integer.MAX_VALUE comes 0");
            }
        });
    }
}
