package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import kafka.controller.PartitionLeaderElectionAlgorithms;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import scala.jdk.javaapi.CollectionConverters;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 5: offline leader election, a pure function: first live ISR member in assignment order, never
 * unclean, and a leader epoch that only grows, never wrapped.
 */
@Order(5)
class OfflineElectionTest {
    private static final List<Integer> ASSIGNMENT = List.of(1, 2, 3);

    @Test
    void theFirstLiveIsrMemberInAssignmentOrderLeads() {
        PartitionState current = new PartitionState(1, 4, List.of(1, 3, 2), 1);
        PartitionState next = LeaderElection.elect(ASSIGNMENT, current, Set.of(2, 3), 2);
        assertThat(next.leader()).as("leader 1 died; of ISR [1, 3, 2] brokers 3 and 2 live: the first of them in the"
                + " ASSIGNMENT order [1, 2, 3] leads, broker 2, not the ISR's first").isEqualTo(2);
        assertThat(next.isr()).as("the ISR keeps its live members, in the ISR's own order").containsExactly(3, 2);
        assertThat(next.leaderEpoch()).as("a new leader has a new leader epoch: 4 + 1").isEqualTo(5);
        assertThat(next.controllerEpoch()).as("written by the controller of epoch 2").isEqualTo(2);
    }

    @Test
    void aLiveReplicaOutsideTheIsrNeverLeads() {
        PartitionState current = new PartitionState(2, 3, List.of(2), 1);
        PartitionState next = LeaderElection.elect(ASSIGNMENT, current, Set.of(1, 3), 2);
        assertThat(next.leader()).as("brokers 1 and 3 live but are not in the ISR: they may lack committed records"
                + " (no unclean election): no leader, -1").isEqualTo(PartitionState.NO_LEADER);
        assertThat(next.isr()).as("the ISR is never emptied: broker 2 alone holds every committed record and must"
                + " lead when it returns").containsExactly(2);
        assertThat(next.leaderEpoch()).as("the change still bumps the leader epoch").isEqualTo(4);
    }

    @Test
    void anOfflinePartitionLeadsAgainWhenItsIsrMemberReturns() {
        PartitionState offline = new PartitionState(PartitionState.NO_LEADER, 4, List.of(2), 2);
        PartitionState next = LeaderElection.elect(ASSIGNMENT, offline, Set.of(1, 2, 3), 3);
        assertThat(next).as("broker 2 is back: it leads, epoch + 1")
                .isEqualTo(new PartitionState(2, 5, List.of(2), 3));
    }

    @Test
    void anOfflinePartitionWhoseIsrIsStillDeadIsLeftAsItIs() {
        PartitionState offline = new PartitionState(PartitionState.NO_LEADER, 4, List.of(2), 2);
        assertThat(LeaderElection.elect(ASSIGNMENT, offline, Set.of(1, 3), 3))
                .as("still offline, broker 2 still dead: nothing changed, so no new state (a new one would bump the"
                        + " leader epoch; its write fires the controller's own watch, which would write another)")
                .isSameAs(offline);
    }

    @Test
    void aLeaderEpochAtItsMaximumIsNeverWrappedByAnElection() {
        PartitionState atMost = new PartitionState(1, Integer.MAX_VALUE, List.of(1, 2, 3), 1);
        Throwable refused = catchThrowable(() -> LeaderElection.elect(ASSIGNMENT, atMost, Set.of(2, 3), 2));
        assertThat(refused)
                .as("leader 1 died at leader epoch 2^31-1: epoch + 1 would wrap to -2^31, OLDER than every epoch, and"
                        + " every broker would ignore the new state (KIP-380's fencing assumes epochs only grow): the"
                        + " election refuses with an EpochOverflowException naming the leader epoch (Epochs.next)")
                .isInstanceOf(EpochOverflowException.class)
                .hasMessageContaining("leader epoch");
    }

    @Test
    void aLeaderEpochAtItsMaximumIsNeverWrappedGoingOffline() {
        PartitionState atMost = new PartitionState(2, Integer.MAX_VALUE, List.of(2), 1);
        Throwable refused = catchThrowable(() -> LeaderElection.elect(ASSIGNMENT, atMost, Set.of(1, 3), 2));
        assertThat(refused)
                .as("the last ISR member died at leader epoch 2^31-1: the offline state's epoch + 1 would wrap too;"
                        + " every increment of an epoch goes through Epochs.next, the offline one as well")
                .isInstanceOf(EpochOverflowException.class)
                .hasMessageContaining("leader epoch");
    }

