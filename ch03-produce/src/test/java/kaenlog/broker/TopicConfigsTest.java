package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic's own configs (given code, {@link PartitionConfigs#withTopic} and
 * {@link Broker#alterTopicConfigs}, Kafka's dynamic topic configs): every partition of the topic runs
 * with them unless it has its own override, they are kept in the data directory across a restart, an
 * invalid one changes nothing, and a change reaches a partition that is already open. Runs after the
 * tasks.
 */
@Order(10)
@PassesOnSkeleton("PartitionConfigs and the topic-configs file are given code, not an exercise")
class TopicConfigsTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private Broker start(PartitionConfigs configs) throws IOException {
        return Broker.start(BrokerConfig.of(dir).withTickMs(0).withConfigs(configs),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    @Test
    void aTopicsConfigIsEveryPartitionsButForOneWithItsOwn() {
        PartitionConfigs configs = PartitionConfigs.load().with(LogConfigKeys.SEGMENT_BYTES + "=4096")
                .withPartition("orders-1:" + LogConfigKeys.SEGMENT_BYTES + "=2048")
                .withTopic("orders", Map.of(LogConfigKeys.SEGMENT_BYTES, "8192"));
        assertThat(configs.value("orders-0", LogConfigKeys.SEGMENT_BYTES)).as("the topic's own wins over --config")
                .isEqualTo("8192");
        assertThat(configs.source("orders-0", LogConfigKeys.SEGMENT_BYTES)).isEqualTo(PartitionConfigs.Source.TOPIC);
        assertThat(configs.value("orders-1", LogConfigKeys.SEGMENT_BYTES)).as("a partition's own wins over its topic's")
                .isEqualTo("2048");
        assertThat(configs.value("other-0", LogConfigKeys.SEGMENT_BYTES)).as("another topic: --config")
                .isEqualTo("4096");
        assertThat(configs.describeTopic("orders")).filteredOn(e -> e.name().equals(LogConfigKeys.SEGMENT_BYTES))
                .extracting(PartitionConfigs.Entry::value).containsExactly("8192");
        assertThat(configs.withTopic("orders", Map.of()).source("orders-0", LogConfigKeys.SEGMENT_BYTES))
                .as("no configs of its own: back to --config").isEqualTo(PartitionConfigs.Source.BROKER);
        assertThatThrownBy(() -> configs.withTopic("orders", Map.of(LogConfigKeys.SEGMENT_BYTES, "huge")))
                .as("an invalid value is refused, naming it").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("segment.bytes=huge");
        assertThatThrownBy(() -> configs.withTopic("orders", Map.of(LogConfigKeys.MAX_PARTITIONS, "5")))
                .as("a broker's config is no topic's").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("broker config");
    }

    @Test
    void aTopicsConfigsSurviveARestartAndReachAnOpenPartition() throws IOException {
        try (Broker broker = start(PartitionConfigs.load())) {
            broker.partition("orders-0");
            broker.alterTopicConfigs(Map.of("orders", Map.of(LogConfigKeys.SEGMENT_BYTES, "1024")));
            Partition open = broker.partition("orders-0");
            int segmentBytes = open.locked(log -> log.config().segmentBytes());
            assertThat(segmentBytes).as("the open log takes the new segment.bytes")
                    .isEqualTo(1024);
            assertThatThrownBy(() -> broker.alterTopicConfigs(Map.of("orders", Map.of(LogConfigKeys.SEGMENT_BYTES, "1"))))
                    .as("below segment.bytes' minimum").isInstanceOf(IllegalArgumentException.class);
            assertThat(broker.configs().topicConfigs("orders")).as("an invalid change changes nothing")
                    .isEqualTo(Map.of(LogConfigKeys.SEGMENT_BYTES, "1024"));
        }
        assertThat(Files.readString(dir.resolve(TopicConfigFile.FILE_NAME))).isEqualTo("orders segment.bytes=1024\n");
        try (Broker restarted = start(PartitionConfigs.load())) {
            assertThat(restarted.configs().value("orders-0", LogConfigKeys.SEGMENT_BYTES)).as("kept across a restart")
                    .isEqualTo("1024");
            assertThat(brokerLog.toString()).as("the file is the broker's own, no stray")
                    .doesNotContain(TopicConfigFile.FILE_NAME + " (a file)");
        }
    }

    @Test
    void anUnreadableTopicConfigsFileStopsTheBrokerFromStarting() throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(TopicConfigFile.FILE_NAME), "orders cleanup.policy\n");
        assertThat(refusedStart()).as("a topic whose configs were lost would be retained as a plain one: the broker"
                + " does not start").hasMessageContaining(TopicConfigFile.FILE_NAME + " line 1");
        Files.writeString(dir.resolve(TopicConfigFile.FILE_NAME), "orders segment.bytes=many\n");
        assertThat(refusedStart()).as("a value the key's check refuses").hasMessageContaining("segment.bytes=many");
    }

    /** The IOException a broker start ends with (none: null); anything else is thrown (a TODO, say). */
    private IOException refusedStart() {
        try {
            start(PartitionConfigs.load()).close();
            return null;
        } catch (IOException refused) {
            return refused;
        }
    }
}
