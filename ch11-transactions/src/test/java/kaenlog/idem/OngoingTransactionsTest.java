package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 8: the transactions open on a partition and the last stable offset. A producer's first
 * transactional batch opens its transaction at that batch's offset, its marker ends it; the last
 * stable offset is the first offset of the oldest transaction not yet stable (open, or ended by a
 * marker the high watermark has not passed), never above the high watermark, never below the log
 * start. Kafka 4.1.1's {@code ProducerStateManager} judges it over random appends.
 */
@Order(8)
class OngoingTransactionsTest {
    private static final long A = 1000;
    private static final long B = 2000;

    @TempDir
    Path dir;

    @Test
    void aTransactionalBatchOpensItsProducersTransactionAtItsFirstOffsetAndLaterBatchesDoNotMoveIt() {
        OngoingTransactions txns = new OngoingTransactions();
        txns.appendData(A, 5);
        txns.appendData(A, 9);
        assertThat(txns.openTransactionOf(A)).as("the transaction began at its first batch, offset 5; a later batch of"
                + " the same transaction does not move its start").hasValue(5);
        assertThat(txns.lastStableOffset(0, 20)).as("with the transaction open from 5 and the high watermark at 20, a"
                + " read_committed consumer may read only below 5").isEqualTo(5);
    }

    @Test
    void theLastStableOffsetIsTheOldestOpenTransactionsFirstOffsetNeverAboveTheHighWatermark() {
        OngoingTransactions txns = new OngoingTransactions();
        assertThat(txns.lastStableOffset(0, 7)).as("no transaction open: the last stable offset is the high watermark")
                .isEqualTo(7);
        txns.appendData(B, 12);
        txns.appendData(A, 10);
        assertThat(txns.lastStableOffset(0, 30)).as("two transactions open, from 12 and from 10: the oldest holds the"
                + " last stable offset back").isEqualTo(10);
        assertThat(txns.lastStableOffset(0, 8)).as("the high watermark at 8, below every open transaction: the last"
                + " stable offset is never above the high watermark").isEqualTo(8);
        assertThat(txns.lastStableOffset(11, 30)).as("the log start moved to 11 past the oldest transaction's start:"
                + " the last stable offset is never below the log start").isEqualTo(11);
    }

    @Test
    void aMarkerEndsTheTransactionWithTheLastStableOffsetOfThatMoment() {
        OngoingTransactions txns = new OngoingTransactions();
        txns.appendData(A, 3);
        txns.appendData(B, 6);
        Optional<CompletedTxn> aborted = txns.appendMarker(A, 9, true);
        assertThat(aborted).as("A's ABORT at 9 ends A's transaction, begun at 3; B's transaction, begun at 6, is still"
                + " open then, so the last stable offset of that moment is 6")
                .contains(new CompletedTxn(A, 3, 9, true, 6));
        Optional<CompletedTxn> committed = txns.appendMarker(B, 10, false);
        assertThat(committed).as("B's COMMIT at 10 ends B's transaction; no other producer's transaction is open, so the"
                + " last stable offset of that moment is the offset after the marker")
                .contains(new CompletedTxn(B, 6, 10, false, 11));
        assertThat(txns.openTransactionOf(A)).as("A has no transaction open any more").isEmpty();
    }

    @Test
    void aMarkerWithNoTransactionOpenEndsNothing() {
        OngoingTransactions txns = new OngoingTransactions();
        assertThat(txns.appendMarker(A, 4, true)).as("a marker for a producer with no transaction open on this partition"
                + " completes nothing (Kafka's appendEndTxnMarker)").isEmpty();
        txns.appendData(A, 5);
        txns.appendMarker(A, 6, false);
        assertThat(txns.appendMarker(A, 7, true)).as("a second marker after the transaction ended ends nothing either")
                .isEmpty();
    }

