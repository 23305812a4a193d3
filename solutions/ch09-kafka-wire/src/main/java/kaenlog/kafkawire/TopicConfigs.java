package kaenlog.kafkawire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import kaenlog.broker.PartitionConfigs;

/**
 * A topic's configs as Kafka's clients see them (DescribeConfigs, AlterConfigs,
 * IncrementalAlterConfigs, CreateTopics): the topic configs this broker honours, each with its value
 * and where the value comes from, in Kafka's words ({@code DescribeConfigsResponse.ConfigSource}). A
 * topic's own value is DYNAMIC_TOPIC_CONFIG (1); one set for every partition with
 * {@code klog serve --config} is what Kafka's {@code server.properties} would say, STATIC_BROKER_CONFIG
 * (4), under Kafka's broker name for it (its synonym, {@code ServerTopicConfigSynonyms}:
 * {@code segment.bytes} is {@code log.segment.bytes} there); Kafka's default is DEFAULT_CONFIG (5).
 *
 * <p>What a client may set is what the broker honours ({@link #HONOURED}): the storage settings of
 * chapter 3, the size limit of a produce, chapter 6's retention and compaction, and
 * {@code message.timestamp.type=CreateTime} (the only one built: the producer's timestamps are kept).
 * Any other name Kafka knows is refused naming it, INVALID_CONFIG, and so is a name Kafka does not
 * know, in Kafka's words ("Unknown topic config name: ..."): a config accepted and then ignored would
 * be a lie (a {@code min.insync.replicas=2} that acks=all does not obey).
 */
public final class TopicConfigs {
    /** {@code DescribeConfigsResponse.ConfigSource}: where a value comes from. */
    public static final byte DYNAMIC_TOPIC_CONFIG = 1;
    public static final byte STATIC_BROKER_CONFIG = 4;
    public static final byte DEFAULT_CONFIG = 5;

    /** Chapter 9's topic config: the only timestamp type built (the producer's, CreateTime). */
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";

    /** {@code DescribeConfigsResponse.ConfigType} of the configs below (v3+): Kafka's ConfigDef type. */
    static final byte STRING = 2;
    static final byte INT = 3;
    static final byte LONG = 5;
    static final byte DOUBLE = 6;
    static final byte LIST = 7;

    /** A topic config this broker honours: Kafka's broker name for it (its synonym) and its type. */
    record Honoured(String brokerName, byte type) {
    }

    /** The topic configs this broker honours, by Kafka's name. */
    static final Map<String, Honoured> HONOURED = Map.ofEntries(
            Map.entry("cleanup.policy", new Honoured("log.cleanup.policy", LIST)),
            Map.entry("delete.retention.ms", new Honoured("log.cleaner.delete.retention.ms", LONG)),
            Map.entry("flush.messages", new Honoured("log.flush.interval.messages", LONG)),
            Map.entry("flush.ms", new Honoured("log.flush.interval.ms", LONG)),
            Map.entry("index.interval.bytes", new Honoured("log.index.interval.bytes", INT)),
            Map.entry("max.message.bytes", new Honoured("message.max.bytes", INT)),
            Map.entry(MESSAGE_TIMESTAMP_TYPE, new Honoured("log.message.timestamp.type", STRING)),
            Map.entry("min.cleanable.dirty.ratio", new Honoured("log.cleaner.min.cleanable.ratio", DOUBLE)),
            Map.entry("retention.bytes", new Honoured("log.retention.bytes", LONG)),
            Map.entry("retention.ms", new Honoured("log.retention.ms", LONG)),
            Map.entry("segment.bytes", new Honoured("log.segment.bytes", INT)));

    /**
     * The topic configs a member of chapter 10's cluster honours besides: {@code min.insync.replicas},
     * which its leaders count their ISR against. A broker alone holds one replica and would ignore it,
     * so it refuses it.
     */
    static final Map<String, Honoured> CLUSTER_HONOURED = Map.of("min.insync.replicas",
            new Honoured("min.insync.replicas", INT));

