package kaenlog.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A segment's sparse offset index ({@code NNN.index}): entries of (offset, position), 8 bytes each on
 * disk (offset relative to the segment's base as int32, file position as int32), as in Kafka's
 * OffsetIndex. Sparse on purpose: an entry only every {@code index.interval.bytes} of batches, so
 * the index stays small enough to keep in memory; a lookup finds the nearest entry at or before
 * the target and the reader scans forward from there.
 *
 * <p>Like Kafka (LogSegment.append), an entry names a batch's LAST offset and the position where
 * that batch starts.
 */
public final class OffsetIndex extends IndexFile<OffsetIndex.Entry> {
    public static final int ENTRY_SIZE = 8;

    /** One index entry: the last offset of a batch and the file position where the batch starts. */
    public record Entry(long offset, int position) {
    }

    private AppendListener listener;

    /** Told of every entry added, after it is written: the segment writes its time index entry with it. */
    @FunctionalInterface
    interface AppendListener {
        void appended(long offset, int position) throws IOException;
    }

    private OffsetIndex(Path file, long baseOffset) {
        super(file, baseOffset, ENTRY_SIZE);
    }

    /** An empty index, replacing whatever file was there. */
    static OffsetIndex create(Path file, long baseOffset) throws IOException {
        OffsetIndex index = new OffsetIndex(file, baseOffset);
        index.createFile();
        return index;
    }

    /**
     * An index kept in memory only, never written: a read-only log rebuilds a damaged index this way.
     */
    static OffsetIndex inMemory(Path file, long baseOffset) {
        return new OffsetIndex(file, baseOffset);
    }

    /**
     * The index stored in {@code file}, or null when it is missing or cannot be right for a log of
     * {@code logSize} bytes (a partial entry, offsets that do not grow, positions past the end):
     * the caller then rebuilds it from the log.
     */
    static OffsetIndex load(Path file, long baseOffset, long logSize) throws IOException {
        ByteBuffer in = storedEntries(file, ENTRY_SIZE);
        if (in == null) {
            return null;
        }
        OffsetIndex index = new OffsetIndex(file, baseOffset);
        while (in.hasRemaining()) {
            Entry entry = new Entry(baseOffset + in.getInt(), in.getInt());
            Entry last = index.lastEntry();
            boolean grows = last == null || (entry.offset() > last.offset() && entry.position() > last.position());
            if (!grows || entry.offset() < baseOffset || entry.position() < 0 || entry.position() >= logSize) {
                return null;
            }
            index.entries.add(entry);
        }
        index.openForAppend();
        return index;
    }

    /** Adds an entry; offsets and positions only grow. */
    public void append(long offset, int position) throws IOException {
        Entry last = lastEntry();
        if (last != null && (offset <= last.offset() || position <= last.position())) {
            throw new IllegalArgumentException("index entries must grow: " + offset + "@" + position
                    + " after " + last.offset() + "@" + last.position());
        }
        add(new Entry(offset, position), ByteBuffer.allocate(ENTRY_SIZE)
                .putInt(Math.toIntExact(offset - baseOffset)).putInt(position).flip());
        if (listener != null) {
            listener.appended(offset, position);
        }
    }

    /**
     * From now on {@code listener} is told of every entry added (Kafka's LogSegment.append writes the
     * time index entry right after the offset index entry, under the same index.interval.bytes rule).
     */
    void onAppend(AppendListener newListener) {
        this.listener = newListener;
    }

    /**
     * The entry with the largest offset at or below {@code target}, or (baseOffset, 0) when every
     * entry is above it: where a reader starts scanning for the batch holding {@code target}.
     * Binary search: the index is sorted by offset.
     */
    public Entry lookup(long target) {
        // BEGIN-SOLUTION ch03 task 2: find the nearest entry at or before an offset (OffsetIndexTest)
        int low = 0;
        int high = entries.size() - 1;
        Entry found = new Entry(baseOffset, 0);
        while (low <= high) {
            int mid = (low + high) >>> 1;
            Entry entry = entries.get(mid);
            if (entry.offset() <= target) {
                found = entry;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
        // END-SOLUTION
    }

    /** Drops the entries of batches at or past {@code position} (after the log was truncated there). */
    void truncateToPosition(int position) throws IOException {
        dropLast(entry -> entry.position() >= position);
    }
}
