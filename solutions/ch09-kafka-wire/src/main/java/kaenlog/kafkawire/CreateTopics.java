package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kaenlog.broker.PartitionConfigs;

/**
 * CreateTopics (key 19), v2..v7 (flexible from v5; kafka-clients 4.1.1 asks for v7). Request: topics
 * [name · num_partitions int32 · replication_factor int16 · assignments [partition_index ·
 * broker_ids [int32]] · configs [name · value]] · timeout_ms · validate_only (v1+). Response:
 * throttle_time_ms · topics [name · topic_id uuid (v7+) · error_code · error_message (v1+) ·
 * num_partitions, replication_factor, configs (v5+)].
 *
 * <p>Each topic is answered on its own, with Kafka's codes: -1 partitions means {@code num.partitions},
 * -1 replicas means 1 (Kafka's {@code default.replication.factor}); more than one replica is
 * INVALID_REPLICATION_FACTOR (one broker holds one copy); a manual assignment must put partitions
 * 0..N-1 on this broker; the topic's configs ({@code cleanup.policy=compact}, say) are the topic's own
 * from then on ({@link TopicConfigs}: one this broker does not honour is INVALID_CONFIG, naming it),
 * and the answer (v5+) lists the configs the topic runs with; a name twice in one request is
 * INVALID_REQUEST for both. kaen-log keeps no topic ids: every topic_id is the zero uuid, Kafka's "none".
 * A member of chapter 10's cluster creates the topic in the cluster instead ({@link ClusterTopics}: its
 * controller alone, any number of replicas, placed on the cluster's brokers).
 */
public final class CreateTopics {

    public record Assignment(int partition, List<Integer> brokerIds) {
    }

    /** {@code configs}: the topic's own configs, by name (a name given twice: its last value). */
    public record Topic(String name, int numPartitions, short replicationFactor, List<Assignment> assignments,
                        Map<String, String> configs) {
    }

    /** {@code timeoutMs}: how long a cluster's controller may wait for the topics' first leaders. */
    public record Request(List<Topic> topics, int timeoutMs, boolean validateOnly) {
    }

    /** {@code configs}: the created topic's configs as DescribeConfigs answers them (v5+), none for an error. */
    public record Answer(String name, short errorCode, String message, int numPartitions, short replicationFactor,
                         List<TopicConfigs.Described> configs) {
    }

