package kaenlog.broker;

import java.util.List;
import java.util.Set;
import kaenlog.log.LogConfig;

/** Chapter 3's own configs: the storage settings of {@link LogConfig}, per partition. */
public final class LogConfigKeys implements BrokerExtension {
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    /**
     * Partitions the broker holds (on disk or open), checked within a request too. Kafka has no such
     * limit (partitions are created by an operator or Metadata's auto-create); kaen-log's clients create
     * them by producing, so without one a single request could create thousands of directories.
     */
    public static final String MAX_PARTITIONS = "max.partitions";
    public static final long DEFAULT_MAX_PARTITIONS = 10_000;
    /**
     * The operator accepts that a partition's files hold fewer offsets than it wrote (a segment file
     * deleted, a directory restored from an old copy): it opens anyway and goes on past the missing
     * offsets, instead of staying offline. kaen-log's own key ({@code klog serve --accept-data-loss P}
     * sets it for one partition); Kafka, finding a log end below its log start, deletes the segments
     * and starts again at the log start without asking.
     */
    public static final String ACCEPT_DATA_LOSS = "accept.data.loss";

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(SEGMENT_BYTES, LogConfig.DEFAULT_SEGMENT_BYTES, 1024, Integer.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "roll a new active segment when the next batch would not fit"),
                ConfigKey.whole(INDEX_INTERVAL_BYTES, LogConfig.DEFAULT_INDEX_INTERVAL_BYTES, 0, Integer.MAX_VALUE,
                        ConfigKey.Scope.PARTITION, 3, "bytes of batches between two sparse index entries"),
                ConfigKey.whole(FLUSH_MESSAGES, LogConfig.NEVER, 1, Long.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "fsync after this many records (Kafka's default: never; the page cache and replicas are"
                                + " the durability)"),
                ConfigKey.whole(FLUSH_MS, LogConfig.NEVER, 0, Long.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "fsync when the oldest unflushed record is this old (Kafka's default: never)"),
                ConfigKey.whole(MAX_PARTITIONS, DEFAULT_MAX_PARTITIONS, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 3,
                        "partitions the broker holds; a produce that would create one more is answered"
                                + " UNKNOWN_PARTITION and leaves nothing on disk (kaen-log's own limit: Kafka has none)"),
                ConfigKey.choice(ACCEPT_DATA_LOSS, "false", Set.of("true", "false"), ConfigKey.Scope.PARTITION, 3,
                        "true: a partition whose files hold fewer offsets than it wrote opens anyway, past the"
                                + " missing ones (default: it stays offline, its one log line names them)"));
    }
}
