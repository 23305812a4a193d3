package kaenlog.groups;

/**
 * What a group is doing, as far as the age of its committed offsets goes: which moment starts their
 * retention clock (Kafka's {@code ClassicGroup.offsetExpirationCondition}, its
 * {@code OffsetExpirationConditionImpl} and the base timestamp it is given).
 */
public sealed interface GroupActivity {
    /**
     * A group that never had members through the group protocol (Kafka: no protocol type): a
     * consumer with {@code assign()}, kcat, an admin, {@code klog consume --group}. Kafka: "offsets
     * will be expired after this retention period has elapsed since the time of last commit".
     */
    record Standalone() implements GroupActivity {
    }

    /**
     * A group that had members and has had none since {@code sinceMs} (Kafka's
     * {@code currentStateTimestamp}, the time it became Empty): every offset's clock starts then,
     * however recent its commit.
     */
    record EmptySince(long sinceMs) implements GroupActivity {
    }

    /** A group with members: its offsets do not expire while they are there. */
    record Active() implements GroupActivity {
    }

    GroupActivity STANDALONE = new Standalone();
    GroupActivity ACTIVE = new Active();
}
