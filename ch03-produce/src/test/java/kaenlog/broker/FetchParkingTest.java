package kaenlog.broker;

import static kaenlog.log.LogFixtures.T0;
import static kaenlog.log.LogFixtures.baseOffsets;
import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.log.LogConfig;
import kaenlog.log.LogFixtures;
import kaenlog.log.LogGens;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 8: parking a fetch. A fetch with nothing to return is not answered empty at once (a reader
 * would spin, asking again and again): it is parked until an append (or a new high watermark) gives
 * it data, or until its maxWaitMs has passed (Kafka's DelayedFetch and fetch.max.wait.ms). Time is a
 * number: only {@code tick(nowMs)} decides that a deadline has come, so these tests never sleep. A
 * future is looked at only once it is done: {@code join()} on one that is not would wait forever.
 */
@Order(8)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FetchParkingTest {
    private static final String NAME = "orders-0";
    private static final int BIG = 1 << 20;
    private static final int MAX_WAIT_MS = 500;
    private static final int FOLLOWER = 2;

    @TempDir
    Path dir;

    private Partition open() throws IOException {
        return Partition.open(NAME, dir, LogConfig.defaults());
    }

    private static ProduceRequest produce(int i) {
        return new ProduceRequest(NAME, ProduceRequest.ACKS_LEADER, 30_000, numbered(i, 3));
    }

    @Test
    void aFetchWithNothingToReturnIsParkedUntilAnAppendBringsData() throws IOException {
        try (Partition partition = open()) {
            CompletableFuture<FetchResponse> fetch = partition.fetch(
                    FetchRequest.consumer(NAME, 0, BIG, MAX_WAIT_MS), T0);
            assertThat(fetch)
                    .as("an empty log has nothing for offset 0: the fetch is parked, not answered empty")
                    .isNotDone();
            assertThat(partition.parkedFetchCount()).as("one fetch is parked").isEqualTo(1);

            partition.produce(produce(0), T0 + 10);

            assertThat(fetch)
                    .as("the append gave the parked fetch data: it is answered right away, before its deadline")
                    .isDone();
            FetchResponse response = fetch.join();
            assertThat(response.error()).as("no error").isEqualTo(ErrorCode.NONE);
            assertThat(baseOffsets(response.records()))
                    .as("with the batch that was just appended (offsets 0..2)")
                    .containsExactly(0L);
            assertThat(response.highWatermark())
                    .as("and the high watermark after the append (eager with one replica): 3")
                    .isEqualTo(3);
            assertThat(partition.parkedFetchCount()).as("no fetch is parked any more").isZero();
        }
    }

    @Test
    void aFetchWithDataIsAnsweredAtOnce() throws IOException {
        try (Partition partition = open()) {
            partition.produce(produce(0), T0);
            CompletableFuture<FetchResponse> fetch = partition.fetch(
                    FetchRequest.consumer(NAME, 0, BIG, MAX_WAIT_MS), T0 + 1);

            assertThat(fetch).as("there is a committed batch at offset 0: answered without waiting").isDone();
            assertThat(baseOffsets(fetch.join().records())).as("with that batch").containsExactly(0L);
            assertThat(partition.parkedFetchCount()).as("nothing parked").isZero();
        }
    }

    @Test
    void aParkedFetchIsAnsweredEmptyAtItsDeadlineAndNotBefore() throws IOException {
        try (Partition partition = open()) {
            CompletableFuture<FetchResponse> fetch = partition.fetch(
                    FetchRequest.consumer(NAME, 0, BIG, MAX_WAIT_MS), T0);

            partition.tick(T0 + MAX_WAIT_MS - 1);
            assertThat(fetch)
                    .as("tick(now) 1 ms before the deadline (parked at T0, maxWaitMs %d): nothing happens", MAX_WAIT_MS)
                    .isNotDone();
            assertThat(partition.parkedFetchCount()).as("still parked").isEqualTo(1);

            partition.tick(T0 + MAX_WAIT_MS);
            assertThat(fetch)
                    .as("tick(now) at T0 + maxWaitMs: the deadline has come, the fetch is answered")
                    .isDone();
            FetchResponse response = fetch.join();
            assertThat(response.error()).as("waiting out the deadline is not an error").isEqualTo(ErrorCode.NONE);
            assertThat(response.records().remaining())
                    .as("the answer is empty: no data arrived in time")
                    .isZero();
            assertThat(partition.parkedFetchCount()).as("and it is no longer parked").isZero();
        }
    }

    @Test
    void anExpiredFetchIsAnsweredWithWhatAReadGivesNowItsHighWatermarkAndLogStart() throws IOException {
        try (Partition partition = open()) {
            partition.produce(produce(0), T0);
            CompletableFuture<FetchResponse> fetch = partition.fetch(
                    FetchRequest.consumer(NAME, 3, BIG, MAX_WAIT_MS), T0 + 1);
            assertThat(fetch).as("setup: a consumer at the log end 3 is parked").isNotDone();

            partition.tick(T0 + 1 + MAX_WAIT_MS);

            assertThat(fetch).as("setup: answered at its deadline").isDone();
            FetchResponse response = fetch.join();
            assertThat(List.of(response.error(), response.records().remaining(), response.highWatermark(),
                    response.logStartOffset()))
                    .as("at its deadline a parked fetch is answered with what a read gives now: no error, no records,"
                            + " and the high watermark 3 and log start offset 0 the consumer needs to go on (a made-up"
                            + " empty answer would carry -1 for both)")
                    .containsExactly(ErrorCode.NONE, 0, 3L, 0L);
        }
    }

    @Test
    void maxWaitZeroIsAnsweredAtOnceEvenWhenEmpty() throws IOException {
        try (Partition partition = open()) {
            CompletableFuture<FetchResponse> fetch = partition.fetch(FetchRequest.consumer(NAME, 0, BIG, 0), T0);

            assertThat(fetch)
                    .as("maxWaitMs 0 means do not wait: answered at once")
                    .isDone();
            assertThat(fetch.join().records().remaining()).as("with nothing").isZero();
            assertThat(fetch.join().error()).as("and no error").isEqualTo(ErrorCode.NONE);
            assertThat(partition.parkedFetchCount()).as("nothing parked").isZero();
        }
    }

    @Test
    void aConsumersParkedFetchWaitsForTheHighWatermarkNotForTheLogEnd() throws IOException {
        try (Partition partition = open()) {
            partition.locked(log -> {
                log.stopEagerHighWatermark();
                return null;
            });
            CompletableFuture<FetchResponse> consumer = partition.fetch(
                    FetchRequest.consumer(NAME, 0, BIG, MAX_WAIT_MS), T0);

            partition.produce(produce(0), T0 + 1);
            assertThat(consumer)
                    .as("the append moved the LEO to 3 but not the HW (eager HW off): a consumer may not see"
                            + " uncommitted records, so its fetch stays parked")
                    .isNotDone();
            assertThat(partition.parkedFetchCount()).as("still parked").isEqualTo(1);

            CompletableFuture<FetchResponse> follower = partition.fetch(
                    new FetchRequest(FOLLOWER, NAME, 0, BIG, MAX_WAIT_MS), T0 + 2);
            assertThat(follower)
                    .as("a follower (replicaId %d) reads to the log end: it gets the uncommitted batch at once",
                            FOLLOWER)
                    .isDone();
            assertThat(baseOffsets(follower.join().records())).as("the batch 0..2").containsExactly(0L);
            assertThat(follower.join().highWatermark())
                    .as("and learns the leader's HW, still 0")
                    .isZero();

            partition.updateHighWatermark(3);
            assertThat(consumer)
                    .as("updateHighWatermark(3) commits 0..2 and wakes the consumer's parked fetch")
                    .isDone();
            assertThat(baseOffsets(consumer.join().records())).as("with the batch 0..2").containsExactly(0L);
            assertThat(consumer.join().highWatermark()).as("and HW 3").isEqualTo(3);
            assertThat(partition.parkedFetchCount()).as("nothing parked").isZero();
        }
    }

    @Test
    void anOffsetOutOfRangeIsAnsweredAtOnceWithOffsetOutOfRange() throws IOException {
        try (Partition partition = open()) {
            partition.produce(produce(0), T0);
            CompletableFuture<FetchResponse> fetch = partition.fetch(
                    FetchRequest.consumer(NAME, 5, BIG, MAX_WAIT_MS), T0 + 1);

            assertThat(fetch)
                    .as("offset 5 is past the log end 3: waiting cannot help a wrong position, answered at once")
                    .isDone();
            assertThat(fetch.join().error())
                    .as("with OFFSET_OUT_OF_RANGE, so the client resets its position")
                    .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(partition.parkedFetchCount()).as("nothing parked").isZero();
        }
    }

    private static final String PARKING = "a fetch is read once: with data, an error, or maxWaitMs 0 it is answered at"
            + " once; otherwise it is parked until its deadline (the moment it arrived + maxWaitMs); after every change"
            + " (an append, a new high watermark, a new log start) each parked fetch is read again and answered if it"
            + " now has data or an error (an offset no longer in the log); a tick at or past its deadline answers it"
            + " with what there is";

    /** One step: a fetch, an append, the high watermark or the log start moving, time passing. */
    private sealed interface Step permits Fetch, Append, Commit, DeleteRecords, Tick {
    }

    /**
     * A fetch from one of a few offsets ({@code where}: the log end, the high watermark, past the end, inside, just
     * below the high watermark).
     */
    private record Fetch(int replicaId, int where, double inside, int maxWaitMs) implements Step {
        @Override
        public String toString() {
            return "fetch by replicaId " + replicaId + " from " + List.of("the log end", "the high watermark",
                    "past the log end", "inside the log", "just below the high watermark").get(where) + (where == 3 ? " (" + Math.round(inside * 100)
                    + "%)" : "") + " maxWaitMs " + maxWaitMs;
        }
    }

    private record Append(int records) implements Step {
        @Override
        public String toString() {
            return "append " + records + " record(s)";
        }
    }

    /** The high watermark moves {@code share} of the way to the log end. */
    private record Commit(double share) implements Step {
        @Override
        public String toString() {
            return "high watermark +" + Math.round(share * 100) + "% of the way to the log end";
        }
    }

    /** The log start moves {@code share} of the way to the high watermark (a client's DeleteRecords, chapter 9). */
    private record DeleteRecords(double share) implements Step {
        @Override
        public String toString() {
            return "records deleted " + Math.round(share * 100) + "% of the way to the high watermark";
        }
    }

    private record Tick(int ms) implements Step {
        @Override
        public String toString() {
            return "tick +" + ms + " ms";
        }
    }

    private static Gen<List<Step>> steps() {
        Gen<Step> fetch = c -> new Fetch(Gens.elements(-1, FOLLOWER).generate(c), Gens.elements(0, 1, 2, 3, 4, 4).generate(c),
                Gens.elements(0.0, 0.5, 0.99).generate(c), Gens.elements(MAX_WAIT_MS, 0, 1, 100).generate(c));
        Gen<Step> append = Gens.ints(1, 3).map(Append::new);
        Gen<Step> commit = Gens.elements(1.0, 0.5, 0.3).map(Commit::new);
        Gen<Step> tick = Gens.elements(1, 0, 99, 100, MAX_WAIT_MS).map(Tick::new);
        Gen<Step> delete = Gens.elements(1.0, 0.5).map(DeleteRecords::new);
        // Fetches and deletions twice as often: a parked fetch whose offset leaves the log takes both.
        return Gens.lists(Gens.oneOf(fetch, append, commit, tick, delete, fetch, delete), 1, 24);
    }

    /**
     * The rule as a small model (Kafka's DelayedFetch: tryComplete answers once there is something to return
     * (fetch.min.bytes 1) or an error, onExpiration reads again at the deadline; ReplicaManager.fetchMessages
     * answers at once when the first read has data or maxWait is 0).
     */
    private static final class ParkingModel {
        final List<long[]> batches = new ArrayList<>(); // {base, last}
        long logStart;
        long logEnd;
        long highWatermark;
        long now = T0;
        final List<String> answers = new ArrayList<>();
        final List<Parked> parked = new ArrayList<>();
        /** The fetch offset the last Fetch step asked for. */
        long lastFetchOffset;

        record Parked(int index, int replicaId, long offset, long deadlineMs) {
        }

        void apply(Step step) {
            if (step instanceof Fetch f) {
                lastFetchOffset = switch (f.where()) {
                    case 0 -> logEnd;
                    case 1 -> highWatermark;
                    case 2 -> logEnd + 1;
                    case 3 -> (long) Math.floor(logEnd * f.inside());
                    default -> Math.max(0, highWatermark - 1);
                };
                String now = read(f.replicaId(), lastFetchOffset);
                if (!now.equals(empty()) || f.maxWaitMs() == 0) {
                    answers.add(now);
                } else {
                    parked.add(new Parked(answers.size(), f.replicaId(), lastFetchOffset, this.now + f.maxWaitMs()));
                    answers.add(null);
                }
            } else if (step instanceof Append a) {
                batches.add(new long[] {logEnd, logEnd + a.records() - 1});
                logEnd += a.records();
                wake();
            } else if (step instanceof Commit c) {
                highWatermark += (long) Math.ceil((logEnd - highWatermark) * c.share());
                wake();
            } else if (step instanceof DeleteRecords d) {
                logStart += (long) Math.ceil((highWatermark - logStart) * d.share());
                wake();
            } else {
                now += ((Tick) step).ms();
                for (Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
                    Parked p = it.next();
                    if (p.deadlineMs() <= now) {
                        answers.set(p.index(), read(p.replicaId(), p.offset()));
                        it.remove();
                    }
                }
            }
        }

        private void wake() {
            for (Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
                Parked p = it.next();
                String now = read(p.replicaId(), p.offset());
                if (!now.equals(empty())) {
                    answers.set(p.index(), now);
                    it.remove();
                }
            }
        }

        /** What a read answers now: the batches from the one holding the offset up to the bound, or the error. */
        String read(int replicaId, long offset) {
            if (offset < logStart || offset > logEnd) {
                return ErrorCode.OFFSET_OUT_OF_RANGE + " hw " + highWatermark;
            }
            long bound = replicaId >= 0 ? logEnd : highWatermark;
            List<String> ranges = batches.stream().filter(b -> b[1] >= offset && b[1] < bound)
                    .map(b -> b[0] + ".." + b[1]).toList();
            return ErrorCode.NONE + " " + ranges + " hw " + highWatermark;
        }

        private String empty() {
            return ErrorCode.NONE + " [] hw " + highWatermark;
        }
    }

    private static String answerOf(CompletableFuture<FetchResponse> future) {
        if (!future.isDone()) {
            return "(parked)";
        }
        FetchResponse response = future.join();
        if (response.error() != ErrorCode.NONE) {
            return response.error() + " hw " + response.highWatermark();
        }
        List<String> ranges = RecordBatch.sliceAll(response.records().duplicate()).stream()
                .map(b -> BatchHeader.readFrom(b.duplicate())).map(h -> h.baseOffset() + ".." + h.lastOffset()).toList();
        return response.error() + " " + ranges + " hw " + response.highWatermark();
    }

    @Test
    void everyFetchIsAnsweredWhenTheParkingModelAnswersIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir)) {
            Property.forAll(steps()).tries(80).shrinkBudget(LogGens.SHRINKS).check(steps -> {
                try (Partition partition = Partition.open(NAME, tries.newDir(), LogConfig.defaults())) {
                    partition.locked(log -> {
                        log.stopEagerHighWatermark(); // followers, not the append, move the high watermark
                        return null;
                    });
                    ParkingModel model = new ParkingModel();
                    List<CompletableFuture<FetchResponse>> futures = new ArrayList<>();
                    List<Step> done = new ArrayList<>();
                    for (Step step : steps) {
                        model.apply(step);
                        done.add(step);
                        if (step instanceof Fetch f) {
                            futures.add(partition.fetch(new FetchRequest(f.replicaId(), NAME, model.lastFetchOffset, BIG,
                                    f.maxWaitMs()), model.now));
                        } else if (step instanceof Append a) {
                            partition.produce(new ProduceRequest(NAME, ProduceRequest.ACKS_LEADER, 30_000,
                                    LogFixtures.builder("a", a.records()).build()), model.now);
                        } else if (step instanceof Commit) {
                            partition.updateHighWatermark(model.highWatermark);
                        } else if (step instanceof DeleteRecords) {
                            partition.locked(log -> log.advanceLogStartOffset(model.logStart));
                        } else {
                            partition.tick(model.now);
                        }
                        List<String> yours = futures.stream().map(FetchParkingTest::answerOf).toList();
                        List<String> expected = model.answers.stream().map(a -> a == null ? "(parked)" : a).toList();
                        Judge.agree("the steps " + done, "answers", yours, "DelayedFetch (modelled) gives", expected,
                                PARKING);
                        Judge.agree("the steps " + done, "parked fetches", partition.parkedFetchCount(),
                                "DelayedFetch (modelled) keeps", model.parked.size(), PARKING + "; an answered fetch is no"
                                        + " longer parked");
                    }
                }
            });
        }
    }
}
