package kaenlog.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Runs the chapters' {@link BackgroundTask}s (chapter 6: retention, the cleaner) on every open
 * partition when the broker's time says they are due, on a thread of its own: Kafka's
 * {@code KafkaScheduler}, which runs its {@code LogManager}'s retention check every
 * {@code log.retention.check.interval.ms}. The schedule is the broker's time, never a clock.
 */
final class Scheduler {
    private final List<BackgroundTask> tasks;
    private final Supplier<PartitionConfigs> configs;
    private final PrintStream log;
    private final LongSupplier clock;
    private final Supplier<List<Partition>> partitions;
    private final Map<BackgroundTask, Long> nextRunMs = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private Thread thread;

    Scheduler(List<BackgroundTask> tasks, Supplier<PartitionConfigs> configs, PrintStream log, LongSupplier clock,
              Supplier<List<Partition>> partitions) {
        this.tasks = tasks;
        this.configs = configs;
        this.log = log;
        this.clock = clock;
        this.partitions = partitions;
        long startMs = clock.getAsLong();
        for (BackgroundTask task : tasks) {
            nextRunMs.put(task, startMs + intervalMs(task));
        }
    }

    List<BackgroundTask> tasks() {
        return tasks;
    }

    long intervalMs(BackgroundTask task) {
        return configs.get().brokerLong(task.intervalKey());
    }

    /** Starts the tasks thread, which looks for due tasks every {@code tickMs} (none when there is no task). */
    void start(String threadName, long tickMs) {
        if (tasks.isEmpty()) {
            return;
        }
        thread = new Thread(() -> loop(tickMs), threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(long tickMs) {
        try {
            while (!closed) {
                Thread.sleep(tickMs);
                runDueTasks();
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs every background task whose time has come on every open partition, then schedules its
     * next run one interval later. A task that fails on one partition is logged and the others go on.
     * One task run at a time: the tasks thread and a test calling it.
     */
    synchronized void runDueTasks() {
        for (BackgroundTask task : tasks) {
            long now = clock.getAsLong();
            if (closed || now < nextRunMs.get(task)) {
                continue;
            }
            for (Partition partition : partitions.get()) {
                if (closed) {
                    return;
                }
                runTask(task, partition, now);
            }
            nextRunMs.put(task, now + intervalMs(task));
        }
    }

    private void runTask(BackgroundTask task, Partition partition, long now) {
        try {
            task.run(partition, configs.get().of(partition.name()), now)
                    .ifPresent(line -> log.println(task.name() + " " + partition.name() + ": " + line));
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.println(task.name() + " " + partition.name() + " failed: " + e.getClass().getSimpleName() + ": "
                        + e.getMessage());
            }
        }
    }

    /**
     * Stops after the task running now and waits for it. The thread is not interrupted: an interrupt
     * closes a FileChannel in the middle of a segment swap. It sees {@code closed} after the task it
     * runs (the swap is crash-safe either way).
     */
    void close() {
        closed = true;
        SocketServer.joinUninterruptibly(thread);
        synchronized (this) {
            // a test's runDueTasks() may still be running: let it end before the partitions close
        }
    }
}
