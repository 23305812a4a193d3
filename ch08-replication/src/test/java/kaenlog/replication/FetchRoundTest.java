package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 8: one fetch round over the link, both sides. The leader checks a fetch against its log and
 * its followers, then learns the follower's LEO from the request and answers with the HW; the
 * follower appends the leader's bytes and takes the HW from the response. The HW therefore reaches
 * the follower one round after the records.
 */
@Order(8)
class FetchRoundTest {
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path root;

    /** Gate one of two (the demo's self-check is the other): plain integers, no stdout, no expected/. */
    @Test
    void hwLagsOneRoundTrip() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            assertThat(List.of(c.leader().leo(), c.leader().highWatermark()))
                    .as("(leader LEO, leader HW) after one produce: the record is written, nobody else has it")
                    .containsExactly(1L, 0L);

            // round one: the follower HAS the record but does not know yet that it is committed
            FetchRound first = c.fetchOnce(NOW);
            assertThat(List.of(first.followerLeo(), first.followerHw()))
                    .as("(follower LEO, follower HW) after round one: it holds the record (LEO 1) but the response "
                            + "carried HW 0, computed from this request's fetch offset 0")
                    .containsExactly(1L, 0L);
            assertThat(first.recordsShipped()).as("round one ships the one record").isEqualTo(1);
            assertThat(c.leader().highWatermark())
                    .as("the leader's HW is still 0: the request said the follower's LEO was 0")
                    .isZero();