    private CreateTopics() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.CREATE_TOPICS.isFlexible(version);
        int count = length(in, flexible, "topics");
        List<Topic> topics = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            String name = string(in, flexible, "topics.name");
            int numPartitions = in.int32("num_partitions");
            short replicationFactor = in.int16("replication_factor");
            int assignmentCount = length(in, flexible, "assignments");
            List<Assignment> assignments = new ArrayList<>();
            for (int a = 0; a < assignmentCount; a++) {
                int partition = in.int32("assignments.partition_index");
                int brokers = length(in, flexible, "assignments.broker_ids");
                List<Integer> ids = new ArrayList<>();
                for (int b = 0; b < brokers; b++) {
                    ids.add(in.int32("broker_ids"));
                }
                tags(in, flexible, "assignment");
                assignments.add(new Assignment(partition, ids));
            }
            int configCount = length(in, flexible, "configs");
            Map<String, String> configs = new LinkedHashMap<>();
            for (int c = 0; c < configCount; c++) {
                String configName = string(in, flexible, "configs.name");
                configs.put(configName, flexible ? in.compactNullableString("configs.value")
                        : in.nullableString("configs.value"));
                tags(in, flexible, "config");
            }
            tags(in, flexible, "topic");
            topics.add(new Topic(name, numPartitions, replicationFactor, assignments, configs));
        }
        int timeoutMs = in.int32("timeout_ms");
        boolean validateOnly = in.bool("validate_only");
        tags(in, flexible, "CreateTopics request");
        in.end("CreateTopics v" + version + " request");
        return new Request(topics, timeoutMs, validateOnly);
    }

    /** Every topic answered on its own, through the one {@link TopicStore}. */
    public static List<Answer> answer(Request request, Backend backend) throws IOException {
        Set<String> seen = new HashSet<>();
        Set<String> twice = new HashSet<>();
        for (Topic t : request.topics()) {
            if (!seen.add(t.name())) {
                twice.add(t.name());
            }
        }
        int defaultPartitions = backend.numPartitions();
        Optional<ClusterTopics> cluster = backend.clusterTopics();
        Optional<String> elsewhere = cluster.isPresent() ? Optional.empty() : backend.creationRefusal();
        List<Answer> answers = new ArrayList<>();
        for (Topic t : request.topics()) {
            if (twice.contains(t.name())) {
                answers.add(error(t.name(), TopicError.INVALID_REQUEST, "Duplicate topic name."));
                continue;
            }
            if (elsewhere.isPresent()) { // a broker that creates no topic: POLICY_VIOLATION (44), which no client retries
                answers.add(error(t.name(), TopicError.POLICY_VIOLATION, elsewhere.get()));
                continue;
            }
            if (cluster.isPresent() && !cluster.get().isController()) { // Kafka 3.9's KafkaApis, in ZooKeeper mode
                answers.add(error(t.name(), TopicError.NOT_CONTROLLER, "This is not the correct controller for this"
                        + " cluster."));
                continue;
            }
            answers.add(answerOne(t, request, defaultPartitions, backend, cluster));
        }
        return answers;
    }

    /**
     * One topic: the checks of its numbers and configs, then this broker's disk creates it, or, in a
     * cluster, the cluster's topics do ({@link ClusterTopics}, with any number of replicas).
     */
    private static Answer answerOne(Topic t, Request request, int defaultPartitions, Backend backend,
                                    Optional<ClusterTopics> cluster) throws IOException {
        if (!t.assignments().isEmpty() && (t.numPartitions() != -1 || t.replicationFactor() != -1)) {
            return error(t.name(), TopicError.INVALID_REQUEST, "Both numPartitions or replicationFactor and"
                    + " replicasAssignments were set. Both cannot be used at the same time.");
        }
        if (t.assignments().isEmpty() && (t.replicationFactor() == 0 || t.replicationFactor() < -1)) {
            return error(t.name(), TopicError.INVALID_REPLICATION_FACTOR, "Replication factor was set to an"
                    + " invalid non-positive value.");
        }
        if (cluster.isPresent()) {
            return answerInCluster(t, request, defaultPartitions, backend, cluster.get());
        }
        boolean validateOnly = request.validateOnly();
        int partitions;
        if (!t.assignments().isEmpty()) {
            partitions = t.assignments().size();
            for (Assignment a : t.assignments()) {
                if (a.partition() < 0 || a.partition() >= partitions || !a.brokerIds().equals(List.of(Metadata.NODE_ID))) {
                    return error(t.name(), TopicError.INVALID_REPLICA_ASSIGNMENT, "partition " + a.partition()
                            + " assigned to brokers " + a.brokerIds() + ": this cluster is broker " + Metadata.NODE_ID
                            + " alone, and a topic's partitions are 0.." + (partitions - 1));
                }
            }
            if (t.assignments().stream().map(Assignment::partition).distinct().count() != partitions) {
                return error(t.name(), TopicError.INVALID_REPLICA_ASSIGNMENT, "a partition is assigned twice");
            }
        } else {
            if (t.replicationFactor() > TopicStore.REPLICATION_FACTOR) {
                return error(t.name(), TopicError.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                        + t.replicationFactor() + " time(s): The target replication factor of "
                        + t.replicationFactor() + " cannot be reached because only 1 broker(s) are registered.");
            }
            if (t.numPartitions() == 0 || t.numPartitions() < -1) {
                return error(t.name(), TopicError.INVALID_PARTITIONS, "Number of partitions was set to an invalid"
                        + " non-positive value.");
            }
            partitions = t.numPartitions() == -1 ? defaultPartitions : t.numPartitions();
        }
        TopicConfigs.Refusal badConfig = TopicConfigs.refusal(backend.configs(), t.configs());
        if (badConfig != null) {
            return error(t.name(), badConfig.error(), badConfig.message());
        }
        TopicStore.Result result = backend.topicStore().create(t.name(), partitions, t.configs(), validateOnly);
        if (result.error() != TopicError.NONE) {
            return error(t.name(), result.error(), result.message());
        }
        PartitionConfigs configs = validateOnly ? backend.configs().withTopic(t.name(), t.configs()) : backend.configs();
        return new Answer(t.name(), KafkaErrors.NONE, null, partitions, TopicStore.REPLICATION_FACTOR,
                TopicConfigs.describe(configs, t.name(), null, false));
    }

    /**
     * One topic in a cluster: Kafka's {@code ZkAdminManager.createTopics} (the partitions and replicas
     * -1 are {@code num.partitions} and {@code default.replication.factor}, 1; a manual assignment gives
     * both), the configs checked as on one broker; the answer's replication factor is partition 0's.
     */
    private static Answer answerInCluster(Topic t, Request request, int defaultPartitions, Backend backend,
                                          ClusterTopics cluster) throws IOException {
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < t.assignments().size(); p++) {
            assignment.add(null);
        }
        for (Assignment a : t.assignments()) {
            if (a.partition() < 0 || a.partition() >= assignment.size() || assignment.get(a.partition()) != null) {
                return error(t.name(), TopicError.INVALID_REPLICA_ASSIGNMENT, "partitions should be a consecutive"
                        + " 0-based integer sequence");
            }
            assignment.set(a.partition(), List.copyOf(a.brokerIds()));
        }
        int partitions = !assignment.isEmpty() ? assignment.size()
                : t.numPartitions() == -1 ? defaultPartitions : t.numPartitions();
        if (assignment.isEmpty() && partitions < 1) {
            return error(t.name(), TopicError.INVALID_PARTITIONS, "Number of partitions was set to an invalid"
                    + " non-positive value.");
        }
        Optional<TopicStore.Result> shape = TopicStore.shapeRefusal(t.name(), partitions);
        if (shape.isPresent()) {
            return error(t.name(), shape.get().error(), shape.get().message());
        }
        Optional<String> tooMany = backend.clusterPartitionsRefusal(t.name(), partitions);
        if (tooMany.isPresent()) { // as a broker alone answers past max.partitions
            return error(t.name(), TopicError.POLICY_VIOLATION, "topic " + t.name() + ": " + tooMany.get());
        }
        TopicConfigs.Refusal badConfig = TopicConfigs.refusal(backend.configs(), t.configs(), true);
        if (badConfig != null) {
            return error(t.name(), badConfig.error(), badConfig.message());
        }
        int replicationFactor = t.replicationFactor() == -1 ? TopicStore.REPLICATION_FACTOR : t.replicationFactor();
        TopicStore.Result result = cluster.create(t.name(), partitions, replicationFactor, assignment, t.configs(),
                request.validateOnly(), request.timeoutMs());
        if (result.error() != TopicError.NONE) {
            return error(t.name(), result.error(), result.message());
        }
        short factor = (short) (assignment.isEmpty() ? replicationFactor : assignment.get(0).size());
        return new Answer(t.name(), KafkaErrors.NONE, null, partitions, factor,
                TopicConfigs.describe(backend.configs().withTopic(t.name(), t.configs()), t.name(), null, false, true));
    }

    private static Answer error(String name, TopicError error, String message) {
        return new Answer(name, error.kafkaCode, message, -1, (short) -1, List.of());
    }

    public static byte[] response(List<Answer> answers, short version) {
        boolean flexible = ApiKey.CREATE_TOPICS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        length(out, flexible, answers.size());
        for (Answer a : answers) {
            string(out, flexible, a.name());
            if (version >= 7) {
                out.int64(0).int64(0); // topic_id: the zero uuid, kaen-log keeps no topic ids
            }
            out.int16(a.errorCode());
            string(out, flexible, a.message());
            if (version >= 5) {
                out.int32(a.numPartitions()).int16(a.replicationFactor());
                // configs: the topic's, as DescribeConfigs has them; null for an error (Kafka's answer)
                if (a.errorCode() != KafkaErrors.NONE) {
                    out.compactArrayLength(-1);
                } else {
                    out.compactArrayLength(a.configs().size());
                    for (TopicConfigs.Described c : a.configs()) {
                        out.compactNullableString(c.name()).compactNullableString(c.value()).bool(false)
                                .int8(c.source()).bool(false).noTaggedFields();
                    }
                }
            }
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
    }

    static int length(KafkaReader in, boolean flexible, String field) {
        return flexible ? in.compactArrayLength(field) : in.arrayLength(field);
    }

    static String string(KafkaReader in, boolean flexible, String field) {
        return flexible ? in.compactString(field) : in.string(field);
    }

    static void tags(KafkaReader in, boolean flexible, String structure) {
        if (flexible) {
            in.skipTaggedFields(structure);
        }
    }

    /** The (empty) tagged fields that end a flexible structure; nothing before the first flexible version. */
    static void tags(KafkaWriter out, boolean flexible) {
        if (flexible) {
            out.noTaggedFields();
        }
    }

    static void length(KafkaWriter out, boolean flexible, int count) {
        if (flexible) {
            out.compactArrayLength(count);
        } else {
            out.arrayLength(count);
        }
    }

    static void string(KafkaWriter out, boolean flexible, String s) {
        if (flexible) {
            out.compactNullableString(s);
        } else {
            out.nullableString(s);
        }
    }
}
