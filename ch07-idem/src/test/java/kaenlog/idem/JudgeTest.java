package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 3: judge a batch before writing it: duplicate (exact range, same epoch), append, or out of order. */
@Order(3)
class JudgeTest {
    private static final short EPOCH = 0;
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final Verdict APPEND = new Verdict.Append();

    /**
     * A stand-in for a partition's idempotent append, log-free: judge first, and only on APPEND assign
     * offsets from the log end and remember the batch. Each batch gets its own timestamp so a duplicate
     * answer can be traced back to the batch it came from.
     */
    static final class FakePartition {
        final ProducerState state = new ProducerState();
        long logEndOffset;
        long clock = NOW_MS;

        Verdict send(long producerId, short epoch, int firstSeq, int lastSeq) {
            ProducerStateEntry entry = state.entry(producerId, epoch);
            Verdict verdict = Idempotence.judge(entry, epoch, firstSeq, lastSeq);
            if (verdict instanceof Verdict.Append) {
                int offsetDelta = lastSeq - firstSeq;
                long lastOffset = logEndOffset + offsetDelta;
                entry.record(new BatchMetadata(lastSeq, lastOffset, offsetDelta, clock));
                logEndOffset = lastOffset + 1;
                clock++;
            }
            return verdict;
        }

        Verdict send(int firstSeq, int lastSeq) {
            return send(1000L, EPOCH, firstSeq, lastSeq);
        }

        ProducerStateEntry entry() {
            return state.get(1000L).orElseThrow();
        }
    }

    /** pid 1000 after the demo's five batches 0..1, 2..3, 4..5, 6..6, 7..9 at offsets 0, 2, 4, 6, 7. */
    static FakePartition demoWindow() {
        FakePartition partition = new FakePartition();
        int[][] sent = {{0, 1}, {2, 3}, {4, 5}, {6, 6}, {7, 9}};
        for (int[] range : sent) {
            assertThat(partition.send(range[0], range[1]))
                    .as("sending %d..%d in order is APPEND", range[0], range[1])
                    .isEqualTo(APPEND);
        }
        return partition;
    }

