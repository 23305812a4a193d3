package kaenlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.cli.Klog;
import kaenlog.cli.UsageException;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code klog topics} (given code): Kafka's kafka-topics on kaen-log's own port, against a running
 * broker: --create makes partitions 0..N-1, --describe prints them in kafka-topics' format,
 * --delete removes them, and a misuse is a usage line and exit 2.
 */
@Order(13)
@Timeout(60)
@PassesOnSkeleton("klog topics and kaen-log's topic requests are given code: no exercise of chapter 9 is on their path")
class TopicsCommandTest {
    @TempDir
    Path dir;
    private Broker broker;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception {
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")), new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    /** One run of the command: its exit status, what it printed, what it complained. */
    private record Run(int status, String out, String err) {
    }

    private Run topics(String... args) throws UsageException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--port", Integer.toString(broker.port())));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new TopicsCommand().run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void createDescribeAndDeleteATopicInKafkaTopicsFormat() throws Exception {
        Run created = topics("--create", "--topic", "orders", "--partitions", "3");
        assertThat(created.status()).as("--create exits 0; it said: %s%s", created.out(), created.err()).isZero();
        assertThat(created.out()).isEqualTo("Created topic orders." + System.lineSeparator());

        Run described = topics("--describe", "--topic", "orders");
        assertThat(described.status()).isZero();
        assertThat(described.out().lines().toList()).as("kafka-topics --describe's lines, one broker (node 1), no"
                + " topic id (kaen-log keeps none; Kafka leaves the zero id out)").containsExactly(
                "Topic: orders\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: ",
                "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A");

        Run again = topics("--create", "--topic", "orders", "--partitions", "5");
        assertThat(again.status()).as("creating it again fails").isEqualTo(Klog.FAILED);
        assertThat(again.err()).contains("TOPIC_ALREADY_EXISTS").contains("Topic 'orders' already exists.");

        assertThat(topics("--delete", "--topic", "orders").status()).as("--delete exits 0").isZero();
        assertThat(dir.resolve("data").resolve("orders-0")).as("its directories are gone").doesNotExist();
        Run gone = topics("--describe", "--topic", "orders");
        assertThat(gone.status()).as("describing a deleted topic fails").isEqualTo(Klog.FAILED);
        assertThat(gone.err()).contains("UNKNOWN_TOPIC_OR_PARTITION");
    }

    @Test
    void describeWithoutATopicListsEveryTopicAndShowsAHoleAsKafkaTopicsShowsALeaderlessPartition() throws Exception {
        topics("--create", "--topic", "a", "--partitions", "1");
        broker.partition("holey-0"); // kaen-log's own produce creates the partition it names, and no other
        broker.partition("holey-2");
        Run described = topics("--describe");
        assertThat(described.out().lines().toList()).as("every topic, by name; holey's partition 1 has no directory")
                .containsExactly(
                "Topic: a\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: ",
                "\tTopic: a\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A",
                "Topic: holey\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: ",
                "\tTopic: holey\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: holey\tPartition: 1\tLeader: none\tReplicas: 1\tIsr: \tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: holey\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A");
    }

    @Test
    void aMisuseIsAUsageErrorAndExitsTwo() throws Exception {
        for (List<String> misuse : List.of(List.of("--topic", "t"), List.of("--create", "--delete", "--topic", "t"),
                List.of("--create", "--topic", "t"), List.of("--create", "--partitions", "2"),
                List.of("--create", "--topic", "t", "--partitions", "0"), List.of("--delete"),
                List.of("--describe", "--partitions", "2"), List.of("--create", "--topic", "a/b", "--partitions", "1"))) {
            assertThatThrownBy(() -> topics(misuse.toArray(String[]::new))).as("klog topics %s", misuse)
                    .isInstanceOf(UsageException.class);
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Klog.run(new String[] {"topics", "--create", "--topic", "t"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).as("klog exits 2 on a misuse").isEqualTo(Klog.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).as("with the reason and the usage")
                .contains("--create needs --partitions N").contains("--create --topic T --partitions N");
    }
}
