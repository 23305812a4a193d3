package kaenlog.logmanager;

import java.util.List;
import java.util.Set;
import kaenlog.broker.ConfigKey;
import kaenlog.broker.ConfigKey.Scope;
import kaenlog.broker.PartitionConfigs;
import kaenlog.compaction.RetentionConfig;

/** Chapter 6's configs, with Kafka's names and defaults, and how a partition's are read. */
public final class CleanupConfigs {
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
    public static final String CLEANER_BACKOFF_MS = "log.cleaner.backoff.ms";

    public static final String DELETE = "delete";
    public static final String COMPACT = "compact";

    private CleanupConfigs() {
    }

    /** Kafka's defaults: delete after 7 days, no size limit, tombstones kept a day, clean at 50% dirty. */
    public static List<ConfigKey> keys() {
        return List.of(
                ConfigKey.choice(CLEANUP_POLICY, DELETE, Set.of(DELETE, COMPACT, "compact,delete", "delete,compact"),
                        Scope.PARTITION, 6, "delete old segments, compact to the latest record per key, or both"),
                ConfigKey.whole(RETENTION_MS, 7L * 24 * 60 * 60 * 1000, -1, Long.MAX_VALUE, Scope.PARTITION, 6,
                        "delete a closed segment whose newest record is older than this (-1: never)"),
                ConfigKey.whole(RETENTION_BYTES, -1, -1, Long.MAX_VALUE, Scope.PARTITION, 6,
                        "delete the oldest segments while the log stays at least this big (-1: no limit)"),
                ConfigKey.whole(DELETE_RETENTION_MS, 24L * 60 * 60 * 1000, 0, Long.MAX_VALUE, Scope.PARTITION, 6,
                        "how long the cleaner keeps a tombstone after it first cleans it"),
                ConfigKey.ratio(MIN_CLEANABLE_DIRTY_RATIO, 0.5, Scope.PARTITION, 6,
                        "clean only when at least this share of the cleanable bytes is not yet cleaned"),
                ConfigKey.whole(RETENTION_CHECK_INTERVAL_MS, 5L * 60 * 1000, 1, Long.MAX_VALUE, Scope.BROKER, 6,
                        "how often retention checks every partition"),
                ConfigKey.whole(CLEANER_BACKOFF_MS, 15_000, 1, Long.MAX_VALUE, Scope.BROKER, 6,
                        "how long the cleaner sleeps between two runs over the compacted partitions"));
    }

    /** cleanup.policy includes delete: retention applies. */
    public static boolean deletes(PartitionConfigs.View config) {
        return config.value(CLEANUP_POLICY).contains(DELETE);
    }

    /** cleanup.policy includes compact: the cleaner applies. */
    public static boolean compacts(PartitionConfigs.View config) {
        return config.value(CLEANUP_POLICY).contains(COMPACT);
    }

    public static RetentionConfig retention(PartitionConfigs.View config) {
        return new RetentionConfig(config.longValue(RETENTION_MS), config.longValue(RETENTION_BYTES));
    }
}
