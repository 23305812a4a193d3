package kaenlog.logmanager;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BackgroundTask;
import kaenlog.broker.PartitionConfigs;
import kaenlog.compaction.Retention;
import kaenlog.broker.Partition;

/**
 * The retention check of a partition whose cleanup.policy includes delete: chapter 6's
 * {@link Retention}, under the partition's lock (a fetch must never read a segment half gone), where
 * a deleted segment leaves the log and its files are renamed {@code .deleted}; then, without the
 * lock, the log start offset's checkpoint and the unlink ({@link Partition#finishDeletions}), so that
 * no produce or fetch waits for them. What it deleted goes to the broker's log.
 */
public final class RetentionTask implements BackgroundTask {
    @Override
    public String name() {
        return "retention";
    }

    @Override
    public String intervalKey() {
        return CleanupConfigs.RETENTION_CHECK_INTERVAL_MS;
    }

    @Override
    public Optional<String> run(Partition partition, PartitionConfigs.View config, long nowMs) throws IOException {
        if (!CleanupConfigs.deletes(config)) {
            return Optional.empty();
        }
        Retention.Result result = partition.locked(log -> Retention.apply(log, CleanupConfigs.retention(config), nowMs));
        partition.finishDeletions();
        if (result.deleted().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("deleted " + result.deleted().size() + " segment(s) ("
                + String.join(", ", result.deleted().stream().map(Retention.Deletion::reason).distinct().toList())
                + "), log start offset " + result.logStartOffsetBefore() + " -> " + result.logStartOffsetAfter());
    }
}
