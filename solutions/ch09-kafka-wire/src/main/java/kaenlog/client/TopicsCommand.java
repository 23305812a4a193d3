package kaenlog.client;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.Topics;

/**
 * {@code klog topics}: Kafka's {@code kafka-topics} on kaen-log's port. {@code --create --topic T
 * --partitions N} makes partitions 0..N-1 whole, {@code --delete --topic T} removes them all,
 * {@code --describe [--topic T]} prints a topic as kafka-topics does with one broker:
 *
 * <pre>
 * Topic: T	PartitionCount: 3	ReplicationFactor: 1	Configs: 
 * 	Topic: T	Partition: 0	Leader: 1	Replicas: 1	Isr: 1	Elr: N/A	LastKnownElr: N/A
 * </pre>
 *
 * (no TopicId: kaen-log keeps none, and Kafka's TopicCommand leaves the zero id out; Configs empty:
 * kaen-log's configs are per partition, {@code klog configs}). A partition missing from the data
 * directory prints {@code Leader: none} and an empty Isr, as kafka-topics does for one no broker leads.
 */
public final class TopicsCommand implements Subcommand {
    @Override
    public String name() {
        return "topics";
    }

    @Override
    public String usage() {
        return "--create --topic T --partitions N | --describe [--topic T] | --delete --topic T"
                + " [--port P (default 9092)] [--host 127.0.0.1]";
    }

    @Override
    public String summary() {
        return "chapter 9: create, describe or delete a topic on a running broker (Kafka's kafka-topics)";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "topic", "partitions"),
                Set.of("create", "describe", "delete")).noPositional();
        long actions = Set.of("create", "describe", "delete").stream().filter(flags::has).count();
        if (actions != 1) {
            throw new UsageException("say one of --create, --describe or --delete");
        }
        String topic = flags.string("topic", "");
        if (!topic.isEmpty() && PartitionNames.topicProblem(topic) != null) {
            throw new UsageException(PartitionNames.topicProblem(topic));
        }
        if ((flags.has("create") || flags.has("delete")) && topic.isEmpty()) {
            throw new UsageException("--" + (flags.has("create") ? "create" : "delete") + " needs --topic T");
        }
        if (flags.has("create") != flags.has("partitions")) {
            throw new UsageException(flags.has("create") ? "--create needs --partitions N"
                    : "--partitions goes with --create");
        }
        int partitions = flags.intValue("partitions", 0, 1, Integer.MAX_VALUE);
        String host = ClientFlags.host(flags);
        int port = ClientFlags.port(flags);
        try (BrokerClient client = BrokerClient.connect(host, port)) {
            if (flags.has("describe")) {
                return describe(client, topic, out, err);
            }
            Topics.Answer answer = flags.has("create")
                    ? Topics.Answer.decode(client.call(ApiKeys.CREATE_TOPICS, new Topics.Create(topic, partitions).encode()))
                    : Topics.Answer.decode(client.call(ApiKeys.DELETE_TOPICS, new Topics.Named(topic).encode()));
            if (!answer.error().equals(Topics.NONE)) {
                err.println("klog topics: " + answer.error() + ": " + answer.message());
                return Klog.FAILED;
            }
            if (flags.has("create")) {
                out.println("Created topic " + topic + ".");
            }
            return Klog.OK;
        } catch (IOException e) {
            err.println("klog topics: " + host + ":" + port + ": " + e.getMessage());
            return Klog.FAILED;
        }
    }

    private static int describe(BrokerClient client, String topic, PrintStream out, PrintStream err)
            throws IOException {
        Topics.Described described = Topics.Described.decode(client.call(ApiKeys.DESCRIBE_TOPICS,
                new Topics.Named(topic).encode()));
        if (!described.error().equals(Topics.NONE)) {
            err.println("klog topics: " + described.error() + ": topic '" + topic + "' does not exist");
            return Klog.FAILED;
        }
        for (Topics.Description t : described.topics()) {
            describe(t, described.nodeId(), described.replicationFactor()).forEach(out::println);
        }
        return Klog.OK;
    }

    /** kafka-topics --describe's lines for one topic on one broker, node {@code node}. */
    static List<String> describe(Topics.Description t, int node, short replicationFactor) {
        List<String> lines = new java.util.ArrayList<>();
        lines.add("Topic: " + t.name() + "\tPartitionCount: " + t.partitionCount() + "\tReplicationFactor: "
                + replicationFactor + "\tConfigs: ");
        for (int p = 0; p < t.partitionCount(); p++) {
            boolean present = t.has(p);
            lines.add("\tTopic: " + t.name() + "\tPartition: " + p + "\tLeader: " + (present ? node : "none")
                    + "\tReplicas: " + node + "\tIsr: " + (present ? node : "") + "\tElr: N/A\tLastKnownElr: N/A");
        }
        return lines;
    }
}
