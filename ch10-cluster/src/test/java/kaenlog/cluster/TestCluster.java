package kaenlog.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import kaenlog.client.BrokerClient;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.replication.Replica;

/**
 * A cluster of real brokers in the test JVM: each a chapter 3 {@link Broker} on its own port and
 * data directory, each a {@link ClusterMember} of the same ZooKeeper, their followers fetching over
 * TCP. Time is each broker's virtual time, ticking as the real one. A broker "dies" by closing its
 * session and its sockets ({@link #stop}) and comes back on the same directory ({@link #restart}).
 *
 * <p>Whatever fails in a member's threads is kept; {@link #await} rethrows the first failure that
 * is a learner's TODO (or any other bug), so a test whose task is not written fails on its TODO
 * instead of waiting for ever.
 */
final class TestCluster implements AutoCloseable {
    /** One broker of the cluster. */
    static final class Node {
        final int id;
        final Broker broker;
        final ClusterLeadership leadership;
        final ClusterMember member;
        final ByteArrayOutputStream log;
        /** Chapter 9's listener, Kafka's protocol, when the cluster was started with Kafka ports; else null. */
        final KafkaListener kafka;

        Node(int id, Broker broker, ClusterLeadership leadership, ClusterMember member, ByteArrayOutputStream log,
             KafkaListener kafka) {
            this.id = id;
            this.broker = broker;
            this.leadership = leadership;
            this.member = member;
            this.log = log;
            this.kafka = kafka;
        }

        /** The Kafka port (chapter 9's listener) of a cluster started {@link #withKafkaPorts}. */
        int kafkaPort() {
            return kafka.port();
        }

        String log() {
            return log.toString(StandardCharsets.UTF_8);
        }

        BrokerClient client() throws IOException {
            return BrokerClient.connect("127.0.0.1", broker.port(), 30_000);
        }

        Optional<Replica> replica(String partition) {
            return leadership.replica(partition).map(PartitionReplica::replica);
        }
    }

    static final int SESSION_MS = 4_000;
    private final String zookeeper;
    private final Path root;
    private final PartitionConfigs configs;
    private final Map<Integer, Node> nodes = new TreeMap<>();
    private final ThreadFailures failures = new ThreadFailures();
    private final boolean kafkaPorts;

    private TestCluster(String zookeeper, Path root, PartitionConfigs configs, boolean kafkaPorts) {
        this.zookeeper = zookeeper;
        this.root = root;
        this.configs = configs;
        this.kafkaPorts = kafkaPorts;
    }

    /**
     * Brokers 1..{@code brokers}, with {@code configs} (e.g. {@code replica.fetch.backoff.ms=50}) on
     * top of short fetch waits, so that a test sees a round in tens of milliseconds.
     */
    static TestCluster start(String zookeeper, Path root, int brokers, String... configs) throws IOException {
        return start(zookeeper, root, brokers, false, configs);
    }

    /** {@link #start}, each broker with chapter 9's Kafka listener too, its port registered in ZooKeeper. */
    static TestCluster withKafkaPorts(String zookeeper, Path root, int brokers, String... configs) throws IOException {
        return start(zookeeper, root, brokers, true, configs);
    }

    private static TestCluster start(String zookeeper, Path root, int brokers, boolean kafkaPorts, String... configs)
            throws IOException {
        PartitionConfigs all = PartitionConfigs.load().with("replica.fetch.wait.max.ms=100")
                .with("replica.fetch.backoff.ms=50");
        for (String config : configs) {
            all = all.with(config);
        }
        TestCluster cluster = new TestCluster(zookeeper, root, all, kafkaPorts);
        for (int id = 1; id <= brokers; id++) {
            cluster.startBroker(id);
        }
        return cluster;
    }

