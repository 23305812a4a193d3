package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 7: the leader moves its HW to the proposal of advanceHw, and never backwards. */
@Order(7)
class RecomputeHwTest {
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path root;

    private static void produce(Cluster cluster, int records) throws IOException {
        for (int i = 0; i < records; i++) {
            cluster.produce(i, ProduceRequest.ACKS_LEADER, NOW);
        }
    }

    @Test
    void theLeadersHighWatermarkIsTheSmallestLeoInTheIsr() throws IOException {
        try (Cluster cluster = Cluster.open(root, 2, NOW)) {
            produce(cluster, 3);
            cluster.isr().observe(2, 2, NOW);
            cluster.recomputeHw();

            assertThat(cluster.leader().highWatermark())
                    .as("leader LEO 3, follower reported LEO 2: the HW is min(3, 2) = 2")
                    .isEqualTo(2);
        }
    }

    @Test
    void theHighWatermarkNeverMovesBackwards() throws IOException {
        try (Cluster cluster = Cluster.open(root, 2, NOW)) {
            produce(cluster, 3);
            cluster.isr().observe(2, 3, NOW);
            cluster.recomputeHw();
            assertThat(cluster.leader().highWatermark()).as("the follower has all 3 records: HW 3").isEqualTo(3);

            cluster.isr().observe(2, 1, NOW + 1);
            cluster.recomputeHw();
            assertThat(cluster.leader().highWatermark())
                    .as("a follower now reporting LEO 1 makes advanceHw propose 1, but a committed record stays "
                            + "committed: recomputeHw keeps 3 (the proposal is only a proposal)")
                    .isEqualTo(3);
        }
    }

    @Test
    void aFollowerThatHasNotFetchedYetHoldsTheHighWatermarkAtZero() throws IOException {
        try (Cluster cluster = Cluster.open(root, 2, NOW)) {
            produce(cluster, 2);
            cluster.recomputeHw();

            assertThat(cluster.leader().highWatermark())
                    .as("follower 2 is in the ISR but its LEO is unknown: nothing is committed yet")
                    .isZero();
        }
    }

    @Test
    void theHighWatermarkDoesNotAdvanceUnderMinIsr() throws IOException {
        try (Cluster cluster = Cluster.open(root, 2, NOW)) {
            produce(cluster, 3);
            cluster.isr().observe(2, 3, NOW);
            cluster.isr().shrinkIsr(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);
            cluster.recomputeHw();

            assertThat(cluster.leader().highWatermark())
                    .as("ISR [1] under min.insync.replicas 2: the HW stays 0 even though the follower reported all 3 "
                            + "records (Kafka's maybeIncrementLeaderHW returns early when isUnderMinIsr)")
                    .isZero();
        }
    }

    // ---- Kafka judges: maybeIncrementLeaderHW (a model, KafkaModel) over random ISR histories ----

    static final String RECOMPUTE_RULE = "propose with advanceHw from the leader's LEO and what the ISR state knows, then"
            + " let nextHighWatermark apply the never-backwards rule against the leader's current HW";

    /** What happens to a leader with followers 2 and 3: appends, fetches (a truncated follower reports less), shrinks, recomputes. */
    sealed interface Step {
    }

    record Append(int records) implements Step {
        @Override
        public String toString() {
            return "append " + records;
        }
    }

    record Observe(int replicaId, long belowLeo, long afterMs) implements Step {
        @Override
        public String toString() {
            return "observe(" + replicaId + ", LEO - " + belowLeo + ", +" + afterMs + " ms)";
        }
    }

    record Shrink(long afterMs) implements Step {
        @Override
        public String toString() {
            return "shrinkIsr(+" + afterMs + " ms)";
        }
    }

    record Recompute() implements Step {
        @Override
        public String toString() {
            return "recomputeHw";
        }
    }

    record History(int minIsr, List<Step> steps) {
        @Override
        public String toString() {
            return "leader 1, followers [2, 3], min ISR " + minIsr + ": " + steps;
        }
    }

    static final Gen<Step> STEPS = Gens.oneOf(
            c -> new Recompute(),
            Gens.ints(1, 3).map(Append::new),
            c -> new Observe(Gens.ints(2, 3).generate(c), Gens.longs(-1, 4).generate(c), Gens.longs(0, 20_000).generate(c)),
            c -> new Shrink(Gens.oneOf(Gens.longs(0, 100), Gens.longs(-1, 1).map(d -> IsrState.REPLICA_LAG_TIME_MAX_MS
                    + d)).generate(c)));

    static final Gen<History> HISTORIES = c -> {
        List<Step> steps = new ArrayList<>(Gens.lists(STEPS, 1, 24).generate(c));
        steps.add(new Recompute());
        return new History(Gens.ints(1, 4).generate(c), steps);
    };

    @Test
    void everyIsrHistoryMovesTheHighWatermarkAsKafkasMaybeIncrementLeaderHw() {
        AtomicInteger tries = new AtomicInteger();
        Property.forAll(HISTORIES).tries(15).shrinkBudget(ClusterSteps.CLUSTER_SHRINKS).check(h -> {
            try (Replica leader = Replica.open(1, Role.LEADER,
                    root.resolve("try-" + tries.incrementAndGet()).resolve(Cluster.PARTITION))) {
                leader.becomeLeader(0);
                leader.stopEagerHighWatermark();
                IsrState isr = new IsrState(1, List.of(2, 3), h.minIsr(), NOW);
                long now = NOW;
                long kafkasHw = 0;
                for (int i = 0; i < h.steps().size(); i++) {
                    Step step = h.steps().get(i);
                    if (step instanceof Append a) {
                        for (int n = 0; n < a.records(); n++) {
                            leader.appendAsLeader(Cluster.record(n, now));
                        }
                    } else if (step instanceof Observe o) {
                        now += o.afterMs();
                        isr.observe(o.replicaId(), Math.max(0, leader.leo() - o.belowLeo()), now);
                    } else if (step instanceof Shrink s) {
                        now += s.afterMs();
                        isr.shrinkIsr(now);
                    } else {
                        String state = "leader LEO " + leader.leo() + ", HW " + kafkasHw + ", follower LEOs "
                                + isr.followerLeos() + ", ISR " + isr.isr() + ", min ISR " + h.minIsr();
                        kafkasHw = KafkaModel.leaderHwAfter(kafkasHw, 1, leader.leo(), isr.followerLeos(),
                                isr.maximalIsr(), h.minIsr());
                        Cluster.recomputeHw(leader, isr);
                        Judge.agree("recomputeHw at step " + (i + 1) + " of " + h + " (" + state + "),",
                                "high watermark", leader.highWatermark(), "maybeIncrementLeaderHW (Partition.scala,"
                                        + " modelled) moves it to", kafkasHw, RECOMPUTE_RULE);
                    }
                }
            }
        });
    }
}
