package kaenlog.broker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.log.LogConfig;
import kaenlog.wire.PartitionNames;

/**
 * The configs a broker runs with, Kafka's topic configs kept per partition: each key has Kafka's
 * default, {@code klog serve --config KEY=VALUE} sets it for every partition (or the broker, for a
 * broker key), {@code --partition-config P:KEY=VALUE} for one partition, and a topic's own configs
 * (Kafka's dynamic topic configs: given at CreateTopics, changed by AlterConfigs, kept in the data
 * directory by {@link TopicConfigFile}) for every partition of that topic. A partition's value is,
 * first found: its own override, its topic's config, the config an internal partition is created
 * with, the broker-wide value, Kafka's default. Immutable: a change of a topic's configs makes a new
 * one, which the broker swaps in whole ({@link Broker#alterTopicConfigs}).
 */
public final class PartitionConfigs {
    /** Where a value comes from (Kafka's DescribeConfigs names the same sources). */
    public enum Source { PARTITION, TOPIC, INTERNAL, BROKER, DEFAULT }

    /** One config as a partition (or the broker) sees it. */
    public record Entry(String name, String value, Source source, ConfigKey key) {
    }

    private final Map<String, ConfigKey> keys;
    private final Map<String, String> brokerWide;
    private final Map<String, Map<String, String>> internal;
    private final Map<String, Map<String, String>> overrides;
    /** Topic -> its own configs (Kafka's dynamic topic configs). */
    private final Map<String, Map<String, String>> topics;

    private PartitionConfigs(Map<String, ConfigKey> keys, Map<String, String> brokerWide,
                             Map<String, Map<String, String>> internal, Map<String, Map<String, String>> overrides,
                             Map<String, Map<String, String>> topics) {
        this.keys = keys;
        this.brokerWide = brokerWide;
        this.internal = internal;
        this.overrides = overrides;
        this.topics = topics;
    }

    /** Kafka's defaults for every key these extensions declare, and their internal partitions. */
    public static PartitionConfigs of(List<BrokerExtension> extensions) {
        Map<String, ConfigKey> keys = new TreeMap<>();
        Map<String, Map<String, String>> internal = new TreeMap<>();
        for (BrokerExtension extension : extensions) {
            for (ConfigKey key : extension.configKeys()) {
                if (keys.putIfAbsent(key.name(), key) != null) {
                    throw new IllegalStateException("config " + key.name() + " is declared twice");
                }
            }
            extension.internalPartitions().forEach((partition, configs) ->
                    internal.computeIfAbsent(partition, p -> new TreeMap<>()).putAll(configs));
        }
        PartitionConfigs configs = new PartitionConfigs(keys, Map.of(), Map.of(), Map.of(), Map.of());
        internal.forEach((partition, values) -> values.forEach((k, v) -> configs.check(k, v, ConfigKey.Scope.PARTITION)));
        return new PartitionConfigs(keys, Map.of(), internal, Map.of(), Map.of());
    }

    /** Every key of every extension on the classpath. */
    public static PartitionConfigs load() {
        return of(BrokerExtension.load());
    }

    /** {@code KEY=VALUE} for every partition (a partition key) or for the broker (a broker key). */
    public PartitionConfigs with(String assignment) {
        String[] kv = split(assignment, "--config takes KEY=VALUE, e.g. cleanup.policy=compact");
        ConfigKey key = key(kv[0]);
        check(kv[0], kv[1], key.scope());
        Map<String, String> wide = new TreeMap<>(brokerWide);
        wide.put(kv[0], kv[1]);
        return new PartitionConfigs(keys, Collections.unmodifiableMap(wide), internal, overrides, topics);
    }

