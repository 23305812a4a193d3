package kaenlog.cluster;

import static kaenlog.cluster.LeaderFixture.LAG;
import static kaenlog.cluster.LeaderFixture.T0;
import static kaenlog.cluster.LeaderFixture.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.batch.BatchBuilder;
import kaenlog.replication.Replica;
import kaenlog.testkit.property.Scratch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 9: the leader's side of a follower's fetch: the epoch checked first, then the replica's word
 * against the log and the assignment, then the fetch offset learnt as the follower's LEO, a caught-up,
 * live follower that holds the leader's epoch let into the ISR, and the high watermark moved.
 */
@Order(9)
class FollowerFetchTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final int EPOCH = 4;

    @TempDir
    Path dir;

    @Test
    void anEpochOlderThanTheLocalOneIsFencedANewerOneUnknown() {
        assertThat(PartitionLeader.checkLeaderEpoch(3, 4))
                .as("a follower still at epoch 3 missed a leader change: FENCED_LEADER_EPOCH, it must learn the new state")
                .isEqualTo(ErrorCode.FENCED_LEADER_EPOCH);
        assertThat(PartitionLeader.checkLeaderEpoch(5, 4))
                .as("a follower at epoch 5 knows a state this broker has not read yet: UNKNOWN_LEADER_EPOCH, ask again")
                .isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH);
        assertThat(PartitionLeader.checkLeaderEpoch(4, 4)).as("the same epoch is served").isEqualTo(ErrorCode.NONE);
    }

    @Test
    void minusOneIsNotChecked() {
        assertThat(PartitionLeader.checkLeaderEpoch(FetchRequest.NO_LEADER_EPOCH, 4))
                .as("-1 means 'no epoch to check' (a consumer's fetch), never an old epoch").isEqualTo(ErrorCode.NONE);
        assertThat(PartitionLeader.checkLeaderEpoch(0, 4))
                .as("epoch 0 is an epoch like any other: older than 4").isEqualTo(ErrorCode.FENCED_LEADER_EPOCH);
    }

    @Test
    void anyNegativeEpochNamesNoEpoch() {
        assertThat(PartitionLeader.checkLeaderEpoch(-2, 4))
                .as("-2 is no epoch either: Kafka's FetchRequest.optionalEpoch reads every negative epoch as none, so"
                        + " Partition.checkCurrentLeaderEpoch does not check it (a Kafka client's request reaches this"
                        + " check through chapter 9's port): NONE, never FENCED_LEADER_EPOCH")
                .isEqualTo(ErrorCode.NONE);
        assertThat(PartitionLeader.checkLeaderEpoch(Integer.MIN_VALUE, 0)).as("nor the smallest int")
                .isEqualTo(ErrorCode.NONE);
    }

    @Test
    void theFetchOffsetIsTheFollowersLeoAndTheHighWatermarkMovesInTheSameFetch() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3));
            assertThat(leader.onFollowerFetch(2, 10, EPOCH, T0)).isEqualTo(ErrorCode.NONE);
            assertThat(replica.highWatermark()).as("follower 3 has not fetched yet: the HW waits for it").isZero();
            assertThat(leader.onFollowerFetch(3, 7, EPOCH, T0)).isEqualTo(ErrorCode.NONE);
            LeaderFixture.chapter8ProposesHw(10, Map.of(2, 10L, 3, 7L), Set.of(1, 2, 3), 2, OptionalLong.of(7));
            assertThat(leader.followerLeos()).as("each fetch offset is that follower's LEO")
                    .isEqualTo(Map.of(2, 10L, 3, 7L));
            assertThat(replica.highWatermark())
                    .as("the HW moves to the smallest LEO of the ISR in the very fetch that reported it: record the"
                            + " LEO first, then recompute, or the HW lags one more round")
                    .isEqualTo(7);
        }
    }

    @Test
    void aFetchFromAStaleEpochIsRefusedAndTeachesTheLeaderNothing() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3));
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            assertThat(leader.onFollowerFetch(2, 10, EPOCH - 1, T0))
                    .as("a follower of epoch 3 asks leader epoch 4").isEqualTo(ErrorCode.FENCED_LEADER_EPOCH);
            assertThat(leader.followerLeos())
                    .as("validated before it is recorded: an offset from a stale epoch may be from a log that diverged")
                    .doesNotContainKey(2);
            assertThat(replica.highWatermark()).as("so the HW does not move on it").isZero();
            assertThat(leader.onFollowerFetch(2, 10, EPOCH + 1, T0)).isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH);
            assertThat(leader.followerLeos()).as("nor on a fetch from an epoch not known yet").doesNotContainKey(2);
        }
    }

    @Test
    void aCaughtUpFollowerJoinsTheIsrAndFromThenOnHoldsTheHighWatermark() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2));
            leader.onFollowerFetch(2, 6, EPOCH, T0);
            assertThat(replica.highWatermark()).isEqualTo(6);
            leader.onFollowerFetch(3, 2, EPOCH, T0);
            assertThat(leader.maximalIsr()).as("follower 3 fetches from 2, below the HW 6: it stays out").containsExactly(1, 2);
            assertThat(replica.highWatermark()).as("and a follower outside the ISR never holds the HW back")
                    .isEqualTo(6);
            leader.onFollowerFetch(3, 6, EPOCH, T0);
            assertThat(leader.maximalIsr()).as("from the HW itself: caught up, it joins").containsExactly(1, 2, 3);
            assertThat(PartitionStateStore.read(ZK.connect(), TOPIC, 0).orElseThrow().value().isr())
                    .as("the leader writes the larger ISR itself").containsExactly(1, 2, 3);
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            assertThat(replica.highWatermark()).as("an ISR member now: the HW waits for follower 3 at 6 as well")
                    .isEqualTo(6);
        }
    }

    @Test
    void aFetchOffsetPastTheLeadersLogEndIsOutOfRangeAndMovesNothing() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3));
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            LeaderFixture.chapter8ChecksFetch(2, 1L << 40, 0, 10, ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(leader.onFollowerFetch(2, 1L << 40, FetchRequest.NO_LEADER_EPOCH, T0))
                    .as("a replica FETCH from 2^40, past the leader's log end 10: no follower holds a record the leader"
                            + " never had, so this is no LEO: OFFSET_OUT_OF_RANGE (chapter 8's checkFollowerFetch)")
                    .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(leader.followerLeos())
                    .as("checked before it is recorded: taken at its word, 2^40 would let the HW cover every record"
                            + " and acks=all be answered with the followers holding none of them")
                    .doesNotContainKey(2);
            assertThat(replica.highWatermark()).as("so the HW waits for follower 2's real fetch").isZero();
        }
    }

    @Test
    void aBrokerThatIsNoReplicaOfThePartitionIsRefused() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3));
            for (int stranger : List.of(4, 1)) {
                LeaderFixture.chapter8ChecksFetch(stranger, 10, 0, 10, ErrorCode.NOT_LEADER_OR_FOLLOWER);
                assertThat(leader.onFollowerFetch(stranger, 10, EPOCH, T0))
                        .as("broker %d is not one of the partition's followers [2, 3]: NOT_LEADER_OR_FOLLOWER (Kafka's"
                                + " followerReplicaOrThrow), and nothing recorded", stranger)
                        .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            }
            assertThat(leader.followerLeos()).as("no LEO learnt from a stranger").isEmpty();
        }
    }

    @Test
    void aFollowerThatIsNotALiveBrokerNeverJoinsTheIsr() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = LeaderFixture.leader(ZK.connect(), replica, EPOCH, List.of(1, 2), 2,
                    broker -> broker != 3);
            leader.onFollowerFetch(2, 6, EPOCH, T0);
            leader.onFollowerFetch(3, 6, EPOCH, T0);
            assertThat(leader.maximalIsr())
                    .as("follower 3 fetched from the HW 6, but broker 3 is not live as the cluster was last read (its"
                            + " registration is gone or does not parse): only a live broker joins the ISR (Kafka's"
                            + " isReplicaIsrEligible, hasAliveBroker in ZooKeeper mode); written in, it would only be"
                            + " taken out again by the controller, at the next leader epoch, again and again")
                    .containsExactly(1, 2);
            assertThat(PartitionStateStore.read(ZK.connect(), TOPIC, 0).orElseThrow().value().isr())
                    .as("and the leader writes no ISR with it").containsExactly(1, 2);
        }
    }

    @Test
    void aFollowerBelowTheStartOfTheLeadersEpochStaysOutOfTheIsr() throws Exception {
        try (Replica replica = LeaderFixture.leaderWith(dir, EPOCH - 1, 6)) {
            replica.becomeLeader(EPOCH); // this leader's epoch starts at offset 6
            for (int i = 6; i < 10; i++) {
                replica.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + i).build());
            }
            replica.updateHighWatermark(4); // the HW lags: a failover left records 4 and 5 uncertain
            PartitionLeader leader = leader(replica, List.of(1, 2));
            leader.onFollowerFetch(3, 5, EPOCH, T0);
            assertThat(leader.maximalIsr())
                    .as("follower 3 fetches from 5, past the HW 4 but below 6, where this leader's epoch began: records"
                            + " 4 and 5 may be committed, and a follower without them must not join (Kafka's"
                            + " isFollowerInSync: LEO >= HW and LEO >= leaderEpochStartOffset)")
                    .containsExactly(1, 2);
            leader.onFollowerFetch(3, 6, EPOCH, T0);
            assertThat(leader.maximalIsr()).as("from 6, the epoch's start: it holds everything before it, it joins")
                    .containsExactly(1, 2, 3);
        }
    }

    @Test
    void aFollowerHeardFromStaysInTheIsrPastTheLagOfTheFirstFetch() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3));
            leader.onFollowerFetch(2, 10, EPOCH, T0 + LAG);
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            LeaderFixture.chapter8Shrinks(Map.of(2, T0 + LAG, 3, T0), T0 + LAG + 1, true);
            assertThat(leader.maybeShrinkIsr(T0 + LAG + 1))
                    .as("follower 3 last fetched at T0, follower 2 at T0 + %d: only 3 leaves after the lag", LAG).isTrue();
            assertThat(leader.committedIsr()).as("the fetch time recorded is when each fetch came").containsExactly(1, 2);
        }
    }

    /** A leader at epoch {@link #EPOCH} with {@code records} records, its HW at 0 (eager HW off). */
    private Replica leaderWith(int records) throws Exception {
        return LeaderFixture.leaderWith(dir, EPOCH, records);
    }

    private static PartitionLeader leader(Replica replica, List<Integer> isr) throws Exception {
        return LeaderFixture.leader(ZK.connect(), replica, EPOCH, isr, 2);
    }

    // ---- Kafka judges: a model of Partition.fetchRecords for a follower, over generated fetches ----

    static final String EPOCH_RULE = "a negative epoch (-1, a consumer's) names no epoch and is not checked; older than"
            + " the leader's is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH, the same NONE";

    @Test
    void everyEpochCheckAgreesWithKafkasCheckCurrentLeaderEpoch() {
        Gen<int[]> pairs = c -> new int[] {Gens.ints().generate(c), Gens.ints(0, Integer.MAX_VALUE).generate(c)};
        Property.forAll(pairs).tries(300).check(p -> {
            // FetchRequest.optionalEpoch: a negative epoch is Optional.empty(); Partition.checkCurrentLeaderEpoch then:
            // empty -> NONE, localLeaderEpoch > remote -> FENCED_LEADER_EPOCH, < remote -> UNKNOWN_LEADER_EPOCH
            ErrorCode kafkas = p[0] < 0 ? ErrorCode.NONE : p[1] > p[0] ? ErrorCode.FENCED_LEADER_EPOCH
                    : p[1] < p[0] ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NONE;
            Judge.agree("a request naming leader epoch " + p[0] + " at a broker of leader epoch " + p[1], "answer",
                    PartitionLeader.checkLeaderEpoch(p[0], p[1]),
                    "Partition.checkCurrentLeaderEpoch (with FetchRequest.optionalEpoch) answers", kafkas, EPOCH_RULE);
        });
    }

    static final String FETCH_RULE = "the epoch first, then the replica's word (a follower of the assignment, an offset"
            + " inside the leader's log), and a refused fetch teaches nothing; then the fetch offset is the follower's"
            + " LEO, a live follower out of the ISR whose offset reaches the HW and this leader's epoch start joins it,"
            + " and the HW moves to the smallest LEO of the ISR (not under min.insync.replicas)";

    /** A leader's log and state: records before this leader's epoch and in it, its HW, the ISR, the live brokers. */
    record Leadership(int before, int during, long hw, List<Integer> isr, Set<Integer> live, int minIsr,
                      List<long[]> fetches) {
        long leo() {
            return before + during;
        }

        @Override
        public String toString() {
            return "a leader at epoch " + EPOCH + " (epoch " + EPOCH + " from offset " + before + ", LEO " + leo() + ", HW "
                    + hw + ", ISR " + isr + ", min.insync.replicas " + minIsr + ", live followers " + live
                    + ") fetched by " + fetches.stream().map(f -> "(replica " + f[0] + ", offset " + f[1] + ", epoch "
                    + f[2] + ")").toList();
        }
    }

    static final Gen<Leadership> LEADERSHIPS = c -> {
        int before = Gens.ints(0, 3).generate(c);
        int during = Gens.ints(0, 3).generate(c);
        long hw = Gens.longs(0, before).generate(c);
        List<Integer> isr = new ArrayList<>(List.of(1));
        for (int follower : List.of(2, 3)) {
            if (c.oneIn(3)) {
                isr.add(follower);
            }
        }
        Set<Integer> live = new TreeSet<>();
        for (int follower : List.of(2, 3)) {
            if (!c.oneIn(4)) {
                live.add(follower);
            }
        }
        int leo = before + during;
        Gen<long[]> fetch = d -> new long[] {Gens.elements(2, 3, 2, 3, 4, 1).generate(d),
            Gens.oneOf(Gens.longs(0, leo), Gens.longs(before, leo), Gens.elements(-1L, (long) leo + 1, 1L << 40)).generate(d),
            Gens.elements(EPOCH, EPOCH, EPOCH, -1, EPOCH - 1, EPOCH + 1, -2).generate(d)};
        return new Leadership(before, during, hw, isr, live, Gens.ints(1, 3).generate(c), Gens.lists(fetch, 1, 8).generate(c));
    };

    @Test
    void everySequenceOfFetchesAgreesWithKafkasFetchRecords() throws Exception {
        ZkClient zk = ZK.connect();
        ControllerEpoch controller = ControllerElection.elect(zk, 1, T0).orElseThrow();
        AtomicInteger topics = new AtomicInteger();
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(LEADERSHIPS).tries(50).shrinkBudget(200).check(l -> {
                try (Replica replica = LeaderFixture.leaderWith(scratch.newDir(), EPOCH - 1, l.before())) {
                    replica.becomeLeader(EPOCH);
                    for (int i = 0; i < l.during(); i++) {
                        replica.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + i).build());
                    }
                    replica.updateHighWatermark(l.hw());
                    PartitionLeader leader = LeaderFixture.leaderOfNewTopic(zk, controller, "t" + topics.incrementAndGet(),
                            replica, EPOCH, l.isr(), l.minIsr(), l.live()::contains);
                    KafkasLeader kafka = new KafkasLeader(l);
                    for (int i = 0; i < l.fetches().size(); i++) {
                        long[] f = l.fetches().get(i);
                        LeaderFixture.chapter8ChecksFetch((int) f[0], f[1], 0, l.before() + l.during(),
                                f[0] != 2 && f[0] != 3 ? ErrorCode.NOT_LEADER_OR_FOLLOWER
                                : f[1] < 0 || f[1] > l.before() + l.during() ? ErrorCode.OFFSET_OUT_OF_RANGE : ErrorCode.NONE);
                        Judge.Outcome answer = Judge.Outcome.of(() -> leader.onFollowerFetch((int) f[0], f[1], (int) f[2], T0));
                        Object yours = answer.refused() ? answer : answer.value();
                        ErrorCode kafkas = kafka.fetch((int) f[0], f[1], (int) f[2]);
                        String after = "fetch " + (i + 1) + " (replica " + f[0] + ", offset " + f[1] + ", epoch " + f[2]
                                + ") of " + l;
                        Judge.agree(after, "answer, follower LEOs, ISR and HW", List.of(yours,
                                new TreeMap<>(leader.followerLeos()), List.copyOf(leader.maximalIsr()), replica.highWatermark()),
                                "Partition.fetchRecords, updateFollowerFetchState, maybeExpandIsr and maybeIncrementLeaderHW give",
                                List.of(kafkas, kafka.leos, List.copyOf(kafka.isr), kafka.hw), FETCH_RULE);
                    }
                }
            });
        }
    }

    /**
     * Kafka 3.9.1's leader of one partition, as {@code kafka.cluster.Partition} takes a follower's fetch:
     * {@code checkCurrentLeaderEpoch}, {@code followerReplicaOrThrow} (NOT_LEADER_OR_FOLLOWER), the read's
     * offset checks (OFFSET_OUT_OF_RANGE below the log start or past the log end), then
     * {@code updateFollowerFetchState} (the fetch offset is the LEO), {@code maybeExpandIsr}
     * ({@code isFollowerInSync}: LEO at least the HW and at least {@code leaderEpochStartOffsetOpt};
     * {@code isReplicaIsrEligible}: {@code hasAliveBroker}) and {@code maybeIncrementLeaderHW} (nothing under
     * min.insync.replicas; else the smallest LEO of the ISR, -1 for a follower not heard from). Chapter 8's
     * documented difference: only ISR members hold the HW back.
     */
    private static final class KafkasLeader {
        final Leadership l;
        final TreeMap<Integer, Long> leos = new TreeMap<>();
        final Set<Integer> isr;
        long hw;

        KafkasLeader(Leadership l) {
            this.l = l;
            this.isr = new TreeSet<>(l.isr());
            this.hw = l.hw();
        }

        ErrorCode fetch(int replicaId, long offset, int epoch) {
            if (epoch >= 0 && epoch != EPOCH) {
                return epoch < EPOCH ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
            }
            if (replicaId != 2 && replicaId != 3) {
                return ErrorCode.NOT_LEADER_OR_FOLLOWER;
            }
            if (offset < 0 || offset > l.leo()) {
                return ErrorCode.OFFSET_OUT_OF_RANGE;
            }
            leos.put(replicaId, offset);
            if (!isr.contains(replicaId) && l.live().contains(replicaId) && offset >= hw && offset >= l.before()) {
                isr.add(replicaId);
            }
            if (isr.size() >= l.minIsr()) {
                long candidate = l.leo();
                for (int member : isr) {
                    if (member != 1) {
                        candidate = Math.min(candidate, leos.getOrDefault(member, -1L));
                    }
                }
                hw = Math.max(hw, candidate);
            }
            return ErrorCode.NONE;
        }
    }
}
