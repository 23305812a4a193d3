package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.FileBatches;

/**
 * A segment's {@code .log} file as bytes: reads at a position, writes, truncation, and the life of
 * its channel while sends hold it open. It knows nothing of offsets or indexes; its {@link Segment}
 * does, and says up to which byte the file holds whole batches. Kafka splits a segment the same
 * way: {@code FileRecords} is the file, {@code LogSegment} the offsets and indexes around it.
 */
final class SegmentFile implements Closeable {
    private final Path path;
    private final FileChannel channel;
    /** A read of at most this many bytes is kept as {@link #recent}. */
    private final int recentBytes;
    /**
     * The last small read (at most {@link #recentBytes}: an index interval and a header, the span
     * {@link Segment#positionOf} reads). The fetch that called positionOf reads the same span again
     * right after (Log.read's window, FileSlice's header walk), and a consumer at the end of the
     * log asks for the same few KiB fetch after fetch: served from here, those reads cost no system
     * call. Its bytes lay below the segment's size when read, and those never change until a
     * truncation, which drops it ({@link #forgetRecent}); they are only ever read, never written.
     */
    private volatile Window recent;
    /** Sends holding the channel open ({@link #retainForSend}); guarded by this file's monitor. */
    private int sends;
    private boolean closeAfterSends;

    private SegmentFile(Path path, FileChannel channel, int recentBytes) {
        this.path = path;
        this.channel = channel;
        this.recentBytes = recentBytes;
    }

    /** A new, empty file; one already there is an error (a segment is never created twice). */
    static SegmentFile create(Path path, int recentBytes) throws StorageException {
        try {
            return new SegmentFile(path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), recentBytes);
        } catch (IOException e) {
            throw new StorageException(path, e);
        }
    }

    /** An existing file, for reading only when {@code readOnly}. */
    static SegmentFile open(Path path, boolean readOnly, int recentBytes) throws IOException {
        FileChannel channel = readOnly ? FileChannel.open(path, StandardOpenOption.READ)
                : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new SegmentFile(path, channel, recentBytes);
    }

    Path path() {
        return path;
    }

    /** The channel itself, for recovery's walk over what the file holds past the segment's size. */
    FileChannel channel() {
        return channel;
    }

    /** How many bytes the file holds (a system call): more than the segment's size after a torn write. */
    long fileSize() throws IOException {
        return channel.size();
    }

    /** The header of the batch at {@code position} (only its 61 bytes are read). */
    BatchHeader headerAt(long position) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(BatchHeader.SIZE);
        while (bytes.hasRemaining()) {
            if (channel.read(bytes, position + bytes.position()) < 0) {
                throw new CorruptBatchException("batchLength", bytes.position(),
                        "segment " + path.getFileName() + " ends inside the batch header at byte " + position);
            }
        }
        return BatchHeader.readFrom(bytes.flip());
    }

    /** The raw bytes of the batch at {@code position}, in a file whose whole batches end at {@code end}. */
    ByteBuffer batchAt(long position, long end) throws IOException {
        return FileBatches.readAt(channel, position, end);
    }

    /**
     * {@code length} bytes from {@code position} in one read (fewer when the file ends first), from
     * {@link #recent} when it holds them.
     */
    ByteBuffer read(long position, int length) throws IOException {
        Window last = recent;
        if (last != null && last.covers(position, length)) {
            return last.slice(position, length);
        }
        ByteBuffer bytes = ByteBuffer.allocate(length);
        while (bytes.hasRemaining()) {
            if (channel.read(bytes, position + bytes.position()) < 0) {
                break;
            }
        }
        bytes.flip();
        if (bytes.limit() > 0 && bytes.limit() <= recentBytes) {
            recent = new Window(position, bytes.duplicate());
        }
        return bytes;
    }

    /**
     * Bytes of the file from {@code position}, kept in memory: {@link #recent}. A window handed out
     * is a slice of them (its own position and limit, the same bytes).
     */
    record Window(long position, ByteBuffer bytes) {
        boolean covers(long from, int length) {
            return from >= position && from + length <= position + bytes.limit();
        }

        ByteBuffer slice(long from, int length) {
            return bytes.slice((int) (from - position), length);
        }
    }

    /** The bytes the last small {@link #read} kept, or null (FileSlice walks its headers from there). */
    Window recent() {
        return recent;
    }

    /** The bytes {@link #recent} holds may be cut, and others written in their place. */
    void forgetRecent() {
        recent = null;
    }

    /** Writes all of {@code bytes} at {@code position}; a failure may leave part of them in the file. */
    void write(ByteBuffer bytes, long position) throws StorageException {
        ByteBuffer left = bytes.duplicate();
        try {
            while (left.hasRemaining()) {
                channel.write(left, position + (bytes.remaining() - left.remaining()));
            }
        } catch (IOException e) {
            throw new StorageException(path, e);
        }
    }

    /** Cuts the file to {@code size} bytes. */
    void truncate(long size) throws IOException {
        forgetRecent();
        channel.truncate(size);
    }

    /** Forces what was written to the disk ({@code fsync}). */
    void force() throws StorageException {
        try {
            channel.force(true);
        } catch (IOException e) {
            throw new StorageException(path, e);
        }
    }

    /**
     * Holds the channel open for a send ({@link FileSlice}): until {@link #releaseSend}, a close
     * (retention deleting the segment, compaction swapping it, the partition closing) leaves the
     * channel open, so the bytes a response announced can still be sent; a deleted file stays
     * readable while a descriptor holds it. Fails once the file is closed.
     */
    synchronized FileChannel retainForSend() throws ClosedChannelException {
        if (closeAfterSends || !channel.isOpen()) {
            throw new ClosedChannelException();
        }
        sends++;
        return channel;
    }

    /** The send is over; the last one closes the channel if the file was closed meanwhile. */
    synchronized void releaseSend() {
        if (--sends == 0 && closeAfterSends) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was written through this channel since the close that was asked for
            }
        }
    }

    /** Closes the channel now, or after the last send that holds it. */
    @Override
    public synchronized void close() throws IOException {
        if (sends > 0) {
            closeAfterSends = true;
        } else {
            channel.close();
        }
    }
}
