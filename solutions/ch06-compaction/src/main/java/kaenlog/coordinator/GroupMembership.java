package kaenlog.coordinator;

import java.util.Map;
import java.util.function.Predicate;
import kaenlog.groups.GroupActivity;

/**
 * What the group coordinator asks of the groups it does not keep itself: chapter 9's classic groups
 * (members, generations) tell it which groups have members and since when a group is Empty, and
 * hear when a group's last committed offset expired (an Empty group with no offsets goes then,
 * Kafka's {@code cleanupGroupMetadata}). A broker without them ({@link #NONE}) has standalone groups
 * only: each offset expires by its own commit.
 */
public interface GroupMembership {
    GroupMembership NONE = group -> GroupActivity.STANDALONE;

    /** What {@code group} does now, for the age of its offsets. */
    GroupActivity activity(String group);

    /** The last committed offset of {@code group} expired. */
    default void offsetsExpired(String group) {
    }

    /**
     * The groups {@code unloaded} accepts are no longer this broker's to coordinate (chapter 10: it
     * stopped leading their offsets partition): their members are forgotten too.
     */
    default void unloaded(Predicate<String> unloaded) {
    }

    /**
     * This broker now coordinates the groups of an offsets partition it just read: {@code groups} is
     * each group's last metadata record there (chapter 9's bytes), to take the members back from.
     */
    default void loaded(Map<String, byte[]> groups) {
    }
}
