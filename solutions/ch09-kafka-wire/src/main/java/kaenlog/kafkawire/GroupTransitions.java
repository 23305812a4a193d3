package kaenlog.kafkawire;

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
        // BEGIN-SOLUTION ch09 task 7: the classic group's next state (GroupStateTest)
        if (state == GroupState.DEAD || event == GroupState.Event.GROUP_REMOVED) {
            return GroupState.DEAD;
        }
        return switch (event) {
            case MEMBER_JOINS -> GroupState.PREPARING_REBALANCE;
            case MEMBER_LEAVES -> state == GroupState.EMPTY ? GroupState.EMPTY : GroupState.PREPARING_REBALANCE;
            case JOIN_PHASE_ENDS -> state == GroupState.PREPARING_REBALANCE ? GroupState.COMPLETING_REBALANCE : state;
            case JOIN_PHASE_ENDS_EMPTY -> state == GroupState.PREPARING_REBALANCE ? GroupState.EMPTY : state;
            case LEADER_SYNCS -> state == GroupState.COMPLETING_REBALANCE ? GroupState.STABLE : state;
            case GROUP_REMOVED -> GroupState.DEAD;
        };
        // END-SOLUTION
    }
}
