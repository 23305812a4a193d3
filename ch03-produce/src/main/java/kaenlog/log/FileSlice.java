package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.CRC32C;
import kaenlog.batch.BatchHeader;

/**
 * Whole batches of a log as ranges of its segment files, not as bytes in memory: what a fetch
 * sends with {@link FileChannel#transferTo} (sendfile), from the page cache to the socket, the
 * way Kafka's {@code FileRecords.writeTo} does. Given code beside chapter 3's {@link Log#read}:
 * the same choice of batches (from {@link Segment#positionOf}, the learner's index lookup, whole
 * batches below the isolation's bound, at most {@code maxBytes}), but the answer is positions.
 *
 * <p>Each batch's CRC is still checked once, as {@link Log#read} checks it (chapter 3: bytes known to
 * be corrupt are never served as good; Kafka leaves that check to the consumer): a batch this
 * broker appended was validated on its way in, and one it finds in a file it did not write (after
 * a restart, a compaction) is read once into a small direct buffer, outside the heap, and its CRC
 * checked; the segment remembers how far its bytes are known good ({@code Segment.verifiedEnd}).
 *
 * <p>A slice holds its segments' files open until {@link #close} (see
 * {@link SegmentFile#retainForSend}): retention may delete a segment and compaction swap it while
 * its bytes are on their way. A follower's truncation shortens the active segment's file in
 * place; {@link #writeTo} then finds fewer bytes than the response announced and fails, and the
 * connection must be closed (a wrong length would desynchronise the client's framing).
 */
public final class FileSlice implements Closeable {
    public static final FileSlice EMPTY = new FileSlice(List.of(), 0, -1);
    /** A transferTo moves at most this much at a time, so the caller sees progress (write timeouts). */
    static final int TRANSFER_CHUNK_BYTES = 256 * 1024;

    private record Region(Segment segment, FileChannel channel, long position, int length) {
    }

    /** Told after every chunk of a send: the connection's write made progress. */
    @FunctionalInterface
    public interface Progress {
        void madeProgress();
    }

    private final List<Region> regions;
    private final int sizeInBytes;
    private final long nextOffset;
    private boolean closed;

    private FileSlice(List<Region> regions, int sizeInBytes, long nextOffset) {
        this.regions = regions;
        this.sizeInBytes = sizeInBytes;
        this.nextOffset = nextOffset;
    }

    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * The offset after the slice's last batch, -1 for an empty slice: where the range a
     * read_committed fetch collects aborted transactions for ends (chapter 11).
     */
    public long nextOffset() {
        return nextOffset;
    }

    /**
     * The batches a fetch at {@code fetchOffset} returns, as file ranges: whole batches below the
     * isolation's bound, at most {@code maxBytes} of them, except that with {@code minOneMessage}
     * the first batch is returned even when it is larger (Kafka's minOneMessage, true only for the
     * first partition of a fetch that has data). Offsets outside the log are an
     * {@link OffsetOutOfRangeException}; a first batch that fails its CRC a
     * {@link CorruptRecordException}, a later one ends the slice before it (the next fetch reports it).
     */
    public static FileSlice read(Log log, long fetchOffset, int maxBytes, FetchIsolation isolation,
                                 boolean minOneMessage) throws IOException {
        if (fetchOffset < log.logStartOffset() || fetchOffset > log.logEndOffset()) {
            throw new OffsetOutOfRangeException(fetchOffset, log.logStartOffset(), log.logEndOffset());
        }
        if (maxBytes <= 0 && !minOneMessage) {
            return EMPTY;
        }
        long bound = log.upperBound(isolation);
        Scan scan = Scan.take();
        List<Region> regions = new ArrayList<>(2);
        try {
            int total = 0;
            for (Segment segment : log.segmentsFrom(fetchOffset)) {
                FileChannel channel = segment.file().retainForSend();
                int start = segment.positionOf(fetchOffset);
                int end = scan.walk(segment, channel, start, bound, maxBytes - total, total == 0 && minOneMessage);
                if (end > start) {
                    regions.add(new Region(segment, channel, start, end - start));
                    total += end - start;
                } else {
                    segment.file().releaseSend();
                }
                if (scan.stopped) {
                    break;
                }
            }
            return regions.isEmpty() ? EMPTY : new FileSlice(regions, total, scan.nextOffset);
        } catch (IOException | RuntimeException e) {
            regions.forEach(r -> r.segment().file().releaseSend());
            throw e;
        } finally {
            Scan.give(scan);
        }
    }

