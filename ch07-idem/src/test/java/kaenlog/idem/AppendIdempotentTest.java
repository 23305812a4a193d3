package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.log.BatchTooLargeException;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 4: the idempotent append on a real chapter-3 log. Judge first, then write: a duplicate is
 * answered with the offsets of the first write and writes nothing; a gap writes nothing either.
 */
@Order(4)
class AppendIdempotentTest {
    private static final long PID = 1L;
    private static final short EPOCH = 0;
    private static final long NOW_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;
    Log log;
    ProducerState state;

    @BeforeEach
    void openLog() throws IOException {
        log = Log.open(dir.resolve("orders-0"), LogConfig.defaults());
        state = new ProducerState();
    }

    @AfterEach
    void closeLog() throws IOException {
        log.close();
    }

    /** Sends records with sequences first..last from producer {@code pid}, stamped {@code nowMs}. */
    IdempotentAppend send(long pid, short epoch, int first, int last, long nowMs) throws IOException {
        List<String> values = new ArrayList<>();
        for (int s = first; s <= last; s++) {
            values.add("value-" + s);
        }
        return Idempotence.appendIdempotent(log, state, Idempotence.producerBatch(pid, epoch, first, values, nowMs));
    }

    IdempotentAppend send(int first, int last) throws IOException {
        return send(PID, EPOCH, first, last, NOW_MS);
    }

    @Test
    void aNewProducersFirstBatchIsAppendedAtTheLogEnd() throws IOException {
        IdempotentAppend result = send(0, 2);

        assertThat(result.verdict())
                .as("a new producer's batch 0..2 starts at the expected sequence 0: APPEND")
                .isEqualTo(new Verdict.Append());
        assertThat(result.baseOffset())
                .as("on an empty log the leader gives the batch offsets 0..2 (base 0)")
                .isEqualTo(0L);
        assertThat(result.lastOffset())
                .as("three records: last offset 2")
                .isEqualTo(2L);
        assertThat(log.logEndOffset())
                .as("an APPEND writes: the log end offset moves to 3")
                .isEqualTo(3L);
        assertThat(state.get(PID).orElseThrow().window())
                .as("after the write the window remembers the batch 0..2")
                .isEqualTo("[0..2]");
    }

    @Test
    void aDuplicateIsAnsweredWithTheOriginalOffsetsAndWritesNothing() throws IOException {
        // Kafka's UnifiedLogTest.testDuplicateAppends: six single records, then one batch of three.
        for (int seq = 0; seq <= 5; seq++) {
            send(seq, seq);
        }
        IdempotentAppend first = send(6, 8);
        long leo = log.logEndOffset();
        int bytes = log.activeSegment().size();

        IdempotentAppend again = send(6, 8);

        assertThat(again.verdict())
                .as("6..8 is in the window with the same epoch: DUPLICATE with the first write's offsets 6..8")
                .isEqualTo(new Verdict.Duplicate(6L, 8L, NOW_MS));
        assertThat(again.baseOffset())
                .as("the answer's base offset is the first write's (%d), as if the ack had never been lost",
                        first.baseOffset())
                .isEqualTo(first.baseOffset());
        assertThat(again.lastOffset())
                .as("and so is its last offset")
                .isEqualTo(first.lastOffset());
        assertThat(log.logEndOffset())
                .as("judge first, then write: a duplicate writes nothing, the log end offset stays %d", leo)
                .isEqualTo(leo);
        assertThat(log.activeSegment().size())
                .as("not a byte was added to the segment")
                .isEqualTo(bytes);
        assertThat(again.succeeded())
                .as("a duplicate is a success for the producer, not an error")
                .isTrue();
    }

    @Test
    void theDuplicateAnswerCarriesTheFirstWritesTimestamp() throws IOException {
        send(PID, EPOCH, 0, 1, NOW_MS);

        IdempotentAppend resent = send(PID, EPOCH, 0, 1, NOW_MS + 5_000);

        assertThat(resent.verdict())
                .as("the resend 5 s later is answered with the FIRST write's timestamp (Kafka's UnifiedLog sets "
                        + "logAppendTime from the duplicate's BatchMetadata), not the resend's")
                .isEqualTo(new Verdict.Duplicate(0L, 1L, NOW_MS));
    }

