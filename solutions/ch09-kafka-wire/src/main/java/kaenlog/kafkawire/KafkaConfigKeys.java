package kaenlog.kafkawire;

import java.util.List;
import java.util.Set;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;

/**
 * Chapter 9's broker configs, with Kafka's names and defaults: whether Metadata creates a topic a
 * client names ({@code auto.create.topics.enable}, Kafka's default true), and with how many
 * partitions ({@code num.partitions}, Kafka's default 1). Every creation counts against
 * {@code max.partitions}.
 */
public final class KafkaConfigKeys implements BrokerExtension {
    public static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
    public static final String NUM_PARTITIONS = "num.partitions";
    /** The most a Fetch answer carries, all partitions together, but for one batch (Kafka's fetch.max.bytes). */
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    /** Kafka's default fetch.max.bytes: 55 MiB. */
    public static final int DEFAULT_FETCH_MAX_BYTES = 57_671_680;
    /** Kafka's {@code message.timestamp.type} that keeps the producer's timestamp: the only one built. */
    public static final String CREATE_TIME = "CreateTime";

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.choice(AUTO_CREATE_TOPICS_ENABLE, "true", Set.of("true", "false"), ConfigKey.Scope.BROKER, 9,
                        "Metadata creates a topic a client names and may create (allow_auto_topic_creation)"),
                ConfigKey.whole(NUM_PARTITIONS, 1, 1, 1_000_000, ConfigKey.Scope.BROKER, 9,
                        "partitions of a topic Metadata creates"),
                ConfigKey.whole(FETCH_MAX_BYTES, DEFAULT_FETCH_MAX_BYTES, 0, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "the most one Fetch answer carries, all partitions together (but for one batch)"),
                new ConfigKey(TopicConfigs.MESSAGE_TIMESTAMP_TYPE, CREATE_TIME, ConfigKey.Scope.PARTITION, 9,
                        "whose time a record's timestamp is: the producer's (CreateTime), the only one built",
                        value -> CREATE_TIME.equals(value) ? null : "must be " + CREATE_TIME + ": kaen-log keeps the"
                                + " producer's timestamps (LogAppendTime is not built)"));
    }
}
