package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

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
public final class OffsetIndex implements Closeable {
    public static final int ENTRY_SIZE = 8;

    /** One index entry: the last offset of a batch and the file position where the batch starts. */
    public record Entry(long offset, int position) {
    }

    private final Path file;
    private final long baseOffset;
    private final List<Entry> entries = new ArrayList<>();
    private FileChannel channel;
    private AppendListener listener;

    /** Told of every entry added, after it is written: the segment writes its time index entry with it. */
    @FunctionalInterface
    interface AppendListener {
        void appended(long offset, int position) throws IOException;
    }

    private OffsetIndex(Path file, long baseOffset) {
        this.file = file;
        this.baseOffset = baseOffset;
    }

    /** An empty index, replacing whatever file was there. */
    static OffsetIndex create(Path file, long baseOffset) throws IOException {
        OffsetIndex index = new OffsetIndex(file, baseOffset);
        index.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING);
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
        if (!Files.exists(file)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length % ENTRY_SIZE != 0) {
            return null;
        }
        OffsetIndex index = new OffsetIndex(file, baseOffset);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        while (in.hasRemaining()) {
            Entry entry = new Entry(baseOffset + in.getInt(), in.getInt());
            Entry last = index.lastEntry();
            boolean grows = last == null || (entry.offset() > last.offset() && entry.position() > last.position());
            if (!grows || entry.offset() < baseOffset || entry.position() < 0 || entry.position() >= logSize) {
                return null;
            }
            index.entries.add(entry);
        }
        if (Files.isWritable(file)) { // read-only, the entries are kept in memory only
            index.channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
            index.channel.position(index.channel.size());
        }
        return index;
    }

    /** Adds an entry; offsets and positions only grow. */
    public void append(long offset, int position) throws IOException {
        Entry last = lastEntry();
        if (last != null && (offset <= last.offset() || position <= last.position())) {
            throw new IllegalArgumentException("index entries must grow: " + offset + "@" + position
                    + " after " + last.offset() + "@" + last.position());
        }
        ByteBuffer entry = ByteBuffer.allocate(ENTRY_SIZE);
        entry.putInt(Math.toIntExact(offset - baseOffset)).putInt(position).flip();
        while (channel != null && entry.hasRemaining()) {
            channel.write(entry);
        }
        entries.add(new Entry(offset, position));
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
        while (!entries.isEmpty() && lastEntry().position() >= position) {
            entries.remove(entries.size() - 1);
        }
        if (channel != null) {
            channel.truncate((long) entries.size() * ENTRY_SIZE);
            channel.position(channel.size());
        }
    }

    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    public Path file() {
        return file;
    }

    private Entry lastEntry() {
        return entries.isEmpty() ? null : entries.get(entries.size() - 1);
    }

    void flush() throws IOException {
        if (channel != null) {
            channel.force(true);
        }
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }
}
