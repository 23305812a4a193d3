package kaenlog.cluster;

import java.util.List;
import java.util.Set;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.replication.IsrState;

/**
 * Chapter 10's configs, with Kafka's names and defaults, and the file it keeps in the data
 * directory ({@link Checkpoints#HIGH_WATERMARKS}). {@code min.insync.replicas} is a topic's config:
 * a topic created with one ({@code klog topics --zookeeper --create --config min.insync.replicas=2})
 * keeps it in {@code /config/topics/T}; otherwise the broker's value here applies, as in Kafka.
 */
public final class ClusterConfigKeys implements BrokerExtension {
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
    public static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MAX_BYTES = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_BACKOFF_MS = "replica.fetch.backoff.ms";
    public static final String REPLICA_SOCKET_TIMEOUT_MS = "replica.socket.timeout.ms";
    public static final String HW_CHECKPOINT_INTERVAL_MS = "replica.high.watermark.checkpoint.interval.ms";
    /** Kafka's name and default (50): the partitions of the cluster's {@code __consumer_offsets}. */
    public static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
    /** Kafka's name and default (3): the replicas of each; the topic is not created until as many brokers live. */
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(MIN_INSYNC_REPLICAS, 1, 1, Integer.MAX_VALUE, ConfigKey.Scope.PARTITION, 10,
                        "acks=all is refused, and the HW stands still, while the ISR is smaller than this"),
                ConfigKey.whole(REPLICA_LAG_TIME_MAX_MS, IsrState.REPLICA_LAG_TIME_MAX_MS, 1, Integer.MAX_VALUE,
                        ConfigKey.Scope.BROKER, 10,
                        "a follower silent longer than this leaves the ISR (checked every half of it: isr-expiration)"),
                ConfigKey.whole(REPLICA_FETCH_WAIT_MAX_MS, 500, 0, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "how long a follower's fetch waits on the leader for records"),
                ConfigKey.whole(REPLICA_FETCH_MAX_BYTES, 1_048_576, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "the most one follower fetch carries (but for one batch)"),
                ConfigKey.whole(REPLICA_FETCH_BACKOFF_MS, 1_000, 0, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "how long a follower waits after a failed fetch before it tries again"),
                ConfigKey.whole(REPLICA_SOCKET_TIMEOUT_MS, 30_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "a follower gives up on a leader that answers nothing for this long"),
                ConfigKey.whole(HW_CHECKPOINT_INTERVAL_MS, 5_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "how often the high watermarks are written to " + Checkpoints.HIGH_WATERMARKS),
                ConfigKey.whole(OFFSETS_TOPIC_NUM_PARTITIONS, GroupCoordinator.DEFAULT_OFFSETS_PARTITIONS, 1,
                        GroupCoordinator.DEFAULT_OFFSETS_PARTITIONS, ConfigKey.Scope.BROKER, 10,
                        "partitions of __consumer_offsets, created at the first FindCoordinator (Kafka's default 50;"
                                + " kaen-log's most, each declared compacted by chapter 6)"),
                ConfigKey.whole(OFFSETS_TOPIC_REPLICATION_FACTOR, 3, 1, Short.MAX_VALUE, ConfigKey.Scope.BROKER, 10,
                        "replicas of each __consumer_offsets partition; no coordinator until this many brokers"
                                + " live (Kafka's default 3)"));
    }

    @Override
    public Set<String> dataDirFiles() {
        return Set.of(Checkpoints.HIGH_WATERMARKS);
    }
}