    @Test
    void anEndedTransactionHoldsTheLastStableOffsetUntilTheHighWatermarkPassesItsMarker() {
        OngoingTransactions txns = new OngoingTransactions();
        txns.appendData(A, 4);
        txns.appendMarker(A, 8, false);
        assertThat(txns.lastStableOffset(0, 6)).as("the marker at 8 is not below the high watermark 6 yet: a replica"
                + " may still lose it, so the transaction is not stable and holds the last stable offset at its start 4")
                .isEqualTo(4);
        assertThat(txns.lastStableOffset(0, 9)).as("the high watermark passed the marker: the transaction is stable,"
                + " the last stable offset is the high watermark").isEqualTo(9);
        assertThat(txns.isEmpty()).as("and it is forgotten").isTrue();
    }

    /** One step of a partition's life. */
    sealed interface Step {
    }

    /** A transactional batch of {@code count} records of producer {@code producer}. */
    record Data(long producer, int count) implements Step {
    }

    record Marker(long producer, boolean abort) implements Step {
    }

    /** The high watermark moves to {@code back} offsets below the log end (never back). */
    record HighWatermark(int back) implements Step {
    }

    static Gen<Step> steps() {
        Gen<Long> producers = Gens.elements(A, B, 3000L);
        return c -> switch (Gens.ints(0, 9).generate(c)) {
            case 0, 1, 2, 3 -> new Data(producers.generate(c), Gens.ints(1, 3).generate(c));
            case 4, 5 -> new Marker(producers.generate(c), false);
            case 6, 7 -> new Marker(producers.generate(c), true);
            default -> new HighWatermark(Gens.ints(0, 4).generate(c));
        };
    }

    @Test
    void kafkasProducerStateAgreesOnEveryCompletedTransactionAndEveryLastStableOffset() {
        Property.forAll(Gens.lists(steps(), 1, 40)).tries(150).check(steps -> {
            KafkaProducerState kafka = new KafkaProducerState(dir);
            OngoingTransactions ours = new OngoingTransactions();
            Map<Long, Integer> sequences = new HashMap<>();
            long next = 0;
            long highWatermark = 0;
            List<Step> done = new ArrayList<>();
            for (Step step : steps) {
                done.add(step);
                String input = "the steps " + done;
                if (step instanceof Data data) {
                    int sequence = sequences.merge(data.producer(), data.count(), Integer::sum) - data.count();
                    kafka.append(KafkaProducerState.dataBatch(data.producer(), sequence, next, data.count()));
                    long at = next;
                    Judge.agree(input, "answer", (Judge.ThrowingSupplier<?>) () -> {
                        ours.appendData(data.producer(), at);
                        return "written";
                    }, "ProducerAppendInfo.appendDataBatch", "written", "a transactional batch opens its producer's"
                            + " transaction");
                    next += data.count();
                } else if (step instanceof Marker marker) {
                    Optional<CompletedTxn> kafkas = kafka.append(KafkaProducerState.markerBatch(marker.producer(), next,
                            marker.abort()));
                    long at = next;
                    Judge.agree(input, "completed transaction", (Judge.ThrowingSupplier<?>) () -> ours.appendMarker(marker.producer(), at,
                                    marker.abort()), "ProducerAppendInfo.appendEndTxnMarker and"
                                    + " ProducerStateManager.lastStableOffset(completedTxn) give", kafkas,
                            "a marker ends its producer's open transaction (none open: nothing); the last stable offset"
                                    + " of that moment is the oldest other open transaction's first offset, else the"
                                    + " offset after the marker");
                    next++;
                } else if (step instanceof HighWatermark hw) {
                    highWatermark = Math.max(highWatermark, next - hw.back());
                }
                long at = highWatermark;
                Judge.agree(input + " with the high watermark at " + at, "last stable offset",
                        (Judge.ThrowingSupplier<?>) () -> ours.lastStableOffset(0, at), "UnifiedLog.lastStableOffset over"
                                + " ProducerStateManager.firstUnstableOffset gives", kafka.lastStableOffset(0, at),
                        "the first offset of the oldest transaction open or ended by a marker not yet below the high"
                                + " watermark, never above the high watermark");
            }
        });
    }
}
