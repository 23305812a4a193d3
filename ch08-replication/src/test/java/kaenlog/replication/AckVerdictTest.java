package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

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
}
