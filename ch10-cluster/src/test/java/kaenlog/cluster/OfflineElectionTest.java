package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Set;
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
}
