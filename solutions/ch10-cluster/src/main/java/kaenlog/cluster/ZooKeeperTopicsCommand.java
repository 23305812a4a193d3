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
import kaenlog.cli.SubcommandVariant;
import kaenlog.cli.UsageException;
import kaenlog.kafkawire.TopicError;
import kaenlog.kafkawire.TopicStore;
import kaenlog.wire.PartitionNames;
import org.apache.zookeeper.KeeperException;

/**
 * {@code klog topics --zookeeper H:P[,H:P...] --create|--describe}: chapter 9's {@code klog topics}
 * on a cluster's znodes, Kafka's {@code kafka-topics.sh --zookeeper} (removed in Kafka 3.0 for
 * {@code --bootstrap-server}). Create writes the assignment and the configs, as Kafka's
 * {@code AdminZkClient} did; the controller, told by its watch, gives the partitions their first
 * states. Describe prints what Kafka 3.9's {@code kafka-topics.sh --describe} prints for a ZooKeeper
 * cluster, tab-separated:
 *
 * <pre>
 * Topic: orders	PartitionCount: 3	ReplicationFactor: 3	Configs: min.insync.replicas=2
 * 	Topic: orders	Partition: 0	Leader: 1	Replicas: 1,2,3	Isr: 1,2,3	Elr: N/A	LastKnownElr: N/A
 * </pre>
 *
 * No TopicId: the topic znode kaen-log writes has none, and Kafka's TopicCommand leaves a zero id
 * out. Elr and LastKnownElr are KRaft's (KIP-966): a ZooKeeper cluster's brokers answer a describe
 * through Metadata, which has neither, and Kafka prints N/A.
 */
public final class ZooKeeperTopicsCommand implements SubcommandVariant {
    /** kafka-topics.sh --zookeeper's session and connection timeouts (30 s each). */
    private static final int SESSION_MS = 30_000;
    private static final int DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

    @Override
    public String subcommand() {
        return "topics";
    }

    @Override
    public String flag() {
        return "zookeeper";
    }

