package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own tests, replayed on the whole cluster: PartitionTest.testMaybeShrinkIsr,
 * PartitionTest.testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR, and
 * LeaderEpochFileCacheTest.shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested.
 */
@Order(13)
class KafkaMirrorTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long LAG = IsrState.REPLICA_LAG_TIME_MAX_MS;

    @TempDir
    Path root;

    @Test
    void aSilentFollowerLeavesOneMillisecondAfterTheLagAndTheHighWatermarkThenAdvances() throws IOException {
        try (Cluster c = Cluster.open(root, 1, NOW)) {
            for (int i = 0; i < 10; i++) {
                c.produce(i, ProduceRequest.ACKS_LEADER, NOW);
            }
            assertThat(c.leader().highWatermark())
                    .as("follower 2 never fetched: its LEO is unknown and holds the HW at 0").isZero();

            assertThat(c.isr().shrinkIsr(NOW))
                    .as("on initialization the replica is considered caught up and is not removed").isFalse();
            assertThat(c.isr().shrinkIsr(NOW + LAG + 1))
                    .as("replica.lag.time.max.ms + 1 without a fetch: the ISR shrinks").isTrue();
            assertThat(c.isr().isr()).as("ISR [1, 2] -> [1]").containsExactly(1);
            c.recomputeHw();
            assertThat(c.leader().highWatermark())
                    .as("after the shrink the HW advances to the leader's LEO 10 (testMaybeShrinkIsr: "
                            + "'the high watermark should be advanced')")
                    .isEqualTo(10);
        }
    }

    @Test
    void aFollowerThatCatchesUpCannotMoveTheHighWatermarkWhileTheIsrIsUnderMinIsr() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.isr().shrinkIsr(NOW + LAG + 1);
            for (int i = 0; i < 10; i++) {
                c.produce(i, ProduceRequest.ACKS_LEADER, NOW + LAG + 1);
            }
            c.fetchOnce(NOW + LAG + 2);
            c.fetchOnce(NOW + LAG + 3);

            assertThat(c.follower().leo()).as("the follower fetched all 10 records").isEqualTo(10);
            assertThat(c.isr().isr())
                    .as("but it is out of the ISR, and catching up does not bring it back (that is the "
                            + "controller's job in Kafka; kaen-log has no expand path)")
                    .containsExactly(1);
            assertThat(c.leader().highWatermark())
                    .as("ISR [1] under min.insync.replicas 2: the HW cannot advance, even though both replicas hold "
                            + "every record (testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR)")
                    .isZero();
        }
    }

    @Test
    void theLeaderAnswersAnEpochThatNeverExistedWithTheNextLowerOne() throws IOException {
        try (Replica leader = Replica.open(1, Role.LEADER, root.resolve("broker-1/orders-0"))) {
            leader.becomeLeader(0);
            for (int i = 0; i < 3; i++) {
                leader.appendAsLeader(Cluster.record(i, NOW));
            }
            leader.becomeLeader(2);
            for (int i = 3; i < 7; i++) {
                leader.appendAsLeader(Cluster.record(i, NOW));
            }
            leader.becomeLeader(4);

            assertThat(leader.endOffsetForEpoch(1))
                    .as("epochs 0 (from 0), 2 (from 3), 4 (from 7): epoch 1 never existed, so the answer is epoch 0, "
                            + "ending where epoch 2 starts, at 3")
                    .contains(new EpochEndOffset(0, 3));
            assertThat(leader.endOffsetForEpoch(3))
                    .as("epoch 3 never existed either: epoch 2, ending at 7")
                    .contains(new EpochEndOffset(2, 7));
        }
    }
}
