package kaenlog.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The leader epoch vector: for each leader epoch this log has seen, the offset of its first record
 * (Kafka's {@code LeaderEpochFileCache}, kept in memory only). A leader adds an entry when it
 * takes over, at its log end offset.
 *
 * <p>It replaces "truncate to my own high watermark" after a restart or a leader change (KIP-101):
 * a follower asks the leader where the epoch it holds ends, and truncates to that, not to its HW.
 */
public final class LeaderEpochCache {
    /** One leadership period: its epoch and the offset of its first record. */
    public record EpochEntry(int epoch, long startOffset) {
        public EpochEntry {
            if (epoch < 0) {
                throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
            }
            if (startOffset < 0) {
                throw new IllegalArgumentException("startOffset must be >= 0, got " + startOffset);
            }
        }
    }

    private final List<EpochEntry> entries = new ArrayList<>();

    /**
     * Records that {@code epoch} starts at {@code startOffset}, as Kafka's {@code assign} does:
     * an epoch already latest keeps its first start offset (a later, larger one is ignored), and
     * entries that would break the order (an epoch >= the new one, or a start offset >= the new
     * one) are removed from the end before the new entry is appended. Both columns always increase.
     */
    public void assign(int epoch, long startOffset) {
        EpochEntry entry = new EpochEntry(epoch, startOffset);
        if (!entries.isEmpty()) {
            EpochEntry latest = entries.get(entries.size() - 1);
            if (latest.epoch() == epoch && latest.startOffset() <= startOffset) {
                return; // once assigned, an epoch keeps the offset of its first record
            }
        }
        while (!entries.isEmpty()) {
            EpochEntry last = entries.get(entries.size() - 1);
            if (last.epoch() < epoch && last.startOffset() < startOffset) {
                break;
            }
            entries.remove(entries.size() - 1);
        }
        entries.add(entry);
    }

    /**
     * Forgets every epoch that starts at or after {@code endOffset}: the log was truncated there, so
     * those epochs no longer have a record here (Kafka's {@code truncateFromEnd}, called by
     * {@code UnifiedLog.truncateTo}).
     */
    public void truncateFromEnd(long endOffset) {
        entries.removeIf(entry -> entry.startOffset() >= endOffset);
    }

    /** The entries in order: epochs and start offsets both increasing. */
    public List<EpochEntry> entries() {
        return List.copyOf(entries);
    }

    /** The epoch of the latest entry, if any. */
    public OptionalInt latestEpoch() {
        return entries.isEmpty() ? OptionalInt.empty() : OptionalInt.of(entries.get(entries.size() - 1).epoch());
    }

    /**
     * KIP-279's answer: the largest cached epoch that is {@code <=} the requested one (not only an
     * exact match: an epoch this leader never saw is answered with the one before it), and the
     * offset where that epoch ends: the start offset of the next entry, or {@code leo} when it is
     * the latest. Empty when no cached epoch is {@code <=} the requested one.
     *
     * @param leo this log's end offset; it cannot be below the latest epoch's start offset
     */
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch, long leo) {
        if (leo < 0) {
            throw new IllegalArgumentException("leo must be >= 0, got " + leo);
        }
        if (!entries.isEmpty() && leo < entries.get(entries.size() - 1).startOffset()) {
            throw new IllegalArgumentException("leo " + leo + " is below the start offset of the latest epoch "
                    + entries.get(entries.size() - 1));
        }
        // BEGIN-SOLUTION ch08 task 4: the largest epoch <= the one asked, and where it ends (LeaderEpochCacheTest)
        for (int i = entries.size() - 1; i >= 0; i--) {
            EpochEntry found = entries.get(i);
            if (found.epoch() <= epoch) {
                long end = i + 1 < entries.size() ? entries.get(i + 1).startOffset() : leo;
                return Optional.of(new EpochEndOffset(found.epoch(), end));
            }
        }
        return Optional.empty();
        // END-SOLUTION
    }
}
