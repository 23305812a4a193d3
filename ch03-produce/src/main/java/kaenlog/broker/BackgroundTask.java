package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;

/**
 * Work the broker runs on a schedule, on a thread of its own, between requests: Kafka's retention
 * check every {@code log.retention.check.interval.ms}, its cleaner every {@code log.cleaner.backoff.ms}.
 * The schedule is the broker's time, never a clock. A task takes the partition's lock only for short
 * steps ({@link Partition#locked}), so produce and fetch wait at most for one of them.
 */
public interface BackgroundTask {
    /** A short name for the broker's log, e.g. "retention". */
    String name();

    /** The broker config (a {@link ConfigKey.Scope#BROKER} key) that says how often it runs, in ms. */
    String intervalKey();

    /**
     * Works on one partition at the broker's time {@code nowMs}, with that partition's configs.
     * Returns a line for the broker's log when it changed something.
     */
    Optional<String> run(Partition partition, PartitionConfigs.View config, long nowMs) throws IOException;
}
