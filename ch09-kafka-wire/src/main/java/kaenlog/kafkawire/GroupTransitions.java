package kaenlog.kafkawire;

import kaenlog.workbook.Todo;

/**
 * The classic group's state machine as one pure function: a state and an event in, the next state
 * out. Kafka spreads it over {@code GroupMetadataManager} and guards it with
 * {@code ClassicGroupState.validPreviousStates}: Empty is entered only from PreparingRebalance,
 * CompletingRebalance only from PreparingRebalance, Stable only from CompletingRebalance, and Dead
 * from anywhere. An event a state does not act on leaves it as it is (a SyncGroup during
 * PreparingRebalance is answered REBALANCE_IN_PROGRESS and changes nothing).
 */
public final class GroupTransitions {
    private GroupTransitions() {
    }

    public static GroupState next(GroupState state, GroupState.Event event) {
        throw new Todo("ch09 task 7: the classic group's next state (GroupStateTest)");
    }

    /**
     * Whether a group goes now (GROUP_REMOVED, then forgotten): only an Empty one, when no member
     * id handed out with MEMBER_ID_REQUIRED may still come back to join with it ({@code pendingMembers}),
     * and no committed offset is left. Kafka removes such a group at its next offsets retention
     * check ({@code cleanupGroupMetadata}: all its offsets expired and {@code group.isEmpty()});
     * kaen-log at once, because it bounds how many groups it keeps ({@code max.groups}). A group
     * with offsets stays Empty, and listed, until they expire.
     */
    public static boolean removable(GroupState state, int pendingMembers, boolean hasCommittedOffsets) {
        throw new Todo("ch09 task 7: an Empty group with no member to come and no offsets goes (GroupStateTest)");
    }
}
