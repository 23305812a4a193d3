package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.PartitionNames;

/**
 * AlterConfigs (key 33), v0..v2 (flexible from v2): a topic's own configs replaced by the set the
 * request gives (a config left out goes back to the broker's value). Request: resources
 * [resource_type int8 · resource_name · configs [name · value nullable]] · validate_only. Response:
 * throttle_time_ms · responses [error_code · error_message · resource_type · resource_name]. Its newer
 * sibling, {@link IncrementalAlterConfigs} (what kafka-clients 4.1.1's {@code incrementalAlterConfigs}
 * and {@code kafka-configs --alter} send), changes one config at a time and is answered by the same
 * steps ({@link #answer}).
 *
 * <p>Each resource is answered on its own, in Kafka's order of checks ({@code ConfigAdminManager},
 * {@code ConfigurationControlManager}): a resource named twice is INVALID_REQUEST for both ("Each
 * resource must appear at most once."), a config named twice in one resource INVALID_REQUEST ("Error due
 * to duplicate config keys"), a null value but for a DELETE INVALID_REQUEST; then a topic that does not
 * exist is UNKNOWN_TOPIC_OR_PARTITION, and each resulting config must be one this broker honours
 * ({@link TopicConfigs}: INVALID_CONFIG naming it otherwise). The broker's own configs are set when it
 * starts ({@code klog serve --config}): changing them here is INVALID_REQUEST. All the topics a request
 * changes are written in one step ({@code topic-configs}, forced to disk) before the answer; with
 * {@code validate_only} nothing is. A member of chapter 10's cluster reads and writes its topics'
 * configs where the cluster keeps them ({@link ClusterTopics}: in ZooKeeper, every broker applying them).
 *
 * <p>Bounded: at most {@code max.partitions} resources per request are looked at (a broker holds no more
 * topics than that); the rest are INVALID_REQUEST.
 */
public final class AlterConfigs {
    /** IncrementalAlterConfigs' operations ({@code AlterConfigOp.OpType}); AlterConfigs' every config is a SET. */
    static final byte SET = 0;
    static final byte DELETE = 1;
    static final byte APPEND = 2;
    static final byte SUBTRACT = 3;

    public record Config(String name, byte operation, String value) {
    }

    public record Resource(byte type, String name, List<Config> configs) {
    }

    public record Request(List<Resource> resources, boolean validateOnly) {
    }

    public record Answer(Resource resource, short errorCode, String message) {
    }