    /** Starts broker {@code id} on its directory {@code root/broker-id}, joined to the cluster. */
    Node startBroker(int id) throws IOException {
        ClusterLeadership leadership = new ClusterLeadership(id);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Broker broker = Broker.start(BrokerConfig.of(root.resolve("broker-" + id)).withConfigs(configs)
                .withLeadership(leadership), log);
        ClusterMember member;
        KafkaListener kafka = null;
        try {
            // the Kafka listener first, as klog serve starts it: its port is what the broker registers
            kafka = kafkaPorts ? KafkaListener.start(broker, "127.0.0.1", 0, log) : null;
            int replicationPort = InterBrokerListener.start(broker, "127.0.0.1", 0).port();
            member = ClusterMember.join(broker, leadership, zookeeper, SESSION_MS, new BrokerInfo(id, "127.0.0.1",
                    broker.port(), kafka == null ? BrokerInfo.NO_PORT : kafka.port(), replicationPort), log, failures);
        } catch (IOException | RuntimeException e) {
            if (kafka != null) {
                kafka.close();
            }
            broker.close();
            throw e;
        }
        Node node = new Node(id, broker, leadership, member, bytes, kafka);
        nodes.put(id, node);
        return node;
    }

    /** Broker {@code id} leaves: its session closed (its registration goes at once), its sockets closed. */
    void stop(int id) {
        Node node = nodes.remove(id);
        if (node.kafka != null) {
            node.kafka.close();
        }
        node.member.close();
        node.broker.close();
    }

    /** Broker {@code id} comes back on the same directory, a new session, a new broker epoch. */
    Node restart(int id) throws IOException {
        return startBroker(id);
    }

    Node node(int id) {
        return nodes.get(id);
    }

    List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    /** The broker that leads {@code partition} now, by its own account. */
    Optional<Node> leaderOf(String partition) {
        return nodes.values().stream().filter(n -> n.leadership.leaderOf(partition).isPresent()).findFirst();
    }

    /** Creates a topic the way an administrator does: the assignment and its configs; the controller writes the states. */
    void createTopic(String topic, Map<Integer, List<Integer>> assignment, Map<String, String> configs)
            throws Exception {
        try (ZkClient admin = ZkClient.connect(zookeeper, SESSION_MS)) {
            PartitionStateStore.createAssignment(admin, topic, new TreeMap<>(assignment), configs);
        }
    }

    /**
     * An administrator's leader election by hand (what a preferred-replica election would write): the
     * state of {@code topic}-{@code partition} names {@code newLeader} at leader epoch + 1, conditional
     * on the zkVersion read.
     */
    void moveLeadership(String topic, int partition, int newLeader) throws Exception {
        try (ZkClient admin = ZkClient.connect(zookeeper, SESSION_MS)) {
            for (int attempt = 0; attempt < 100; attempt++) {
                Versioned<PartitionState> now = PartitionStateStore.read(admin, topic, partition).orElseThrow();
                PartitionState next = new PartitionState(newLeader, now.value().leaderEpoch() + 1, now.value().isr(),
                        now.value().controllerEpoch());
                if (PartitionStateStore.updateAsLeader(admin, topic, partition, next, now.zkVersion()).isPresent()) {
                    return;
                }
            }
            throw new AssertionError("the state of " + topic + "-" + partition + " kept moving under the test");
        }
    }

    /**
     * Waits until {@code condition} holds, at most {@code timeoutMs}; a failure in a member's thread
     * (a TODO, say) is thrown as soon as it happens. False when the time ran out.
     */
    boolean await(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long waitedMs = 0;
        while (waitedMs < timeoutMs) {
            rethrowFailure();
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
            waitedMs += 20;
        }
        rethrowFailure();
        return condition.getAsBoolean();
    }

    /** The first failure of a member's threads that is not an I/O error (those are a failover's weather). */
    void rethrowFailure() {
        failures.rethrowFirst();
    }

    String logs() {
        StringBuilder all = new StringBuilder();
        nodes.values().forEach(n -> all.append("---- broker ").append(n.id).append('\n').append(n.log()));
        return all.toString();
    }

    @Override
    public void close() {
        for (Node node : List.copyOf(nodes.values())) {
            try {
                stop(node.id);
            } catch (RuntimeException e) {
                throw new UncheckedIOException(new IOException("stopping broker " + node.id, e));
            }
        }
    }
}
