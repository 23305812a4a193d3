package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;
import kaenlog.cli.Klog;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.admin.AdminUtils;
import org.apache.kafka.admin.BrokerMetadata;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code klog topics --zookeeper}: Kafka's {@code kafka-topics.sh --zookeeper} on the cluster's
 * znodes, through every task's pieces (registration for the live brokers, the codecs for the topic
 * znode, the controller for the first states, the state store for describe).
 */
@Order(31)
class ZooKeeperTopicsCommandTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;
    /** The brokers' sessions: each one's registration lives as long as it (the fixture closes them). */
    private final List<ZkClient> brokers = new ArrayList<>();

    @Test
    void createWritesTheAssignmentAndTheConfigsAndDescribePrintsKafkasLines() throws Exception {
        registerBrokers(1, 2, 3);

        CliRun created = topics("--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "3",
                "--config", "min.insync.replicas=2");
        assertThat(created.status()).as("create on three live brokers (stderr: %s)", created.err()).isZero();
        assertThat(created.out()).as("Kafka's line").isEqualTo("Created topic orders.\n");
        ZkClient reader = ZK.connect();
        assertThat(PartitionStateStore.assignment(reader, "orders")).as("/brokers/topics/orders: Kafka's round-robin,"
                + " partition p led first by the p-th broker").contains(new TreeMap<>(Map.of(0, List.of(1, 2, 3),
                1, List.of(2, 3, 1), 2, List.of(3, 1, 2))));
        assertThat(PartitionStateStore.configs(reader, "orders")).as("/config/topics/orders")
                .isEqualTo(Map.of("min.insync.replicas", "2"));

        startController(reader);
        CliRun described = topics("--describe");
        assertThat(described.status()).as("describe (stderr: %s)", described.err()).isZero();
        assertThat(described.lines()).as("kafka-topics.sh --describe's lines, tab-separated, as Kafka 3.9 prints them"
                + " for a ZooKeeper cluster").containsExactly(
                "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: min.insync.replicas=2",
                "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3,1\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1,2\tIsr: 3,1,2\tElr: N/A\tLastKnownElr: N/A");
    }

    @Test
    void aPartitionWithoutALeaderIsDescribedAsLeaderNone() throws Exception {
        registerBrokers(1, 2);
        assertThat(topics("--create", "--topic", "solo", "--replica-assignment", "2,1").status()).isZero();
        Controller controller = startController(ZK.connect());
        brokers.get(1).close(); // broker 2's session ends: partition 0 has no live ISR member left
        controller.onBrokerChange();

        assertThat(topics("--describe", "--topic", "solo").lines()).as("an offline partition's leader is none, its"
                + " ISR kept (no unclean election)").containsExactly(
                "Topic: solo\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: ",
                "\tTopic: solo\tPartition: 0\tLeader: none\tReplicas: 2\tIsr: 2\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: solo\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A");
    }

    @Test
    void aReplicaAssignmentIsWrittenAsGivenInPartitionOrder() throws Exception {
        CliRun created = topics("--create", "--topic", "manual", "--replica-assignment", "3:1, 1:2,2:3");
        assertThat(created.status()).as("a manual assignment needs no live broker (stderr: %s)", created.err()).isZero();
        assertThat(PartitionStateStore.assignment(ZK.connect(), "manual")).as("partition i's replicas are the i-th list")
                .contains(new TreeMap<>(Map.of(0, List.of(3, 1), 1, List.of(1, 2), 2, List.of(2, 3))));
    }

    @Test
    void aReplicationFactorAboveTheLiveBrokersIsKafkasErrorNamingBothNumbers() throws Exception {
        registerBrokers(1, 2);
        CliRun refused = topics("--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "3");
        assertThat(refused.status()).as("more replicas than live brokers is a failure, exit 1").isEqualTo(1);
        assertThat(refused.err()).as("Kafka's InvalidReplicationFactorException, in one line")
                .isEqualTo("Error while executing topic command : Replication factor: 3 larger than available brokers: 2.\n");
        assertThat(PartitionStateStore.topics(ZK.connect())).as("nothing written").isEmpty();
    }

    @Test
    void aTopicThatExistsIsOneLineAndExitStatus1() throws Exception {
        registerBrokers(1);
        assertThat(topics("--create", "--topic", "orders").status()).isZero();
        CliRun again = topics("--create", "--topic", "orders", "--partitions", "2");
        assertThat(again.status()).as("a second create of orders fails").isEqualTo(1);
        assertThat(again.err()).as("Kafka's TopicExistsException, in one line")
                .isEqualTo("Error while executing topic command : Topic 'orders' already exists.\n");
        assertThat(PartitionStateStore.assignment(ZK.connect(), "orders").orElseThrow()).as("the first assignment stays")
                .hasSize(1);
    }

    @Test
    @PassesOnSkeleton("given code: a missing topic is found by the given assignment reader")
    void describeOfATopicThatDoesNotExistIsOneLineAndExitStatus1() {
        CliRun missing = topics("--describe", "--topic", "nope");
        assertThat(missing.status()).as("describe of a missing topic fails").isEqualTo(1);
        assertThat(missing.err()).as("Kafka's line (TopicCommand.ensureTopicExists)")
                .isEqualTo("Topic 'nope' does not exist as expected\n");
    }

    @Test
    @PassesOnSkeleton("given code, checked against Kafka 3.9.1's own AdminUtils")
    void theAssignmentIsKafkasRackUnawareAssignmentFromAFixedStartIndex() {
        for (List<Integer> brokers : List.of(List.of(1), List.of(1, 2, 3), List.of(4, 7, 9, 12, 20))) {
            for (int partitions : new int[] {1, 3, 7, 16}) {
                for (int factor = 1; factor <= brokers.size(); factor++) {
                    List<BrokerMetadata> metadata = brokers.stream().map(id -> new BrokerMetadata(id, Optional.empty()))
                            .toList();
                    Map<Integer, List<Integer>> kafkas = AdminUtils.assignReplicasToBrokers(metadata, partitions, factor,
                            ReplicaAssignment.FIXED_START_INDEX, -1);
                    assertThat(ReplicaAssignment.assign(reversed(brokers), partitions, factor))
                            .as("brokers %s, %d partitions, factor %d: Kafka's assignment from start index %d (the"
                                    + " brokers sorted by id first, as AdminZkClient sorts them)", brokers, partitions,
                                    factor, ReplicaAssignment.FIXED_START_INDEX)
                            .isEqualTo(new TreeMap<>(kafkas));
                }
            }
        }
    }

    @Test
    @PassesOnSkeleton("given code: the mark the controller deletes a topic by")
    void deleteMarksTheTopicInAdminDeleteTopicsForTheController() throws Exception {
        registerBrokers(1);
        CliRun missing = topics("--delete", "--topic", "orders");
        assertThat(missing.status()).as("--delete of a topic that does not exist fails, exit 1").isEqualTo(1);
        assertThat(missing.err()).as("Kafka's line (TopicCommand.ensureTopicExists)")
                .isEqualTo("Error while executing topic command : Topic 'orders' does not exist as expected\n");
        assertThat(topics("--create", "--topic", "orders").status()).isZero();
        CliRun delete = topics("--delete", "--topic", "orders");
        assertThat(delete.status()).as("--delete of a topic that exists").isZero();
        assertThat(delete.out()).as("Kafka 2.8's kafka-topics.sh --zookeeper --delete lines").isEqualTo(
                "Topic orders is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not"
                        + " set to true.\n");
        assertThat(ZK.connect().exists(ZNodes.deleteTopicPath("orders"))).as("/admin/delete_topics/orders, for the"
                + " controller (none runs here: the mark stays)").isPresent();
        assertThat(topics("--delete", "--topic", "orders").out()).as("marked twice")
                .isEqualTo("Topic orders is already marked for deletion.\n");
    }

    @ParameterizedTest
    @PassesOnSkeleton("given code: flag parsing")
    @ValueSource(strings = {
        "--create --describe",
        "--create",
        "--describe --partitions 3",
        "--create --topic a/b",
        "--create --topic orders --partitions 0",
        "--create --topic orders --replica-assignment 1:2,3 ",
        "--create --topic orders --replica-assignment 1:1",
        "--create --topic orders --replica-assignment 1:x",
        "--create --topic orders --replica-assignment 1:2 --partitions 2",
        "--create --topic orders --config min.insync.replicas",
        "--describe --port 9092",
    })
    void misuseIsOneErrorLineAndTheVariantsUsageWithExitStatus2(String flags) {
        CliRun r = topics(flags.trim().split(" "));
        assertThat(r.status()).as("`klog topics --zookeeper ... %s` is a misuse: exit 2 (stderr: %s)", flags, r.err())
                .isEqualTo(2);
        assertThat(r.err().lines().toList()).as("one line saying what is wrong, then the usage of --zookeeper's variant")
                .hasSize(2).last().asString().startsWith("usage: klog topics --zookeeper ");
        assertThat(r.out()).as("nothing on stdout").isEmpty();
    }

    @Test
    @PassesOnSkeleton("given code: the connection's bound")
    void anUnreachableZooKeeperIsOneLineAndExitStatus1WithinTheConnectTimeout() throws IOException {
        CliRun r = CliRun.of(Klog::run, "topics", "--zookeeper", "127.0.0.1:" + closedPort(), "--describe",
                "--connect-timeout-ms", "500");
        assertThat(r.status()).as("no ZooKeeper there: exit 1 (stderr: %s)", r.err()).isEqualTo(1);
        assertThat(r.err()).as("one line naming the address and the bound, no stack trace")
                .startsWith("klog topics: no ZooKeeper answered at 127.0.0.1:").endsWith(" within 500 ms\n")
                .hasLineCount(1);
    }

    @Test
    @PassesOnSkeleton("given code: the dispatch to chapter 9's command")
    void withoutZookeeperTopicsIsChapter9sCommandOnABrokersPort() throws IOException {
        int port = closedPort();
        CliRun r = CliRun.of(Klog::run, "topics", "--describe", "--port", Integer.toString(port));
        assertThat(r.status()).as("chapter 9's klog topics, against a closed port: exit 1").isEqualTo(1);
        assertThat(r.err()).as("chapter 9's error names the broker's address, not ZooKeeper")
                .startsWith("klog topics: 127.0.0.1:" + port + ": ");
        CliRun help = CliRun.of(Klog::run, "topics", "--help");
        assertThat(help.lines()).as("--help shows both ways").hasSize(2);
        assertThat(help.lines().get(1)).startsWith("   or: klog topics --zookeeper ");
    }

    private void registerBrokers(int... ids) throws Exception {
        for (int id : ids) {
            ZkClient session = ZK.connect();
            BrokerRegistration.register(session, new BrokerInfo(id, "127.0.0.1", 9090 + 2 * id, 9091 + 2 * id, 9190 + id), NOW_MS);
            brokers.add(session);
        }
    }

    /** A controller of epoch 1 gives every new topic its first states, as a running cluster's would. */
    private static Controller startController(ZkClient session) throws Exception {
        Controller controller = new Controller(session, ControllerElection.elect(session, 1, NOW_MS).orElseThrow());
        controller.onTopicChange();
        return controller;
    }

    private static CliRun topics(String... flags) {
        List<String> args = new ArrayList<>(List.of("topics", "--zookeeper", ZK.connectString()));
        args.addAll(List.of(flags));
        return CliRun.of(Klog::run, args.toArray(String[]::new));
    }

    private static List<Integer> reversed(List<Integer> brokers) {
        return IntStream.range(0, brokers.size()).mapToObj(i -> brokers.get(brokers.size() - 1 - i)).toList();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort(); // free now, and closed below: nobody listens there
        }
    }
}
