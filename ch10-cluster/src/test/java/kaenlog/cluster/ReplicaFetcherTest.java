package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.batch.BatchBuilder;
import kaenlog.log.FetchIsolation;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.testkit.property.Scratch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.OffsetsForLeaderEpoch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 11: the follower's fetch over the wire: from its own LEO, naming the leader epoch it follows;
 * a good answer applied with chapter 8's rule, an error answered by what it means.
 */
@Order(11)
class ReplicaFetcherTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int EPOCH = 3;
    private static final ReplicaFetcher.FetcherConfig CONFIG = new ReplicaFetcher.FetcherConfig(64 * 1024, 100, 10);

    @TempDir
    Path dir;

    /** A leader in memory: answers fetches from its log (to its end, as a follower reads), or with a set error. */
    private static final class FakeLeader implements ReplicaFetcher.LeaderEndpoint {
        final Replica log;
        final List<FetchRequest> asked = new ArrayList<>();
        ErrorCode error = ErrorCode.NONE;

        FakeLeader(Replica log) {
            this.log = log;
        }

        @Override
        public FetchResponse fetch(FetchRequest request) throws IOException {
            asked.add(request);
            if (error != ErrorCode.NONE) {
                return new FetchResponse(request.partition(), error, log.highWatermark(), 0, ByteBuffer.allocate(0));
            }
            ByteBuffer records = log.partition().locked(l -> l.read(request.fetchOffset(), request.maxBytes(),
                    FetchIsolation.LOG_END));
            return new FetchResponse(request.partition(), ErrorCode.NONE, log.highWatermark(), 0, records);
        }

        @Override
        public OffsetsForLeaderEpoch.Response offsetsForLeaderEpoch(OffsetsForLeaderEpoch.Request request) {
            throw new AssertionError("no truncation in these tests");
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theFollowerAsksFromItsOwnLogEndNamingItsIdAndTheEpochItFollows() throws Exception {
        try (Replica leaderLog = leaderWith(4); Replica follower = follower()) {
            FakeLeader leader = new FakeLeader(leaderLog);
            ReplicaFetcher fetcher = fetcher(follower);
            assertThat(fetcher.fetchOnce(leader)).isEqualTo(ReplicaFetcher.Outcome.FETCHED);
            Throwable secondFailed = catchThrowable(() -> fetcher.fetchOnce(leader)); // the question is checked first
            FetchRequest first = leader.asked.get(0);
            FetchRequest second = leader.asked.get(1);
            assertThat(first.replicaId()).as("a follower names its broker id: the leader reads to its log end for it")
                    .isEqualTo(2);
            assertThat(first.currentLeaderEpoch())
                    .as("and the leader epoch it follows, so a leader of another epoch can refuse it").isEqualTo(EPOCH);
            assertThat(first.fetchOffset()).as("an empty follower asks from 0").isZero();
            assertThat(second.fetchOffset())
                    .as("then from its LEO, 4: the fetch offset IS what tells the leader how far this follower got")
                    .isEqualTo(4);
            assertThat(secondFailed).as("and the answer to it, nothing new, applies cleanly").isNull();
            assertThat(first.maxBytes()).isEqualTo(CONFIG.maxBytes());
            assertThat(first.maxWaitMs()).isEqualTo(CONFIG.maxWaitMs());
        }
    }

    @Test
    void aGoodAnswerIsAppendedAsItIsAndTheHighWatermarkTakenFromIt() throws Exception {
        try (Replica leaderLog = leaderWith(4); Replica follower = follower()) {
            leaderLog.updateHighWatermark(3);
            ReplicaFetcher fetcher = fetcher(follower);
            assertThat(fetcher.fetchOnce(new FakeLeader(leaderLog))).isEqualTo(ReplicaFetcher.Outcome.FETCHED);
            assertThat(follower.leo()).as("the leader's 4 records, at the leader's offsets").isEqualTo(4);
            assertThat(follower.highWatermark()).as("the HW of the response, 3 (chapter 8's follower rule)").isEqualTo(3);
            assertThat(follower.epochs().latestEpoch()).as("the batches carry the leader's epoch, and the follower"
                    + " records where it starts").hasValue(EPOCH);
        }
    }

    @Test
    void aFencedOrDeposedAnswerStopsTheFetcherUntilANewerState() throws Exception {
        try (Replica leaderLog = leaderWith(4); Replica follower = follower()) {
            FakeLeader leader = new FakeLeader(leaderLog);
            ReplicaFetcher fetcher = fetcher(follower);
            leader.error = ErrorCode.FENCED_LEADER_EPOCH;
            assertThat(fetcher.fetchOnce(leader))
                    .as("FENCED_LEADER_EPOCH: this follower's epoch is old, asking again with it is pointless")
                    .isEqualTo(ReplicaFetcher.Outcome.STOP);
            leader.error = ErrorCode.NOT_LEADER_OR_FOLLOWER;
            assertThat(fetcher.fetchOnce(leader)).as("NOT_LEADER_OR_FOLLOWER: the one asked leads no more")
                    .isEqualTo(ReplicaFetcher.Outcome.STOP);
            assertThat(follower.leo()).as("an error answer appends nothing").isZero();
        }
    }

    @Test
    void anUnknownEpochIsRetriedAndAnOffsetOutOfRangeTruncatesAgain() throws Exception {
        try (Replica leaderLog = leaderWith(4); Replica follower = follower()) {
            FakeLeader leader = new FakeLeader(leaderLog);
            ReplicaFetcher fetcher = fetcher(follower);
            leader.error = ErrorCode.UNKNOWN_LEADER_EPOCH;
            assertThat(fetcher.fetchOnce(leader))
                    .as("UNKNOWN_LEADER_EPOCH: the leader has not read the new state yet; ask again after a pause")
                    .isEqualTo(ReplicaFetcher.Outcome.RETRY);
            leader.error = ErrorCode.OFFSET_OUT_OF_RANGE;
            assertThat(fetcher.fetchOnce(leader))
                    .as("OFFSET_OUT_OF_RANGE: the follower's log no longer fits the leader's; reconcile by epoch again")
                    .isEqualTo(ReplicaFetcher.Outcome.TRUNCATE);
            leader.error = ErrorCode.STORAGE_ERROR;
            assertThat(fetcher.fetchOnce(leader)).as("any other error: ask again after a pause")
                    .isEqualTo(ReplicaFetcher.Outcome.RETRY);
            assertThat(follower.leo()).isZero();
        }
    }

    private ReplicaFetcher fetcher(Replica follower) {
        return new ReplicaFetcher(follower, "orders-0", EPOCH, () -> {
            throw new IOException("not used");
        }, CONFIG, (partition, failure) -> {
        });
    }

    private Replica leaderWith(int records) throws Exception {
        Replica replica = Replica.open(1, Role.FOLLOWER, dir.resolve("broker-1").resolve("orders-0"));
        replica.stopEagerHighWatermark();
        replica.becomeLeader(EPOCH);
        for (int i = 0; i < records; i++) {
            replica.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + i).build());
        }
        return replica;
    }

    private Replica follower() throws Exception {
        Replica replica = Replica.open(2, Role.FOLLOWER, dir.resolve("broker-2").resolve("orders-0"));
        replica.stopEagerHighWatermark();
        return replica;
    }

    // ---- Kafka judges: a model of AbstractFetcherThread.processFetchRequest and ReplicaFetcherThread ----

    static final String FETCHER_RULE = "fetch from your own LEO naming your broker id and the leader epoch you follow;"
            + " NONE: append the records as they are and take the response's HW (at most your LEO, never backwards);"
            + " FENCED_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER: stop until a newer state; OFFSET_OUT_OF_RANGE: truncate"
            + " by epoch again; any other error: retry after a pause, nothing appended";

    /** One step of a follower's life: the leader appends records, or answers one fetch (with an error, or its HW). */
    record FetchStep(int append, ErrorCode error, long leaderHw) {
        @Override
        public String toString() {
            return append > 0 ? "the leader appends " + append : "the leader answers " + error
                    + (error == ErrorCode.NONE ? " with HW at " + leaderHw + " of its LEO" : "");
        }
    }

    static final Gen<List<FetchStep>> FETCH_STEPS = Gens.lists(c -> Gens.booleans().generate(c) && c.oneIn(2)
            ? new FetchStep(Gens.ints(1, 3).generate(c), ErrorCode.NONE, 0)
            : new FetchStep(0, Gens.oneOf(Gens.constant(ErrorCode.NONE), Gens.elements(ErrorCode.values())).generate(c),
                    Gens.longs(0, 100).generate(c)), 1, 8);

    @Test
    void everyFetchAgreesWithKafkasFetcherThread() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(FETCH_STEPS).tries(30).shrinkBudget(300).check(steps -> {
                Path at = scratch.newDir();
                try (Replica leaderLog = Replica.open(1, Role.FOLLOWER, at.resolve("broker-1/orders-0"));
                     Replica follower = Replica.open(2, Role.FOLLOWER, at.resolve("broker-2/orders-0"))) {
                    leaderLog.stopEagerHighWatermark();
                    leaderLog.becomeLeader(EPOCH);
                    follower.stopEagerHighWatermark();
                    FakeLeader leader = new FakeLeader(leaderLog);
                    ReplicaFetcher fetcher = fetcher(follower);
                    long leo = 0;
                    long hw = 0;
                    for (int i = 0; i < steps.size(); i++) {
                        FetchStep step = steps.get(i);
                        if (step.append() > 0) {
                            for (int r = 0; r < step.append(); r++) {
                                leaderLog.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + r).build());
                            }
                            continue;
                        }
                        long leaderHw = Math.min(step.leaderHw(), leaderLog.leo());
                        leaderLog.updateHighWatermark(leaderHw);
                        leader.error = step.error();
                        ReplicaFetcher.Outcome outcome = fetcher.fetchOnce(leader);
                        FetchRequest asked = leader.asked.get(leader.asked.size() - 1);
                        String kafkas = kafkasOutcome(step.error());
                        String oracle = "AbstractFetcherThread.processFetchRequest (ReplicaFetcherThread.processPartitionData"
                                + " for NONE) gives";
                        if (step.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER || step.error() == ErrorCode.OFFSET_OUT_OF_RANGE) {
                            oracle = "AbstractFetcherThread retries NOT_LEADER_OR_FOLLOWER after a backoff and answers"
                                    + " OFFSET_OUT_OF_RANGE with fetchOffsetAndTruncate; by kaen-log's documented"
                                    + " differences (a fetcher per leader epoch, truncation by epoch) it gives";
                        }
                        long fetchOffset = leo;
                        if (step.error() == ErrorCode.NONE && leaderHw < hw) {
                            oracle = "ReplicaFetcherThread takes the leader's lower HW (UnifiedLog.maybeUpdateHighWatermark"
                                    + " sets it within the log, lower or not); by kaen-log's documented difference (a"
                                    + " follower's HW never moves back) it gives";
                        }
                        if (step.error() == ErrorCode.NONE) {
                            leo = leaderLog.leo();
                            hw = Math.max(hw, Math.min(leaderHw, leo));
                        }
                        Judge.agree("step " + (i + 1) + " (" + step + ") of " + steps, "request, outcome, LEO and HW",
                                List.of(List.of(asked.replicaId(), asked.partition(), asked.fetchOffset(), asked.maxBytes(),
                                        asked.maxWaitMs(), asked.currentLeaderEpoch()), outcome.name(), follower.leo(),
                                        follower.highWatermark()), oracle,
                                List.of(List.of(2, "orders-0", fetchOffset, CONFIG.maxBytes(), CONFIG.maxWaitMs(), EPOCH),
                                        kafkas, leo, hw), FETCHER_RULE);
                    }
                }
            });
        }
    }

    /**
     * What Kafka's fetcher thread does with a partition's answer: NONE is processed; FENCED_LEADER_EPOCH (the
     * request's epoch is the fetcher's) marks the partition failed until a newer LeaderAndIsr; every other
     * error puts it back after {@code replica.fetch.backoff.ms}. Two documented differences: kaen-log's fetcher
     * belongs to one leader epoch and stops on NOT_LEADER_OR_FOLLOWER too (a newer state starts another), and it
     * answers OFFSET_OUT_OF_RANGE by truncating by epoch again.
     */
    private static String kafkasOutcome(ErrorCode error) {
        return switch (error) {
            case NONE -> ReplicaFetcher.Outcome.FETCHED.name();
            case FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER -> ReplicaFetcher.Outcome.STOP.name();
            case OFFSET_OUT_OF_RANGE -> ReplicaFetcher.Outcome.TRUNCATE.name();
            default -> ReplicaFetcher.Outcome.RETRY.name();
        };
    }
}
