package kaenlog.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Partition names and directories, one to one (given code, {@link PartitionNames}): a topic follows
 * Kafka's {@code Topic.validate} ({@code [a-zA-Z0-9._-]}, at most 249 characters, not {@code .} or
 * {@code ..}), the partition number is at least 0 and follows the name's last dash. Two different
 * (topic, partition) pairs never share a directory: topic {@code alias} partition -5 and topic
 * {@code alias-} partition 5 would both be {@code alias--5}.
 */
@Order(10)
@PassesOnSkeleton("partition name rules are given code, not an exercise")
class PartitionNamesTest {

    @Test
    void aNegativePartitionNumberIsRefusedSoNoTwoPartitionsShareADirectory() {
        assertThatThrownBy(() -> PartitionNames.name("alias", -5))
                .as("topic 'alias' partition -5 would be the directory 'alias--5', which is topic 'alias-' partition 5:"
                        + " a negative partition number is refused (Kafka's partitions are 0..N-1)")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("-5");
        assertThat(PartitionNames.problem("alias", -5)).as("the same refusal, as a problem to answer with").isNotNull();
        assertThat(PartitionNames.name("alias-", 5)).as("topic 'alias-' partition 5 is a valid partition").isEqualTo("alias--5");
        assertThat(PartitionNames.parse("alias--5")).as("its directory reads back as topic 'alias-', partition 5:"
                + " the partition number follows the last dash")
                .contains(new PartitionNames.TopicPartition("alias-", 5));
    }

    @Test
    void everyValidTopicAndPartitionReadsBackFromItsNameUnchanged() {
        for (String topic : List.of("orders", "a-1", "-", "--", "...", "a.b_c-D9", "x".repeat(249))) {
            for (int partition : new int[] {0, 1, 9, 10, 12, 99_999}) {
                String name = PartitionNames.name(topic, partition);
                assertThat(PartitionNames.parse(name)).as("'%s' partition %d is the directory '%s', which reads back"
                        + " as the same topic and partition", cut(topic), partition, cut(name))
                        .contains(new PartitionNames.TopicPartition(topic, partition));
            }
        }
    }

    @Test
    void topicNamesFollowKafkasTopicValidate() {
        assertThat(PartitionNames.topicProblem("x".repeat(249))).as("249 characters: Kafka's maximum").isNull();
        for (String bad : List.of("", ".", "..", "x".repeat(250), "a/b", "a b", "tópico", "a\nb")) {
            assertThat(PartitionNames.topicProblem(bad)).as("'%s' is not a topic name for Kafka's Topic.validate"
                    + " (empty, '.', '..', over 249 characters, or a character outside [a-zA-Z0-9._-])", cut(bad))
                    .isNotNull();
            assertThatThrownBy(() -> PartitionNames.name(bad, 0)).as("no partition of '%s' has a name", cut(bad))
                    .isInstanceOf(MalformedMessageException.class);
        }
        for (String bad : List.of(".-0", "..-0", "-0", "alias--5-", "alias-+5", "alias- 5")) {
            assertThat(PartitionNames.problem(bad)).as("'%s' is not a partition's directory", bad).isNotNull();
            assertThat(PartitionNames.parse(bad)).as("'%s' does not parse", bad).isEmpty();
        }
    }

    @Test
    void aPartitionNumberIsWrittenOneWayAndFitsAnInt() {
        assertThat(PartitionNames.parse("t-" + Integer.MAX_VALUE)).as("the largest int32 partition number")
                .contains(new PartitionNames.TopicPartition("t", Integer.MAX_VALUE));
        for (String bad : List.of("t-00", "t-007", "t-2147483648", "t-99999999999")) {
            assertThat(PartitionNames.parse(bad)).as("'%s': leading zeros or past int32 are not a partition number",
                    bad).isEmpty();
        }
        assertThat(PartitionNames.problem(PartitionNames.name("x".repeat(249), 0)))
                .as("a 249-character topic's partition 0 is a directory name (251 characters)").isNull();
        assertThat(PartitionNames.problem("x".repeat(249) + "-" + Integer.MAX_VALUE))
                .as("a directory name over 255 characters (the file system's NAME_MAX) is refused, whatever its parts")
                .isNotNull();
    }

    private static String cut(String s) {
        return s.length() > 20 ? s.substring(0, 20) + "..." : s;
    }
}
