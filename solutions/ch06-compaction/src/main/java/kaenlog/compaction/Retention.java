package kaenlog.compaction;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import kaenlog.log.Log;
import kaenlog.log.Segment;

/**
 * Retention ({@code cleanup.policy=delete}): forgetting whole segments, oldest first. Kafka's
 * {@code UnifiedLog.deleteOldSegments} runs the size rule, then the time rule (after a log start
 * offset rule for DeleteRecords, which kaen-log does not have); each deletes the
 * longest run of oldest segments its predicate accepts and stops at the first it refuses, so what
 * is left is always a suffix of the log and no offset moves. What moves is the <b>log start
 * offset</b>: it becomes the base offset of the first surviving segment, and a fetch below it is
 * an out-of-range error (chapter 3's {@code Log.read}).
 */
public final class Retention {
    private Retention() {
    }

    /** One segment retention removed, and which rule removed it. */
    public record Deletion(long baseOffset, long nextOffset, int sizeInBytes, String reason) {
    }

    /** What one run of retention did. */
    public record Result(List<Deletion> deleted, long logStartOffsetBefore, long logStartOffsetAfter) {
        public Result {
            deleted = List.copyOf(deleted);
        }
    }

    /** Applies both rules to {@code log} at time {@code nowMs}, size first, as Kafka orders them. */
    public static Result apply(Log log, RetentionConfig config, long nowMs) throws IOException {
        long before = log.logStartOffset();
        List<Deletion> deleted = new ArrayList<>();
        // A rule that is switched off (-1) is not consulted at all: each rule stands on its own.
        if (config.retentionBytes() != RetentionConfig.NO_LIMIT) {
            deleted.addAll(delete(log, deletableBySize(log, config.retentionBytes()), "retention.bytes"));
        }
        if (config.retentionMs() != RetentionConfig.NO_LIMIT) {
            deleted.addAll(delete(log, deletableByTime(log, config.retentionMs(), nowMs), "retention.ms"));
        }
        return new Result(deleted, before, log.logStartOffset());
    }

    /**
     * The segments retention may consider, oldest first: every segment but the active one, and
     * only while the whole segment lies below the high watermark (its successor's base offset is
     * at or below it). Kafka's {@code deletableSegments}: "We don't delete segments with offsets at
     * or beyond the high watermark to ensure that the log start offset can never exceed it."
     * (Kafka goes one step further and rolls a full active segment to delete it; kaen-log never
     * deletes the segment it appends to.)
     */
    public static List<Segment> candidates(Log log) {
        // BEGIN-SOLUTION ch06 task 1: closed segments below the high watermark, never the active one (RetentionByTimeTest)
        List<Segment> segments = log.segments();
        List<Segment> candidates = new ArrayList<>();
        for (int i = 0; i < segments.size() - 1; i++) {
            long upperBound = segments.get(i + 1).baseOffset();
            if (log.highWatermark() < upperBound) {
                break;
            }
            candidates.add(segments.get(i));
        }
        return candidates;
        // END-SOLUTION
    }

    /**
     * {@code retention.ms}: a segment is expired when its <b>largest</b> timestamp is more than
     * {@code retentionMs} before now (strictly more, as in Kafka's
     * {@code startMs - segment.largestTimestamp() > retentionMs}), so a segment lives as long as
     * its newest record. -1 never expires. An empty segment (compaction can leave one) has no
     * timestamp, -1, and is always expired: deleting it loses nothing.
     */
    public static boolean breachesRetentionMs(Segment segment, long retentionMs, long nowMs) {
        // BEGIN-SOLUTION ch06 task 1: a segment expires by its newest record (RetentionByTimeTest)
        return retentionMs != RetentionConfig.NO_LIMIT && nowMs - segment.maxTimestamp() > retentionMs;
        // END-SOLUTION
    }

    /** The oldest candidates that are all expired: deletion stops at the first one that is not. */
    public static List<Segment> deletableByTime(Log log, long retentionMs, long nowMs) {
        return candidates(log).stream().takeWhile(s -> breachesRetentionMs(s, retentionMs, nowMs)).toList();
    }

    /**
     * {@code retention.bytes}: the oldest candidates whose removal keeps the log at or above the
     * limit. Kafka's {@code deleteRetentionSizeBreachedSegments}: nothing when the limit is -1 or
     * the log is smaller; otherwise the excess is {@code size - retentionBytes} and a segment goes
     * while {@code excess - segment.size() >= 0}. The size counts every segment, the active one
     * included, but only closed ones can go: a log may stay above the limit.
     */
    public static List<Segment> deletableBySize(Log log, long retentionBytes) {
        // BEGIN-SOLUTION ch06 task 2: the oldest segments while the log stays at or above retention.bytes (RetentionBySizeTest)
        long size = sizeInBytes(log);
        if (retentionBytes == RetentionConfig.NO_LIMIT || size < retentionBytes) {
            return List.of();
        }
        long excess = size - retentionBytes;
        List<Segment> deletable = new ArrayList<>();
        for (Segment segment : candidates(log)) {
            if (excess - segment.size() < 0) {
                break;
            }
            excess -= segment.size();
            deletable.add(segment);
        }
        return deletable;
        // END-SOLUTION
    }

    /** The bytes of every segment, the active one included (Kafka's {@code UnifiedLog.size()}). */
    public static long sizeInBytes(Log log) {
        return log.segments().stream().mapToLong(Segment::size).sum();
    }

    /** Deletes through chapter 3's {@code Log.deleteSegment}, which moves the log start offset. */
    private static List<Deletion> delete(Log log, List<Segment> segments, String reason) throws IOException {
        List<Deletion> deleted = new ArrayList<>();
        for (Segment segment : segments) {
            deleted.add(new Deletion(segment.baseOffset(), segment.nextOffset(), segment.size(), reason));
            log.deleteSegment(segment);
        }
        return deleted;
    }
}
