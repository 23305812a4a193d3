package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: the high watermark is proposed from the maximal ISR and never moves backwards. */
@Order(1)
class AdvanceHwTest {
    private static final int LEADER = 1;

    @Test
    void theHighWatermarkIsTheSmallestLeoAmongTheIsrMembers() {
        OptionalLong hw = HighWatermark.advanceHw(LEADER, 10, Map.of(2, 7L, 3, 9L), Set.of(1, 2, 3), 2);

        assertThat(hw)
                .as("leader LEO 10, followers at 7 and 9, all in the ISR: the HW is the minimum, 7 "
                        + "(a record is committed only when every in-sync replica has it)")
                .hasValue(7);
    }

    @Test
    void theCandidateStartsAtTheLeadersOwnLeo() {
        assertThat(HighWatermark.advanceHw(LEADER, 10, Map.of(2, 10L, 3, 10L), Set.of(1, 2, 3), 2))
                .as("every follower has caught up to the leader's LEO 10, so the HW is 10")
                .hasValue(10);
        assertThat(HighWatermark.advanceHw(LEADER, 4, Map.of(), Set.of(LEADER), 1))
                .as("a leader alone in its ISR with min.insync.replicas 1 has HW = its own LEO 4: the 'eager' "
                        + "high watermark of chapters 1-7 is what this rule gives with one replica")
                .hasValue(4);
    }

    @Test
    void aFollowerCannotRaiseTheHighWatermarkAboveTheLeadersLeo() {
        assertThat(HighWatermark.advanceHw(LEADER, 10, Map.of(2, 12L), Set.of(1, 2), 2))
                .as("a follower reporting 12 while the leader's LEO is 10 cannot lift the HW past 10: the "
                        + "candidate starts at the leader's LEO and is only ever lowered (maybeIncrementLeaderHW)")
                .hasValue(10);
    }

    @Test
    void theHighWatermarkDoesNotAdvanceUnderMinIsr() {
        OptionalLong hw = HighWatermark.advanceHw(LEADER, 5, Map.of(2, 5L), Set.of(LEADER), 2);

        assertThat(hw)
                .as("ISR [1] with min.insync.replicas 2: no proposal at all, even though the leader has 5 records "
                        + "(Kafka returns early when isUnderMinIsr; cf. PartitionTest."
                        + "testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR)")
                .isEmpty();
    }

    @Test
    void anIsrExactlyAtMinIsrMayAdvance() {
        assertThat(HighWatermark.advanceHw(LEADER, 3, Map.of(2, 3L), Set.of(1, 2), 2))
                .as("an ISR of 2 with min.insync.replicas 2 is not under the minimum: the rule is size < minIsr, "
                        + "not size <= minIsr")
                .hasValue(3);
    }

    @Test
    void aFollowerOutsideTheIsrDoesNotHoldTheHighWatermarkBack() {
        OptionalLong hw = HighWatermark.advanceHw(LEADER, 10, Map.of(2, 8L, 3, 1L), Set.of(1, 2), 2);

        assertThat(hw)
                .as("follower 3 is far behind (LEO 1) but not in the ISR [1, 2]: only ISR members count, so the "
                        + "HW is follower 2's 8, not 1")
                .hasValue(8);
    }

    @Test
    void anIsrFollowerWhoseLeoIsStillUnknownHoldsTheHighWatermarkWhereItIs() {
        OptionalLong hw = HighWatermark.advanceHw(LEADER, 1, Map.of(), Set.of(1, 2), 2);

        assertThat(hw)
                .as("follower 2 is in the ISR but has not fetched yet, so the leader does not know its LEO: no "
                        + "proposal (Kafka keeps it at UnknownOffset -1, which holds the HW down); otherwise the "
                        + "first produce would be 'committed' before the follower had it")
                .isEmpty();
    }

    @Test
    void fourRoundsProposeOneLessThanTheLeadersLeo() {
        for (long round = 1; round <= 4; round++) {
            OptionalLong hw = HighWatermark.advanceHw(LEADER, round, Map.of(2, round - 1), Set.of(1, 2), 2);
            assertThat(hw)
                    .as("round %d: the leader has LEO %d, the request carried fetch offset %d, so the HW is %d: "
                            + "the leader learns the follower's LEO from the request, before this round's record "
                            + "reaches the follower", round, round, round - 1, round - 1)
                    .hasValue(round - 1);
        }
    }

    @Test
    void aProposalBelowTheCurrentHighWatermarkDoesNotMoveItBack() {
        OptionalLong proposal = HighWatermark.advanceHw(LEADER, 6, Map.of(2, 3L), Set.of(1, 2), 2);

        assertThat(proposal)
                .as("a follower that truncated to 3 makes the proposal 3: advanceHw has no idea the HW is already 5")
                .hasValue(3);
        assertThat(HighWatermark.nextHighWatermark(5, proposal))
                .as("the caller keeps 5: the HW never moves backwards, and that rule lives in the caller, not in "
                        + "advanceHw")
                .isEqualTo(5);
    }

    @Test
    void aHigherProposalMovesTheHighWatermarkForward() {
        assertThat(HighWatermark.nextHighWatermark(3, OptionalLong.of(5)))
                .as("current HW 3, proposal 5: the HW moves to 5")
                .isEqualTo(5);
        assertThat(HighWatermark.nextHighWatermark(4, OptionalLong.of(4)))
                .as("a proposal equal to the current HW leaves it at 4")
                .isEqualTo(4);
    }

    @Test
    void noProposalLeavesTheHighWatermarkWhereItIs() {
        assertThat(HighWatermark.nextHighWatermark(3, OptionalLong.empty()))
                .as("under min ISR there is no proposal: 'high watermark 3 -> 3', the record just written stays "
                        + "uncommitted")
                .isEqualTo(3);
    }
}
