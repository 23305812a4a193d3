package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import org.apache.zookeeper.KeeperException;

/**
 * {@code klog cluster-topics --zookeeper H:P --create|--describe}: Kafka's {@code kafka-topics.sh
 * --zookeeper} (removed in Kafka 3.0 for {@code --bootstrap-server}) on the cluster's znodes. Create
 * writes the assignment and the configs, as Kafka's AdminZkClient did; the controller gives the
 * partitions their first states. Describe prints Kafka's format, one line per partition.
 */
public final class ClusterTopicsCommand implements Subcommand {
    private static final int SESSION_MS = 10_000;

    @Override
    public String name() {
        return "cluster-topics";
    }

    @Override
    public String usage() {
        return "--zookeeper H:P (--create --topic T [--partitions N (1)] [--replication-factor R (1)]"
                + " [--config K=V ...] | --describe [--topic T])";
    }

    @Override
    public String summary() {
        return "chapter 10: create and describe a cluster's topics in ZooKeeper (kafka-topics.sh --zookeeper)";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("zookeeper", "topic", "partitions", "replication-factor"),
                Set.of("create", "describe"), Set.of("config")).noPositional();
        if (!flags.has("zookeeper") || flags.has("create") == flags.has("describe")) {
            throw new UsageException("give --zookeeper and one of --create, --describe");
        }
        try (ZkClient zk = ZkClient.connect(flags.string("zookeeper", ""), SESSION_MS)) {
            return flags.has("create") ? create(zk, flags, out, err) : describe(zk, flags, out, err);
        } catch (IOException e) {
            err.println("klog cluster-topics: " + e.getMessage());
            return Klog.FAILED;
        } catch (KeeperException e) {
            err.println("klog cluster-topics: " + e.getMessage());
            return Klog.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Klog.FAILED;
        }
    }

    private static int create(ZkClient zk, Flags flags, PrintStream out, PrintStream err)
            throws UsageException, KeeperException, InterruptedException {
        if (!flags.has("topic")) {
            throw new UsageException("--create needs --topic");
        }
        String topic = flags.string("topic", "");
        int partitions = flags.intValue("partitions", 1, 1, 10_000);
        int replicationFactor = flags.intValue("replication-factor", 1, 1, 100);
        Map<String, String> configs = new TreeMap<>();
        for (String config : flags.all("config")) {
            int eq = config.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--config takes KEY=VALUE, got " + config);
            }
            configs.put(config.substring(0, eq), config.substring(eq + 1));
        }
        List<Integer> brokers = List.copyOf(BrokerRegistration.liveBrokers(zk).keySet());
        if (replicationFactor > brokers.size()) {
            // Kafka's own words (InvalidReplicationFactorException)
            err.println("Error while executing topic command : Replication factor: " + replicationFactor
                    + " larger than available brokers: " + brokers.size() + ".");
            return Klog.FAILED;
        }
        try {
            PartitionStateStore.createAssignment(zk, topic, assign(brokers, partitions, replicationFactor), configs);
        } catch (KeeperException.NodeExistsException e) {
            err.println("Error while executing topic command : Topic '" + topic + "' already exists.");
            return Klog.FAILED;
        }
        out.println("Created topic " + topic + ".");
        return Klog.OK;
    }

    /**
     * Kafka's rack-unaware assignment without its random start: partition p's replicas are the
     * brokers from index p on, round the sorted list, so the leaders spread over the brokers.
     */
    static SortedMap<Integer, List<Integer>> assign(List<Integer> brokers, int partitions, int replicationFactor) {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            List<Integer> replicas = new ArrayList<>();
            for (int r = 0; r < replicationFactor; r++) {
                replicas.add(brokers.get((p + r) % brokers.size()));
            }
            assignment.put(p, replicas);
        }
        return assignment;
    }

    private static int describe(ZkClient zk, Flags flags, PrintStream out, PrintStream err)
            throws KeeperException, InterruptedException {
        List<String> topics = flags.has("topic") ? List.of(flags.string("topic", "")) : PartitionStateStore.topics(zk);
        for (String topic : topics) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic);
            if (assignment.isEmpty()) {
                err.println("Error while executing topic command : Topic '" + topic + "' does not exist as expected");
                return Klog.FAILED;
            }
            Map<String, String> configs = PartitionStateStore.configs(zk, topic);
            out.println("Topic: " + topic + "\tPartitionCount: " + assignment.get().size() + "\tReplicationFactor: "
                    + assignment.get().get(assignment.get().firstKey()).size() + "\tConfigs: "
                    + configs.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
            for (Map.Entry<Integer, List<Integer>> p : assignment.get().entrySet()) {
                Optional<Versioned<PartitionState>> state = PartitionStateStore.read(zk, topic, p.getKey());
                String leader = state.map(s -> s.value().leader() == PartitionState.NO_LEADER ? "none"
                        : Integer.toString(s.value().leader())).orElse("none");
                String isr = state.map(s -> join(s.value().isr())).orElse("");
                out.println("\tTopic: " + topic + "\tPartition: " + p.getKey() + "\tLeader: " + leader + "\tReplicas: "
                        + join(p.getValue()) + "\tIsr: " + isr);
            }
        }
        return Klog.OK;
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
