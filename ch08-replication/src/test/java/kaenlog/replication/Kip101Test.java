package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.ProduceRequest;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 11: KIP-101 scenario 1. A follower that truncates to its own high watermark (one round
 * late) loses a record for good; one that asks the leader where its epoch ends loses nothing.
 */
@Order(11)
class Kip101Test {
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path root;

    /** Produce m1, fetch twice (the follower learns m1 is committed), produce m2, fetch once. */
    private static Cluster scenarioOne(Path dir) throws IOException {
        Cluster c = Cluster.open(dir, 2, NOW);
        c.produce(1, ProduceRequest.ACKS_LEADER, NOW);
        c.fetchOnce(NOW);
        c.fetchOnce(NOW);
        c.produce(2, ProduceRequest.ACKS_LEADER, NOW);
        c.fetchOnce(NOW);
        return c;
    }

    @Test
    @PassesOnSkeleton("the scenario's starting state, built from the earlier tasks: what the task starts from")
    void scenarioOneStartsWithTheFollowerHoldingM2WithoutKnowingItIsCommitted() throws IOException {
        try (Cluster c = scenarioOne(root)) {
            assertThat(List.of(c.leader().leo(), c.leader().highWatermark()))
                    .as("leader: LEO 2, HW 1").containsExactly(2L, 1L);
            assertThat(List.of(c.follower().leo(), c.follower().highWatermark()))
                    .as("follower: LEO 2 (it holds m2), its own HW 1 (it learns about m2 one round later)")
                    .containsExactly(2L, 1L);
        }
    }

    @Test
    @PassesOnSkeleton("the loss without KIP-101, on given code: the contrast the task fixes")
    void truncatingToTheOwnHighWatermarkLosesARecordForGood() throws IOException {
        try (Cluster c = scenarioOne(root)) {
            assertThat(c.truncateFollowerToHighWatermark())
                    .as("the follower restarts and truncates to its own HW 1: LEO down to 1, m2 gone from it")
                    .isEqualTo(1);
            c.failOver(1, NOW);
            c.truncateFollowerToHighWatermark();

            assertThat(List.of(c.leader().leo(), c.follower().leo()))
                    .as("the leader dies, the follower leads at epoch 1 with LEO 1, and the old leader (HW 1) "
                            + "truncates the same way: m2, which was on both replicas, is on neither")
                    .containsExactly(1L, 1L);
        }
    }

    @Test
    void truncatingByLeaderEpochLosesNothing() throws IOException {
        try (Cluster c = scenarioOne(root)) {
            Optional<EpochEndOffset> answer = c.truncateFollowerByLeaderEpoch();

            assertThat(answer)
                    .as("the follower holds epoch 0 and asks where it ends: the leader (LEO 2) answers (0, 2)")
                    .contains(new EpochEndOffset(0, 2));
            assertThat(c.follower().leo())
                    .as("the follower truncates to min(its LEO 2, 2) = 2, not to its HW 1: m2 stays")
                    .isEqualTo(2);

            c.failOver(1, NOW);
            assertThat(c.truncateFollowerByLeaderEpoch())
                    .as("after the failover the old leader asks the new one about epoch 0: it ends at 2, where epoch "
                            + "1 starts")
                    .contains(new EpochEndOffset(0, 2));
            assertThat(List.of(c.leader().leo(), c.follower().leo()))
                    .as("both keep m2: nothing is lost").containsExactly(2L, 2L);
        }
    }

