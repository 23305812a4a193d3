package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
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

    // ---- Kafka judges: Partition.maybeIncrementLeaderHW (a model, KafkaModel) on views of every shape ----

    static final String PROPOSAL_RULE = "the candidate starts at the leader's own LEO and only goes down, to the smallest"
            + " LEO of the followers in the maximal ISR; followers outside it do not count; there is no proposal at all"
            + " when the ISR is smaller than minIsr or an ISR follower's LEO is still unknown";
    static final String NEVER_BACKWARDS_RULE = "nextHighWatermark leaves the HW where it is for no proposal or a lower"
            + " one: the high watermark never moves backwards";

    /** What a leader knows when it proposes: its LEO, each follower's LEO (if known), the ISR, min ISR, its HW. */
    record View(int leaderId, long leaderLeo, TreeMap<Integer, Long> followerLeos, TreeSet<Integer> maximalIsr,
                int minIsr, long currentHw, OptionalLong anyProposal) {
        String call() {
            return "advanceHw(leaderId " + leaderId + ", leaderLeo " + leaderLeo + ", followerLeos " + followerLeos
                    + ", maximalIsr " + maximalIsr + ", minIsr " + minIsr + ")";
        }
    }

    /** A LEO near {@code leo} (below it, at it, above it: a follower can report more than the leader has), or anywhere. */
    static Gen<Long> near(long leo) {
        return Gens.oneOf(Gens.longs(-3, 3).map(d -> Math.max(0, leo + d)), Gens.longs(0, 2 * leo + 3));
    }

    /** Leaders with 0 to 4 followers, each in the ISR or not, its LEO known or not; min ISR at the ISR's size and around it. */
    static final Gen<View> VIEWS = c -> {
        int leaderId = Gens.ints(0, 4).generate(c);
        long leaderLeo = Gens.longs(0, 1L << 40).generate(c);
        TreeMap<Integer, Long> leos = new TreeMap<>();
        TreeSet<Integer> isr = new TreeSet<>(Set.of(leaderId));
        int followers = Gens.ints(0, 4).generate(c);
        for (int id = leaderId + 1; id <= leaderId + followers; id++) {
            if (!Gens.booleans().generate(c)) {
                isr.add(id);
            }
            Long leo = Gens.nullOr(near(leaderLeo), 4).generate(c);
            if (leo != null) {
                leos.put(id, leo);
            }
        }
        int minIsr = Math.max(1, isr.size() + Gens.ints(-1, 1).generate(c));
        long currentHw = Gens.longs(0, leaderLeo).generate(c);
        Long any = Gens.nullOr(near(currentHw), 5).generate(c);
        return new View(leaderId, leaderLeo, leos, isr, minIsr, currentHw,
                any == null ? OptionalLong.empty() : OptionalLong.of(any));
    };

    /** Kafka's proposal in kaen-log's terms: none under min ISR, none for a candidate at UNKNOWN_OFFSET (-1). */
    static OptionalLong kafkasProposal(int leaderId, long leaderLeo, Map<Integer, Long> followerLeos, Set<Integer> isr,
                                       int minIsr) {
        if (KafkaModel.underMinIsr(isr.size(), minIsr)) {
            return OptionalLong.empty();
        }
        long candidate = KafkaModel.hwCandidate(leaderId, leaderLeo, followerLeos, isr);
        return candidate == KafkaModel.UNKNOWN_OFFSET ? OptionalLong.empty() : OptionalLong.of(candidate);
    }

    static String show(OptionalLong proposal) {
        return proposal.isPresent() ? Long.toString(proposal.getAsLong()) : "no proposal";
    }

    @Test
    void everyProposalAndEveryNextHighWatermarkAgreeWithKafkasMaybeIncrementLeaderHw() {
        Property.forAll(VIEWS).check(v -> {
            OptionalLong kafkas = kafkasProposal(v.leaderId(), v.leaderLeo(), v.followerLeos(), v.maximalIsr(),
                    v.minIsr());
            Judge.agree(v.call(), "proposal", Judge.Outcome.of(() -> show(HighWatermark.advanceHw(v.leaderId(),
                    v.leaderLeo(), v.followerLeos(), v.maximalIsr(), v.minIsr()))), "maybeIncrementLeaderHW"
                    + " (Partition.scala, modelled) proposes", Judge.Outcome.of(() -> show(kafkas)), PROPOSAL_RULE);
            Judge.agree("nextHighWatermark(" + v.currentHw() + ", " + show(kafkas) + ") after " + v.call(),
                    "high watermark", Judge.Outcome.of(() -> HighWatermark.nextHighWatermark(v.currentHw(), kafkas)),
                    "maybeIncrementLeaderHW (modelled) leaves", Judge.Outcome.of(() -> KafkaModel.leaderHwAfter(
                            v.currentHw(), v.leaderId(), v.leaderLeo(), v.followerLeos(), v.maximalIsr(), v.minIsr())),
                    NEVER_BACKWARDS_RULE);
            long kafkasNext = v.anyProposal().isEmpty() ? v.currentHw()
                    : KafkaModel.maybeIncrementHighWatermark(v.currentHw(), v.anyProposal().getAsLong());
            Judge.agree("nextHighWatermark(" + v.currentHw() + ", " + show(v.anyProposal()) + ")", "high watermark",
                    Judge.Outcome.of(() -> HighWatermark.nextHighWatermark(v.currentHw(), v.anyProposal())),
                    "UnifiedLog.maybeIncrementHighWatermark (modelled) leaves", Judge.Outcome.of(() -> kafkasNext),
                    NEVER_BACKWARDS_RULE);
        });
    }
}