            // round two: the request carries LEO 1, so the leader moves the HW and sends it back
            FetchRound second = c.fetchOnce(NOW);
            assertThat(c.leader().highWatermark())
                    .as("round two's request carries fetch offset 1: the leader learns the follower has the record")
                    .isEqualTo(1);
            assertThat(second.followerHw())
                    .as("and the response carries HW 1 back: the follower learns the record is committed one round "
                            + "after it received it")
                    .isEqualTo(1);
            assertThat(second.recordsShipped())
                    .as("round two has no new record at all: only the HW number catches up")
                    .isZero();
        }
    }

    @Test
    void theFollowersHighWatermarkTrailsItsLeoByOneEveryRound() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            for (int r = 1; r <= 4; r++) {
                c.produce(r, ProduceRequest.ACKS_LEADER, NOW);
                FetchRound round = c.fetchOnce(NOW);
                assertThat(List.of(round.leaderLeo(), round.leaderHw(), round.followerLeo(), round.followerHw(),
                        round.responseHighWatermark()))
                        .as("round %d: leader LEO %d HW %d, follower LEO %d HW %d, HW in response %d (the demo's "
                                + "rounds table)", r, r, r - 1, r, r - 1, r - 1)
                        .containsExactly((long) r, r - 1L, (long) r, r - 1L, r - 1L);
            }
        }
    }

    @Test
    void theLeaderLearnsTheFollowersLeoFromTheRequestsFetchOffset() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            c.produce(1, ProduceRequest.ACKS_LEADER, NOW);
            FetchRound round = c.fetchOnce(NOW + 7);

            assertThat(round.fetchOffset()).as("an empty follower asks for offset 0").isZero();
            assertThat(c.isr().followerLeos())
                    .as("the leader recorded the request's fetch offset (0) as follower 2's LEO, not the 2 records "
                            + "it is about to ship: it cannot know yet that they will arrive")
                    .isEqualTo(Map.of(2, 0L));
            assertThat(c.isr().lastCaughtUpMs(2))
                    .as("and the request's time as when follower 2 was last heard from")
                    .isEqualTo(NOW + 7);
            assertThat(round.recordsShipped())
                    .as("a follower reads to the log end: both records travel in one response")
                    .isEqualTo(2);
        }
    }

    @Test
    void theFollowerKeepsTheLeadersBytesOffsetsAndEpoch() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            for (int i = 0; i < 3; i++) {
                c.produce(i, ProduceRequest.ACKS_LEADER, NOW + i);
            }
            c.fetchOnce(NOW);

            ByteBuffer leaders = c.leader().partition().locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END));
            ByteBuffer followers = c.follower().partition().locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END));
            assertThat(followers)
                    .as("the follower appends the leader's batches as they are, without assigning offsets: %s",
                            Hex.firstDifference(bytes(leaders), bytes(followers), at -> "the follower's copy of the leader's batches"))
                    .isEqualTo(leaders);
            List<RecordBatch> batches = RecordBatch.decodeAll(followers);
            assertThat(batches.stream().map(RecordBatch::baseOffset).toList())
                    .as("offsets 0, 1, 2 as the leader assigned them").containsExactly(0L, 1L, 2L);
            assertThat(batches.stream().map(b -> b.header().partitionLeaderEpoch()).toList())
                    .as("every batch carries the leader epoch 0 the leader stamped on it")
                    .containsExactly(0, 0, 0);
            assertThat(c.follower().epochs().entries())
                    .as("the follower learns from the batches it copies that epoch 0 starts at offset 0")
                    .containsExactly(new LeaderEpochCache.EpochEntry(0, 0));
        }
    }

    @Test
    void aFollowersHighWatermarkNeverPassesItsOwnLogEnd() throws IOException {
        try (Cluster c = Cluster.open(root, 1, NOW)) {
            c.isr().shrinkIsr(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);
            int records = 1200;
            for (int i = 0; i < records; i++) {
                c.produce(i, ProduceRequest.ACKS_LEADER, NOW);
            }
            assertThat(c.leader().highWatermark())
                    .as("min.insync.replicas 1 and the follower out of the ISR: the leader alone commits all %d",
                            records)
                    .isEqualTo(records);

            FetchRound round = c.fetchOnce(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 2);
            assertThat(round.followerLeo())
                    .as("one fetch carries at most %d bytes: the follower gets only part of the log",
                            Cluster.FETCH_MAX_BYTES)
                    .isLessThan(records);
            assertThat(round.responseHighWatermark()).as("the response says HW %d", records).isEqualTo(records);
            assertThat(round.followerHw())
                    .as("but the follower caps it at its own LEO %d: it cannot have a HW above the records it holds",
                            round.followerLeo())
                    .isEqualTo(round.followerLeo());
        }
    }

    @Test
    void aFollowersHighWatermarkNeverMovesBackwards() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            for (int i = 0; i < 3; i++) {
                c.produce(i, ProduceRequest.ACKS_LEADER, NOW);
            }
            c.fetchOnce(NOW);
            // After a round of this cluster the follower's HW is never above the leader's; a follower that learnt
            // a higher HW earlier (from a leader before this one) is, so the test sets it by hand.
            c.follower().updateHighWatermark(3);
            c.isr().shrinkIsr(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);

            FetchRound round = c.fetchOnce(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 2);
            assertThat(round.responseHighWatermark())
                    .as("ISR [1] under min.insync.replicas 2: the leader's HW stays 0, and the response says 0")
                    .isZero();
            assertThat(round.followerHw())
                    .as("a response HW (0) below the follower's own HW (3) leaves it at 3: the follower takes "
                            + "max(own HW, min(response HW, own LEO)), never below its own")
                    .isEqualTo(3);
        }
    }

    @Test
    void aFetchOffsetPastTheLeadersLogEndIsOutOfRangeAndTeachesTheLeaderNothing() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            c.produce(1, ProduceRequest.ACKS_LEADER, NOW);

            FetchResponse answer = answerTo(c, Cluster.FOLLOWER_ID, 1L << 40, NOW + 5);
            assertThat(answer.error())
                    .as("fetch offset 2^40 past the leader's log end 2: a follower cannot hold a record the leader never"
                            + " had, so this is no follower's LEO; answer OFFSET_OUT_OF_RANGE (Kafka's read of the fetch"
                            + " throws before updateFollowerFetchState)")
                    .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(c.isr().followerLeos())
                    .as("checked before it is recorded: a fetch offset past the log end is not learnt as follower 2's"
                            + " LEO (taken at its word, it would let the HW cover the two records nobody else has)")
                    .isEmpty();
            assertThat(c.isr().lastCaughtUpMs(Cluster.FOLLOWER_ID))
                    .as("nor is its time recorded: a fetch the leader refuses must not keep a silent follower in the ISR")
                    .isEqualTo(NOW);
            assertThat(c.leader().highWatermark())
                    .as("and the HW stays 0: no follower has the records").isZero();
        }
    }

    @Test
    void aFetchOffsetBelowTheLeadersLogStartIsOutOfRange() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);

            FetchResponse answer = answerTo(c, Cluster.FOLLOWER_ID, -1, NOW);
            assertThat(answer.error())
                    .as("fetch offset -1, below the leader's log start 0: outside the log on that side too, a fetch"
                            + " offset below the leader's log start is OFFSET_OUT_OF_RANGE, never recorded")
                    .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(c.isr().followerLeos()).as("nothing learnt from it").isEmpty();
        }
    }

    @Test
    void aFetchAtTheLeadersLogEndIsTakenAtItsWord() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            c.produce(1, ProduceRequest.ACKS_LEADER, NOW);
            c.fetchOnce(NOW);

            FetchResponse answer = answerTo(c, Cluster.FOLLOWER_ID, 2, NOW + 1);
            assertThat(answer.error())
                    .as("the leader's own log end is a fetch offset like any other: a follower that holds every record"
                            + " asks for offset 2 = the leader's LEO, and only offsets PAST the log end are out of"
                            + " range (a check against the HW, 0 here, would refuse every follower ahead of it)")
                    .isEqualTo(ErrorCode.NONE);
            assertThat(c.isr().followerLeos()).as("its fetch offset is follower 2's LEO").isEqualTo(Map.of(2, 2L));
            assertThat(c.leader().highWatermark()).as("and the HW moves to it").isEqualTo(2);
        }
    }

    @Test
    void aReplicaIdThatIsNoFollowerIsRefusedAndTeachesTheLeaderNothing() throws IOException {
        try (Cluster c = Cluster.open(root, 1, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            long hw = c.leader().highWatermark();

            for (int stranger : List.of(3, Cluster.LEADER_ID)) {
                FetchResponse answer = answerTo(c, stranger, 1, NOW);
                assertThat(answer.error())
                        .as("replica id %d is not one of the partition's followers (only broker %d is): its fetch is"
                                + " answered NOT_LEADER_OR_FOLLOWER, as Kafka's followerReplicaOrThrow answers a"
                                + " replica outside the assignment", stranger, Cluster.FOLLOWER_ID)
                        .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            }
            assertThat(c.isr().followerLeos()).as("no LEO learnt from a broker that is no follower").isEmpty();
            assertThat(c.leader().highWatermark()).as("and the HW unmoved").isEqualTo(hw);
        }
    }

    @Test
    void aFrameThatIsNotAFetchIsRefusedByItsHeader() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            byte[] fetchBody = new FetchRequest(Cluster.FOLLOWER_ID, Cluster.PARTITION, 0, Cluster.FETCH_MAX_BYTES, 0)
                    .encode();
            c.link().toLeader().send(new RequestEnvelope(ApiKeys.PRODUCE, 99, fetchBody).encode());

            assertThatThrownBy(() -> c.fetchOnce(NOW))
                    .as("a frame on the replication link that is not a fetch (api key %d, PRODUCE) is refused by its "
                            + "header, even when its body would decode as a fetch: check the envelope's api key before "
                            + "decoding the body", ApiKeys.PRODUCE)
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("apiKey " + ApiKeys.PRODUCE);
        }
    }

    @Test
    void everyFrameSentIsReadWithinTheRound() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_LEADER, NOW);
            c.fetchOnce(NOW);

            assertThat(c.link().toLeader().pendingBytes())
                    .as("the leader read the whole request frame off the link").isZero();
            assertThat(c.link().toFollower().pendingBytes())
                    .as("the follower read the whole response frame").isZero();
        }
    }

    /**
     * The leader's answer to a fetch the test puts on the link itself (any broker can send the leader
     * a frame): the leader must answer it, whatever it names, never throw.
     */
    private static FetchResponse answerTo(Cluster c, int replicaId, long fetchOffset, long nowMs) throws IOException {
        byte[] body = new FetchRequest(replicaId, Cluster.PARTITION, fetchOffset, Cluster.FETCH_MAX_BYTES, 0).encode();
        c.link().toLeader().send(new RequestEnvelope(ApiKeys.FETCH, 77, body).encode());
        Throwable thrown = catchThrowable(() -> c.answerFetch(nowMs));
        assertThat(thrown)
                .as("a fetch from replica %d at offset %d is answered, with an error if the leader cannot take it at"
                        + " its word: check the replica id against the followers and the offset against the leader's"
                        + " log (start and end) before anything is recorded", replicaId, fetchOffset)
                .isNull();
        ResponseEnvelope envelope = ResponseEnvelope.decode(c.link().toFollower().receive());
        assertThat(envelope.correlationId()).as("answered under the request's correlation id").isEqualTo(77);
        return FetchResponse.decode(envelope.body());
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    // ---- Kafka judges: Partition.fetchRecords for a follower and the fetcher's HW (models, KafkaModel) ----

    /** A fetch a leader is asked to take at its word: who asks, at which offset, against which log and followers. */
    record Word(int replicaId, long fetchOffset, List<Integer> followers, long logStart, long logEnd) {
        @Override
        public String toString() {
            return "checkFollowerFetch(replicaId " + replicaId + ", fetchOffset " + fetchOffset + ", followers "
                    + followers + ", logStart " + logStart + ", logEnd " + logEnd + ")";
        }
    }

    static final Gen<Word> WORDS = c -> {
        List<Integer> followers = Gens.elements(List.of(2), List.of(0, 2, 3), List.<Integer>of()).generate(c);
        long logStart = Gens.oneOf(Gens.longs(0, 5), Gens.longs(0, 1L << 40)).generate(c);
        long logEnd = logStart + Gens.oneOf(Gens.longs(0, 5), Gens.longs(0, 1L << 40)).generate(c);
        long edge = Gens.booleans().generate(c) ? logEnd : logStart;
        long offset = Gens.oneOf(Gens.longs(-2, 2).map(d -> edge + d), Gens.longs()).generate(c);
        int replicaId = Gens.elements(2, 1, 0, 3, Integer.MAX_VALUE).generate(c);
        return new Word(replicaId, offset, followers, logStart, logEnd);
    };

    @Test
    void everyFollowersWordIsCheckedAsKafkasFetchRecordsChecksIt() {
        Property.forAll(WORDS).check(w -> Judge.agree(w.toString(), "answer", Cluster.checkFollowerFetch(w.replicaId(),
                w.fetchOffset(), w.followers(), w.logStart(), w.logEnd()), "fetchRecords (followerReplicaOrThrow, then"
                + " checkLogStartOffset and LocalLog.read's end check; modelled) answers", KafkaModel.followerFetch(
                        w.replicaId(), w.fetchOffset(), w.followers(), w.logStart(), w.logEnd()), ClusterSteps.CHECK_RULE));
    }

    @Test
    void everySequenceOfRoundsAndStrayFetchesAgreesWithKafkasFetchPath() {
        ClusterSteps.check(root, Gens.oneOf(ClusterSteps.FETCHES, ClusterSteps.produces(ProduceRequest.ACKS_LEADER,
                ProduceRequest.ACKS_NONE), ClusterSteps.STRAYS, ClusterSteps.SHRINKS), 16, 8);
    }
}
