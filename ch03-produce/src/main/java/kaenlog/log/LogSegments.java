package kaenlog.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * The segments of one log by base offset, oldest first; the last one is the active segment (Kafka's
 * {@code LogSegments}). A read finds its segment as the one with the largest base offset at or below
 * the offset it wants. Not thread-safe: the partition's lock guards the log and its segments.
 */
final class LogSegments {
    private final TreeMap<Long, Segment> byBaseOffset = new TreeMap<>();

    void add(Segment segment) {
        byBaseOffset.put(segment.baseOffset(), segment);
    }

    void remove(Segment segment) {
        byBaseOffset.remove(segment.baseOffset());
    }

    /** Whether {@code segment} itself (not another with its base offset) is one of these. */
    boolean holds(Segment segment) {
        return byBaseOffset.get(segment.baseOffset()) == segment;
    }

    boolean isEmpty() {
        return byBaseOffset.isEmpty();
    }

    int count() {
        return byBaseOffset.size();
    }

    Segment active() {
        return byBaseOffset.lastEntry().getValue();
    }

    Segment first() {
        return byBaseOffset.firstEntry().getValue();
    }

    Segment removeFirst() {
        return byBaseOffset.pollFirstEntry().getValue();
    }

    Segment removeLast() {
        return byBaseOffset.pollLastEntry().getValue();
    }

    /**
     * Removes, oldest first, the segments whose every offset is below {@code offset}: those the next
     * one starts at or before (never the active one). Their files are the caller's to delete.
     */
    List<Segment> removeWhollyBelow(long offset) {
        List<Segment> removed = new ArrayList<>();
        while (count() > 1 && nextBaseOffset(first().baseOffset()) <= offset) {
            removed.add(removeFirst());
        }
        return removed;
    }

    /** The base offset of the segment after the one at {@code baseOffset}; null for the last one. */
    Long nextBaseOffset(long baseOffset) {
        return byBaseOffset.higherKey(baseOffset);
    }

    /** The segments from the one holding {@code offset} on, oldest first (a view); all of them when it lies below the first. */
    Collection<Segment> from(long offset) {
        Long floor = byBaseOffset.floorKey(offset);
        return byBaseOffset.tailMap(floor == null ? byBaseOffset.firstKey() : floor).values();
    }

    /** The segments starting below {@code offset}, oldest first (a view). */
    Collection<Segment> below(long offset) {
        return byBaseOffset.headMap(offset, false).values();
    }

    /** Every segment, oldest first (a view). */
    Collection<Segment> all() {
        return byBaseOffset.values();
    }

    List<Long> baseOffsets() {
        return List.copyOf(byBaseOffset.keySet());
    }

    /** Closes every segment; the first failure is thrown after all were tried. */
    void close() throws IOException {
        IOException failure = null;
        for (Segment segment : byBaseOffset.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes whatever is open, after a failure that is already being thrown. */
    void closeQuietly() {
        try {
            close();
        } catch (IOException ignored) {
            // that failure is the one thrown
        }
    }
}
