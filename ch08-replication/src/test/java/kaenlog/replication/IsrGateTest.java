package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import kaenlog.testkit.property.Gens;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 10: IsrGate answers chapter 3's ReplicaGate from the live high watermark and ISR. */
@Order(10)
class IsrGateTest {
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path root;

    @Test
    void theGateFollowsOneWriteThroughItsThreeVerdicts() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            Produced written = c.produce(0, ProduceRequest.ACKS_ALL, NOW);
            long required = written.baseOffset() + 1;

            assertThat(c.gate().verdict(required))
                    .as("just appended at offset 0, HW 0: the write waits (NotYet)").isEqualTo(AckVerdict.NOT_YET);
            c.fetchOnce(NOW);
            assertThat(c.gate().verdict(required))
                    .as("after one round the follower holds it but the leader's HW is still 0: NotYet")
                    .isEqualTo(AckVerdict.NOT_YET);
            c.fetchOnce(NOW);
            assertThat(c.gate().verdict(required))
                    .as("after the second round HW 1 covers offset 0 and the ISR [1, 2] meets min ISR 2: Committed")
                    .isEqualTo(AckVerdict.COMMITTED);
            c.isr().shrinkIsr(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);
            assertThat(c.gate().verdict(required))
                    .as("the ISR shrank to [1] after the append: NotEnoughReplicasAfterAppend (Kafka error 20: the "
                            + "record IS in the log, on fewer in-sync replicas than required)")
                    .isEqualTo(AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        }
    }

    @Test
    void onlyACommittedWriteMayBeAnswered() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            c.produce(0, ProduceRequest.ACKS_ALL, NOW);
            c.fetchOnce(NOW);
            c.fetchOnce(NOW);
            assertThat(c.gate().checkEnoughReplicasReached(1))
                    .as("Committed: chapter 3's gate question is answered yes").isTrue();
            assertThat(c.gate().checkEnoughReplicasReached(2))
                    .as("NotYet for a write ending at offset 1 that is not there: no").isFalse();
            c.isr().shrinkIsr(NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);
            assertThat(c.gate().checkEnoughReplicasReached(1))
                    .as("NotEnoughReplicasAfterAppend is not a yes either").isFalse();
        }
    }

    @Test
    void chapterThreesAcksAllProduceIsAnsweredOnceTheGateSaysCommitted() throws IOException {
        try (Cluster c = Cluster.open(root, 2, NOW)) {
            ProduceRequest request = new ProduceRequest(Cluster.PARTITION, ProduceRequest.ACKS_ALL, 30_000,
                    Cluster.record(0, NOW));
            CompletableFuture<ProduceResponse> answer = c.leader().partition().produce(request, NOW);

            assertThat(answer)
                    .as("chapter 3's Partition.produce appended the batch, but acks=all waits for the IsrGate")
                    .isNotDone();
            c.fetchOnce(NOW);
            assertThat(answer).as("round one: the follower has it, the HW is still 0: still waiting").isNotDone();
            c.fetchOnce(NOW);
            assertThat(answer)
                    .as("round two moves the HW to 1: the partition asks the gate again and answers")
                    .isCompleted();
            assertThat(answer)
                    .as("the acks=all answer, waited for at most 5 s after the gate said Committed: no thread runs in "
                            + "this chapter, so an answer still missing means IsrGate.checkEnoughReplicasReached (task 10 (IsrGateTest)) "
                            + "did not say yes for a Committed write")
                    .succeedsWithin(Duration.ofSeconds(5))
                    .extracting(ProduceResponse::error)
                    .as("answered without error")
                    .isEqualTo(ErrorCode.NONE);
        }
    }

    // ---- Kafka judges: Partition.checkEnoughReplicasReachOffset (a model, KafkaModel), asked live ----

    @Test
    void everyQuestionAgreesWithKafkasCheckEnoughReplicasReachOffsetOnTheLiveHighWatermarkAndIsr() {
        ClusterSteps.check(root, Gens.oneOf(ClusterSteps.ASKS, ClusterSteps.produces(ProduceRequest.ACKS_ALL,
                ProduceRequest.ACKS_LEADER), ClusterSteps.FETCHES, ClusterSteps.SHRINKS), 16, 8);
    }
}
