package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
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
}