    /** The topic configs honoured by a broker alone, or ({@code cluster}) by a member of a cluster. */
    static Map<String, Honoured> honoured(boolean cluster) {
        if (!cluster) {
            return HONOURED;
        }
        Map<String, Honoured> all = new java.util.HashMap<>(HONOURED);
        all.putAll(CLUSTER_HONOURED);
        return all;
    }

    /** Every topic config name Kafka 4.1.1 knows ({@code LogConfig.configNames()}). */
    static final Set<String> KAFKA_NAMES = Set.of("cleanup.policy", "compression.gzip.level", "compression.lz4.level",
            "compression.type", "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages",
            "flush.ms", "follower.replication.throttled.replicas", "index.interval.bytes", "internal.segment.bytes",
            "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
            "max.compaction.lag.ms", "max.message.bytes", "message.timestamp.after.max.ms",
            "message.timestamp.before.max.ms", "message.timestamp.type", "min.cleanable.dirty.ratio",
            "min.compaction.lag.ms", "min.insync.replicas", "preallocate", "remote.log.copy.disable",
            "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes", "retention.ms", "segment.bytes",
            "segment.index.bytes", "segment.jitter.ms", "segment.ms", "unclean.leader.election.enable");

    /** One config of a topic: its value, its source and, when asked for, its synonyms (the most specific first). */
    public record Described(String name, String value, byte source, List<Synonym> synonyms, byte type, String doc) {
    }

    public record Synonym(String name, String value, byte source) {
    }

    /** A refused config: the error for its resource and Kafka's message. */
    public record Refusal(TopicError error, String message) {
    }

    private TopicConfigs() {
    }

    /** The configs this broker honours, sorted: HONOURED's names whose chapter is on the classpath. */
    static List<String> honoured(PartitionConfigs configs) {
        return honoured(configs, false);
    }

    /** The same, for a member of a cluster too ({@link #CLUSTER_HONOURED}). */
    static List<String> honoured(PartitionConfigs configs, boolean cluster) {
        return new TreeSet<>(honoured(cluster).keySet()).stream().filter(configs::has).toList();
    }

    /**
     * Why {@code name=value} cannot be set on a topic, or null when it can: a null value, a name Kafka
     * does not know, one it knows that this broker does not honour, and a value the broker's check refuses
     * are INVALID_CONFIG, each with a message naming the config (Kafka's words where Kafka has them:
     * {@code ReplicationControlManager}, {@code LogConfig.validateNames}, {@code ConfigException}).
     */
    static Refusal refusal(PartitionConfigs configs, String name, String value) {
        return refusal(configs, name, value, false);
    }

    /** {@link #refusal(PartitionConfigs, String, String)} on a broker alone, or ({@code cluster}) a member of a cluster. */
    static Refusal refusal(PartitionConfigs configs, String name, String value, boolean cluster) {
        if (value == null) {
            return new Refusal(TopicError.INVALID_CONFIG, "Null value not supported for topic configs: " + name);
        }
        if (!KAFKA_NAMES.contains(name)) {
            return new Refusal(TopicError.INVALID_CONFIG, "Unknown topic config name: " + name);
        }
        if (!honoured(cluster).containsKey(name) || !configs.has(name)) {
            return new Refusal(TopicError.INVALID_CONFIG, "Topic config " + name + " is not built in kaen-log"
                    + (cluster ? "" : " for a broker alone") + ": a topic may set only "
                    + String.join(", ", honoured(configs, cluster)));
        }
        String problem = configs.topicConfigProblem(name, value);
        return problem == null ? null : new Refusal(TopicError.INVALID_CONFIG, "Invalid value " + value
                + " for configuration " + name + ": " + problem);
    }

    /** The first refusal among {@code values}, or null when the broker takes them all. */
    static Refusal refusal(PartitionConfigs configs, Map<String, String> values) {
        return refusal(configs, values, false);
    }

    /** The same, for a broker alone or ({@code cluster}) a member of a cluster. */
    static Refusal refusal(PartitionConfigs configs, Map<String, String> values, boolean cluster) {
        for (Map.Entry<String, String> config : values.entrySet()) {
            Refusal refused = refusal(configs, config.getKey(), config.getValue(), cluster);
            if (refused != null) {
                return refused;
            }
        }
        return null;
    }

