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
import java.util.OptionalLong;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.FileBatches;
import kaenlog.batch.RecordBatch;

/**
 * One segment of a partition: {@code <baseOffset>.log}, a plain concatenation of v2 batches that
 * Kafka's own dump tool can read, and its sparse {@code <baseOffset>.index}. Only the newest
 * segment (the active one) is appended to; the others are closed and immutable until retention
 * deletes them or compaction rewrites them (chapter 6).
 */
public final class Segment implements Closeable {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";

    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private FileChannel log;
    private OffsetIndex index;
    private int size;
    private long nextOffset;
    private long maxTimestamp = BatchHeader.NO_TIMESTAMP;
    private int bytesSinceLastIndexEntry;

    private Segment(Path dir, long baseOffset, int indexIntervalBytes) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.nextOffset = baseOffset;
    }

    /**
     * A segment's file name: its base offset as 20 zero-padded digits, then the suffix, e.g.
     * {@code 00000000000000000042.log}. Twenty digits hold any long, and zero padding makes the
     * names sort in offset order (Kafka's LogFileUtils.filenamePrefixFromOffset).
     */
    public static String fileName(long baseOffset, String suffix) {
        // BEGIN-SOLUTION ch03 task 1: name a segment by its base offset (SegmentFilesTest)
        return String.format("%020d", baseOffset) + suffix;
        // END-SOLUTION
    }

    /** The base offset a segment file name encodes; empty when the name is not one (wrong suffix, not 20 digits). */
    public static OptionalLong parseBaseOffset(String fileName, String suffix) {
        // BEGIN-SOLUTION ch03 task 1: read a base offset back from a file name (SegmentFilesTest)
        if (!fileName.endsWith(suffix)) {
            return OptionalLong.empty();
        }
        String digits = fileName.substring(0, fileName.length() - suffix.length());
        // ASCII digits only: Character.isDigit and Long.parseLong also accept other scripts' digits.
        if (digits.length() != 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException tooBig) {
            return OptionalLong.empty();
        }
        // END-SOLUTION
    }

    /** A new, empty segment. */
    static Segment create(Path dir, long baseOffset, int indexIntervalBytes) throws IOException {
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes);
        segment.log = FileChannel.open(segment.logFile(), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        segment.index = OffsetIndex.create(segment.indexFile(), baseOffset);
        return segment;
    }

    /**
     * An existing segment. A closed one trusts its bytes (they were validated when written) and
     * reads only batch headers to learn its offsets and timestamps; its index is loaded, or
     * rebuilt when missing or corrupt. The active one is recovered instead: see {@link #recover}.
     */
    static Segment open(Path dir, long baseOffset, int indexIntervalBytes, boolean active) throws IOException {
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes);
        segment.log = FileChannel.open(segment.logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE);
        if (active) {
            segment.index = OffsetIndex.create(segment.indexFile(), baseOffset);
            segment.recover();
            return segment;
        }
        long fileSize = segment.log.size();
        segment.index = OffsetIndex.load(segment.indexFile(), baseOffset, fileSize);
        boolean rebuild = segment.index == null;
        if (rebuild) {
            segment.index = OffsetIndex.create(segment.indexFile(), baseOffset);
        }
        for (long position = 0; position < fileSize; ) {
            BatchHeader header = segment.headerAt(position);
            if (header.magic() != BatchHeader.MAGIC || header.batchLength() < BatchHeader.SIZE - BatchHeader.LOG_OVERHEAD
                    || position + BatchHeader.LOG_OVERHEAD + (long) header.batchLength() > fileSize
                    || header.lastOffsetDelta() < 0
                    || !segment.follows(header)) {
                throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET, "closed segment "
                        + segment.logFile().getFileName() + " has a broken batch at byte " + position);
            }
            segment.track(header, (int) position, rebuild);
            position += header.sizeInBytes();
        }
        return segment;
    }

    /**
     * Validates the segment batch by batch from the start and truncates the file at the first
     * batch that is torn (a crash mid-write) or corrupt: every complete batch before it survives,
     * nothing after it does. Rebuilds the index on the way. Returns how many bytes were cut.
     */
    public long recover() throws IOException {
        index.truncateToPosition(0);
        resetTo(0);
        return truncateTornTail();
    }

    /** The walk of {@link #recover}: size, next offset and index are empty when it starts. */
    private long truncateTornTail() throws IOException {
        // BEGIN-SOLUTION ch03 task 5: recover by truncating a torn tail (RecoveryTest)
        long fileSize = log.size();
        int position = 0;
        while (position < fileSize) {
            BatchHeader header;
            try {
                header = RecordBatch.validate(FileBatches.readAt(log, position, fileSize));
            } catch (CorruptBatchException torn) {
                break;
            }
            if (!follows(header)) {
                break; // the CRC does not cover baseOffset: offsets that go back or leap away are damage
            }
            track(header, position, true);
            position += header.sizeInBytes();
        }
        log.truncate(position);
        return fileSize - position;
        // END-SOLUTION
    }

    /**
     * Whether a batch can come next in this segment: its offsets start at or after the segment's
     * next offset, and its last offset is within 2^31 of the base offset, as an index entry stores
     * offsets relative to it in 4 bytes (Kafka rolls a segment before that would happen).
     */
    private boolean follows(BatchHeader header) {
        return header.baseOffset() >= nextOffset && header.lastOffset() - baseOffset <= Integer.MAX_VALUE;
    }

    /**
     * Writes a batch whose offsets are already final at the end of the file, adding a sparse
     * index entry when more than {@code index.interval.bytes} were written since the last one
     * (Kafka's LogSegment.append: the check comes before the batch's own bytes are counted, so a
     * segment's first batch never gets an entry: position 0 needs none).
     */
    void append(ByteBuffer batch) throws IOException {
        BatchHeader header = BatchHeader.readFrom(batch.duplicate());
        int position = size;
        ByteBuffer bytes = batch.duplicate();
        while (bytes.hasRemaining()) {
            log.write(bytes, position + (batch.remaining() - bytes.remaining()));
        }
        track(header, position, true);
    }

    /** Book-keeping after a batch at {@code position}: size, next offset, max timestamp, index. */
    private void track(BatchHeader header, int position, boolean indexIt) throws IOException {
        // BEGIN-SOLUTION ch03 task 2: add a sparse index entry every index.interval.bytes (OffsetIndexTest)
        if (indexIt && bytesSinceLastIndexEntry > indexIntervalBytes) {
            index.append(header.lastOffset(), position);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += header.sizeInBytes();
        size = position + header.sizeInBytes();
        nextOffset = header.nextOffset();
        maxTimestamp = Math.max(maxTimestamp, header.maxTimestamp());
        // END-SOLUTION
    }

    /** The header of the batch at {@code position} (only its 61 bytes are read). */
    public BatchHeader headerAt(long position) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(BatchHeader.SIZE);
        while (bytes.hasRemaining()) {
            if (log.read(bytes, position + bytes.position()) < 0) {
                throw new CorruptBatchException("batchLength", bytes.position(),
                        "segment " + logFile().getFileName() + " ends inside the batch header at byte " + position);
            }
        }
        return BatchHeader.readFrom(bytes.flip());
    }

    /** The raw bytes of the batch at {@code position}. */
    public ByteBuffer batchAt(long position) throws IOException {
        return FileBatches.readAt(log, position, size);
    }

    /**
     * The position of the first batch whose last offset is at or past {@code offset}, or the
     * segment's size when there is none: the index gives a starting point, a scan of batch headers
     * does the rest.
     */
    public int positionOf(long offset) throws IOException {
        // BEGIN-SOLUTION ch03 task 4: from the sparse index to the batch holding an offset (LogReadTest)
        long position = index.lookup(offset).position();
        while (position < size) {
            BatchHeader header = headerAt(position);
            if (header.lastOffset() >= offset) {
                return (int) position;
            }
            position += header.sizeInBytes();
        }
        return size;
        // END-SOLUTION
    }

    /** Every batch, decoded, oldest first (chapter 6 compacts them, chapter 7 rebuilds state from them). */
    public List<RecordBatch> batches() throws IOException {
        List<RecordBatch> batches = new ArrayList<>();
        for (long position = 0; position < size; ) {
            ByteBuffer bytes = batchAt(position);
            batches.add(RecordBatch.decode(bytes));
            position += bytes.limit();
        }
        return batches;
    }

    /** Every batch header, oldest first, reading 61 bytes a batch. */
    public List<BatchHeader> headers() throws IOException {
        List<BatchHeader> headers = new ArrayList<>();
        for (long position = 0; position < size; ) {
            BatchHeader header = headerAt(position);
            headers.add(header);
            position += header.sizeInBytes();
        }
        return headers;
    }

    /** Removes every batch whose last offset is at or past {@code offset}. */
    void truncateTo(long offset) throws IOException {
        int position = positionOf(offset);
        log.truncate(position);
        index.truncateToPosition(position);
        resetTo(0);
        for (long at = 0; at < position; ) {
            BatchHeader header = headerAt(at);
            track(header, (int) at, false);
            at += header.sizeInBytes();
        }
    }

    private void resetTo(int newSize) {
        size = newSize;
        nextOffset = baseOffset;
        maxTimestamp = BatchHeader.NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
    }

    public long baseOffset() {
        return baseOffset;
    }

    /** The offset after the segment's last batch; the base offset while it is empty. */
    public long nextOffset() {
        return nextOffset;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The largest timestamp of any batch in it (-1 when empty): retention by time compares this (chapter 6). */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    public List<OffsetIndex.Entry> indexEntries() {
        return index.entries();
    }

    public Path logFile() {
        return dir.resolve(fileName(baseOffset, LOG_SUFFIX));
    }

    public Path indexFile() {
        return dir.resolve(fileName(baseOffset, INDEX_SUFFIX));
    }

    void flush() throws IOException {
        log.force(true);
        index.flush();
    }

    @Override
    public void close() throws IOException {
        log.close();
        index.close();
    }

    /** Closes and removes both files. */
    void delete() throws IOException {
        close();
        Files.deleteIfExists(logFile());
        Files.deleteIfExists(indexFile());
    }
}
