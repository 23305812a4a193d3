package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.ErrorCode;
import kaenlog.testkit.property.Gens;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 9: acks=all under min ISR is refused before the append; acks=1 is written; the HW stays put. */
@Order(9)
class ProduceTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long PAST_THE_LAG = NOW + IsrState.REPLICA_LAG_TIME_MAX_MS + 1;

    @TempDir
    Path root;

    /** The state after four rounds: leader LEO 4 HW 3, then the follower dropped from the ISR. */
    private static Cluster afterFourRoundsAndAShrink(Path root, int minIsr) throws IOException {
        Cluster c = Cluster.open(root, minIsr, NOW);
        for (int r = 1; r <= 4; r++) {
            c.produce(r, ProduceRequest.ACKS_LEADER, NOW);
            c.fetchOnce(NOW);
        }
        c.isr().shrinkIsr(PAST_THE_LAG);
        return c;
    }

    private static ByteBuffer leaderLog(Cluster c) throws IOException {
        return c.leader().partition().locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END));
    }

    @Test
    void acksAllUnderMinIsrIsRefusedBeforeTheAppendAndWritesNothing() throws IOException {
        try (Cluster c = afterFourRoundsAndAShrink(root, 2)) {
            Produced answer = c.produce(5, ProduceRequest.ACKS_ALL, PAST_THE_LAG);

            assertThat(answer.error())
                    .as("ISR [1] with min.insync.replicas 2: acks=all is refused with NOT_ENOUGH_REPLICAS")
                    .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
            assertThat(answer.error().code())
                    .as("kaen-log's own error number 2 (Kafka's wire number for it is 19)").isEqualTo((short) 2);
            assertThat(c.leader().leo())
                    .as("the check comes BEFORE the append: the log end offset stays 4, nothing was written")
                    .isEqualTo(4);
        }
    }

    @Test
    void theRuleBeforeTheAppendRefusesOnlyAcksAllUnderMinIsr() {
        IsrState alone = new IsrState(1, List.of(2), 2, NOW).withIsr(List.of(1));
        IsrState full = new IsrState(1, List.of(2), 2, NOW);
        assertThat(Cluster.produceRefusal(ProduceRequest.ACKS_ALL, alone))
                .as("acks=all with ISR [1] under min.insync.replicas 2: NOT_ENOUGH_REPLICAS")
                .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
        assertThat(Cluster.produceRefusal(ProduceRequest.ACKS_LEADER, alone))
                .as("acks=1 waits for no replica: never refused before the append, whatever the ISR")
                .isEqualTo(ErrorCode.NONE);
        assertThat(Cluster.produceRefusal(ProduceRequest.ACKS_NONE, alone)).as("nor acks=0").isEqualTo(ErrorCode.NONE);
        assertThat(Cluster.produceRefusal(ProduceRequest.ACKS_ALL, full))
                .as("acks=all with ISR [1, 2] at min.insync.replicas 2: enough").isEqualTo(ErrorCode.NONE);
    }

    @Test
    void acksOneUnderMinIsrIsWrittenButNotCommitted() throws IOException {
        try (Cluster c = afterFourRoundsAndAShrink(root, 2)) {
            c.produce(5, ProduceRequest.ACKS_ALL, PAST_THE_LAG);
            Produced answer = c.produce(6, ProduceRequest.ACKS_LEADER, PAST_THE_LAG);

            assertThat(answer)
                    .as("acks=1 is written as usual, at the log end: base_offset 4, error NONE (0)")
                    .isEqualTo(new Produced(4, ErrorCode.NONE));
            assertThat(c.leader().leo()).as("the record is on disk: LEO 5").isEqualTo(5);
            assertThat(c.leader().highWatermark())
                    .as("but the HW stays 3 -> 3: under min ISR it does not move, so offset 4 is not committed")
                    .isEqualTo(3);
        }
    }

    @Test
    void acksChangesWhenYouAreAnsweredNeverWhatIsWritten() throws IOException {
        try (Cluster all = Cluster.open(root.resolve("all"), 2, NOW);
             Cluster one = Cluster.open(root.resolve("one"), 2, NOW)) {
            Produced a = all.produce(7, ProduceRequest.ACKS_ALL, NOW);
            Produced b = one.produce(7, ProduceRequest.ACKS_LEADER, NOW);

            assertThat(a).as("with a full ISR, acks=all and acks=1 get the same answer").isEqualTo(b);
            ByteBuffer written = leaderLog(all);
            assertThat(written).as("and write the same bytes at the same offset").isEqualTo(leaderLog(one));
        }
    }

    @Test
    void withMinInsyncReplicasOneALeaderAloneCommitsAtOnce() throws IOException {
        try (Cluster c = afterFourRoundsAndAShrink(root, 1)) {
            Produced answer = c.produce(5, ProduceRequest.ACKS_ALL, PAST_THE_LAG);

            assertThat(answer)
                    .as("ISR [1] meets min.insync.replicas 1 (Kafka's default): acks=all is written at offset 4")
                    .isEqualTo(new Produced(4, ErrorCode.NONE));
            assertThat(c.leader().highWatermark())
                    .as("and committed at once, with one copy: the leader is the whole ISR, so HW = its LEO 5")
                    .isEqualTo(5);
        }
    }

    // ---- Kafka judges: Partition.appendRecordsToLeader (a model, KafkaModel) over random sequences ----

    @Test
    void everySequenceOfProducesAgreesWithKafkasAppendRecordsToLeader() {
        ClusterSteps.check(root, Gens.oneOf(ClusterSteps.produces(ProduceRequest.ACKS_ALL, ProduceRequest.ACKS_LEADER,
                ProduceRequest.ACKS_NONE), ClusterSteps.FETCHES, ClusterSteps.SHRINKS), 16, 8);
    }
}