    @Test
    void aNewProducerMayOnlyStartAtSequenceZero() {
        ProducerStateEntry fresh = new ProducerStateEntry(EPOCH);

        assertThat(Idempotence.judge(fresh, EPOCH, 0, 0))
                .as("a producer with no state expects sequence 0 (KIP-98), so 0..0 is APPEND")
                .isEqualTo(APPEND);
        assertThat(Idempotence.judge(fresh, EPOCH, 5, 5))
                .as("a producer with no state that starts at 5 skipped 0..4: OUT_OF_ORDER, expected 0 got 5")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(0, 5));
    }

    @Test
    void theBatchRightAfterTheNewestIsAppended() {
        FakePartition partition = demoWindow();

        assertThat(Idempotence.judge(partition.entry(), EPOCH, 10, 12))
                .as("after 7..9 a batch starting at 10 is the next in sequence: APPEND")
                .isEqualTo(APPEND);
        assertThat(Idempotence.judge(partition.entry(), EPOCH, 10, 10))
                .as("only firstSeq is checked against the sequence rule; the batch's length does not matter")
                .isEqualTo(APPEND);
    }

    @Test
    void aResentBatchIsADuplicateAnsweredWithTheOriginalOffsets() {
        FakePartition partition = demoWindow();

        assertThat(Idempotence.judge(partition.entry(), EPOCH, 7, 9))
                .as("7..9 is in the window with the same epoch: DUPLICATE, answered as success with the offsets "
                        + "and timestamp of the first write (7..9), not an error")
                .isEqualTo(new Verdict.Duplicate(7L, 9L, NOW_MS + 4));
    }

    @Test
    void anOlderBatchStillInTheWindowIsADuplicateOfThatBatch() {
        FakePartition partition = demoWindow();

        assertThat(Idempotence.judge(partition.entry(), EPOCH, 2, 3))
                .as("any of the five retained batches counts, not only the newest: 2..3 was written at "
                        + "offsets 2..3 with the second timestamp")
                .isEqualTo(new Verdict.Duplicate(2L, 3L, NOW_MS + 1));
        assertThat(Idempotence.judge(partition.entry(), EPOCH, 0, 1))
                .as("the oldest retained batch, 0..1, is still recognised")
                .isEqualTo(new Verdict.Duplicate(0L, 1L, NOW_MS));
    }

    @Test
    void theDuplicateCheckComesBeforeTheSequenceRule() {
        FakePartition partition = demoWindow();

        Verdict verdict = Idempotence.judge(partition.entry(), EPOCH, 6, 6);

        assertThat(verdict)
                .as("6..6 does not start at the expected 10, yet it is a DUPLICATE: the exact-range check runs "
                        + "first, otherwise every resend would look like a gap")
                .isEqualTo(new Verdict.Duplicate(6L, 6L, NOW_MS + 3));
    }

    @Test
    void aPartialOverlapIsOutOfOrderNotADuplicate() {
        FakePartition partition = demoWindow();

        assertThat(Idempotence.judge(partition.entry(), EPOCH, 7, 8))
                .as("7..8 only shares its start with the stored 7..9: the match must be exact, so it is "
                        + "OUT_OF_ORDER, expected 10 got 7")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 7));
        assertThat(Idempotence.judge(partition.entry(), EPOCH, 8, 9))
                .as("8..9 only shares its end with the stored 7..9: OUT_OF_ORDER, expected 10 got 8")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 8));
        assertThat(Idempotence.judge(partition.entry(), EPOCH, 6, 9))
                .as("6..9 merges the stored 6..6 and 7..9 into one batch: no stored batch has that exact "
                        + "range, so a producer that re-batches its resend gets OUT_OF_ORDER, expected 10 got 6")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 6));
    }

    @Test
    void theSameRangeUnderAnotherEpochIsNotADuplicate() {
        FakePartition partition = demoWindow();

        assertThat(Idempotence.judge(partition.entry(), (short) 1, 7, 9))
                .as("the window belongs to epoch 0; 7..9 from epoch 1 is not the same batch (Kafka's "
                        + "findDuplicateBatch checks the epoch first), and 7 is not the expected 10")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 7));
    }

    @Test
    void aGapIsOutOfOrderWithTheExpectedSequence() {
        FakePartition partition = demoWindow();

        Verdict verdict = partition.send(13, 13);

        assertThat(verdict)
                .as("the demo's gap: after 7..9 a batch starting at 13 skipped 10..12, a lost write, not a copy: "
                        + "OUT_OF_ORDER_SEQUENCE_NUMBER, expected 10 got 13")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 13));
        assertThat(partition.entry().window())
                .as("a rejected batch is not remembered")
                .isEqualTo("[0..1 2..3 4..5 6..6 7..9]");
    }

    @Test
    void aBatchThatFellOutOfTheWindowIsOutOfOrder() {
        FakePartition partition = demoWindow();
        for (int seq = 10; seq <= 14; seq++) {
            partition.send(seq, seq);
        }

        assertThat(partition.send(7, 9))
                .as("five newer batches pushed 7..9 out of the 5-batch window: its resend is no longer "
                        + "recognised and is OUT_OF_ORDER, expected 15 got 7")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(15, 7));
        assertThat(partition.send(14, 14))
                .as("14..14 is still in the window: DUPLICATE with its original offsets 14..14")
                .isEqualTo(new Verdict.Duplicate(14L, 14L, NOW_MS + 9));
    }

    @Test
    void theSequenceWrapsFromIntegerMaxValueToZero() {
        // Kafka's ProducerStateManagerTest.testProducerSequenceWrapAround / testProducerSequenceInvalidWrapAround.
        ProducerStateEntry entry = new ProducerStateEntry((short) 15);
        entry.record(new BatchMetadata(Integer.MAX_VALUE, 735L, 0, NOW_MS));

        assertThat(Idempotence.judge(entry, (short) 15, 0, 0))
                .as("after sequence Integer.MAX_VALUE the next in sequence is 0: APPEND")
                .isEqualTo(APPEND);
        assertThat(Idempotence.judge(entry, (short) 15, 1, 1))
                .as("after Integer.MAX_VALUE, sequence 1 skips 0: OUT_OF_ORDER, expected 0 got 1")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(0, 1));
        assertThat(Idempotence.judge(entry, (short) 15, Integer.MAX_VALUE, Integer.MAX_VALUE))
                .as("a resend of the batch at Integer.MAX_VALUE is a DUPLICATE at its offset 735")
                .isEqualTo(new Verdict.Duplicate(735L, 735L, NOW_MS));
    }

    @Test
    void aResendOfABatchThatStraddlesTheWrapIsADuplicate() {
        ProducerStateEntry entry = new ProducerStateEntry(EPOCH);
        // Four records with sequences MAX-1, MAX, 0, 1 at offsets 500..503.
        entry.record(new BatchMetadata(1, 503L, 3, NOW_MS));

        assertThat(Idempotence.judge(entry, EPOCH, Integer.MAX_VALUE - 1, 1))
                .as("the stored batch's firstSeq wraps back to Integer.MAX_VALUE - 1, so the resend of "
                        + "(MAX-1)..1 matches exactly: DUPLICATE at offsets 500..503")
                .isEqualTo(new Verdict.Duplicate(500L, 503L, NOW_MS));
        assertThat(Idempotence.judge(entry, EPOCH, 2, 4))
                .as("the next batch after one ending at sequence 1 starts at 2")
                .isEqualTo(APPEND);
    }

    @Test
    void interleavedProducersAreJudgedIndependently() {
        FakePartition partition = new FakePartition();

        assertThat(partition.send(1001L, EPOCH, 0, 0))
                .as("producer 1001 is new: its sequence starts at 0 whatever other producers did")
                .isEqualTo(APPEND);
        assertThat(partition.send(1000L, EPOCH, 0, 1))
                .as("producer 1000 is new too: one counter per producer (per partition), so 0 is APPEND again")
                .isEqualTo(APPEND);
        assertThat(partition.send(1001L, EPOCH, 1, 2))
                .as("producer 1001 continues at 1, unaffected by producer 1000's two records")
                .isEqualTo(APPEND);
        assertThat(partition.send(1000L, EPOCH, 0, 1))
                .as("producer 1000's resend of 0..1 is a duplicate of ITS batch at offsets 1..2")
                .isEqualTo(new Verdict.Duplicate(1L, 2L, NOW_MS + 1));
        assertThat(partition.send(1001L, EPOCH, 0, 0))
                .as("producer 1001's resend of 0..0 is a duplicate of ITS batch at offset 0")
                .isEqualTo(new Verdict.Duplicate(0L, 0L, NOW_MS));
        assertThat(partition.send(1000L, EPOCH, 3, 3))
                .as("producer 1000 expects 2 (after its own 0..1), not 3 (after 1001's 1..2)")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(2, 3));
        assertThat(partition.state.producerIds())
                .as("producer ids are listed in ascending order whatever order they arrived in")
                .containsExactly(1000L, 1001L);
        assertThat(partition.state.get(1002L))
                .as("a producer that never wrote has no entry")
                .isEmpty();
    }

    @Test
    void theDemoWalkThroughGivesTheChaptersNumbers() {
        FakePartition partition = demoWindow();
        assertThat(partition.entry().window())
                .as("the window after the five demo batches")
                .isEqualTo("[0..1 2..3 4..5 6..6 7..9]");
        assertThat(partition.logEndOffset)
                .as("10 records were written: log end offset 10")
                .isEqualTo(10L);

        Verdict ackLost = partition.send(7, 9);
        assertThat(ackLost)
                .as("ack lost, 7..9 resent: DUPLICATE with the original offsets 7..9 (base_offset 7)")
                .isEqualTo(new Verdict.Duplicate(7L, 9L, NOW_MS + 4));
        assertThat(partition.logEndOffset)
                .as("a duplicate writes nothing: the log end offset stays 10")
                .isEqualTo(10L);

        assertThat(partition.send(13, 13))
                .as("the gap: first_seq 13 -> OUT_OF_ORDER_SEQUENCE_NUMBER expected 10 got 13")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 13));
        assertThat(partition.logEndOffset)
                .as("an out-of-order batch writes nothing: the log end offset stays 10")
                .isEqualTo(10L);

        for (int seq = 10; seq <= 14; seq++) {
            assertThat(partition.send(seq, seq))
                    .as("%d..%d follows on: APPEND", seq, seq)
                    .isEqualTo(APPEND);
        }
        assertThat(partition.entry().window())
                .as("five single-record batches replaced the whole window")
                .isEqualTo("[10..10 11..11 12..12 13..13 14..14]");
        assertThat(partition.send(7, 9))
                .as("window overflow: 7..9 resent again -> OUT_OF_ORDER expected 15 got 7")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(15, 7));

        assertThat(partition.send(1001L, EPOCH, 0, 2))
                .as("a restarted process gets a new producer id: pid 1001 seq 0 with the same payload is APPEND")
                .isEqualTo(APPEND);
        assertThat(partition.state.get(1001L).orElseThrow().batches().get(0).firstOffset())
                .as("and it is written again, as new records, at base offset 15")
                .isEqualTo(15L);
    }

    // ---------------------------------------------------------------- Kafka judges: findDuplicateBatch and inSequence

    /** A producer's window (its history's newest five) and epoch, and a batch judged against it. */
    private record Case(List<KafkaProducerState.Slot> history, short entryEpoch, short epoch, int firstSeq, int lastSeq) {
        @Override
        public String toString() {
            return "the batch " + KafkaProducerState.range(firstSeq, lastSeq) + " of epoch " + epoch
                    + " from a producer of epoch " + entryEpoch + " that wrote " + history;
        }
    }

    private static final Gen<List<KafkaProducerState.Slot>> HISTORIES = KafkaProducerState.histories(9);
    private static final Gen<Integer> SMALL = Gens.ints(1, 5);
    private static final Gen<Integer> ANY_SEQUENCE = Gens.oneOf(Gens.ints(0, 20), Gens.ints(0, Integer.MAX_VALUE),
            Gens.ints(Integer.MAX_VALUE - 5, Integer.MAX_VALUE));

    /**
     * Batches of every kind against the window: the next one, a resend of any batch written (still
     * in the window or evicted), one that shares only its first or its last sequence with one, a gap,
     * any range (wrapping past Integer.MAX_VALUE too); mostly the producer's own epoch, now and then another.
     */
    private static Gen<Case> cases() {
        return c -> {
            short entryEpoch = KafkaProducerState.EPOCHS.generate(c);
            short epoch = c.oneIn(4) ? KafkaProducerState.EPOCHS.generate(c) : entryEpoch;
            int kind = c.belowInt(6);
            List<KafkaProducerState.Slot> history = HISTORIES.generate(c);
            int next = history.isEmpty() ? 0 : BatchHeaderNext.after(history.get(history.size() - 1).lastSeq());
            int first;
            int last;
            if (kind == 1 && !history.isEmpty()) { // a resend, exactly
                KafkaProducerState.Slot sent = history.get(c.belowInt(history.size()));
                first = Yours.firstSeq(sent);
                last = sent.lastSeq();
            } else if (kind == 2 && !history.isEmpty()) { // half an overlap
                KafkaProducerState.Slot sent = history.get(c.belowInt(history.size()));
                boolean sameFirst = c.oneIn(2);
                int shift = SMALL.generate(c);
                first = sameFirst ? Yours.firstSeq(sent) : BatchHeaderNext.plus(Yours.firstSeq(sent), shift);
                last = sameFirst ? BatchHeaderNext.plus(sent.lastSeq(), shift) : sent.lastSeq();
            } else if (kind == 3) { // a gap
                first = BatchHeaderNext.plus(next, SMALL.generate(c));
                last = BatchHeaderNext.plus(first, SMALL.generate(c) - 1);
            } else if (kind == 4) { // anything
                first = ANY_SEQUENCE.generate(c);
                last = BatchHeaderNext.plus(first, SMALL.generate(c) - 1);
            } else { // the next one
                first = next;
                last = BatchHeaderNext.plus(first, SMALL.generate(c) - 1);
            }
            return new Case(history, entryEpoch, epoch, first, last);
        };
    }

    /** Sequence arithmetic for the generator, Kafka's (DefaultRecordBatch.incrementSequence). */
    private static final class BatchHeaderNext {
        static int after(int seq) {
            return plus(seq, 1);
        }

        static int plus(int seq, int n) {
            return org.apache.kafka.common.record.DefaultRecordBatch.incrementSequence(seq, n);
        }
    }

    /** A slot's first sequence, Kafka's way (DefaultRecordBatch.decrementSequence). */
    private static final class Yours {
        static int firstSeq(KafkaProducerState.Slot slot) {
            return org.apache.kafka.common.record.DefaultRecordBatch.decrementSequence(slot.lastSeq(), slot.offsetDelta());
        }
    }

    @Test
    void everyVerdictIsKafkasProducerStateVerdict() {
        Property.forAll(cases()).check(k -> {
            ProducerStateEntry yours = new ProducerStateEntry(k.entryEpoch());
            org.apache.kafka.storage.internals.log.ProducerStateEntry kafka =
                    KafkaProducerState.entry(1000L, k.entryEpoch());
            for (KafkaProducerState.Slot slot : k.history()) {
                yours.record(KafkaProducerState.yours(slot));
                KafkaProducerState.add(kafka, slot);
            }
            Judge.agree(k.toString(), "verdict", () -> Idempotence.judge(yours, k.epoch(), k.firstSeq(), k.lastSeq()),
                    "ProducerStateEntry.findDuplicateBatch and ProducerAppendInfo give",
                    KafkaProducerState.verdict(kafka, k.epoch(), k.firstSeq(), k.lastSeq()),
                    "a retained batch with exactly this first AND last sequence, and the same epoch, is a duplicate"
                            + " answered with its offsets and timestamp; otherwise only firstSeq is compared with the"
                            + " expected sequence: equal is Append, anything else is out of order with (expected, got)");
        });
    }
}
