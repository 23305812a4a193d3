package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.log.FetchIsolation;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
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
}