    /**
     * Every honoured config of {@code topic} ({@code names} null: all; else those named), as
     * DescribeConfigs answers it: the topic's own value, else the broker's ({@code --config}), else
     * Kafka's default. Where Kafka's broker name is a broker config of kaen-log's own
     * ({@code message.max.bytes} for {@code max.message.bytes}), that config stands in for the topic
     * config's broker value, as it does on the produce path (chapter 3's MessageSizeLimit).
     */
    static List<Described> describe(PartitionConfigs configs, String topic, Set<String> names, boolean synonyms) {
        return describe(configs, topic, names, synonyms, false);
    }

    /** The same, on a broker alone or ({@code cluster}) a member of a cluster, whose honoured configs are more. */
    static List<Described> describe(PartitionConfigs configs, String topic, Set<String> names, boolean synonyms,
                                    boolean cluster) {
        Map<String, Honoured> honoured = honoured(cluster);
        List<Described> described = new ArrayList<>();
        for (PartitionConfigs.Entry entry : configs.describeTopic(topic)) {
            String name = entry.name();
            if (!honoured.containsKey(name) || (names != null && !names.contains(name))) {
                continue;
            }
            String brokerName = honoured.get(name).brokerName();
            PartitionConfigs.Entry broker = configs.brokerWideEntry(name);
            if (broker.source() == PartitionConfigs.Source.DEFAULT && configs.isBrokerKey(brokerName)) {
                broker = configs.brokerWideEntry(brokerName);
            }
            List<Synonym> list = new ArrayList<>();
            if (entry.source() == PartitionConfigs.Source.TOPIC) {
                list.add(new Synonym(name, entry.value(), DYNAMIC_TOPIC_CONFIG));
            }
            if (broker.source() == PartitionConfigs.Source.BROKER) {
                list.add(new Synonym(brokerName, broker.value(), STATIC_BROKER_CONFIG));
            }
            list.add(new Synonym(brokerName, broker.key().defaultValue(), DEFAULT_CONFIG));
            described.add(new Described(name, list.get(0).value(), list.get(0).source(), synonyms ? list : List.of(),
                    honoured.get(name).type(), entry.key().doc()));
        }
        return described;
    }

    /**
     * The broker's configs as DescribeConfigs answers a broker (its node id): kaen-log's broker configs
     * by their names, and every honoured topic config's broker-wide value under Kafka's broker name
     * ({@code log.segment.bytes}), unless that name is itself one of kaen-log's
     * ({@code message.max.bytes}). {@code names} null: all.
     */
    static List<Described> describeBroker(PartitionConfigs configs, Set<String> names, boolean synonyms) {
        java.util.TreeMap<String, Described> described = new java.util.TreeMap<>();
        for (PartitionConfigs.Entry entry : configs.describeBroker()) {
            described.put(entry.name(), broker(entry.name(), entry, UNKNOWN_TYPE, synonyms));
        }
        for (String name : honoured(configs)) {
            Honoured h = HONOURED.get(name);
            if (!described.containsKey(h.brokerName())) {
                described.put(h.brokerName(), broker(h.brokerName(), configs.brokerWideEntry(name), h.type(), synonyms));
            }
        }
        return described.values().stream().filter(d -> names == null || names.contains(d.name())).toList();
    }

    /** {@code DescribeConfigsResponse.ConfigType.UNKNOWN}: a config of kaen-log's own. */
    static final byte UNKNOWN_TYPE = 0;

    private static Described broker(String name, PartitionConfigs.Entry entry, byte type, boolean synonyms) {
        List<Synonym> list = new ArrayList<>();
        if (entry.source() == PartitionConfigs.Source.BROKER) {
            list.add(new Synonym(name, entry.value(), STATIC_BROKER_CONFIG));
        }
        list.add(new Synonym(name, entry.key().defaultValue(), DEFAULT_CONFIG));
        return new Described(name, entry.value(), list.get(0).source(), synonyms ? list : List.of(), type,
                entry.key().doc());
    }
}
