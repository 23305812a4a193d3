package kaenlog.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

/**
 * What a test needs to run Kafka's own storage or coordinator classes in its JVM as an oracle: Kafka's
 * clock, set by the test; a scheduler that runs nothing, so no background flush, expiry or deletion
 * decides anything; a leader epoch cache that stays in memory.
 *
 * <p>Kafka is a provided dependency of testkit: a chapter that uses these brings its own Kafka jars (in
 * test scope, chapter 10 at 3.9.1, whose {@code Time}, {@code Scheduler} and epoch cache have the same
 * shape), and a chapter that does not pulls nothing new.
 */
public final class KafkaFixtures {
    private KafkaFixtures() {
    }

    /** Kafka's clock, moved only by the test ({@link #set}) or by Kafka's own {@code sleep}: no wall clock. */
    public static final class ManualTime implements Time {
        private long ms;

        public ManualTime(long ms) {
            this.ms = ms;
        }

        public void set(long ms) {
            this.ms = ms;
        }

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000;
        }

        @Override
        public void sleep(long sleepMs) {
            ms += sleepMs;
        }

        @Override
        public void waitObject(Object lock, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException("Kafka's oracle never waits in a test");
        }
    }

    /** A scheduler that runs nothing: no background flush, producer expiry, checkpoint or file deletion. */
    public static final class NoScheduler implements Scheduler {
        @Override
        public void startup() {
        }

        @Override
        public void shutdown() {
        }

        @Override
        public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
            return new NotRun();
        }

        @Override
        public void resizeThreadPool(int threads) {
        }
    }

    /** What {@link NoScheduler} hands back: a task cancelled before it ran. */
    private static final class NotRun implements ScheduledFuture<Object> {
        @Override
        public long getDelay(TimeUnit unit) {
            return Long.MAX_VALUE;
        }

        @Override
        public int compareTo(Delayed other) {
            return 0;
        }

        @Override
        public boolean cancel(boolean interrupt) {
            return true;
        }

        @Override
        public boolean isCancelled() {
            return true;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }

    /**
     * kafka-storage's {@code LeaderEpochFileCache} for {@code partition}, empty, as a log's cache starts.
     * Its checkpoint file is created in {@code dir} (Kafka's constructor does) but never written or read:
     * the cache keeps every entry in memory, the checkpoint only copies them to disk (with an fsync per
     * {@code assign}), and a previous try's file is never read back.
     */
    public static LeaderEpochFileCache inMemoryEpochCache(TopicPartition partition, Path dir) {
        try {
            return new LeaderEpochFileCache(partition, new InMemoryCheckpoint(dir.resolve("leader-epoch-checkpoint")
                    .toFile()), new NoScheduler());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The checkpoint of a cache that stays in memory: created (Kafka's constructor does), never written. */
    private static final class InMemoryCheckpoint extends LeaderEpochCheckpointFile {
        InMemoryCheckpoint(File file) throws IOException {
            super(file, new LogDirFailureChannel(1));
        }

        @Override
        public void write(Collection<EpochEntry> epochs) {
        }

        @Override
        public void writeIfDirExists(Collection<EpochEntry> epochs) {
        }

        @Override
        public List<EpochEntry> read() {
            return List.of();
        }
    }
}
