package kaenlog.broker;

import static kaenlog.log.LogFixtures.T0;
import static kaenlog.log.LogFixtures.builder;
import static kaenlog.log.LogFixtures.bytesOf;
import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.log.LogConfig;
import kaenlog.log.LogFixtures;
import kaenlog.log.LogGens;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.Hex;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 7: the produce path. The leader appends the producer's batch and assigns its offsets; acks
 * only decides when the producer is answered: acks=0 never (the future completes, the broker sends
 * nothing), acks=1 after the leader's own append, acks=all once the {@link ReplicaGate} says enough
 * replicas hold the batch (at once with one replica). "acks changes when you are answered, never
 * what is written." Time is a number: an acks=all produce that waits past its timeout is answered
 * REQUEST_TIMED_OUT by {@code tick(nowMs)}. A future is looked at only once it is done: {@code
 * join()} on one that is not would wait forever, as nothing but this thread can complete it.
 */
@Order(7)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProduceTest {
    private static final String NAME = "orders-0";
    private static final int TIMEOUT_MS = 1_000;
    /** Why an acks=1 answer must be there as soon as produce returns. */
    private static final String ACKS_ONE_AT_ONCE = "acks=1 is answered as soon as the leader has appended: the future"
            + " produce returns is done (a partition answers on the caller's thread, so one that is not done now never"
            + " will be)";

    @TempDir
    Path dir;

    private Partition open(String sub) throws IOException {
        return Partition.open(NAME, dir.resolve(sub), LogConfig.defaults());
    }

    private static ProduceRequest request(short acks, ByteBuffer records) {
        return new ProduceRequest(NAME, acks, TIMEOUT_MS, records);
    }

    private static long logEnd(Partition partition) throws IOException {
        return partition.locked(log -> log.logEndOffset());
    }

    private static byte[] segmentBytes(Partition partition) throws IOException {
        return Files.readAllBytes(partition.locked(log -> log.activeSegment().logFile()));
    }

    private interface ProduceCall {
        CompletableFuture<ProduceResponse> run() throws IOException;
    }

    /** A produce that must give an answer, not an exception: the failure says which rule and why. */
    private static CompletableFuture<ProduceResponse> answered(ProduceCall call, String why) {
        AtomicReference<CompletableFuture<ProduceResponse>> answer = new AtomicReference<>();
        assertThatCode(() -> answer.set(call.run())).as(why).doesNotThrowAnyException();
        return answer.get();
    }

    @Test
    void acksChangesWhenYouAreAnsweredNeverWhatIsWritten() throws IOException {
        short[] acksValues = {ProduceRequest.ACKS_NONE, ProduceRequest.ACKS_LEADER, ProduceRequest.ACKS_ALL};
        List<byte[]> files = new ArrayList<>();
        List<List<ProduceResponse>> answers = new ArrayList<>();
        for (short acks : acksValues) {
            try (Partition partition = open("acks" + acks)) {
                List<ProduceResponse> responses = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    CompletableFuture<ProduceResponse> answer = partition.produce(request(acks,
                            builder("p" + i, i + 1).build(500 + i)), T0 + i);
                    assertThat(answer)
                            .as("acks=%d with one replica: the answer is ready as soon as the leader has appended"
                                    + " (for acks=0 the broker will not send it, but the produce is done)", acks)
                            .isDone();
                    responses.add(answer.join());
                }
                answers.add(responses);
                files.add(segmentBytes(partition));
            }
        }

        for (int k = 1; k < acksValues.length; k++) {
            assertThat(files.get(k))
                    .as("acks=%d wrote exactly the bytes acks=0 wrote: acks never changes what is written%n%s",
                            acksValues[k], Hex.firstDifference(files.get(0), files.get(k), LogFixtures::fieldAt))
                    .isEqualTo(files.get(0));
            assertThat(answers.get(k))
                    .as("acks=%d: the same offsets as acks=0 (0..0, 1..2, 3..5, 6..9)", acksValues[k])
                    .isEqualTo(answers.get(0));
        }
        assertThat(answers.get(0))
                .as("every batch got the leader's offsets from the log end, none of the producer's 500..503")
                .containsExactly(new ProduceResponse(NAME, ErrorCode.NONE, 0, 0),
                        new ProduceResponse(NAME, ErrorCode.NONE, 1, 2),
                        new ProduceResponse(NAME, ErrorCode.NONE, 3, 5),
                        new ProduceResponse(NAME, ErrorCode.NONE, 6, 9));
    }

    @Test
    void theProducerNeverAssignsOffsets() throws IOException {
        try (Partition partition = open("p")) {
            ProduceResponse first = Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER,
                    builder("x", 3).build(1_000_000)), T0), ACKS_ONE_AT_ONCE);
            ProduceResponse second = Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER,
                    builder("y", 2).build(7)), T0), ACKS_ONE_AT_ONCE);

            assertThat(first)
                    .as("the producer sent baseOffset 1000000; the leader answers with the offsets it gave: 0..2")
                    .isEqualTo(new ProduceResponse(NAME, ErrorCode.NONE, 0, 2));
            assertThat(second)
                    .as("and 3..4 for the next batch, whatever base offset (7) the producer put in it")
                    .isEqualTo(new ProduceResponse(NAME, ErrorCode.NONE, 3, 4));
            ByteBuffer file = ByteBuffer.wrap(segmentBytes(partition));
            assertThat(LogFixtures.baseOffsets(file))
                    .as("on disk the batches carry the leader's base offsets 0 and 3")
                    .containsExactly(0L, 3L);
        }
    }

    @Test
    void aLeadersProduceIsWrittenWithItsLeaderEpochAndAProduceAloneWithNone() throws IOException {
        try (Partition partition = open("epochs")) {
            Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER, builder("alone", 1).build(0)), T0),
                    ACKS_ONE_AT_ONCE);
            Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER, builder("led", 1).build(0)), 7, T0),
                    ACKS_ONE_AT_ONCE);
            ByteBuffer file = ByteBuffer.wrap(segmentBytes(partition));
            List<Integer> epochs = new ArrayList<>();
            for (ByteBuffer batch : RecordBatch.sliceAll(file)) {
                epochs.add(BatchHeader.readFrom(batch).partitionLeaderEpoch());
            }
            assertThat(epochs)
                    .as("a produce alone carries no leader epoch (-1); one by the leader of epoch 7 is appended with"
                            + " log.append(batch, leaderEpoch), which stamps 7 on it: the epoch a follower that copies"
                            + " the batch learns (chapter 10)")
                    .containsExactly(-1, 7);
        }
    }

    @Test
    void acksAllWaitsUntilTheReplicaGateSaysEnoughReplicasHaveTheBatch() throws IOException {
        try (Partition partition = open("gate")) {
            AtomicBoolean enough = new AtomicBoolean(false);
            List<Long> asked = new CopyOnWriteArrayList<>();
            partition.setReplicaGate(required -> {
                asked.add(required);
                return enough.get();
            });

            CompletableFuture<ProduceResponse> all = partition.produce(request(ProduceRequest.ACKS_ALL,
                    numbered(0, 3)), T0);
            assertThat(all)
                    .as("acks=all and a gate that says no (followers do not have it yet): not answered")
                    .isNotDone();
            assertThat(logEnd(partition))
                    .as("but the batch is already in the leader's log: the leader appends first, then waits")
                    .isEqualTo(3);
            assertThat(asked)
                    .as("the gate is asked for requiredOffset 3, exclusive like the high watermark: every record"
                            + " below 3 (the batch 0..2) must be on enough replicas")
                    .contains(3L);

            CompletableFuture<ProduceResponse> one = partition.produce(request(ProduceRequest.ACKS_LEADER,
                    numbered(1, 1)), T0 + 1);
            assertThat(one)
                    .as("meanwhile an acks=1 produce is answered at once: it waits for the leader only, not the gate")
                    .isDone();
            assertThat(all).as("the acks=all produce still waits").isNotDone();

            enough.set(true);
            assertThat(all)
                    .as("the gate changing its mind is not enough: nothing asked it again yet")
                    .isNotDone();
            partition.locked(log -> null);
            assertThat(all)
                    .as("any change under the partition's lock (Partition.locked) asks the waiting produces again:"
                            + " now answered")
                    .isDone();
            assertThat(all.join())
                    .as("with the offsets the leader gave it when it appended")
                    .isEqualTo(new ProduceResponse(NAME, ErrorCode.NONE, 0, 2));
        }
    }

    @Test
    void acksZeroAndOneAreDoneAtOnceWhateverTheReplicaGateSays() throws IOException {
        try (Partition partition = open("zero")) {
            partition.setReplicaGate(required -> false);

            CompletableFuture<ProduceResponse> none = partition.produce(request(ProduceRequest.ACKS_NONE,
                    numbered(0, 3)), T0);
            CompletableFuture<ProduceResponse> one = partition.produce(request(ProduceRequest.ACKS_LEADER,
                    numbered(1, 2)), T0);

            assertThat(none)
                    .as("acks=0 does not wait for the replicas: with a gate that says no the produce is still done"
                            + " once the leader appended (only acks=all waits for the ReplicaGate); kept pending it"
                            + " would be answered REQUEST_TIMED_OUT later, or never")
                    .isDone();
            assertThat(none.join()).as("with the leader's offsets 0..2")
                    .isEqualTo(new ProduceResponse(NAME, ErrorCode.NONE, 0, 2));
            assertThat(one).as("acks=1 does not wait for the gate either").isDone();
        }
    }

    @Test
    void acksAllIsAnsweredWhenTheHighWatermarkPassesTheBatch() throws IOException {
        try (Partition partition = open("hw")) {
            partition.locked(log -> {
                log.stopEagerHighWatermark();
                return null;
            });

            CompletableFuture<ProduceResponse> all = partition.produce(request(ProduceRequest.ACKS_ALL,
                    numbered(0, 3)), T0);
            assertThat(all)
                    .as("the one-replica gate asks whether the HW passed the batch; with eager HW off it did not")
                    .isNotDone();

            partition.updateHighWatermark(2);
            assertThat(all)
                    .as("HW 2: offset 2, the batch's last record, is not committed yet")
                    .isNotDone();

            partition.updateHighWatermark(3);
            assertThat(all)
                    .as("HW 3 covers 0..2: updateHighWatermark wakes the produce, which is answered")
                    .isDone();
            assertThat(all.join())
                    .as("with the batch's offsets 0..2")
                    .isEqualTo(new ProduceResponse(NAME, ErrorCode.NONE, 0, 2));
        }
    }

    @Test
    void anAcksAllProduceThatWaitsPastItsTimeoutIsAnsweredRequestTimedOut() throws IOException {
        try (Partition partition = open("timeout")) {
            partition.setReplicaGate(required -> false);
            CompletableFuture<ProduceResponse> all = partition.produce(request(ProduceRequest.ACKS_ALL,
                    numbered(0, 3)), T0);

            partition.tick(T0 + TIMEOUT_MS - 1);
            assertThat(all)
                    .as("tick(now) one millisecond before the deadline (produced at T0, timeoutMs %d): still waiting",
                            TIMEOUT_MS)
                    .isNotDone();

            partition.tick(T0 + TIMEOUT_MS);
            assertThat(all)
                    .as("tick(now) at T0 + timeoutMs: the wait is over")
                    .isDone();
            assertThat(all.join())
                    .as("answered REQUEST_TIMED_OUT, with no offsets")
                    .isEqualTo(ProduceResponse.error(NAME, ErrorCode.REQUEST_TIMED_OUT));
            assertThat(logEnd(partition))
                    .as("a timeout does not undo the append: the batch stays in the log (which is why a producer that"
                            + " retries can write it twice, chapter 7's problem)")
                    .isEqualTo(3);
        }
    }

    @Test
    void aCorruptBatchIsAnsweredCorruptBatchAndNothingIsWritten() throws IOException {
        try (Partition partition = open("corrupt")) {
            Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER, numbered(0, 2)), T0), ACKS_ONE_AT_ONCE);
            byte[] before = segmentBytes(partition);
            byte[] broken = bytesOf(numbered(1, 2));
            broken[broken.length - 2] ^= 0x10;

            CompletableFuture<ProduceResponse> answer = answered(() -> partition.produce(request(ProduceRequest.ACKS_ALL,
                    ByteBuffer.wrap(broken)), T0 + 1), "a corrupt batch is answered CORRUPT_BATCH, never thrown out of"
                    + " produce (the broker would close the producer's connection instead of telling it why)");

            assertThat(answer)
                    .as("a corrupt batch is answered at once, even with acks=all: there is nothing to wait for")
                    .isDone();
            assertThat(answer.join())
                    .as("the CRC does not match the bytes: CORRUPT_BATCH, no offsets")
                    .isEqualTo(ProduceResponse.error(NAME, ErrorCode.CORRUPT_BATCH));
            assertThat(logEnd(partition)).as("no offsets were given out: LEO stays 2").isEqualTo(2);
            assertThat(segmentBytes(partition))
                    .as("not a byte was written")
                    .isEqualTo(before);
        }
    }

    @Test
    void aBatchThatCanNeverFitASegmentIsAnsweredBatchTooLarge() throws IOException {
        ByteBuffer big = numbered(0, 5);
        try (Partition partition = Partition.open(NAME, dir.resolve("big"),
                LogConfig.defaults().withSegmentBytes(big.remaining() - 1))) {
            ProduceResponse answer = Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER, big), T0),
                    "a batch that can never fit is answered at once, with an error: there is nothing to wait for");

            assertThat(answer)
                    .as("a batch larger than segment.bytes: BATCH_TOO_LARGE, nothing written")
                    .isEqualTo(ProduceResponse.error(NAME, ErrorCode.BATCH_TOO_LARGE));
            assertThat(logEnd(partition)).as("LEO stays 0").isZero();
        }
    }

    @Test
    void aProduceRequestIsOneWholeBatchOrItIsRefused() throws IOException {
        byte[] first = bytesOf(numbered(0, 2));
        byte[] second = bytesOf(numbered(1, 2));
        ByteBuffer two = ByteBuffer.allocate(first.length + second.length).put(first).put(second).flip();
        try (Partition partition = open("two")) {
            ProduceResponse answer = Waits.now(answered(() -> partition.produce(request(ProduceRequest.ACKS_LEADER,
                    two), T0), "two batches in one produce are answered with an error, never thrown out of produce"),
                    "a refused produce is answered at once");

            assertThat(answer.error())
                    .as("records holding two batches: a v2 produce carries exactly one batch per partition (Kafka's"
                            + " LogValidator refuses more); answering NONE for 0..1 would silently drop the second"
                            + " batch the producer believes is written")
                    .isIn(ErrorCode.CORRUPT_BATCH, ErrorCode.INVALID_REQUEST);
            assertThat(logEnd(partition))
                    .as("a refused request writes nothing")
                    .isZero();
            int readable = partition.locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END).remaining());
            assertThat(readable)
                    .as("and nothing can be read")
                    .isZero();
        }
    }

    private static final String ACKS = "every produce is appended first, whatever its acks; acks=0 and acks=1 are"
            + " answered at once with the batch's offsets (acks=0's answer is never sent), acks=all once the replica"
            + " gate says the high watermark reached the batch's last offset + 1, or REQUEST_TIMED_OUT by the first"
            + " tick at or past the moment it arrived + timeoutMs; a corrupt batch is answered CORRUPT_BATCH at once"
            + " and writes nothing";

    /** One step of a producer's and its followers' life: a produce, the followers catching up, time passing. */
    private sealed interface Step permits Produce, Replicate, Tick {
    }

    private record Produce(short acks, int records, int timeoutMs, boolean corrupt, int leaderEpoch) implements Step {
        @Override
        public String toString() {
            return "produce " + records + " record(s) acks=" + acks + " timeoutMs " + timeoutMs + (corrupt ? " CORRUPT" : "")
                    + (leaderEpoch < 0 ? "" : " by the leader of epoch " + leaderEpoch);
        }
    }

    /** The followers now hold {@code share} of the log not yet committed (0: nothing new, 1: all of it). */
    private record Replicate(double share) implements Step {
        @Override
        public String toString() {
            return "followers catch up " + Math.round(share * 100) + "%";
        }
    }

    private record Tick(int ms) implements Step {
        @Override
        public String toString() {
            return "tick +" + ms + " ms";
        }
    }

    private static Gen<List<Step>> steps() {
        Gen<Step> produce = c -> new Produce(Gens.elements(ProduceRequest.ACKS_ALL, ProduceRequest.ACKS_LEADER,
                ProduceRequest.ACKS_NONE).generate(c), Gens.ints(1, 4).generate(c),
                Gens.elements(100, 0, 1, 1_000).generate(c), Gens.ints(0, 7).generate(c) == 0,
                Gens.elements(-1, 0, 5).generate(c));
        Gen<Step> replicate = Gens.elements(1.0, 0.0, 0.5).map(Replicate::new);
        Gen<Step> tick = Gens.elements(1, 0, 99, 100, 1_000).map(Tick::new);
        return Gens.lists(Gens.oneOf(produce, replicate, tick), 1, 24);
    }

    /**
     * The rule as a small model (Kafka's: ReplicaManager.appendRecords appends, then answers acks 0 and 1 at
     * once and parks acks=-1 in a DelayedProduce, completed by Partition.checkEnoughReplicasReachOffset(HW >=
     * requiredOffset) or expired with REQUEST_TIMED_OUT at its timeout).
     */
    private static final class AcksModel {
        long logEnd;
        long highWatermark;
        long now = T0;
        /** Each produce's answer so far, in order; null while it waits. */
        final List<String> answers = new ArrayList<>();
        final List<Waiting> waiting = new ArrayList<>();
        /** The leader epoch of every batch written. */
        final List<Integer> epochs = new ArrayList<>();

        /** An acks=all produce: its place in answers, the offset the HW must reach, its deadline, its answer. */
        record Waiting(int index, long requiredOffset, long deadlineMs, String answer) {
        }

        void apply(Step step) {
            if (step instanceof Produce p) {
                produce(p);
            } else if (step instanceof Replicate r) {
                highWatermark += Math.round((logEnd - highWatermark) * r.share());
                answerWaiting(w -> highWatermark >= w.requiredOffset(), Waiting::answer);
            } else {
                now += ((Tick) step).ms();
                answerWaiting(w -> w.deadlineMs() <= now, w -> error(ErrorCode.REQUEST_TIMED_OUT));
            }
        }

        private void produce(Produce p) {
            if (p.corrupt()) {
                answers.add(error(ErrorCode.CORRUPT_BATCH));
                return;
            }
            String answer = answer(ErrorCode.NONE, logEnd, logEnd + p.records() - 1);
            logEnd += p.records();
            epochs.add(p.leaderEpoch());
            if (p.acks() == ProduceRequest.ACKS_ALL) {
                waiting.add(new Waiting(answers.size(), logEnd, now + p.timeoutMs(), answer));
                answers.add(null);
            } else {
                answers.add(answer);
            }
        }

        private void answerWaiting(java.util.function.Predicate<Waiting> ready, java.util.function.Function<Waiting, String> with) {
            for (java.util.Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
                Waiting w = it.next();
                if (ready.test(w)) {
                    answers.set(w.index(), with.apply(w));
                    it.remove();
                }
            }
        }
    }

    private static String answer(ErrorCode error, long base, long last) {
        return error + " " + base + ".." + last;
    }

    private static String error(ErrorCode error) {
        return error.toString();
    }

    private static String answerOf(CompletableFuture<ProduceResponse> future) {
        if (!future.isDone()) {
            return "(not answered yet)";
        }
        ProduceResponse response = future.join();
        return response.error() == ErrorCode.NONE ? answer(response.error(), response.baseOffset(), response.lastOffset())
                : error(response.error());
    }

    @Test
    void everyProduceIsAnsweredWhenTheAcksModelAnswersIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir)) {
            Property.forAll(steps()).tries(40).shrinkBudget(LogGens.SHRINKS).check(steps -> {
                try (Partition partition = Partition.open(NAME, tries.newDir(), LogConfig.defaults())) {
                    partition.locked(log -> {
                        log.stopEagerHighWatermark(); // followers, not the append, move the high watermark
                        return null;
                    });
                    AcksModel model = new AcksModel();
                    List<CompletableFuture<ProduceResponse>> futures = new ArrayList<>();
                    List<Step> done = new ArrayList<>();
                    for (Step step : steps) {
                        model.apply(step);
                        done.add(step);
                        if (step instanceof Produce p) {
                            futures.add(partition.produce(new ProduceRequest(NAME, p.acks(), p.timeoutMs(),
                                    p.corrupt() ? corrupt(p.records()) : builder("p", p.records()).build()), p.leaderEpoch(),
                                    model.now));
                        } else if (step instanceof Replicate) {
                            partition.updateHighWatermark(model.highWatermark);
                        } else {
                            partition.tick(model.now);
                        }
                        List<String> yours = futures.stream().map(ProduceTest::answerOf).toList();
                        List<String> expected = model.answers.stream().map(a -> a == null ? "(not answered yet)" : a).toList();
                        Judge.agree("the steps " + done, "answers", yours, "DelayedProduce (modelled) gives", expected, ACKS);
                    }
                    Judge.agree("the steps " + steps, "log end offset", logEnd(partition), "DelayedProduce (modelled) leaves", model.logEnd,
                            ACKS);
                    List<Integer> written = partition.locked(ProduceTest::epochs);
                    Judge.agree("the steps " + steps, "batches' leader epochs", written,
                            "UnifiedLog.appendAsLeader stamps", model.epochs, "a produce is appended at the leader epoch"
                                    + " it is given (-1: a broker alone, none), which the log stamps on the batch");
                }
            });
        }
    }

    private static List<Integer> epochs(kaenlog.log.Log log) throws IOException {
        List<Integer> epochs = new ArrayList<>();
        for (kaenlog.log.Segment segment : log.segments()) {
            for (BatchHeader header : segment.headers()) {
                epochs.add(header.partitionLeaderEpoch());
            }
        }
        return epochs;
    }

    /** A batch whose last record byte no longer matches its CRC. */
    private static ByteBuffer corrupt(int records) {
        ByteBuffer batch = builder("c", records).build();
        batch.put(batch.limit() - 1, (byte) (batch.get(batch.limit() - 1) ^ 0x5a));
        return batch;
    }
}