    @Test
    void aLeaderEpochJustBelowItsMaximumStillGrows() {
        PartitionState current = new PartitionState(1, Integer.MAX_VALUE - 1, List.of(1, 2), 1);
        PartitionState[] next = new PartitionState[1];
        assertThat(catchThrowable(() -> next[0] = LeaderElection.elect(ASSIGNMENT, current, Set.of(2, 3), 2)))
                .as("2^31-2 + 1 = 2^31-1 is still an epoch: only the step past the largest int is refused").isNull();
        assertThat(next[0].leaderEpoch()).as("leader 2 at epoch 2^31-1").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aDeadFollowerLeavesTheIsrAndTheLeaderStays() {
        PartitionState current = new PartitionState(3, 1, List.of(3, 1, 2), 1);
        PartitionState next = LeaderElection.elect(ASSIGNMENT, current, Set.of(1, 3), 1);
        assertThat(next).as("follower 2 died: out of the ISR; leader 3 is live and stays (the preferred replica 1 does"
                + " not take over); the ISR changed, so epoch + 1").isEqualTo(new PartitionState(3, 2, List.of(3, 1), 1));
    }

    @Test
    void nothingChangesWhileEveryIsrMemberLives() {
        PartitionState current = new PartitionState(2, 7, List.of(2, 3), 1);
        assertThat(LeaderElection.elect(ASSIGNMENT, current, Set.of(2, 3), 5))
                .as("leader and ISR all live (broker 1, outside the ISR, is dead anyway): no new state, no new epoch")
                .isSameAs(current);
    }

    // ---- Kafka judges: PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection, over generated states ----

    static final String ELECTION_RULE = "keep the ISR's live members in the ISR's order; a live leader stays; else the"
            + " first replica IN ASSIGNMENT ORDER that is live and in the ISR leads (no unclean election); no live ISR"
            + " member: leader -1, the ISR kept; every change is epoch + 1 and never wraps; no change is the same state";

    /** What the controller reads: an assignment, a state Kafka's controller could have written, the live brokers. */
    record Election(List<Integer> assignment, PartitionState current, Set<Integer> live) {
    }

    static final Gen<Election> ELECTIONS = c -> {
        List<Integer> assignment = new ArrayList<>(new java.util.LinkedHashSet<>(
                Gens.lists(Gens.ints(0, 5), 1, 5).generate(c)));
        List<Integer> isr = new ArrayList<>();
        for (int replica : assignment) {
            if (Gens.booleans().generate(c)) {
                isr.add(Gens.booleans().generate(c) ? isr.size() : 0, replica); // the ISR's own order is not the assignment's
            }
        }
        if (isr.isEmpty()) {
            isr.add(assignment.get(0));
        }
        int leader = Gens.booleans().generate(c) ? PartitionState.NO_LEADER : isr.get(Gens.ints(0, isr.size() - 1).generate(c));
        Set<Integer> live = new TreeSet<>(Gens.lists(Gens.ints(0, 6), 0, 6).generate(c));
        int epoch = Gens.ints(0, Integer.MAX_VALUE).generate(c);
        return new Election(assignment, new PartitionState(leader, epoch, isr, 1), live);
    };

    @Test
    void everyElectionAgreesWithKafkasOfflinePartitionLeaderElection() {
        Property.forAll(ELECTIONS).tries(300).check(e -> {
            String expected = kafkasElection(e);
            Judge.Outcome yours = Judge.Outcome.of(() -> LeaderElection.elect(e.assignment(), e.current(), e.live(), 2));
            String answer = yours.refused() ? "a refusal (" + yours.refusal().getClass().getSimpleName() + ")"
                    : yours.value() == e.current() ? "the same state" : String.valueOf(yours.value());
            Judge.agree("assignment " + e.assignment() + ", " + e.current() + ", live brokers " + e.live(), "next state",
                    answer, "offlinePartitionLeaderElection with the ISR's dead members removed gives", expected,
                    ELECTION_RULE);
        });
    }

    /**
     * Kafka 3.9.1's controller on a broker change, in one step as kaen-log writes it: a live leader stays
     * (Kafka elects only for a partition whose leader is offline); else {@code offlinePartitionLeaderElection
     * (assignment, isr, live, uncleanLeaderElectionEnabled = false)}; the dead leave the ISR
     * ({@code removeReplicasFromIsr}); the leader epoch + 1 ({@code LeaderAndIsr.newLeaderAndIsr}). Two
     * documented differences applied: with no live ISR member the ISR is kept whole (Kafka keeps its last
     * member), and the epoch after 2^31-1 is refused (Kafka adds one unchecked).
     */
    private static String kafkasElection(Election e) {
        PartitionState current = e.current();
        List<Integer> liveIsr = current.isr().stream().filter(e.live()::contains).toList();
        if (liveIsr.size() == current.isr().size() && e.live().contains(current.leader())) {
            return "the same state";
        }
        if (liveIsr.isEmpty() && current.leader() == PartitionState.NO_LEADER) {
            return "the same state";
        }
        if (current.leaderEpoch() == Integer.MAX_VALUE) {
            return "a refusal (EpochOverflowException)";
        }
        if (liveIsr.isEmpty()) {
            return new PartitionState(PartitionState.NO_LEADER, current.leaderEpoch() + 1, current.isr(), 2).toString();
        }
        int leader = current.leader();
        if (!e.live().contains(leader)) {
            scala.Option<Object> elected = PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection(
                    seq(e.assignment()), seq(current.isr()), CollectionConverters.asScala(Set.<Object>copyOf(e.live())).toSet(),
                    false, null);
            leader = elected.isDefined() ? (Integer) elected.get() : PartitionState.NO_LEADER;
        }
        return new PartitionState(leader, current.leaderEpoch() + 1, liveIsr, 2).toString();
    }

    private static scala.collection.immutable.Seq<Object> seq(List<Integer> ints) {
        return CollectionConverters.asScala(new ArrayList<Object>(ints)).toSeq();
    }
}
