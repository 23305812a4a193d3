package kaenlog.coordinator;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BackgroundTask;
import kaenlog.broker.Partition;
import kaenlog.broker.PartitionConfigs;

/**
 * Kafka's group metadata expiration: every {@code offsets.retention.check.interval.ms} of the
 * broker's time, the offsets partitions' expired offsets are deleted with tombstones
 * ({@link GroupCoordinator#expire}), on the offsets partitions this broker coordinates (in chapter
 * 10's cluster, those it leads); other partitions are not its business.
 */
final class OffsetsExpiryTask implements BackgroundTask {
    private final GroupCoordinator coordinator;

    OffsetsExpiryTask(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public String name() {
        return "offsets-expiry";
    }

    @Override
    public String intervalKey() {
        return GroupCoordinator.RETENTION_CHECK_INTERVAL_MS;
    }

    @Override
    public Optional<String> run(Partition partition, PartitionConfigs.View config, long nowMs) throws IOException {
        if (!coordinator.placement().owns(partition.name())) {
            return Optional.empty(); // not an offsets partition this broker coordinates
        }
        long retentionMs = config.configs().brokerLong(GroupCoordinator.RETENTION_MINUTES) * 60_000;
        return coordinator.expire(partition, nowMs, retentionMs);
    }
}
