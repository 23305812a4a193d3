package kaenlog.kafkawire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import kaenlog.broker.LogText;

/**
 * The groups' metadata records on their way to the offsets log ({@link ClassicGroups.Offsets#storeGroup}):
 * one thread appends them in the order the groups changed, so that a group's last record is its latest
 * state, and the groups' lock is not held while an append waits (for the disk, or for acks=all in a
 * cluster). What waits is bounded, in records and in bytes: a client that makes the groups change
 * faster than the log takes their records (a static member that rejoins again and again, say) would
 * otherwise grow the queue without limit, each record up to {@code max.group.bytes}. A record refused
 * is answered COORDINATOR_NOT_AVAILABLE at once, with a line naming its group: the caller may hold the
 * groups' lock, so it is never made to wait for room. Kafka's classic coordinator has no queue of its
 * own: it appends on the request handler's thread ({@code GroupMetadataManager.appendForGroup} calls
 * {@code ReplicaManager.appendRecords}), so its handlers and their request queue bound what waits.
 */
final class GroupStoreQueue {
    /**
     * Records nobody waits for, beyond one per connection: a JoinGroup or SyncGroup that stores is
     * answered once its record is written, and a connection sends one request at a time, so those
     * waiting are about {@code max.connections}; a group become Empty or deleted (its record, its
     * tombstone) is not awaited, one record per such change, which a log that drains appends in
     * milliseconds. A thousand more than the connections is a log that has stopped taking them.
     */
    static final int UNAWAITED_RECORDS = 1_000;

    private final int maxQueued;
    private final long maxQueuedBytes;
    private final Consumer<String> trouble;
    private final ExecutorService appender = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "klog-group-store");
        thread.setDaemon(true);
        return thread;
    });
    /** Records queued or being appended, and their bytes (guarded by this). */
    private int queued;
    private long queuedBytes;

    /**
     * At most {@code maxQueued} records, and {@code maxQueuedBytes} of them, wait at once (the one
     * being appended counts); a record into an empty queue is always taken. {@code trouble} gets a
     * line for each record refused (the broker's rate-limited log).
     */
    GroupStoreQueue(int maxQueued, long maxQueuedBytes, Consumer<String> trouble) {
        this.maxQueued = maxQueued;
        this.maxQueuedBytes = maxQueuedBytes;
        this.trouble = trouble;
    }

    /**
     * Queues {@code append} of {@code group}'s record ({@code bytes} long, 0 for a tombstone) behind the
     * records before it; its answer is the append's Kafka error code. A queue that is full, or closed,
     * answers COORDINATOR_NOT_AVAILABLE at once, without waiting.
     */
    CompletableFuture<Short> submit(String group, long bytes, Supplier<Short> append) {
        String full = admit(bytes);
        if (full != null) {
            trouble.accept("kafka: group " + LogText.quote(group) + "'s metadata record (" + bytes + " bytes) refused: "
                    + full + " (answered COORDINATOR_NOT_AVAILABLE)");
            return CompletableFuture.completedFuture(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        }
        try {
            return CompletableFuture.supplyAsync(() -> appended(group, bytes, append), appender);
        } catch (RejectedExecutionException closed) {
            release(bytes);
            return CompletableFuture.completedFuture(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        }
    }

    /** Why a record of {@code bytes} does not fit now, or null when it was counted in. */
    private synchronized String admit(long bytes) {
        if (queued >= maxQueued) {
            return queued + " records are on their way to the offsets log already, the most that may be";
        }
        if (queued > 0 && queuedBytes + bytes > maxQueuedBytes) {
            return "the " + queued + " records on their way to the offsets log hold " + queuedBytes
                    + " bytes, and max.group.bytes (" + maxQueuedBytes + ") is the most they may";
        }
        queued++;
        queuedBytes += bytes;
        return null;
    }

    private synchronized void release(long bytes) {
        queued--;
        queuedBytes -= bytes;
    }

    /** The append, on the appender's thread; one that throws is answered too (a waiting member is never left hanging). */
    private short appended(String group, long bytes, Supplier<Short> append) {
        try {
            return append.get();
        } catch (RuntimeException failed) {
            trouble.accept("kafka: group " + LogText.quote(group) + "'s metadata record was not appended: " + failed
                    + " (answered COORDINATOR_NOT_AVAILABLE)");
            return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        } finally {
            release(bytes);
        }
    }

    /** Records queued or being appended now: never more than the bound. */
    synchronized int queued() {
        return queued;
    }

    /** Nothing more is taken; what is on its way is written first (at most ten seconds). */
    void close() {
        appender.shutdown();
        try {
            appender.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
