package kaenlog.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import kaenlog.batch.BatchHeader;

/**
 * A segment's sparse time index ({@code NNN.timeindex}), Kafka's layout: entries of (timestamp,
 * offset), 12 bytes each on disk (timestamp int64, offset relative to the segment's base as int32),
 * as in Kafka's TimeIndex. An entry (T, O) says: the largest timestamp of any record up to offset O
 * is T, so every record with a timestamp above T comes after O. O is the last offset of the batch
 * that first reached T. Timestamps and offsets only grow.
 *
 * <p>Entries are written with the offset index's (every {@code index.interval.bytes}), and only when
 * the segment's largest timestamp so far is greater than the last entry's (Kafka's
 * TimeIndex.maybeAppend); a segment that stops being the active one gets a last entry holding its
 * largest timestamp (Kafka's LogSegment.onBecomeInactiveSegment). Given code: no task.
 */
public final class TimeIndex extends IndexFile<TimeIndex.Entry> {
    public static final int ENTRY_SIZE = 12;

    /** One entry: the largest timestamp up to {@code offset}, and that offset. */
    public record Entry(long timestamp, long offset) {
    }

    private TimeIndex(Path file, long baseOffset) {
        super(file, baseOffset, ENTRY_SIZE);
    }

    /** An empty index, replacing whatever file was there. */
    static TimeIndex create(Path file, long baseOffset) throws IOException {
        TimeIndex index = new TimeIndex(file, baseOffset);
        index.createFile();
        return index;
    }

    /** An index kept in memory only, never written: a read-only log rebuilds a damaged one this way. */
    static TimeIndex inMemory(Path file, long baseOffset) {
        return new TimeIndex(file, baseOffset);
    }

    /**
     * The index stored in {@code file}, or null when it is missing or fails its sanity check for a
     * segment whose offsets end before {@code nextOffset} and whose largest timestamp is
     * {@code maxTimestamp}: a partial entry (Kafka's check: a size that is no multiple of 12),
     * timestamps or offsets that do not grow (Kafka's: a last timestamp below the first), an offset
     * outside the segment (Kafka's: a last offset below the base offset), a timestamp above any in
     * the segment. The caller then rebuilds it from the log, as for the offset index.
     */
    static TimeIndex load(Path file, long baseOffset, long nextOffset, long maxTimestamp) throws IOException {
        ByteBuffer in = storedEntries(file, ENTRY_SIZE);
        if (in == null) {
            return null;
        }
        TimeIndex index = new TimeIndex(file, baseOffset);
        while (in.hasRemaining()) {
            Entry entry = new Entry(in.getLong(), baseOffset + in.getInt());
            Entry last = index.lastEntry();
            boolean grows = last == null || (entry.timestamp() > last.timestamp() && entry.offset() >= last.offset());
            if (!grows || entry.offset() < baseOffset || entry.offset() >= nextOffset
                    || entry.timestamp() > maxTimestamp) {
                return null;
            }
            index.entries.add(entry);
        }
        index.openForAppend();
        return index;
    }

    /**
     * Adds (timestamp, offset) when the timestamp is greater than the last entry's (Kafka's
     * maybeAppend: a batch whose timestamps are no newer adds nothing, and a segment of batches
     * without timestamps gets no entry at all).
     */
    void maybeAppend(long timestamp, long offset) throws IOException {
        Entry last = lastEntry();
        if (timestamp == BatchHeader.NO_TIMESTAMP || (last != null && timestamp <= last.timestamp())) {
            return;
        }
        if (last != null && offset < last.offset()) {
            throw new IllegalArgumentException("time index offsets must not go back: " + offset + " after "
                    + last.offset());
        }
        add(new Entry(timestamp, offset), ByteBuffer.allocate(ENTRY_SIZE)
                .putLong(timestamp).putInt(Math.toIntExact(offset - baseOffset)).flip());
    }

    /**
     * The entry with the largest timestamp at or below {@code target}, or (-1, baseOffset) when every
     * entry is above it (Kafka's TimeIndex.lookup): every record before that entry's offset has a
     * smaller timestamp, so a search for the first record at or after {@code target} starts there.
     */
    public Entry lookup(long target) {
        int low = 0;
        int high = entries.size() - 1;
        Entry found = new Entry(BatchHeader.NO_TIMESTAMP, baseOffset);
        while (low <= high) {
            int mid = (low + high) >>> 1;
            Entry entry = entries.get(mid);
            if (entry.timestamp() <= target) {
                found = entry;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** Drops the entries whose offset is at or past {@code offset} (after the log was truncated there). */
    void truncateTo(long offset) throws IOException {
        dropLast(entry -> entry.offset() >= offset);
    }
}