    @Test
    void anOlderBatchStillInTheWindowIsADuplicateButOneThatLeftIsOutOfOrder() throws IOException {
        // testDuplicateAppends goes on: a duplicate of an older entry, then one older than the last five.
        for (int seq = 0; seq <= 5; seq++) {
            send(seq, seq);
        }
        send(6, 8);
        send(9, 9);

        assertThat(send(6, 8).verdict())
                .as("6..8 is no longer the newest batch but still one of the five kept: DUPLICATE at 6..8")
                .isEqualTo(new Verdict.Duplicate(6L, 8L, NOW_MS));
        assertThat(send(2, 2).verdict())
                .as("2..2 was pushed out by 3, 4, 5, 6..8 and 9: no longer recognised, so it is judged by the "
                        + "sequence rule: OUT_OF_ORDER, expected 10 got 2")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(10, 2));
        assertThat(log.logEndOffset())
                .as("neither resend wrote anything: LEO stays 10")
                .isEqualTo(10L);
    }

    @Test
    void aGapWritesNothingAndLeavesTheStateAlone() throws IOException {
        // Kafka's UnifiedLogTest.testNonSequentialAppend: sequence 0, then 2.
        send(0, 0);

        IdempotentAppend gap = send(2, 2);

        assertThat(gap.verdict())
                .as("after 0..0 a batch starting at 2 skipped sequence 1: OUT_OF_ORDER, expected 1 got 2")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(1, 2));
        assertThat(gap.baseOffset())
                .as("nothing was written, so there is no offset to answer: -1")
                .isEqualTo(-1L);
        assertThat(gap.succeeded())
                .as("a gap is an error the producer must hear about")
                .isFalse();
        assertThat(log.logEndOffset())
                .as("the gap wrote nothing: LEO stays 1")
                .isEqualTo(1L);
        assertThat(send(1, 1).verdict())
                .as("the rejected batch did not become the 'last sequence': 1 is still the one expected")
                .isEqualTo(new Verdict.Append());
    }

    @Test
    void aRejectedFirstBatchLeavesNoStateBehind() throws IOException {
        IdempotentAppend result = send(5, 5);

        assertThat(result.verdict())
                .as("kaen-log: a producer it has no state for must start at sequence 0 (Kafka 4.1 would accept "
                        + "any sequence here, KIP-360): OUT_OF_ORDER, expected 0 got 5")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(0, 5));
        assertThat(state.get(PID))
                .as("a rejected batch creates no entry: the state only remembers what the log holds")
                .isEmpty();
    }

    @Test
    void theWindowRemembersTheOffsetsTheLeaderAssigned() throws IOException {
        ByteBuffer plain = new BatchBuilder().append(NOW_MS, "k", "not idempotent").build();
        log.append(plain);
        send(2000L, EPOCH, 0, 0, NOW_MS);
        send(0, 1);
        send(2000L, EPOCH, 1, 1, NOW_MS);

        assertThat(state.get(PID).orElseThrow().batches())
                .as("producer 1's batch 0..1 landed at offsets 2..3 (after a plain batch and producer 2000's): "
                        + "lastOffset is the log's offset, not the sequence")
                .containsExactly(new BatchMetadata(1, 3L, 1, NOW_MS));
        assertThat(state.get(2000L).orElseThrow().batches())
                .as("producer 2000 has its own window: 0..0 at offset 1, 1..1 at offset 4")
                .containsExactly(new BatchMetadata(0, 1L, 0, NOW_MS), new BatchMetadata(1, 4L, 0, NOW_MS));
    }

    @Test
    void aBatchWithoutAProducerIdIsAppendedUnjudged() throws IOException {
        ByteBuffer plain = new BatchBuilder().append(NOW_MS, "k", "v").build();

        IdempotentAppend first = Idempotence.appendIdempotent(log, state, plain.duplicate());
        IdempotentAppend second = Idempotence.appendIdempotent(log, state, plain.duplicate());

        assertThat(List.of(first.baseOffset(), second.baseOffset()))
                .as("producerId -1 means no idempotent producer wrote the batch: nothing to dedup, both copies "
                        + "are written (at 0 and 1), as in chapter 3")
                .containsExactly(0L, 1L);
        assertThat(state.producerIds())
                .as("and no producer state is created for producer id -1")
                .isEmpty();
    }

    @Test
    void epochsAreComparedOnlyToRecogniseADuplicate() throws IOException {
        send(PID, EPOCH, 0, 1, NOW_MS);

        IdempotentAppend otherEpoch = send(PID, (short) 1, 0, 1, NOW_MS);
        assertThat(otherEpoch.verdict())
                .as("0..1 under epoch 1 is not the batch 0..1 of epoch 0, and 0 is not the expected 2: OUT_OF_ORDER "
                        + "(Kafka would accept a new epoch at sequence 0 and reset the window; kaen-log has no fencing)")
                .isEqualTo(new Verdict.OutOfOrderSequenceNumber(2, 0));

        IdempotentAppend next = send(PID, (short) 1, 2, 2, NOW_MS);
        assertThat(next.verdict())
                .as("epoch 1 continuing at the expected 2 is APPEND: kaen-log uses the epoch only in the duplicate check")
                .isEqualTo(new Verdict.Append());
        assertThat(state.get(PID).orElseThrow().producerEpoch())
                .as("the entry takes the epoch of the batch it just wrote, as the restart scan would")
                .isEqualTo((short) 1);
        assertThat(send(PID, (short) 1, 2, 2, NOW_MS).verdict())
                .as("so a resend of that epoch-1 batch is a DUPLICATE at offset 2")
                .isEqualTo(new Verdict.Duplicate(2L, 2L, NOW_MS));
    }

    @Test
    void aCorruptBatchIsRefusedBeforeAnythingIsJudgedOrWritten() throws IOException {
        ByteBuffer batch = Idempotence.producerBatch(PID, EPOCH, 0, List.of("v"), NOW_MS);
        batch.put(batch.limit() - 1, (byte) (batch.get(batch.limit() - 1) ^ 1));

        assertThatThrownBy(() -> Idempotence.appendIdempotent(log, state, batch))
                .as("a flipped byte fails the CRC: the batch is refused as corrupt, not judged")
                .isInstanceOf(CorruptBatchException.class);
        assertThat(log.logEndOffset())
                .as("nothing was written")
                .isEqualTo(0L);
        assertThat(state.isEmpty())
                .as("and nothing was remembered")
                .isTrue();
    }

    @Test
    void aCorruptResendOfABatchStillInTheWindowIsRefusedNotAnsweredDuplicate() throws IOException {
        send(0, 1);
        long leo = log.logEndOffset();
        ByteBuffer resend = Idempotence.producerBatch(PID, EPOCH, 0, List.of("value-0", "value-1"), NOW_MS);
        resend.put(resend.limit() - 1, (byte) (resend.get(resend.limit() - 1) ^ 1));

        Throwable refused = catchThrowable(() -> Idempotence.appendIdempotent(log, state, resend));

        assertThat(refused)
                .as("0..1 is in the window, but this resend had a byte flipped on the way: a batch is validated before "
                        + "it is judged (RecordBatch.validate checks the CRC), so it is refused as corrupt, never "
                        + "answered DUPLICATE; a duplicate never reaches the log's own check")
                .isInstanceOf(CorruptBatchException.class);
        assertThat(log.logEndOffset())
                .as("the corrupt resend wrote nothing: LEO stays %d", leo)
                .isEqualTo(leo);
        assertThat(state.get(PID).orElseThrow().window())
                .as("and the window is unchanged")
                .isEqualTo("[0..1]");
    }

    @Test
    void aBatchTheLogRefusesAfterTheVerdictLeavesNoPhantomInTheWindow() throws IOException {
        try (Log small = Log.open(dir.resolve("small-0"), LogConfig.defaults().withSegmentBytes(256))) {
            Idempotence.appendIdempotent(small, state, wideBatch(0, 0));

            assertThat(catchThrowable(() -> Idempotence.appendIdempotent(small, state, wideBatch(1, 10))))
                    .as("ten records of 40 bytes are more than segment.bytes 256: the log refuses the batch after "
                            + "it was judged APPEND")
                    .isInstanceOf(BatchTooLargeException.class);
            assertThat(state.get(PID).orElseThrow().window())
                    .as("the log appends the batch; then, and only then, the window remembers it: a write that "
                            + "failed must leave no phantom 1..10 behind")
                    .isEqualTo("[0..0]");
            assertThat(catchThrowable(() -> Idempotence.appendIdempotent(small, state, wideBatch(1, 10))))
                    .as("so its retry is judged APPEND again and refused again by the log, never answered DUPLICATE "
                            + "with offsets the log never wrote (the window is recorded only then, after the write)")
                    .isInstanceOf(BatchTooLargeException.class);
            assertThat(Idempotence.appendIdempotent(small, state, wideBatch(1, 1)).verdict())
                    .as("and the producer that splits it carries on at the expected 1: APPEND")
                    .isEqualTo(new Verdict.Append());
            assertThat(small.logEndOffset())
                    .as("the log holds 0..0 and 1..1: LEO 2")
                    .isEqualTo(2L);
        }
    }

    /** Producer 1's records first..last, 40 bytes of value each. */
    static ByteBuffer wideBatch(int first, int last) {
        List<String> values = new ArrayList<>();
        for (int s = first; s <= last; s++) {
            values.add(String.format("%-40s", "value-" + s));
        }
        return Idempotence.producerBatch(PID, EPOCH, first, values, NOW_MS);
    }

    @Test
    void theLastSequenceComesFromTheHeaderAndWrapsPastIntegerMaxValue() throws IOException {
        // Kafka's ProducerStateManagerTest.testProducerSequenceWrapAround, on a log.
        ProducerStateEntry entry = state.entry(PID, EPOCH);
        entry.record(new BatchMetadata(Integer.MAX_VALUE - 2, 0L, 0, NOW_MS));
        log.append(new BatchBuilder().append(NOW_MS, "pad", "pad").build());

        IdempotentAppend straddling = Idempotence.appendIdempotent(log, state,
                Idempotence.producerBatch(PID, EPOCH, Integer.MAX_VALUE - 1, List.of("a", "b", "c", "d"), NOW_MS));

        assertThat(straddling.verdict())
                .as("MAX-1 follows MAX-2: APPEND")
                .isEqualTo(new Verdict.Append());
        assertThat(state.get(PID).orElseThrow().expectedFirstSeq())
                .as("four records from MAX-1 carry MAX-1, MAX, 0, 1 (the header's baseSequence + lastOffsetDelta, "
                        + "wrapping like Kafka's incrementSequence): the next expected is 2")
                .isEqualTo(2);
        assertThat(Idempotence.appendIdempotent(log, state, Idempotence.producerBatch(PID, EPOCH,
                Integer.MAX_VALUE - 1, List.of("a", "b", "c", "d"), NOW_MS)).verdict())
                .as("its resend is a DUPLICATE at offsets 1..4")
                .isEqualTo(new Verdict.Duplicate(1L, 4L, NOW_MS));
        assertThat(BatchHeader.incrementSequence(Integer.MAX_VALUE, 1))
                .as("chapter 1's sequence arithmetic: after MAX comes 0")
                .isZero();
    }

    // ---------------------------------------------------------------- Kafka judges: random walks of a partition

    /**
     * One step a partition sees: a producer's batch (the next one, a resend of one it sent, a gap, any
     * sequence), a plain batch without a producer id, or a batch damaged on the way.
     */
    private record Step(String kind, long pid, short epoch, int firstSeq, int count, long nowMs) {
        int lastSeq() {
            return BatchHeader.incrementSequence(firstSeq, count - 1);
        }

        /** The batch's records are stamped nowMs - i (the first is the newest): baseTimestamp is not maxTimestamp. */
        ByteBuffer batch() {
            BatchBuilder builder = new BatchBuilder();
            if (!kind.equals("plain")) {
                builder.producer(pid, epoch, firstSeq);
            }
            for (int i = 0; i < count; i++) {
                builder.append(nowMs - (count - 1 - i) * 1000L, null, "v" + i);
            }
            ByteBuffer batch = builder.build();
            if (kind.equals("damaged")) {
                batch.put(batch.limit() - 1, (byte) (batch.get(batch.limit() - 1) ^ 1));
            }
            return batch;
        }

        @Override
        public String toString() {
            return kind.equals("plain") ? "a plain batch of " + count : (kind.equals("damaged") ? "a damaged " : "")
                    + "pid " + pid + " epoch " + epoch + " " + KafkaProducerState.range(firstSeq, lastSeq()) + " at "
                    + nowMs;
        }
    }

    /** A walk: the producers' windows before it (some producers known, near the wrap or not) and its steps. */
    private record Walk(java.util.Map<Long, List<KafkaProducerState.Slot>> known, short[] epochs, List<Step> steps) {
        @Override
        public String toString() {
            return "known windows " + known + ", then " + steps;
        }
    }

    private static final long[] PIDS = {1000L, 1001L, 1002L};
    private static final Gen<List<KafkaProducerState.Slot>> KNOWN = KafkaProducerState.histories(7);
    private static final Gen<Integer> STEPS = Gens.ints(1, 14);
    private static final Gen<Integer> COUNTS = Gens.oneOf(Gens.constant(1), Gens.ints(1, 4));
    private static final Gen<Integer> ANY_SEQUENCE = Gens.oneOf(Gens.ints(0, 20),
            Gens.ints(Integer.MAX_VALUE - 5, Integer.MAX_VALUE));

    /**
     * Walks of up to 14 steps over three producers, each new or already known (its window preloaded,
     * as chapter 7's rebuild would leave it, sequences near Integer.MAX_VALUE included). The generator
     * keeps its own rough count of what each producer sent, only to aim its resends and gaps.
     */
    private static Gen<Walk> walks() {
        return c -> {
            java.util.Map<Long, List<KafkaProducerState.Slot>> known = new java.util.TreeMap<>();
            short[] epochs = new short[PIDS.length];
            java.util.Map<Long, List<int[]>> sent = new java.util.HashMap<>();
            java.util.Map<Long, Integer> next = new java.util.HashMap<>();
            for (int p = 0; p < PIDS.length; p++) {
                epochs[p] = (short) c.belowInt(3);
                List<int[]> mine = new ArrayList<>();
                int seq = 0;
                if (c.oneIn(3)) {
                    List<KafkaProducerState.Slot> history = KNOWN.generate(c);
                    known.put(PIDS[p], history);
                    for (KafkaProducerState.Slot slot : history) {
                        mine.add(new int[] {org.apache.kafka.common.record.DefaultRecordBatch.decrementSequence(
                                slot.lastSeq(), slot.offsetDelta()), slot.offsetDelta() + 1});
                        seq = BatchHeader.incrementSequence(slot.lastSeq(), 1);
                    }
                }
                sent.put(PIDS[p], mine);
                next.put(PIDS[p], seq);
            }
            List<Step> steps = new ArrayList<>();
            int n = STEPS.generate(c);
            for (int i = 0; i < n; i++) {
                int p = c.belowInt(PIDS.length);
                long pid = PIDS[p];
                if (c.oneIn(8)) {
                    epochs[p]++;
                }
                int kind = c.belowInt(7);
                int count = COUNTS.generate(c);
                int first = next.get(pid);
                List<int[]> mine = sent.get(pid);
                String name = "batch";
                if (kind == 1 && !mine.isEmpty()) { // a resend
                    int[] earlier = mine.get(c.belowInt(mine.size()));
                    first = earlier[0];
                    count = earlier[1];
                } else if (kind == 2) { // a gap
                    first = BatchHeader.incrementSequence(first, COUNTS.generate(c));
                } else if (kind == 3) { // anything
                    first = ANY_SEQUENCE.generate(c);
                } else if (kind == 4) {
                    name = "plain";
                } else if (kind == 5) {
                    name = "damaged";
                }
                Step step = new Step(name, pid, epochs[p], first, count, NOW_MS + i);
                steps.add(step);
                if (name.equals("batch") && first == next.get(pid)) {
                    mine.add(new int[] {first, count});
                    next.put(pid, BatchHeader.incrementSequence(step.lastSeq(), 1));
                }
            }
            return new Walk(known, epochs, steps);
        };
    }

    /** What a step is answered: the verdict and the offsets. */
    private record Answer(Verdict verdict, long baseOffset, long lastOffset) {
    }

    @Test
    void everyWalkIsAnsweredAsKafkasProducerStateAndUnifiedLogAnswer() {
        Property.forAll(walks()).tries(60).shrinkBudget(300).check(walk -> {
            // One log for every walk (a fresh producer state each): a walk starts where the last left the log end.
            Log walked = log;
            ProducerState yours = new ProducerState();
            java.util.Map<Long, org.apache.kafka.storage.internals.log.ProducerStateEntry> kafka =
                    new java.util.HashMap<>();
            walk.known().forEach((pid, history) -> {
                ProducerStateEntry entry = yours.entry(pid, (short) 0);
                org.apache.kafka.storage.internals.log.ProducerStateEntry theirs = KafkaProducerState.entry(pid,
                        (short) 0);
                history.forEach(slot -> {
                    entry.record(KafkaProducerState.yours(slot));
                    KafkaProducerState.add(theirs, slot);
                });
                kafka.put(pid, theirs);
            });
            long logEnd = walked.logEndOffset();
            for (int i = 0; i < walk.steps().size(); i++) {
                Step step = walk.steps().get(i);
                String input = "step " + (i + 1) + ", " + step + ", of " + walk;
                Judge.Outcome answer = Judge.Outcome.of(() -> {
                    IdempotentAppend a = Idempotence.appendIdempotent(walked, yours, step.batch());
                    return new Answer(a.verdict(), a.baseOffset(), a.lastOffset());
                });
                Judge.Outcome expected;
                if (step.kind().equals("damaged")) {
                    expected = Judge.Outcome.of(() -> {
                        throw new CorruptBatchException("crc", 17, "a damaged batch is refused before it is judged");
                    });
                } else if (step.kind().equals("plain")) {
                    long base = logEnd;
                    expected = Judge.Outcome.of(() -> new Answer(new Verdict.Append(), base, base + step.count() - 1));
                    logEnd += step.count();
                } else {
                    org.apache.kafka.storage.internals.log.ProducerStateEntry entry = kafka.getOrDefault(step.pid(),
                            KafkaProducerState.entry(step.pid(), step.epoch()));
                    Verdict verdict = KafkaProducerState.verdict(entry, step.epoch(), step.firstSeq(), step.lastSeq());
                    long base = logEnd;
                    long last = logEnd + step.count() - 1;
                    Answer kafkas = verdict instanceof Verdict.Duplicate d ? new Answer(d, d.firstOffset(),
                            d.lastOffset()) : verdict instanceof Verdict.Append ? new Answer(verdict, base, last)
                            : new Answer(verdict, -1, -1);
                    expected = Judge.Outcome.of(() -> kafkas);
                    if (verdict instanceof Verdict.Append) {
                        entry = KafkaProducerState.withEpoch(entry, step.epoch());
                        // ProducerAppendInfo takes the batch's maxTimestamp, as kafka-clients reads it
                        long maxTimestamp = org.apache.kafka.common.record.MemoryRecords.readableRecords(step.batch())
                                .batches().iterator().next().maxTimestamp();
                        KafkaProducerState.add(entry, new KafkaProducerState.Slot(step.lastSeq(), last,
                                step.count() - 1, maxTimestamp));
                        kafka.put(step.pid(), entry);
                        logEnd += step.count();
                    }
                }
                Judge.agree(input, "answer", answer, "UnifiedLog, with Kafka's ProducerStateEntry and"
                        + " ProducerAppendInfo, answers", expected, "validate first, then judge, then write: a"
                        + " duplicate is answered with the first write's offsets and writes nothing, a gap writes"
                        + " nothing, a batch without a producer id is a plain append");
                if (answer.refused()) {
                    assertThat(answer.refusal())
                            .as("for %s you refused with %s: a damaged batch is a CorruptBatchException", input, answer)
                            .isInstanceOf(CorruptBatchException.class);
                }
                Judge.agree(input, "log end offset", walked.logEndOffset(), "log, judged first, ends at", logEnd,
                        "only an APPEND writes");
                for (long pid : PIDS) {
                    org.apache.kafka.storage.internals.log.ProducerStateEntry theirs = kafka.get(pid);
                    Judge.agree(input, "state of producer " + pid, yours.get(pid).map(KafkaProducerState.Window::of)
                            .map(Object::toString).orElse("none"), "ProducerStateEntry holds", theirs == null ? "none"
                            : KafkaProducerState.Window.of(theirs).toString(), "the window remembers a batch only"
                                    + " after the log wrote it, with the offsets the log assigned and the epoch it"
                                    + " carried; a rejected first batch leaves no entry");
                }
            }
        });
    }
}