    private AlterConfigs() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.ALTER_CONFIGS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "resources");
        List<Resource> resources = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            byte type = in.int8("resource_type");
            String name = CreateTopics.string(in, flexible, "resource_name");
            int configCount = CreateTopics.length(in, flexible, "configs");
            List<Config> configs = new ArrayList<>();
            for (int c = 0; c < configCount; c++) {
                String configName = CreateTopics.string(in, flexible, "configs.name");
                String value = flexible ? in.compactNullableString("configs.value") : in.nullableString("configs.value");
                CreateTopics.tags(in, flexible, "config");
                configs.add(new Config(configName, SET, value));
            }
            CreateTopics.tags(in, flexible, "resource");
            resources.add(new Resource(type, name, configs));
        }
        boolean validateOnly = in.bool("validate_only");
        CreateTopics.tags(in, flexible, "AlterConfigs request");
        in.end("AlterConfigs v" + version + " request");
        return new Request(resources, validateOnly);
    }

    /**
     * Every resource answered; {@code incremental}: each config is an operation on the topic's own
     * configs (IncrementalAlterConfigs), else the request's configs replace them (AlterConfigs).
     */
    public static List<Answer> answer(Request request, Backend backend, boolean incremental) throws IOException {
        PartitionConfigs configs = backend.configs();
        long max = configs.brokerLong(kaenlog.broker.LogConfigKeys.MAX_PARTITIONS);
        Optional<ClusterTopics> cluster = backend.clusterTopics();
        // a cluster's topics and their configs are in ZooKeeper, where every broker reads them
        Map<String, Map<String, String>> clusterConfigs = cluster.isPresent()
                ? clusterConfigs(request, cluster.get(), max) : Map.of();
        Set<String> topics = cluster.isPresent() ? clusterConfigs.keySet() : backend.topics().keySet();
        Optional<String> elsewhere = cluster.isPresent() ? Optional.empty() : backend.leadership().topicChangeRefusal();
        Set<String> seen = new HashSet<>();
        Set<String> twice = new HashSet<>();
        request.resources().forEach(r -> {
            if (!seen.add(r.type() + "/" + r.name())) {
                twice.add(r.type() + "/" + r.name());
            }
        });
        Map<Resource, String> refusals = new LinkedHashMap<>();
        Map<Resource, Short> codes = new LinkedHashMap<>();
        Map<String, Map<String, String>> changes = new TreeMap<>();
        int looked = 0;
        for (Resource r : request.resources()) {
            if (looked++ >= max) {
                refuse(refusals, codes, r, TopicError.INVALID_REQUEST, "kaen-log changes at most " + max
                        + " resources per request (max.partitions)");
            } else if (twice.contains(r.type() + "/" + r.name())) {
                refuse(refusals, codes, r, TopicError.INVALID_REQUEST, "Each resource must appear at most once.");
            } else {
                TopicConfigs.Refusal refused = check(r, configs, topics, elsewhere);
                Map<String, String> next = null;
                if (refused == null) {
                    Map<String, String> own = cluster.isPresent() ? clusterConfigs.get(r.name())
                            : configs.topicConfigs(r.name());
                    next = incremental ? applied(r, own, configs) : given(r.configs());
                    refused = next == null ? appendRefusal(r, configs, cluster.isPresent())
                            : TopicConfigs.refusal(configs, next, cluster.isPresent());
                }
                if (refused != null) {
                    refuse(refusals, codes, r, refused.error(), refused.message());
                } else {
                    changes.put(r.name(), next);
                }
            }
        }
        if (!request.validateOnly() && !changes.isEmpty()) {
            try {
                if (cluster.isPresent()) {
                    for (Map.Entry<String, Map<String, String>> change : changes.entrySet()) {
                        cluster.get().alterConfigs(change.getKey(), change.getValue());
                    }
                } else {
                    backend.alterTopicConfigs(changes);
                }
            } catch (IOException e) {
                for (Resource r : request.resources()) {
                    if (!codes.containsKey(r)) {
                        refuse(refusals, codes, r, TopicError.KAFKA_STORAGE_ERROR, "writing the topics' configs: "
                                + e.getMessage());
                    }
                }
            }
        }
        List<Answer> answers = new ArrayList<>();
        for (Resource r : request.resources()) {
            answers.add(new Answer(r, codes.getOrDefault(r, KafkaErrors.NONE), refusals.get(r)));
        }
        return answers;
    }

    /**
     * The own configs of each topic the first {@code max} resources name that exists in the cluster, read
     * where the cluster keeps them (Kafka 3.9's {@code AdminZkClient.validateTopicConfig} asks ZooKeeper
     * whether the topic exists, not the broker's metadata, which may lag a creation).
     */
    private static Map<String, Map<String, String>> clusterConfigs(Request request, ClusterTopics cluster, long max)
            throws IOException {
        Map<String, Map<String, String>> found = new TreeMap<>();
        for (Resource r : request.resources().subList(0, (int) Math.min(max, request.resources().size()))) {
            if (r.type() == DescribeConfigs.TOPIC && PartitionNames.topicProblem(r.name()) == null
                    && !found.containsKey(r.name())) {
                cluster.configs(r.name()).ifPresent(own -> found.put(r.name(), own));
            }
        }
        return found;
    }

    private static void refuse(Map<Resource, String> refusals, Map<Resource, Short> codes, Resource r,
                               TopicError error, String message) {
        refusals.putIfAbsent(r, message);
        codes.putIfAbsent(r, error.kafkaCode);
    }

    /** What makes a resource unchangeable whatever its configs say, or null: the checks before the values. */
    private static TopicConfigs.Refusal check(Resource r, PartitionConfigs configs, Set<String> topics,
                                              Optional<String> elsewhere) {
        Set<String> names = new HashSet<>();
        List<String> nulls = new ArrayList<>();
        for (Config c : r.configs()) {
            if (!names.add(c.name())) {
                return new TopicConfigs.Refusal(TopicError.INVALID_REQUEST, "Error due to duplicate config keys");
            }
            if (c.value() == null && c.operation() != DELETE) {
                nulls.add(c.name());
            }
        }
        if (!nulls.isEmpty()) {
            return new TopicConfigs.Refusal(TopicError.INVALID_REQUEST, "Null value not supported for : "
                    + String.join(", ", nulls));
        }
        if (r.type() == DescribeConfigs.BROKER) {
            return new TopicConfigs.Refusal(TopicError.INVALID_REQUEST, "Cannot update these configs dynamically: "
                    + names + " (kaen-log's broker configs are set when it starts: klog serve --config K=V)");
        }
        if (r.type() != DescribeConfigs.TOPIC) {
            return new TopicConfigs.Refusal(TopicError.INVALID_REQUEST, "kaen-log keeps configs of topics (2) and of"
                    + " the broker (4) only, not of resource type " + r.type());
        }
        if (elsewhere.isPresent()) {
            return new TopicConfigs.Refusal(TopicError.POLICY_VIOLATION, elsewhere.get());
        }
        String problem = PartitionNames.topicProblem(r.name());
        if (problem != null) {
            return new TopicConfigs.Refusal(TopicError.INVALID_TOPIC_EXCEPTION, problem);
        }
        if (!topics.contains(r.name())) {
            return new TopicConfigs.Refusal(TopicError.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + r.name()
                    + "' does not exist.");
        }
        for (Config c : r.configs()) {
            if (c.operation() < SET || c.operation() > SUBTRACT) {
                return new TopicConfigs.Refusal(TopicError.INVALID_REQUEST, "Unknown alter configs operation "
                        + c.operation() + " for config " + c.name());
            }
        }
        return null;
    }

    /** AlterConfigs: the request's configs are the topic's own from now on. */
    private static Map<String, String> given(List<Config> configs) {
        Map<String, String> next = new TreeMap<>();
        configs.forEach(c -> next.put(c.name(), c.value()));
        return next;
    }

    /**
     * IncrementalAlterConfigs: {@code own} after each operation, or null when an APPEND or SUBTRACT names
     * a config that is no list ({@link #appendRefusal} says which). SET puts, DELETE removes (the
     * broker's value applies again), APPEND adds the values a list lacks, SUBTRACT removes them; a list
     * not set on the topic starts from its value as the topic has it (Kafka: its default).
     */
    private static Map<String, String> applied(Resource r, Map<String, String> own, PartitionConfigs configs) {
        Map<String, String> next = new TreeMap<>(own);
        for (Config c : r.configs()) {
            switch (c.operation()) {
                case SET -> next.put(c.name(), c.value());
                case DELETE -> next.remove(c.name());
                default -> {
                    if (!isList(c.name())) {
                        return null;
                    }
                    String current = next.containsKey(c.name()) ? next.get(c.name())
                            : configs.brokerWideEntry(c.name()).value();
                    List<String> items = new ArrayList<>(List.of(current.isEmpty() ? new String[0] : current.split(",")));
                    for (String item : c.value().split(",")) {
                        if (c.operation() == APPEND && !items.contains(item)) {
                            items.add(item);
                        } else if (c.operation() == SUBTRACT) {
                            items.remove(item);
                        }
                    }
                    next.put(c.name(), String.join(",", items));
                }
            }
        }
        return next;
    }

    private static boolean isList(String name) {
        TopicConfigs.Honoured honoured = TopicConfigs.HONOURED.get(name);
        return honoured != null && honoured.type() == TopicConfigs.LIST;
    }

    /** Kafka's answer for APPEND or SUBTRACT on a config that is no list (ConfigAdminManager). */
    private static TopicConfigs.Refusal appendRefusal(Resource r, PartitionConfigs configs, boolean cluster) {
        for (Config c : r.configs()) {
            if ((c.operation() == APPEND || c.operation() == SUBTRACT) && !isList(c.name())) {
                TopicConfigs.Refusal unknown = TopicConfigs.refusal(configs, c.name(), c.value(), cluster);
                return unknown != null && !TopicConfigs.honoured(cluster).containsKey(c.name()) ? unknown
                        : new TopicConfigs.Refusal(TopicError.INVALID_CONFIG, "Config value "
                        + (c.operation() == APPEND ? "append" : "subtract") + " is not allowed for config key: " + c.name());
            }
        }
        throw new IllegalStateException("no APPEND or SUBTRACT on a config that is no list in " + r);
    }

    /** The answer of AlterConfigs and of IncrementalAlterConfigs, one layout for both. */
    public static byte[] response(List<Answer> answers, ApiKey key, short version) {
        boolean flexible = key.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        CreateTopics.length(out, flexible, answers.size());
        for (Answer a : answers) {
            out.int16(a.errorCode());
            CreateTopics.string(out, flexible, a.message());
            out.int8(a.resource().type());
            CreateTopics.string(out, flexible, a.resource().name());
            CreateTopics.tags(out, flexible);
        }
        CreateTopics.tags(out, flexible);
        return out.toByteArray();
    }
}