    @Test
    void aRecordTheNewLeaderNeverHadIsCutAtTheEndOfItsEpoch() throws IOException {
        try (Cluster c = scenarioOne(root)) {
            c.truncateFollowerToHighWatermark();
            c.failOver(1, NOW);
            c.produce(3, ProduceRequest.ACKS_LEADER, NOW);

            assertThat(c.truncateFollowerByLeaderEpoch())
                    .as("the old leader holds m2 at offset 1 in epoch 0; the new leader says epoch 0 ended at 1")
                    .contains(new EpochEndOffset(0, 1));
            assertThat(c.follower().leo()).as("so it cuts m2 off: LEO 1").isEqualTo(1);
            c.fetchOnce(NOW);
            List<String> values = RecordBatch.decodeAll(c.follower().partition()
                            .locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END))).stream()
                    .flatMap(b -> b.records().stream()).map(r -> Record.show(r.value())).toList();
            assertThat(values)
                    .as("and then copies the new leader's m3 at offset 1: the two logs agree again")
                    .containsExactly("m1", "m3");
        }
    }


    @Test
    void anEmptyAnswerFallsBackToTheOwnHighWatermark() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(1, ProduceRequest.ACKS_LEADER, NOW);
            c.produce(2, ProduceRequest.ACKS_LEADER, NOW);
            c.failOver(1, NOW);

            assertThat(c.truncateFollowerByLeaderEpoch())
                    .as("the old leader holds m1 and m2 in epoch 0 (LEO 2, HW 0: nobody else had them); the new leader "
                            + "fetched nothing and knows only epoch 1, from offset 0: no epoch <= 0, an empty answer")
                    .isEmpty();
            assertThat(c.follower().leo())
                    .as("with an empty answer the follower falls back to its own HW 0 and cuts m1 and m2, which were "
                            + "never committed (Kafka's follower truncates to its fetch offset, its high watermark, when "
                            + "the leader replies with an unknown offset)")
                    .isZero();
        }
    }
    @Test
    void aFollowerWithNoEpochHasNothingToTruncate() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            assertThat(c.truncateFollowerByLeaderEpoch())
                    .as("an empty follower holds no epoch: nothing to ask, nothing to cut").isEmpty();
            assertThat(c.follower().leo()).as("still empty").isZero();
        }
    }

    // ---- Kafka judges: the leader's LeaderEpochFileCache.endOffsetFor, and the follower's truncation
    //      (AbstractFetcherThread.getOffsetTruncationState, modelled), over histories with failovers ----

    static final String TRUNCATE_RULE = "ask the leader where the latest epoch the follower holds ends (no epoch held:"
            + " nothing to do) and truncate to min(own LEO, that end), never to the own HW, which is one round late; an"
            + " empty answer falls back to the own HW, as Kafka's follower does; return the leader's answer";

    sealed interface Step {
    }

    record Produce() implements Step {
        @Override
        public String toString() {
            return "produce";
        }
    }

    record Fetch() implements Step {
        @Override
        public String toString() {
            return "fetchOnce";
        }
    }

    /** The leader dies: the follower leads at an epoch {@code bump} above every epoch seen; the old leader reconciles. */
    record FailOver(int bump, boolean byEpoch) implements Step {
        @Override
        public String toString() {
            return "failOver(+" + bump + "), then the old leader truncates " + (byEpoch ? "by leader epoch" : "to its HW");
        }
    }

    record TruncateByEpoch() implements Step {
        @Override
        public String toString() {
            return "truncateFollowerByLeaderEpoch";
        }
    }

    /** Records written and copied twice as often as leaders change, so that followers come to hold several epochs. */
    static final Gen<Step> STEPS = Gens.oneOf(c -> new Produce(), c -> new Fetch(), c -> new TruncateByEpoch(),
            c -> new FailOver(Gens.ints(1, 3).generate(c), !Gens.booleans().generate(c)), c -> new Produce(),
            c -> new Fetch());

    static final Gen<List<Step>> HISTORIES = Gens.lists(STEPS, 0, 24).map(steps -> {
        List<Step> all = new ArrayList<>(steps);
        all.add(new TruncateByEpoch());
        return all;
    });

    @Test
    void everyTruncationAgreesWithKafkasLeaderEpochCacheAndItsFollowersRule() {
        AtomicInteger tries = new AtomicInteger();
        Property.forAll(HISTORIES).tries(8).shrinkBudget(ClusterSteps.CLUSTER_SHRINKS).check(steps -> {
            try (Cluster c = Cluster.open(root.resolve("try-" + tries.incrementAndGet()), 2, NOW)) {
                int epoch = 0;
                for (int i = 0; i < steps.size(); i++) {
                    Step step = steps.get(i);
                    String at = "step " + (i + 1) + " (" + step + ") of " + steps;
                    if (step instanceof Produce) {
                        c.produce(i, ProduceRequest.ACKS_LEADER, NOW);
                    } else if (step instanceof Fetch && c.follower().leo() <= c.leader().leo()) {
                        c.fetchOnce(NOW);
                    } else if (step instanceof FailOver f) {
                        epoch += f.bump();
                        c.failOver(epoch, NOW);
                        if (f.byEpoch()) {
                            truncateAndJudge(c, at);
                        } else {
                            c.truncateFollowerToHighWatermark();
                        }
                    } else if (step instanceof TruncateByEpoch) {
                        truncateAndJudge(c, at);
                    }
                }
            }
        });
    }

    private void truncateAndJudge(Cluster c, String at) throws IOException {
        OptionalInt held = c.follower().epochs().latestEpoch();
        List<LeaderEpochCache.EpochEntry> leaders = c.leader().epochs().entries();
        long leaderLeo = c.leader().leo();
        long leo = c.follower().leo();
        long hw = c.follower().highWatermark();
        String state = at + ": the follower holds epochs " + c.follower().epochs().entries() + ", LEO " + leo + ", HW "
                + hw + "; the leader holds epochs " + leaders + ", LEO " + leaderLeo + ",";

        Optional<EpochEndOffset> kafkas = Optional.empty();
        String oracle = "LeaderEpochFileCache.endOffsetFor, asked nothing (no epoch held), gives";
        if (held.isPresent()) {
            LeaderEpochFileCache cache = KafkaJudges.epochCache(root);
            leaders.forEach(e -> cache.assign(e.epoch(), e.startOffset()));
            EpochEndOffset.Wire wire = KafkaJudges.endOffsetFor(cache, held.getAsInt(), leaderLeo);
            oracle = "LeaderEpochFileCache.endOffsetFor(" + held.getAsInt() + ", " + leaderLeo + ") on the leader answers";
            if (!leaders.isEmpty() && held.getAsInt() < leaders.get(0).epoch()) {
                oracle += " (" + wire.leaderEpoch() + ", " + wire.endOffset() + ") for an epoch below every cached one;"
                        + " kaen-log's documented difference answers";
            } else if (!leaders.isEmpty() && held.getAsInt() > leaders.get(leaders.size() - 1).epoch()) {
                LeaderEpochCache.EpochEntry latest = leaders.get(leaders.size() - 1);
                oracle += " (" + wire.leaderEpoch() + ", " + wire.endOffset() + ") for an epoch above the latest;"
                        + " kaen-log's documented difference answers";
                kafkas = Optional.of(new EpochEndOffset(latest.epoch(), leaderLeo));
            } else {
                kafkas = EpochEndOffset.fromWire(wire.leaderEpoch(), wire.endOffset());
            }
        }
        // getOffsetTruncationState: min(leaderEpochOffset.endOffset, replica's end offset), or the fetch offset
        // (the follower's HW) when the leader answered UNDEFINED_EPOCH_OFFSET
        long kafkasLeo = held.isEmpty() ? leo : kafkas.map(e -> Math.min(leo, e.endOffset())).orElse(hw);

        Optional<EpochEndOffset> expected = kafkas;
        Judge.agree(state, "leader's answer", Judge.Outcome.of(c::truncateFollowerByLeaderEpoch), oracle,
                Judge.Outcome.of(() -> expected), TRUNCATE_RULE);
        Judge.agree(state, "LEO after the truncation", c.follower().leo(), "AbstractFetcherThread"
                + ".getOffsetTruncationState (modelled) truncates to", kafkasLeo, TRUNCATE_RULE);
    }
}
