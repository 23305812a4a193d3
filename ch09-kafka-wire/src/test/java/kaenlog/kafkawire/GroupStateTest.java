package kaenlog.kafkawire;

import static kaenlog.kafkawire.GroupState.COMPLETING_REBALANCE;
import static kaenlog.kafkawire.GroupState.DEAD;
import static kaenlog.kafkawire.GroupState.EMPTY;
import static kaenlog.kafkawire.GroupState.PREPARING_REBALANCE;
import static kaenlog.kafkawire.GroupState.STABLE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import kaenlog.kafkawire.GroupState.Event;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.coordinator.group.classic.ClassicGroupState;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 7: the classic group's state machine, {@link GroupTransitions#next}, and when a group goes,
 * {@link GroupTransitions#removable}. The group coordinator (given) calls them for every change of
 * state, so the real consumers of {@code ConsumerGroupsTest} split their partitions only once they
 * are right. The oracles are Kafka's {@code ClassicGroupState} (which state may follow which) and
 * its {@code cleanupGroupMetadata} (an Empty group whose offsets are all gone is deleted).
 */
@Order(7)
class GroupStateTest {

    @Test
    void aMemberJoiningStartsARebalanceFromEveryLiveState() {
        for (GroupState from : new GroupState[] {EMPTY, STABLE, COMPLETING_REBALANCE, PREPARING_REBALANCE}) {
            assertThat(GroupTransitions.next(from, Event.MEMBER_JOINS))
                    .as("a member joins a group in %s: every member must rejoin, so the group is PreparingRebalance"
                            + " (a join while a rebalance is being prepared only adds to it)", from)
                    .isEqualTo(PREPARING_REBALANCE);
        }
    }

    @Test
    void theJoinPhaseEndsInCompletingRebalanceOrEmpty() {
        assertThat(GroupTransitions.next(PREPARING_REBALANCE, Event.JOIN_PHASE_ENDS))
                .as("the join phase ends with members: the leader has their metadata and computes the assignment,"
                        + " the group waits for it in CompletingRebalance (not Stable: nobody has an assignment yet)")
                .isEqualTo(COMPLETING_REBALANCE);
        assertThat(GroupTransitions.next(PREPARING_REBALANCE, Event.JOIN_PHASE_ENDS_EMPTY))
                .as("the join phase ends with no member left: the group is Empty, not CompletingRebalance with"
                        + " no leader to wait for")
                .isEqualTo(EMPTY);
    }

    @Test
    void onlyTheLeadersSyncInCompletingRebalanceMakesTheGroupStable() {
        assertThat(GroupTransitions.next(COMPLETING_REBALANCE, Event.LEADER_SYNCS))
                .as("the leader's SyncGroup brings the assignment: CompletingRebalance becomes Stable")
                .isEqualTo(STABLE);
        assertThat(GroupTransitions.next(PREPARING_REBALANCE, Event.LEADER_SYNCS))
                .as("a SyncGroup of an old generation while a rebalance is being prepared changes nothing (it is"
                        + " answered REBALANCE_IN_PROGRESS): Stable is entered only from CompletingRebalance")
                .isEqualTo(PREPARING_REBALANCE);
        assertThat(GroupTransitions.next(STABLE, Event.LEADER_SYNCS))
                .as("a SyncGroup in Stable is answered with the assignment it already has: the group stays Stable")
                .isEqualTo(STABLE);
    }

    @Test
    void aMemberLeavingOrExpiringStartsARebalance() {
        for (GroupState from : new GroupState[] {STABLE, COMPLETING_REBALANCE, PREPARING_REBALANCE}) {
            assertThat(GroupTransitions.next(from, Event.MEMBER_LEAVES))
                    .as("a member leaves a group in %s (LeaveGroup, or its session timeout passed): its partitions"
                            + " must go to the others, so the group is PreparingRebalance", from)
                    .isEqualTo(PREPARING_REBALANCE);
        }
        assertThat(GroupTransitions.next(EMPTY, Event.MEMBER_LEAVES))
                .as("an Empty group has no member to lose: it stays Empty (a rebalance of nobody would wait for"
                        + " nobody)")
                .isEqualTo(EMPTY);
    }

    @Test
    void theJoinPhaseCannotEndOutsidePreparingRebalance() {
        for (GroupState from : new GroupState[] {EMPTY, STABLE, COMPLETING_REBALANCE}) {
            assertThat(GroupTransitions.next(from, Event.JOIN_PHASE_ENDS))
                    .as("CompletingRebalance is entered only from PreparingRebalance: in %s no join phase is running,"
                            + " the event changes nothing", from)
                    .isEqualTo(from);
            assertThat(GroupTransitions.next(from, Event.JOIN_PHASE_ENDS_EMPTY))
                    .as("Empty is entered only from PreparingRebalance: in %s no join phase is running, the event"
                            + " changes nothing", from)
                    .isEqualTo(from);
        }
    }

    @Test
    void deadIsFinalAndReachableFromEveryState() {
        for (GroupState from : GroupState.values()) {
            assertThat(GroupTransitions.next(from, Event.GROUP_REMOVED))
                    .as("a group removed in %s is Dead", from).isEqualTo(DEAD);
        }
        for (Event event : Event.values()) {
            assertThat(GroupTransitions.next(DEAD, event))
                    .as("Dead is final: %s does not bring a removed group back (a new member of that name joins a new"
                            + " group)", event)
                    .isEqualTo(DEAD);
        }
    }

    @Test
    void anEmptyGroupWithNoMemberToComeAndNoCommittedOffsetIsRemoved() {
        assertThat(GroupTransitions.removable(EMPTY, 0, false))
                .as("an Empty group, no member id handed out still to come, no committed offset: nothing is left"
                        + " to keep, it goes at once (Kafka at its next retention check), or a client naming a new"
                        + " group per JoinGroup would fill max.groups for good")
                .isTrue();
    }

    @Test
    void aGroupWithCommittedOffsetsStaysEmptyUntilTheyExpire() {
        assertThat(GroupTransitions.removable(EMPTY, 0, true))
                .as("an Empty group that has committed offsets stays (listed, Empty, its offsets aging from the"
                        + " moment it emptied): its consumers resume at them when they come back")
                .isFalse();
    }

    @Test
    void aGroupWaitingForAMemberItGaveAnIdToStays() {
        assertThat(GroupTransitions.removable(EMPTY, 1, false))
                .as("an Empty group that answered MEMBER_ID_REQUIRED (KIP-394) waits for that member to join with"
                        + " its id: removed now, the member's second JoinGroup would be UNKNOWN_MEMBER_ID, its next"
                        + " first one create the group again, and so on for ever")
                .isFalse();
    }

    @Test
    void onlyAnEmptyGroupIsRemoved() {
        for (GroupState from : new GroupState[] {PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD}) {
            assertThat(GroupTransitions.removable(from, 0, false))
                    .as("a group in %s is not removed, not even with no member left: a group in PreparingRebalance"
                            + " whose members all left ends its join phase Empty first; a Dead one is gone already",
                            from)
                    .isFalse();
        }
    }

    // ---- Kafka judges: any sequence of events, from a new group ---------------------------------

    /**
     * This test's model of what each event does (Kafka spreads it over GroupMetadataManager's classic part): a
     * join always starts or joins a rebalance; a member leaving or expiring rebalances a group that has members;
     * the end of a join phase and the leader's SyncGroup act only in the one state they belong to; a removed
     * group is Dead, for good.
     */
    static GroupState model(GroupState state, Event event) {
        if (state == DEAD || event == Event.GROUP_REMOVED) {
            return DEAD;
        }
        return switch (event) {
            case MEMBER_JOINS -> PREPARING_REBALANCE;
            case MEMBER_LEAVES -> state == EMPTY ? EMPTY : PREPARING_REBALANCE;
            case JOIN_PHASE_ENDS -> state == PREPARING_REBALANCE ? COMPLETING_REBALANCE : state;
            case JOIN_PHASE_ENDS_EMPTY -> state == PREPARING_REBALANCE ? EMPTY : state;
            case LEADER_SYNCS -> state == COMPLETING_REBALANCE ? STABLE : state;
            case GROUP_REMOVED -> DEAD;
        };
    }

    /** Kafka's state of the same name. */
    private static ClassicGroupState kafka(GroupState state) {
        return ClassicGroupState.valueOf(state.name());
    }

    @Test
    void anySequenceOfEventsMovesOnlyAlongKafkasClassicGroupStates() {
        // GROUP_REMOVED rarely, so that sequences live long enough to visit every state
        Property.forAll(Gens.lists(c -> c.oneIn(12) ? Event.GROUP_REMOVED
                : Event.values()[c.belowInt(Event.values().length - 1)], 1, 30)).tries(300).check(events -> {
                    GroupState state = EMPTY;
                    List<Event> before = new ArrayList<>();
                    for (Event event : events) {
                        GroupState yours = GroupTransitions.next(state, event);
                        GroupState expected = model(state, event);
                        String input = "a group in " + state.kafkaName + " (a new group, then " + before + ") and the event "
                                + event;
                        List<String> allowed = new ArrayList<>(List.of(state.kafkaName)); // staying is always allowed
                        for (GroupState to : GroupState.values()) {
                            if (kafka(to).validPreviousStates().contains(kafka(state)) && to != state) {
                                allowed.add(to.kafkaName);
                            }
                        }
                        Judge.agree(input, "next state", yours.kafkaName, "ClassicGroupState.validPreviousStates() lets "
                                + state.kafkaName + " stay or move to one of " + allowed + ", so",
                                allowed.contains(yours.kafkaName) ? yours.kafkaName : "one of " + allowed,
                                "Empty and CompletingRebalance are entered only from PreparingRebalance, Stable only from"
                                        + " CompletingRebalance, PreparingRebalance from Empty, Stable or"
                                        + " CompletingRebalance, Dead from anywhere; nothing leaves Dead");
                        Judge.agree(input, "next state", yours.kafkaName,
                                "ClassicGroupState, with this test's model of GroupMetadataManager's events, gives",
                                expected.kafkaName, rule(event));
                        before.add(event);
                        state = expected;
                    }
                });
    }

    /** The event's rule, in the guide's words. */
    private static String rule(Event event) {
        return switch (event) {
            case MEMBER_JOINS -> "a member joining always means PreparingRebalance";
            case MEMBER_LEAVES -> "a member leaving or expiring means PreparingRebalance, unless the group is Empty";
            case JOIN_PHASE_ENDS -> "the end of a join phase moves a group only from PreparingRebalance, to"
                    + " CompletingRebalance; anywhere else it changes nothing";
            case JOIN_PHASE_ENDS_EMPTY -> "a join phase that ends with no member moves a group only from PreparingRebalance,"
                    + " to Empty; anywhere else it changes nothing";
            case LEADER_SYNCS -> "the leader's SyncGroup moves a group only from CompletingRebalance, to Stable; anywhere"
                    + " else it changes nothing";
            case GROUP_REMOVED -> "GROUP_REMOVED leads to Dead from anywhere, and nothing leaves Dead";
        };
    }
}