    @Override
    public String usage() {
        return "--zookeeper H:P[,H:P...] (--create --topic T [--partitions N (1)] [--replication-factor R (1)]"
                + " [--replica-assignment 1:2:3,2:3:1] [--config K=V ...] | --describe [--topic T] | --delete --topic T)"
                + " [--connect-timeout-ms MS (30000)]";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("zookeeper", "topic", "partitions", "replication-factor",
                "replica-assignment", "connect-timeout-ms"), Set.of("create", "describe", "delete"), Set.of("config"))
                .noPositional();
        Request request = Request.of(flags);
        String connectString = flags.string("zookeeper", "");
        ZooKeeperStatusCommand.parse(connectString);
        long connectTimeoutMs = flags.longValue("connect-timeout-ms", DEFAULT_CONNECT_TIMEOUT_MS, 1, 600_000);
        try (ZkClient zk = ZkClient.connect(connectString, SESSION_MS, connectTimeoutMs, event -> { })) {
            if (request.delete()) {
                return delete(zk, request.topic().orElseThrow(), out, err);
            }
            return request.create() ? create(zk, request, out, err) : describe(zk, request.topic(), out, err);
        } catch (IOException | KeeperException e) {
            err.println("klog topics: " + e.getMessage());
            return Klog.FAILED;
        } catch (ZNodeFormatException | NumberFormatException e) {
            // a znode anyone could have written, read like a request: one line, no stack trace
            err.println("klog topics: a znode does not parse: " + e.getMessage());
            return Klog.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Klog.FAILED;
        }
    }

    /** What the flags ask, checked before ZooKeeper is reached: misuse is exit 2 whatever the cluster. */
    record Request(boolean create, boolean delete, Optional<String> topic, int partitions, int replicationFactor,
                   Optional<SortedMap<Integer, List<Integer>>> replicaAssignment, Map<String, String> configs) {
        static Request of(Flags flags) throws UsageException {
            long actions = Set.of("create", "describe", "delete").stream().filter(flags::has).count();
            if (actions != 1) {
                throw new UsageException("say one of --create, --describe or --delete");
            }
            Optional<String> topic = flags.has("topic") ? Optional.of(flags.string("topic", "")) : Optional.empty();
            if (topic.isPresent() && PartitionNames.topicProblem(topic.get()) != null) {
                throw new UsageException(PartitionNames.topicProblem(topic.get()));
            }
            boolean create = flags.has("create");
            if ((create || flags.has("delete")) && topic.isEmpty()) {
                throw new UsageException("--" + (create ? "create" : "delete") + " needs --topic T");
            }
            for (String createOnly : List.of("partitions", "replication-factor", "replica-assignment", "config")) {
                if (!create && flags.has(createOnly)) {
                    throw new UsageException("--" + createOnly + " goes with --create");
                }
            }
            if (flags.has("replica-assignment") && (flags.has("partitions") || flags.has("replication-factor"))) {
                // Kafka's words: an assignment says both
                throw new UsageException("Option \"[replica-assignment]\" can't be used with option"
                        + " \"[partitions],[replication-factor]\"");
            }
            Optional<SortedMap<Integer, List<Integer>>> assignment = flags.has("replica-assignment")
                    ? Optional.of(ReplicaAssignment.parse(flags.string("replica-assignment", ""))) : Optional.empty();
            return new Request(create, flags.has("delete"), topic, flags.intValue("partitions", 1, 1, 100_000),
                    flags.intValue("replication-factor", 1, 1, Short.MAX_VALUE), assignment, configs(flags.all("config")));
        }

        /** {@code --config K=V}, Kafka's parsing: one '=' between a key and a value, spaces around it trimmed. */
        private static Map<String, String> configs(List<String> given) throws UsageException {
            Map<String, String> configs = new TreeMap<>();
            for (String config : given) {
                String[] kv = config.split("\\s*=\\s*", -1);
                if (kv.length != 2 || kv[0].isBlank() || kv[1].isBlank()) {
                    throw new UsageException("Invalid topic config: all configs to be added must be in the format"
                            + " \"key=val\", not '" + config + "'");
                }
                configs.put(kv[0].trim(), kv[1].trim());
            }
            return configs;
        }
    }

    private static int create(ZkClient zk, Request request, PrintStream out, PrintStream err)
            throws KeeperException, InterruptedException {
        String topic = request.topic().orElseThrow();
        TopicStore.Result created = AdminZkClient.createTopic(zk, topic, request.partitions(),
                request.replicationFactor(), request.replicaAssignment().orElse(new TreeMap<>()), request.configs(),
                false);
        if (created.error() != TopicError.NONE) {
            // Kafka's words (TopicExistsException, InvalidReplicationFactorException)
            err.println("Error while executing topic command : " + created.message());
            return Klog.FAILED;
        }
        out.println("Created topic " + topic + ".");
        return Klog.OK;
    }

    /**
     * {@code /admin/delete_topics/T}, which the controller acts on (Kafka 2.8's
     * {@code TopicCommand.ZookeeperTopicService.deleteTopic}, and its lines).
     */
    private static int delete(ZkClient zk, String topic, PrintStream out, PrintStream err)
            throws KeeperException, InterruptedException {
        if (PartitionNames.isInternal(topic)) {
            err.println("Error while executing topic command : Topic " + topic + " is a kafka internal topic and is"
                    + " not allowed to be marked for deletion.");
            return Klog.FAILED;
        }
        if (zk.exists(ZNodes.deleteTopicPath(topic)).isPresent()) {
            out.println("Topic " + topic + " is already marked for deletion.");
            return Klog.OK;
        }
        if (!AdminZkClient.markForDeletion(zk, topic)) {
            err.println("Error while executing topic command : Topic '" + topic + "' does not exist as expected");
            return Klog.FAILED;
        }
        out.println("Topic " + topic + " is marked for deletion.");
        out.println("Note: This will have no impact if delete.topic.enable is not set to true.");
        return Klog.OK;
    }

    private static int describe(ZkClient zk, Optional<String> topic, PrintStream out, PrintStream err)
            throws KeeperException, InterruptedException {
        List<String> topics = topic.isPresent() ? List.of(topic.get()) : PartitionStateStore.topics(zk);
        List<String> lines = new ArrayList<>();
        for (String name : topics) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, name);
            if (assignment.isEmpty()) {
                // Kafka's words (TopicCommand.ensureTopicExists)
                err.println("Topic '" + name + "' does not exist as expected");
                return Klog.FAILED;
            }
            lines.addAll(describe(zk, name, assignment.get()));
        }
        lines.forEach(out::println);
        return Klog.OK;
    }

    /** kafka-topics --describe's lines for one topic: the topic's, then one per partition. */
    static List<String> describe(ZkClient zk, String topic, SortedMap<Integer, List<Integer>> assignment)
            throws KeeperException, InterruptedException {
        List<String> lines = new ArrayList<>();
        String configs = PartitionStateStore.configs(zk, topic).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
        // the replication factor is partition 0's replica count (TopicCommand.getReplicationFactor)
        lines.add("Topic: " + topic + "\tPartitionCount: " + assignment.size() + "\tReplicationFactor: "
                + assignment.get(assignment.firstKey()).size() + "\tConfigs: " + configs);
        for (Map.Entry<Integer, List<Integer>> p : assignment.entrySet()) {
            Optional<PartitionState> state = PartitionStateStore.read(zk, topic, p.getKey()).map(Versioned::value);
            // no state yet (the controller has not written it) or no leader: Kafka prints none
            String leader = state.filter(s -> s.leader() != PartitionState.NO_LEADER)
                    .map(s -> Integer.toString(s.leader())).orElse("none");
            lines.add("\tTopic: " + topic + "\tPartition: " + p.getKey() + "\tLeader: " + leader + "\tReplicas: "
                    + join(p.getValue()) + "\tIsr: " + state.map(s -> join(s.isr())).orElse("")
                    + "\tElr: N/A\tLastKnownElr: N/A");
        }
        return lines;
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
