package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 3: the three verdicts on an acks=all write that is already in the leader's log. */
@Order(3)
class AckVerdictTest {

    @Test
    void theThreeSituationsGetTheirThreeVerdicts() {
        assertThat(AckVerdict.decide(5, 4, 2, 2))
                .as("HW 4 has not reached the required offset 5: NotYet, keep the request waiting")
                .isEqualTo(AckVerdict.NOT_YET);
        assertThat(AckVerdict.decide(5, 5, 2, 2))
                .as("HW reached 5 and the ISR (2) still meets min ISR 2: Committed")
                .isEqualTo(AckVerdict.COMMITTED);
        assertThat(AckVerdict.decide(5, 5, 1, 2))
                .as("HW reached 5 but the ISR shrank to 1 after the append: NotEnoughReplicasAfterAppend (Kafka "
                        + "error 20: the records ARE in the log, but on fewer in-sync replicas than required)")
                .isEqualTo(AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    }

    @Test
    void theHighWatermarkMustReachTheOffsetAfterTheWrite() {
        // one record written at offset 4: the write is committed when the HW passes it, i.e. HW >= 5
        assertThat(AckVerdict.decide(5, 4, 2, 2))
                .as("HW 4 is exclusive: the record at offset 4 is not committed yet")
                .isEqualTo(AckVerdict.NOT_YET);
        assertThat(AckVerdict.decide(5, 5, 2, 2))
                .as("HW 5 means offsets < 5 are committed, offset 4 included (checkEnoughReplicasReachOffset "
                        + "compares highWatermark >= requiredOffset)")
                .isEqualTo(AckVerdict.COMMITTED);
        assertThat(AckVerdict.decide(5, 9, 3, 2))
                .as("a HW beyond the write and an ISR above the minimum is still Committed")
                .isEqualTo(AckVerdict.COMMITTED);
    }

    @Test
    void waitingComesBeforeJudgingTheIsr() {
        assertThat(AckVerdict.decide(5, 4, 1, 2))
                .as("the HW has not reached the write: NotYet even with a small ISR; the ISR is judged only once the "
                        + "HW covers the write (Kafka answers (false, NONE) here)")
                .isEqualTo(AckVerdict.NOT_YET);
    }

    @Test
    void withMinInsyncReplicasOneTheLeaderAloneCommits() {
        assertThat(AckVerdict.decide(1, 1, 1, 1))
                .as("min.insync.replicas 1 (Kafka's default) and an ISR of just the leader: acks=all answers "
                        + "Committed with a single copy")
                .isEqualTo(AckVerdict.COMMITTED);
    }

    // ---- Kafka judges: Partition.checkEnoughReplicasReachOffset (a model, KafkaModel) ----

    static final String VERDICT_RULE = "the HW is exclusive, so the write is covered once the HW is at least"
            + " requiredOffset; waiting comes before judging the ISR: not covered is NotYet whatever the ISR; covered is"
            + " Committed while the ISR still meets the minimum, NotEnoughReplicasAfterAppend otherwise";

    /** A write's required offset, the HW below, at and above it, the ISR's size at min ISR and around it. */
    record Question(long requiredOffset, long highWatermark, int isrSize, int minIsr) {
        @Override
        public String toString() {
            return "decide(requiredOffset " + requiredOffset + ", highWatermark " + highWatermark + ", isrSize " + isrSize
                    + ", minIsr " + minIsr + ")";
        }
    }

    static final Gen<Question> QUESTIONS = c -> {
        long required = Gens.longs(0, Long.MAX_VALUE).generate(c);
        long hw = Gens.oneOf(Gens.longs(-2, 2).map(d -> required + d), Gens.longs(0, Long.MAX_VALUE)).generate(c);
        int isrSize = Gens.ints(1, 5).generate(c);
        int minIsr = Gens.oneOf(Gens.ints(-1, 1).map(d -> isrSize + d), Gens.ints(1, Integer.MAX_VALUE))
                .generate(c);
        return new Question(required, Math.max(0, hw < 0 && required > 0 ? Long.MAX_VALUE : hw), isrSize,
                Math.max(1, minIsr));
    };

    @Test
    void everyVerdictAgreesWithKafkasCheckEnoughReplicasReachOffset() {
        Property.forAll(QUESTIONS).check(q -> Judge.agree(q.toString(), "verdict",
                AckVerdict.decide(q.requiredOffset(), q.highWatermark(), q.isrSize(), q.minIsr()),
                "checkEnoughReplicasReachOffset (Partition.scala, modelled) answers",
                KafkaModel.checkEnoughReplicasReachOffset(q.requiredOffset(), q.highWatermark(), q.isrSize(),
                        q.minIsr()), VERDICT_RULE));
    }
}