    /**
     * Sends every byte of the slice to {@code out} with transferTo (sendfile on Linux for a socket),
     * or throws: when a file holds fewer bytes than the slice announced (a truncation during the
     * send, Kafka's "Size of FileRecords ... has been truncated during write"), nothing more is sent.
     */
    public void writeTo(WritableByteChannel out, Progress progress) throws IOException {
        for (Region region : regions) {
            long position = region.position();
            long end = position + region.length();
            while (position < end) {
                long sent = region.channel().transferTo(position, Math.min(end - position, TRANSFER_CHUNK_BYTES), out);
                if (sent == 0) { // nothing moved: the file may have ended (only then is its size asked, a system call)
                    long fileSize = region.channel().size();
                    if (fileSize < end) {
                        throw new IOException(region.segment().logFile().getFileName() + " was truncated during a"
                                + " send: " + (end - position) + " byte(s) announced from byte " + position + ", "
                                + Math.max(0, fileSize - position) + " left");
                    }
                }
                position += sent;
                progress.madeProgress();
            }
        }
    }

    /** The slice's bytes in memory (for callers without a channel; the send path never calls it). */
    public ByteBuffer toByteBuffer() throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(sizeInBytes);
        for (Region region : regions) {
            long end = region.position() + region.length();
            for (long position = region.position(); position < end; ) {
                int n = region.channel().read(bytes, position);
                if (n < 0) {
                    throw new IOException(region.segment().logFile().getFileName() + " ends before byte " + end);
                }
                position += n;
            }
        }
        return bytes.flip();
    }

    /** Lets the segments close (idempotent). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            regions.forEach(r -> r.segment().file().releaseSend());
        }
    }

    /**
     * The walk over one segment's batch headers and the CRC check of every batch taken, through one
     * direct buffer (outside the heap), reused by the next fetch.
     */
    private static final class Scan {
        private static final int WINDOW_BYTES = 32 * 1024;
        private static final int KEPT = 16;
        private static final ConcurrentLinkedQueue<Scan> IDLE = new ConcurrentLinkedQueue<>();

        private final ByteBuffer direct = ByteBuffer.allocateDirect(WINDOW_BYTES);
        private final CRC32C crc = new CRC32C();
        /**
         * What the walk reads: {@link #direct}, or the segment's recent window when that already holds
         * the bytes ({@link SegmentFile#recent}: the span positionOf just read), never written.
         */
        private ByteBuffer window = direct;
        /** The file position of the window's first byte; its limit is how much it holds. */
        private long windowStart;
        private FileChannel windowChannel;
        /** The last walk ended before the segment's end: no later segment is read. */
        boolean stopped;
        /** The offset after the last batch any walk of this read took. */
        long nextOffset = -1;

        static Scan take() {
            Scan scan = IDLE.poll();
            return scan != null ? scan : new Scan();
        }

        static void give(Scan scan) {
            scan.windowChannel = null;
            scan.nextOffset = -1;
            scan.window = scan.direct; // not the segment's bytes: they may go
            if (IDLE.size() < KEPT) {
                IDLE.offer(scan);
            }
        }

        /** The position after the last batch taken from {@code segment}, starting at {@code start}. */
        int walk(Segment segment, FileChannel channel, int start, long bound, int budget, boolean minOne)
                throws IOException {
            stopped = true;
            windowChannel = null;
            int size = segment.size();
            int position = start;
            // Reading past the budget (and one more header) is wasted: a fetch of one small batch reads it alone.
            long wanted = (long) start + Math.max(budget, 0) + BatchHeader.SIZE;
            int verified = segment.verifiedEnd();
            int lastBatch = 0;
            while (position < size) {
                // After a large batch only its successor's header is needed, not a window of its records.
                if (!load(segment, channel, position, BatchHeader.SIZE, size, lastBatch > 4096 ? 0 : wanted)) {
                    return firstOrStop(segment, position, start);
                }
                int at = (int) (position - windowStart);
                long baseOffset = window.getLong(at + BatchHeader.BASE_OFFSET_OFFSET);
                int batchBytes = window.getInt(at + BatchHeader.BATCH_LENGTH_OFFSET) + BatchHeader.LOG_OVERHEAD;
                long lastOffset = baseOffset + window.getInt(at + BatchHeader.LAST_OFFSET_DELTA_OFFSET);
                int storedCrc = window.getInt(at + BatchHeader.CRC_OFFSET);
                if (batchBytes < BatchHeader.SIZE || batchBytes > size - position) {
                    return firstOrStop(segment, position, start);
                }
                if (lastOffset >= bound) {
                    return position;
                }
                boolean fits = position - start + batchBytes <= budget || minOne && position == start;
                if (!fits) {
                    return position;
                }
                if (position + batchBytes > verified) {
                    if (!crcHolds(segment, channel, position, batchBytes, storedCrc, size, wanted)) {
                        return firstOrStop(segment, position, start);
                    }
                    segment.verifiedThrough(position, position + batchBytes);
                    verified = segment.verifiedEnd();
                }
                lastBatch = batchBytes;
                position += batchBytes;
                nextOffset = lastOffset + 1;
            }
            stopped = false;
            return position;
        }

        /** A batch that fails: the first one is reported (as Log.read reports it), a later one ends the slice. */
        private int firstOrStop(Segment segment, int position, int start) throws IOException {
            if (position == start) {
                segment.validBatchAt(position); // throws CorruptRecordException (or CorruptBatchException)
                throw new IllegalStateException("the batch at byte " + position + " of " + segment.logFile()
                        .getFileName() + " failed its check here but not in Segment.validBatchAt");
            }
            return position;
        }

        /**
         * Makes the window hold {@code [position, position + length)}, reading up to {@code wanted} (the
         * fetch's budget) when that is more; false when the file ends first. Bytes the segment
         * already holds in memory are not read again.
         */
        private boolean load(Segment segment, FileChannel channel, long position, int length, int size, long wanted)
                throws IOException {
            if (windowChannel == channel && position >= windowStart
                    && position + length <= windowStart + window.limit()) {
                return true;
            }
            windowChannel = channel;
            SegmentFile.Window recent = segment.file().recent();
            if (recent != null && recent.covers(position, length)) {
                window = recent.bytes();
                windowStart = recent.position();
                return true;
            }
            window = direct;
            long read = Math.max(length, wanted - position);
            window.clear().limit((int) Math.min(Math.min(WINDOW_BYTES, size - position), read));
            while (window.hasRemaining()) {
                if (channel.read(window, position + window.position()) < 0) {
                    break;
                }
            }
            window.limit(window.position()).position(0);
            windowStart = position;
            return window.limit() >= length;
        }

        /** CRC-32C of the batch from its attributes to its end, as stored after the header's crc field. */
        private boolean crcHolds(Segment segment, FileChannel channel, long position, int batchBytes, int storedCrc,
                                 int size, long wanted) throws IOException {
            crc.reset();
            long from = position + BatchHeader.ATTRIBUTES_OFFSET;
            long end = position + batchBytes;
            while (from < end) {
                if (!load(segment, channel, from, 1, size, Math.max(wanted, end))) {
                    return false;
                }
                int at = (int) (from - windowStart);
                int n = (int) Math.min(end - from, window.limit() - at);
                crc.update(window.duplicate().position(at).limit(at + n));
                from += n;
            }
            return (int) crc.getValue() == storedCrc;
        }
    }
}