    /** {@code PARTITION:KEY=VALUE}: one partition's own value of a partition key. */
    public PartitionConfigs withPartition(String assignment) {
        int colon = assignment.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--partition-config takes PARTITION:KEY=VALUE, e.g."
                    + " orders-0:segment.bytes=1024, not '" + assignment + "'");
        }
        String partition = assignment.substring(0, colon);
        String problem = PartitionNames.problem(partition);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        String[] kv = split(assignment.substring(colon + 1), "--partition-config takes PARTITION:KEY=VALUE");
        check(kv[0], kv[1], ConfigKey.Scope.PARTITION);
        Map<String, Map<String, String>> all = new TreeMap<>(overrides);
        Map<String, String> own = new TreeMap<>(all.getOrDefault(partition, Map.of()));
        own.put(kv[0], kv[1]);
        all.put(partition, Collections.unmodifiableMap(own));
        return new PartitionConfigs(keys, brokerWide, internal, Collections.unmodifiableMap(all), topics);
    }

    /**
     * {@code topic}'s own configs replaced by {@code values} (none: the topic has no configs of its own);
     * every key must be a partition key and every value valid, or nothing changes
     * ({@link #topicConfigProblem} says why).
     */
    public PartitionConfigs withTopic(String topic, Map<String, String> values) {
        String problem = PartitionNames.topicProblem(topic);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        values.forEach((name, value) -> {
            String refused = topicConfigProblem(name, value);
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
        });
        Map<String, Map<String, String>> all = new TreeMap<>(topics);
        if (values.isEmpty()) {
            all.remove(topic);
        } else {
            all.put(topic, Collections.unmodifiableMap(new TreeMap<>(values)));
        }
        return new PartitionConfigs(keys, brokerWide, internal, overrides, Collections.unmodifiableMap(all));
    }

    /** Every topic's own configs, by topic: what {@link TopicConfigFile} keeps. */
    public Map<String, Map<String, String>> topicConfigs() {
        return topics;
    }

    /** {@code topic}'s own configs (empty when it has none). */
    public Map<String, String> topicConfigs(String topic) {
        return topics.getOrDefault(topic, Map.of());
    }

    /**
     * Why {@code name=value} cannot be a topic's config, or null when it can: a key this broker does not
     * know, a broker's key, or a value its check refuses.
     */
    public String topicConfigProblem(String name, String value) {
        ConfigKey key = keys.get(name);
        if (key == null) {
            return "unknown config '" + name + "'";
        }
        if (key.scope() != ConfigKey.Scope.PARTITION) {
            return name + " is a broker config, not a topic's";
        }
        String problem = key.check().apply(value);
        return problem == null ? null : name + "=" + value + ": " + name + " " + problem;
    }

    /** The keys of a partition's (and a topic's) configs, by name. */
    public List<ConfigKey> partitionKeys() {
        return keys.values().stream().filter(k -> k.scope() == ConfigKey.Scope.PARTITION).toList();
    }

    /** The effective value of a partition key for {@code partition}. */
    public String value(String partition, String name) {
        return entry(partition, key(name)).value();
    }

    /** Where {@code partition}'s value of a partition key comes from (its own, every partition's, Kafka's default). */
    public Source source(String partition, String name) {
        return entry(partition, key(name)).source();
    }

    /** True when some extension declared {@code name}. */
    public boolean has(String name) {
        return keys.containsKey(name);
    }

    /** The value of a broker key. */
    public String brokerValue(String name) {
        ConfigKey key = key(name);
        return brokerWide.getOrDefault(name, key.defaultValue());
    }

    public long brokerLong(String name) {
        return Long.parseLong(brokerValue(name));
    }

    /** Every partition key as {@code partition} sees it, by name. */
    public List<Entry> describe(String partition) {
        List<Entry> entries = new ArrayList<>();
        for (ConfigKey key : keys.values()) {
            if (key.scope() == ConfigKey.Scope.PARTITION) {
                entries.add(entry(partition, key));
            }
        }
        return entries;
    }

    /**
     * Every partition key as {@code topic} has it: its own config, else the broker-wide value, else
     * Kafka's default (what Kafka's DescribeConfigs answers for a topic; one partition's own override,
     * kaen-log's {@code --partition-config}, is that partition's, shown by {@link #describe}).
     */
    public List<Entry> describeTopic(String topic) {
        List<Entry> entries = new ArrayList<>();
        for (ConfigKey key : partitionKeys()) {
            String own = topicConfigs(topic).get(key.name());
            entries.add(own != null ? new Entry(key.name(), own, Source.TOPIC, key) : brokerEntry(key));
        }
        return entries;
    }

    /** Every broker key, by name. */
    public List<Entry> describeBroker() {
        List<Entry> entries = new ArrayList<>();
        for (ConfigKey key : keys.values()) {
            if (key.scope() == ConfigKey.Scope.BROKER) {
                entries.add(brokerEntry(key));
            }
        }
        return entries;
    }

    /** The partitions the broker keeps for itself. */
    public List<String> internalPartitions() {
        return List.copyOf(internal.keySet());
    }

    /**
     * Chapter 3's storage settings of {@code partition}: each one set for it (or for every
     * partition) wins, the rest come from {@code fallback}.
     */
    public LogConfig logConfig(String partition, LogConfig fallback) {
        LogConfig config = fallback;
        Entry segmentBytes = entry(partition, key(LogConfigKeys.SEGMENT_BYTES));
        if (segmentBytes.source() != Source.DEFAULT) {
            config = config.withSegmentBytes(Integer.parseInt(segmentBytes.value()));
        }
        Entry indexInterval = entry(partition, key(LogConfigKeys.INDEX_INTERVAL_BYTES));
        if (indexInterval.source() != Source.DEFAULT) {
            config = config.withIndexIntervalBytes(Integer.parseInt(indexInterval.value()));
        }
        Entry flushMessages = entry(partition, key(LogConfigKeys.FLUSH_MESSAGES));
        if (flushMessages.source() != Source.DEFAULT) {
            config = config.withFlushMessages(Long.parseLong(flushMessages.value()));
        }
        Entry flushMs = entry(partition, key(LogConfigKeys.FLUSH_MS));
        if (flushMs.source() != Source.DEFAULT) {
            config = config.withFlushMs(Long.parseLong(flushMs.value()));
        }
        return config;
    }

    /** One partition's configs, for the code that works on it. */
    public View of(String partition) {
        return new View(this, partition);
    }

    /** The configs of one partition. */
    public record View(PartitionConfigs configs, String partition) {
        public String value(String name) {
            return configs.value(partition, name);
        }

        public long longValue(String name) {
            return Long.parseLong(value(name));
        }

        public double doubleValue(String name) {
            return Double.parseDouble(value(name));
        }
    }

    private Entry entry(String partition, ConfigKey key) {
        String name = key.name();
        if (key.scope() != ConfigKey.Scope.PARTITION) {
            throw new IllegalArgumentException(name + " is a broker config, not a partition's");
        }
        String own = overrides.getOrDefault(partition, Map.of()).get(name);
        if (own != null) {
            return new Entry(name, own, Source.PARTITION, key);
        }
        String topicValue = PartitionNames.parse(partition).map(p -> topicConfigs(p.topic()).get(name)).orElse(null);
        if (topicValue != null) {
            return new Entry(name, topicValue, Source.TOPIC, key);
        }
        String internalValue = internal.getOrDefault(partition, Map.of()).get(name);
        if (internalValue != null) {
            return new Entry(name, internalValue, Source.INTERNAL, key);
        }
        return brokerEntry(key);
    }

    /**
     * A key as the broker has it, for every partition without a value of its own (a partition key)
     * or for itself (a broker key): its {@code --config} value (Source.BROKER), or Kafka's default.
     */
    public Entry brokerWideEntry(String name) {
        return brokerEntry(key(name));
    }

    /** True when some extension declared {@code name} as a broker's config. */
    public boolean isBrokerKey(String name) {
        return has(name) && keys.get(name).scope() == ConfigKey.Scope.BROKER;
    }

    private Entry brokerEntry(ConfigKey key) {
        String wide = brokerWide.get(key.name());
        return wide != null ? new Entry(key.name(), wide, Source.BROKER, key)
                : new Entry(key.name(), key.defaultValue(), Source.DEFAULT, key);
    }

    private ConfigKey key(String name) {
        ConfigKey key = keys.get(name);
        if (key == null) {
            throw new IllegalArgumentException("unknown config '" + name + "' (this broker knows "
                    + String.join(", ", keys.keySet()) + ")");
        }
        return key;
    }

    private void check(String name, String value, ConfigKey.Scope scope) {
        ConfigKey key = key(name);
        if (key.scope() != scope) {
            throw new IllegalArgumentException(name + " is a " + key.scope().name().toLowerCase(Locale.ROOT)
                    + " config: set it with " + (key.scope() == ConfigKey.Scope.BROKER ? "--config" : "--config or"
                    + " --partition-config"));
        }
        String problem = key.check().apply(value);
        if (problem != null) {
            throw new IllegalArgumentException(name + "=" + value + ": " + name + " " + problem);
        }
    }

    private static String[] split(String assignment, String usage) {
        int eq = assignment.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(usage + ", not '" + assignment + "'");
        }
        return new String[] {assignment.substring(0, eq), assignment.substring(eq + 1)};
    }
}
