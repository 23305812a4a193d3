package kaenlog.cluster;

import static kaenlog.cluster.LeaderFixture.LAG;
import static kaenlog.cluster.LeaderFixture.T0;
import static kaenlog.cluster.LeaderFixture.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import kaenlog.batch.BatchBuilder;
import kaenlog.replication.Replica;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 10: acks=all across processes: refused before the append while the ISR as WRITTEN is under
 * min.insync.replicas; after it, answered by the high watermark and the MAXIMAL ISR; and never
 * answered well by a leader that stopped leading.
 */
@Order(10)
class AcksAllTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final int EPOCH = 2;

    @TempDir
    Path dir;

    @Test
    void acksAllUnderMinIsrIsRefusedBeforeTheAppendOtherAcksAreNot() throws Exception {
        try (Replica replica = leaderWith(0)) {
            PartitionLeader alone = leader(replica, List.of(1), 2);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("ISR [1] under min.insync.replicas 2: acks=all is refused, nothing is written")
                    .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_LEADER))
                    .as("acks=1 waits for no replica: it is written whatever the ISR").isEqualTo(ErrorCode.NONE);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_NONE)).isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void anIsrExactlyAtMinIsrTakesAcksAll() throws Exception {
        try (Replica replica = leaderWith(0)) {
            assertThat(leader(replica, List.of(1, 2), 2).produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("ISR of 2 with min.insync.replicas 2: enough (under means fewer than)").isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void beforeTheAppendOnlyTheIsrAsWrittenCounts() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1), 2);
            PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, EPOCH, List.of(1), 1), 0);
            leader.onFollowerFetch(2, 0, EPOCH, T0);
            assertThat(leader.maximalIsr()).as("follower 2 caught up (HW 0): counted at once, its write refused")
                    .containsExactly(1, 2);
            assertThat(leader.produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("the joining is not written: ZooKeeper says ISR [1], and a write let in now could be"
                            + " acknowledged by an ISR the controller never knew (Kafka counts partitionState.isr here)")
                    .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
        }
    }

    @Test
    void afterTheAppendTheHighWatermarkAndTheMaximalIsrDecide() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 2);
            assertThat(leader.answer(10)).as("HW 0, the write ends at 10: it waits").isEmpty();
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            assertThat(leader.answer(10)).as("the HW reached 10 with the ISR whole: answered").contains(ErrorCode.NONE);
            assertThat(leader.answer(11)).as("a write ending at 11 is not covered by HW 10 yet").isEmpty();
        }
    }

    @Test
    void aPendingJoinerCountsAfterTheAppend() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1), 2);
            PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, EPOCH, List.of(1), 1), 0);
            leader.onFollowerFetch(2, 0, EPOCH, T0); // joins the maximal ISR; its write is refused
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            assertThat(replica.highWatermark()).as("the HW counts the maximal ISR [1, 2]").isEqualTo(10);
            assertThat(leader.answer(10))
                    .as("after the append the MAXIMAL ISR is counted (Kafka's checkEnoughReplicasReachOffset): [1, 2]"
                            + " holds min.insync.replicas 2, the write is answered")
                    .contains(ErrorCode.NONE);
        }
    }

    @Test
    void anIsrThatShrankUnderAWaitingWriteAnswersNotEnoughReplicasAfterAppend() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 3);
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            leader.onFollowerFetch(2, 10, EPOCH, T0 + LAG);
            LeaderFixture.chapter8Shrinks(Map.of(2, T0 + LAG, 3, T0), T0 + LAG + 1, true);
            assertThat(leader.maybeShrinkIsr(T0 + LAG + 1)).as("follower 3 silent past the lag: ISR [1, 2]").isTrue();
            assertThat(leader.answer(10))
                    .as("written, and covered by the HW, but the ISR [1, 2] is under min.insync.replicas 3 now:"
                            + " NOT_ENOUGH_REPLICAS_AFTER_APPEND (the write stays in the log)")
                    .contains(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        }
    }

    @Test
    void aLeaderThatStoppedLeadingAnswersItsWaitingWritesNotLeaderOrFollower() throws Exception {
        try (Replica replica = leaderWith(0)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 2);
            replica.partition().setReplicaGate(leader);
            CompletableFuture<ProduceResponse> waiting = replica.partition().produce(new ProduceRequest("orders-0",
                    ProduceRequest.ACKS_ALL, 30_000, new BatchBuilder().append(T0, "k", "v").build()), T0);
            assertThat(waiting).as("acks=all waits for followers 2 and 3").isNotDone();
            leader.stop();
            assertThat(leader.answer(1))
                    .as("a newer state names another leader: this one's uncommitted records may be cut by it,"
                            + " so it cannot promise them")
                    .contains(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            assertThat(waiting.getNow(null)).as("and the waiting produce is answered so, at once")
                    .extracting(ProduceResponse::error).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            assertThat(leader.produceRefusal(ProduceRequest.ACKS_LEADER))
                    .as("and it takes no new write, whatever its acks").isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
    }

    private Replica leaderWith(int records) throws Exception {
        return LeaderFixture.leaderWith(dir, EPOCH, records);
    }

    private static PartitionLeader leader(Replica replica, List<Integer> isr, int minIsr) throws Exception {
        return LeaderFixture.leader(ZK.connect(), replica, EPOCH, isr, minIsr);
    }
}
