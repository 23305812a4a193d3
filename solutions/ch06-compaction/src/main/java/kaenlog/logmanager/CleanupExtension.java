package kaenlog.logmanager;

import java.util.List;
import kaenlog.broker.BackgroundTask;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;

/**
 * Chapter 6 in the running broker, registered through {@code ServiceLoader} so that chapter 3's
 * broker never names it: the configs of retention and compaction, and the two tasks Kafka's broker
 * runs beside its request handlers, the retention check (Kafka's {@code LogManager} schedules it every
 * {@code log.retention.check.interval.ms}) and the cleaner (Kafka's {@code LogCleaner} threads, which
 * back off {@code log.cleaner.backoff.ms} when there is nothing to clean).
 */
public final class CleanupExtension implements BrokerExtension {
    @Override
    public List<ConfigKey> configKeys() {
        return CleanupConfigs.keys();
    }

    @Override
    public List<BackgroundTask> backgroundTasks() {
        return List.of(new RetentionTask(), new CleanerTask());
    }
}
