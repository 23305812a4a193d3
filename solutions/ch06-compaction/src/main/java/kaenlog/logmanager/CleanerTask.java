package kaenlog.logmanager;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import kaenlog.broker.BackgroundTask;
import kaenlog.broker.PartitionConfigs;
import kaenlog.compaction.Cleaner;
import kaenlog.compaction.Retention;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.broker.Partition;

/**
 * The cleaner of a partition whose cleanup.policy includes compact: chapter 6's {@link Cleaner}
 * with the partition's lock as its guard, so produce and fetch wait for one segment swap at most.
 *
 * <p>Kafka cleans a log only when enough of it is dirty, {@code min.cleanable.dirty.ratio}: the
 * bytes not yet cleaned over all cleanable bytes. It remembers how far it cleaned in a checkpoint
 * file; kaen-log remembers it in memory (where the last cleaning ended, per partition), so after a
 * restart the whole log counts as dirty and is cleaned once more: the same result, a little more work.
 */
public final class CleanerTask implements BackgroundTask {
    /** Partition -> the first offset the last cleaning did not reach (Kafka's firstDirtyOffset). */
    private final Map<String, Long> firstDirtyOffsets = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "cleaner";
    }

    @Override
    public String intervalKey() {
        return CleanupConfigs.CLEANER_BACKOFF_MS;
    }

    @Override
    public Optional<String> run(Partition partition, PartitionConfigs.View config, long nowMs) throws IOException {
        if (!CleanupConfigs.compacts(config)) {
            return Optional.empty();
        }
        long firstDirty = firstDirtyOffsets.getOrDefault(partition.name(), 0L);
        Long endOfRound = partition.locked(log -> {
            List<Segment> cleanable = Retention.candidates(log);
            if (cleanable.isEmpty() || dirtyRatio(cleanable, firstDirty)
                    < config.doubleValue(CleanupConfigs.MIN_CLEANABLE_DIRTY_RATIO)) {
                return null;
            }
            return log.segments().get(cleanable.size()).baseOffset();
        });
        if (endOfRound == null) {
            return Optional.empty();
        }
        Cleaner cleaner = new Cleaner(config.longValue(CleanupConfigs.DELETE_RETENTION_MS));
        // The log itself: the cleaner takes the partition's lock through the guard for each step that needs it.
        Log log = partition.locked(l -> l);
        Cleaner.Result result = cleaner.clean(log, nowMs, step -> partition.locked(l -> {
            step.run();
            return null;
        }), Cleaner.Transactions.of(log));
        firstDirtyOffsets.put(partition.name(), endOfRound);
        int before = result.segments().stream().mapToInt(Cleaner.SegmentCleaned::recordsBefore).sum();
        int after = result.segments().stream().mapToInt(Cleaner.SegmentCleaned::recordsAfter).sum();
        return Optional.of("cleaned " + result.segments().size() + " segment(s) below offset " + endOfRound + ": "
                + before + " -> " + after + " record(s), " + result.keys() + " key(s)");
    }

    /** The share of the cleanable bytes at or above the first dirty offset. */
    static double dirtyRatio(List<Segment> cleanable, long firstDirty) {
        long total = 0;
        long dirty = 0;
        for (Segment segment : cleanable) {
            total += segment.size();
            if (segment.baseOffset() >= firstDirty) {
                dirty += segment.size();
            }
        }
        return total == 0 ? 0 : (double) dirty / total;
    }
}
