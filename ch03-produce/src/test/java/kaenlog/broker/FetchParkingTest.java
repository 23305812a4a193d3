package kaenlog.broker;

import static kaenlog.log.LogFixtures.T0;
import static kaenlog.log.LogFixtures.baseOffsets;
import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kaenlog.log.LogConfig;
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
}
