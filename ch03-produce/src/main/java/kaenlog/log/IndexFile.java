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
import java.util.function.Predicate;

/**
 * What a segment's two indexes share (Kafka's AbstractIndex, without the memory map): a file of
 * fixed-size entries, all kept in memory in order and appended to the file as they are added. An
 * index without a file (a read-only log's, rebuilt from the log) keeps its entries in memory only.
 * Given code: no task.
 */
abstract class IndexFile<E> implements Closeable {
    private final Path file;
    private final int entrySize;
    final long baseOffset;
    final List<E> entries = new ArrayList<>();
    private FileChannel channel;

    IndexFile(Path file, long baseOffset, int entrySize) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySize = entrySize;
    }

    /** Opens an empty file for this index, replacing whatever file was there. */
    final void createFile() throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * The stored entries' bytes, or null when the file is missing or holds a partial entry (Kafka's
     * sanity check: a size that is no multiple of the entry size): the caller rebuilds from the log.
     */
    static ByteBuffer storedEntries(Path file, int entrySize) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(file);
        return bytes.length % entrySize == 0 ? ByteBuffer.wrap(bytes) : null;
    }

    /** After a load: later entries are appended to the file, unless it is read-only (memory only then). */
    final void openForAppend() throws IOException {
        if (Files.isWritable(file)) {
            channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
            channel.position(channel.size());
        }
    }

    /** Adds {@code entry}, whose {@code entrySize} bytes are {@code bytes} (flipped): to the file, then to memory. */
    final void add(E entry, ByteBuffer bytes) throws IOException {
        while (channel != null && bytes.hasRemaining()) {
            channel.write(bytes);
        }
        entries.add(entry);
    }

    /** Drops the last entries for as long as {@code past} holds (after the log was truncated). */
    final void dropLast(Predicate<E> past) throws IOException {
        int keep = entries.size();
        while (keep > 0 && past.test(entries.get(keep - 1))) {
            keep--;
        }
        truncateToEntries(keep);
    }

    /** Keeps the first {@code count} entries. */
    final void truncateToEntries(int count) throws IOException {
        while (entries.size() > count) {
            entries.remove(entries.size() - 1);
        }
        if (channel != null) {
            channel.truncate((long) entries.size() * entrySize);
            channel.position(channel.size());
        }
    }

    public final List<E> entries() {
        return List.copyOf(entries);
    }

    public final Path file() {
        return file;
    }

    final E lastEntry() {
        return entries.isEmpty() ? null : entries.get(entries.size() - 1);
    }

    final void flush() throws IOException {
        if (channel != null) {
            channel.force(true);
        }
    }

    @Override
    public final void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }
}
