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
}
