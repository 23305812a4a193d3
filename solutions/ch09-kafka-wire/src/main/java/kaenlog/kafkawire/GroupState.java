package kaenlog.kafkawire;

/**
 * The states of a classic consumer group, with Kafka's names (its {@code ClassicGroupState}, which
 * DescribeGroups and ListGroups answer as text).
 *
 * <pre>
 *                       a member joins
 *    +-------+  -----------------------------------------> +--------------------+
 *    | Empty |                                              | PreparingRebalance | <------+
 *    +-------+  <-----------------------------------------  +--------------------+        |
 *        ^       the join phase ends with no member            |          ^               |
 *        |                                                      | the join |               |
 *        |                                                      | phase    | a member     |
 *        |                                                      | ends     | joins, leaves|
 *        |                                                      v          | or expires   |
 *        |                                              +---------------------+           |
 *        |                                              | CompletingRebalance | ----------+
 *        |                                              +---------------------+   a member joins,
 *        |                                                      |                 leaves or expires
 *        |                                                      | the leader's SyncGroup
 *        |                                                      v
 *        |                                                  +--------+
 *        |                                                  | Stable | ---> PreparingRebalance
 *        |                                                  +--------+   (a member joins, leaves
 *        |                                                                or expires)
 *    any state --- the group is removed ---> Dead (final)
 * </pre>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    /** Kafka's name, as DescribeGroups answers it. */
    public final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** What happens to a group; {@link GroupTransitions#next} says which state it leads to. */
    public enum Event {
        /**
         * A new member joins, or a known one rejoins with new metadata (or is the leader). A static
         * member back under a new member id (KIP-345) is no event in a Stable group whose protocol
         * it leaves as it is: it takes its old place.
         */
        MEMBER_JOINS,
        /** A member sends LeaveGroup, or its session timeout passes without a heartbeat. */
        MEMBER_LEAVES,
        /** The join phase ends (every member rejoined, or the rebalance timeout came) with members left. */
        JOIN_PHASE_ENDS,
        /** The join phase ends with no member left (all left, or none rejoined in time). */
        JOIN_PHASE_ENDS_EMPTY,
        /** The leader's SyncGroup brings the assignment. */
        LEADER_SYNCS,
        /** The group is removed (its offsets expired, or it was deleted). */
        GROUP_REMOVED
    }
}
