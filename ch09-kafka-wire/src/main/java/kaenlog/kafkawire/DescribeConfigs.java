package kaenlog.kafkawire;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import kaenlog.broker.Leadership;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.PartitionNames;

/**
 * DescribeConfigs (key 32), v1..v4 (flexible from v4; kafka-clients 4.1.1 asks for v4: AdminClient's
 * describeConfigs, {@code kafka-topics --describe}, {@code kafka-configs --describe}). Request: resources
 * [resource_type int8 · resource_name · configuration_keys nullable [string]] · include_synonyms (v1+) ·
 * include_documentation (v3+). Response: throttle_time_ms · results [error_code · error_message ·
 * resource_type · resource_name · configs [name · value · read_only · config_source · is_sensitive ·
 * synonyms [name · value · source] · config_type (v3+) · documentation (v3+)]].
 *
 * <p>A topic (type 2) is answered with the configs this broker honours, each with its source as Kafka
 * reports it ({@link TopicConfigs}); a topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION, a name
 * Kafka's {@code Topic.validate} refuses INVALID_TOPIC_EXCEPTION. The broker (type 4) is its own configs,
 * named as kaen-log names them, and the topic configs' broker-wide values under Kafka's broker names
 * ({@code log.segment.bytes}): each STATIC_BROKER_CONFIG when {@code klog serve --config} set it, else
 * DEFAULT_CONFIG, and read-only (this broker changes none of them while it runs). The broker's name is
 * its node id; the empty name (Kafka's cluster-wide dynamic defaults) has no configs here. Any other
 * resource type (broker loggers, groups, client metrics) is INVALID_REQUEST, naming what is not kept.
 *
 * <p>Bounded: a request describes at most {@code max.partitions} resources (a broker cannot hold more
 * topics than that); the ones past it are answered INVALID_REQUEST, without configs.
 */
public final class DescribeConfigs {
    public static final byte TOPIC = 2;
    public static final byte BROKER = 4;

    /** {@code keys}: the configs asked for, null for all. */
    public record Resource(byte type, String name, Set<String> keys) {
    }

    public record Request(List<Resource> resources, boolean synonyms, boolean documentation) {
    }

    /** One resource's answer: an error (NONE) and its message, and its configs. */
    public record Result(Resource resource, short errorCode, String message, List<Config> configs) {
    }

    public record Config(TopicConfigs.Described described, boolean readOnly) {
    }

    private DescribeConfigs() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.DESCRIBE_CONFIGS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "resources");
        List<Resource> resources = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            byte type = in.int8("resource_type");
            String name = CreateTopics.string(in, flexible, "resource_name");
            int keyCount = CreateTopics.length(in, flexible, "configuration_keys");
            Set<String> keys = keyCount < 0 ? null : new LinkedHashSet<>();
            for (int k = 0; k < keyCount; k++) {
                keys.add(CreateTopics.string(in, flexible, "configuration_keys"));
            }
            CreateTopics.tags(in, flexible, "resource");
            resources.add(new Resource(type, name, keys));
        }
        boolean synonyms = in.bool("include_synonyms");
        boolean documentation = version >= 3 && in.bool("include_documentation");
        CreateTopics.tags(in, flexible, "DescribeConfigs request");
        in.end("DescribeConfigs v" + version + " request");
        return new Request(resources, synonyms, documentation);
    }

    /**
     * Every resource answered on its own, from the cluster this broker answers Metadata from
     * ({@code cluster}: its topics, and this broker's id, its name as a resource).
     */
    public static List<Result> answer(Request request, Backend backend, Leadership.ClusterView cluster) {
        PartitionConfigs configs = backend.configs();
        Set<String> topics = Set.copyOf(cluster.topics());
        int nodeId = cluster.brokerId();
        boolean member = backend.clusterTopics().isPresent(); // a member of a cluster honours more topic configs
        long max = configs.brokerLong(kaenlog.broker.LogConfigKeys.MAX_PARTITIONS);
        List<Result> results = new ArrayList<>();
        for (Resource r : request.resources()) {
            if (results.size() >= max) {
                results.add(error(r, TopicError.INVALID_REQUEST, "kaen-log describes at most " + max
                        + " resources per request (max.partitions)"));
                continue;
            }
            results.add(switch (r.type()) {
                case TOPIC -> topic(r, configs, topics, request.synonyms(), member);
                case BROKER -> broker(r, configs, nodeId, request.synonyms());
                default -> error(r, TopicError.INVALID_REQUEST, "kaen-log keeps configs of topics (2) and of the broker"
                        + " (4) only, not of resource type " + r.type());
            });
        }
        return results;
    }

    private static Result topic(Resource r, PartitionConfigs configs, Set<String> topics, boolean synonyms,
                                boolean member) {
        String problem = PartitionNames.topicProblem(r.name());
        if (problem != null) {
            return error(r, TopicError.INVALID_TOPIC_EXCEPTION, problem);
        }
        if (!topics.contains(r.name())) {
            return error(r, TopicError.UNKNOWN_TOPIC_OR_PARTITION, null);
        }
        return new Result(r, KafkaErrors.NONE, null, TopicConfigs.describe(configs, r.name(), r.keys(), synonyms,
                member).stream().map(d -> new Config(d, false)).toList());
    }

    private static Result broker(Resource r, PartitionConfigs configs, int nodeId, boolean synonyms) {
        if (r.name().isEmpty()) {
            return new Result(r, KafkaErrors.NONE, null, List.of()); // no cluster-wide dynamic defaults
        }
        int id;
        try {
            id = Integer.parseInt(r.name());
        } catch (NumberFormatException e) {
            return error(r, TopicError.INVALID_REQUEST, "Broker id must be an integer, but it is: " + r.name());
        }
        if (id != nodeId) {
            return error(r, TopicError.INVALID_REQUEST, "Unexpected broker id, expected " + nodeId
                    + " or empty string, but received " + r.name());
        }
        return new Result(r, KafkaErrors.NONE, null, TopicConfigs.describeBroker(configs, r.keys(), synonyms).stream()
                .map(d -> new Config(d, true)).toList());
    }

    private static Result error(Resource r, TopicError error, String message) {
        return new Result(r, error.kafkaCode, message, List.of());
    }

    public static byte[] response(List<Result> results, short version, boolean documentation) {
        boolean flexible = ApiKey.DESCRIBE_CONFIGS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        CreateTopics.length(out, flexible, results.size());
        for (Result result : results) {
            out.int16(result.errorCode());
            CreateTopics.string(out, flexible, result.message());
            out.int8(result.resource().type());
            CreateTopics.string(out, flexible, result.resource().name());
            CreateTopics.length(out, flexible, result.configs().size());
            for (Config c : result.configs()) {
                TopicConfigs.Described d = c.described();
                CreateTopics.string(out, flexible, d.name());
                CreateTopics.string(out, flexible, d.value());
                out.bool(c.readOnly()).int8(d.source()).bool(false); // is_sensitive: no secrets here
                CreateTopics.length(out, flexible, d.synonyms().size());
                for (TopicConfigs.Synonym s : d.synonyms()) {
                    CreateTopics.string(out, flexible, s.name());
                    CreateTopics.string(out, flexible, s.value());
                    out.int8(s.source());
                    CreateTopics.tags(out, flexible);
                }
                if (version >= 3) {
                    out.int8(d.type());
                    CreateTopics.string(out, flexible, documentation ? d.doc() : null);
                }
                CreateTopics.tags(out, flexible);
            }
            CreateTopics.tags(out, flexible);
        }
        CreateTopics.tags(out, flexible);
        return out.toByteArray();
    }
}
