package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * One segment of a partition: {@code <baseOffset>.log}, a plain concatenation of v2 batches that
 * Kafka's own dump tool can read ({@link SegmentFile}), its sparse {@code <baseOffset>.index} and
 * its sparse {@code <baseOffset>.timeindex} (given code, {@link TimeIndex}). It knows which offsets
 * its batches hold and where: the next offset, the size, the index entries (Kafka's
 * {@code LogSegment}). Only the newest segment (the active one) is appended to; the others are
 * closed and immutable until retention deletes them or compaction rewrites them (chapter 6). A
 * segment opened from disk is checked, and recovered when it must be, by {@link SegmentRecovery}.
 */
public final class Segment implements Closeable {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    /** Chapter 11's aborted transactions index, Kafka's name: deleted with the segment, written by chapter 11. */
    public static final String TXN_INDEX_SUFFIX = ".txnindex";

    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private final SegmentFile file;
    private OffsetIndex index;
    private TimeIndex timeIndex;
    /** The largest timestamp so far and the last offset of the batch that first reached it (Kafka's maxTimestampAndOffsetSoFar). */
    private TimeIndex.Entry largestSoFar;
    private int size;
    private long nextOffset;
    private long maxTimestamp = BatchHeader.NO_TIMESTAMP;
    private int bytesSinceLastIndexEntry;
    /**
     * The segment's bytes from 0 to here are known good in this broker's life: appended after
     * validation, or read and CRC-checked once by a fetch ({@link FileSlice}); a fetch checks only
     * what lies past it. Bytes this broker did not write (a segment opened from disk) start unchecked.
     */
    private volatile int verifiedEnd;

    private Segment(Path dir, long baseOffset, int indexIntervalBytes, SegmentFile file) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.file = file;
        this.nextOffset = baseOffset;
        this.largestSoFar = new TimeIndex.Entry(BatchHeader.NO_TIMESTAMP, baseOffset);
    }

    /**
     * A segment's file name: its base offset as 20 zero-padded digits, then the suffix, e.g.
     * {@code 00000000000000000042.log}. Twenty digits hold any long, and zero padding makes the
     * names sort in offset order (Kafka's LogFileUtils.filenamePrefixFromOffset).
     */
    public static String fileName(long baseOffset, String suffix) {
        throw new Todo("ch03 task 1: name a segment by its base offset (SegmentFilesTest)");
    }

    /** The base offset a segment file name encodes; empty when the name is not one (wrong suffix, not 20 digits). */
    public static OptionalLong parseBaseOffset(String fileName, String suffix) {
        throw new Todo("ch03 task 1: read a base offset back from a file name (SegmentFilesTest)");
    }

    /**
     * A new, empty segment: its {@code .log}, then its {@code .index}. When either cannot be made
     * (no space, no inodes) the half-made segment is closed and its {@code .log} removed, so a
     * failed roll leaves the old layout; should the removal fail too, {@link LogLoader} recognises
     * an empty segment below the previous one's end as the orphan of a failed roll.
     */
    static Segment create(Path dir, long baseOffset, int indexIntervalBytes) throws IOException {
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes,
                SegmentFile.create(dir.resolve(fileName(baseOffset, LOG_SUFFIX)), recentBytes(indexIntervalBytes)));
        Path failed = segment.indexFile();
        try {
            segment.useIndex(OffsetIndex.create(segment.indexFile(), baseOffset));
            failed = segment.timeIndexFile();
            segment.useTimeIndex(TimeIndex.create(segment.timeIndexFile(), baseOffset));
            return segment;
        } catch (IOException e) {
            segment.closeQuietly();
            try {
                if (segment.index != null) { // the time index failed: the offset index is this roll's too
                    Files.deleteIfExists(segment.indexFile());
                }
                Files.deleteIfExists(segment.logFile());
            } catch (IOException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw new StorageException(failed, e);
        }
    }

    /**
     * An existing segment, checked as {@link SegmentRecovery#load} says: the batches below
     * {@code recoverFrom} (the recovery point) are trusted, the rest recovered; what was cut or
     * rebuilt is added to {@code events}. On failure nothing stays open.
     *
     * @param readOnly open the files for reading only: nothing is cut or rewritten
     */
    static Segment open(Path dir, long baseOffset, int indexIntervalBytes, long recoverFrom, boolean clean,
                        boolean readOnly, List<String> events) throws IOException {
        SegmentFile file = SegmentFile.open(dir.resolve(fileName(baseOffset, LOG_SUFFIX)), readOnly,
                recentBytes(indexIntervalBytes));
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes, file);
        try {
            new SegmentRecovery(segment).load(recoverFrom, clean, readOnly, events);
            // The batches already there were counted without being indexed: the count restarts, as a Kafka
            // LogSegment's starts at 0 when it is opened, so the next entry comes after the interval, not at once.
            segment.bytesSinceLastIndexEntry = 0;
            return segment;
        } catch (IOException | RuntimeException e) {
            segment.closeQuietly();
            throw e;
        }
    }

    /** The span {@link #positionOf} reads at most: one index interval and a header (the file keeps that read). */
    private static int recentBytes(int indexIntervalBytes) {
        return indexIntervalBytes + BatchHeader.SIZE;
    }

    /**
     * Validates the segment batch by batch from the start and truncates the file at the first
     * batch that is torn (a crash mid-write) or corrupt: every complete batch before it survives,
     * nothing after it does. Rebuilds the index on the way. Returns how many bytes were cut.
     */
    public long recover() throws IOException {
        index.truncateToPosition(0);
        timeIndex.truncateToEntries(0);
        resetTo(0);
        return new SegmentRecovery(this).truncateTornTail();
    }

    /** Makes {@code newIndex} this segment's offset index. */
    void useIndex(OffsetIndex newIndex) {
        index = newIndex;
    }

    /** Makes {@code newIndex} this segment's time index, written with every offset index entry from now on. */
    void useTimeIndex(TimeIndex newIndex) {
        timeIndex = newIndex;
        index.onAppend((offset, position) -> timeIndex.maybeAppend(largestSoFar.timestamp(), largestSoFar.offset()));
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
        // A write that fails may leave part of the batch past size: only recovery (after a restart) may cut it.
        file.write(batch, position);
        try {
            track(header, position, true);
        } catch (IOException e) {
            throw new StorageException(indexFile(), e);
        }
    }

    /** Book-keeping after a batch at {@code position}: size, next offset, max timestamp, index. */
    void track(BatchHeader header, int position, boolean indexIt) throws IOException {
        noteLargestTimestamp(header);
        throw new Todo("ch03 task 2: add a sparse index entry every index.interval.bytes (OffsetIndexTest)");
    }

    /**
     * Given code, for the time index: the largest timestamp so far and the batch that first reached
     * it. Kept before the offset index entry is added, so an entry added with this batch's covers it
     * (Kafka's LogSegment.append updates maxTimestampAndOffsetSoFar first, too).
     */
    private void noteLargestTimestamp(BatchHeader header) {
        if (header.maxTimestamp() > largestSoFar.timestamp()) {
            largestSoFar = new TimeIndex.Entry(header.maxTimestamp(), header.lastOffset());
        }
    }

    /**
     * Whether a batch can come next in this segment: its offsets start at or after the segment's
     * next offset, and it {@linkplain #fitsTheIndex fits the index}.
     */
    boolean follows(BatchHeader header) {
        return header.baseOffset() >= nextOffset && fitsTheIndex(header);
    }

    /**
     * Whether the batch's last offset is within 2^31 of the base offset, as an index entry stores
     * offsets relative to it in 4 bytes (Kafka rolls a segment before that would happen).
     */
    boolean fitsTheIndex(BatchHeader header) {
        return header.lastOffset() - baseOffset <= Integer.MAX_VALUE;
    }

    /** The header of the batch at {@code position} (only its 61 bytes are read). */
    public BatchHeader headerAt(long position) throws IOException {
        return file.headerAt(position);
    }

    /** The raw bytes of the batch at {@code position}. */
    public ByteBuffer batchAt(long position) throws IOException {
        return file.batchAt(position, size);
    }

    /**
     * The bytes of the batch at {@code position} after checking them (CRC, records): a batch that
     * fails is thrown as a {@link CorruptRecordException} carrying its bytes and offsets, so that
     * corrupt bytes are never served as if they were good.
     */
    public ByteBuffer validBatchAt(long position) throws IOException {
        return checked(position, batchAt(position));
    }

    /**
     * Up to {@code length} bytes from {@code position}, in one read, never past the segment's end:
     * a fetch reads its whole window at once and walks the batch headers in memory, instead of one
     * read per header (Kafka's FileRecords slices the file the same way).
     */
    public ByteBuffer window(long position, int length) throws IOException {
        return file.read(position, (int) Math.max(0, Math.min(length, size - position)));
    }

    /**
     * {@code bytes}, the batch that starts at {@code position}, after its checks (CRC, records): a
     * batch that fails is thrown as a {@link CorruptRecordException} carrying its bytes and offsets.
     */
    public ByteBuffer checked(long position, ByteBuffer bytes) throws CorruptRecordException {
        // Every batch was validated whole when it was appended (or recovered); what can happen to it
        // at rest shows in its CRC, which covers everything from attributes on. So a read checks the
        // CRC only: no record walk, no copy.
        if (BatchCrc.isValid(bytes)) {
            return bytes;
        }
        CorruptBatchException corrupt = new CorruptBatchException("crc", BatchHeader.CRC_OFFSET, String.format(
                "stored 0x%08x, computed 0x%08x", BatchCrc.stored(bytes), BatchCrc.compute(bytes)));
        BatchHeader header = BatchHeader.readFrom(bytes.duplicate());
        long last = header.baseOffset() + Math.max(0, header.lastOffsetDelta());
        throw new CorruptRecordException(logFile(), position, header.baseOffset(),
                last < header.baseOffset() ? header.baseOffset() : last, bytes, corrupt);
    }

    /**
     * The position of the first batch whose last offset is at or past {@code offset}, or the
     * segment's size when there is none: the index gives a starting point, a scan of batch headers
     * does the rest.
     */
    public int positionOf(long offset) throws IOException {
        throw new Todo("ch03 task 4: from the sparse index to the batch holding an offset (LogReadTest)");
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
        try {
            file.truncate(position);
        } catch (IOException e) {
            throw new StorageException(logFile(), e);
        }
        try {
            index.truncateToPosition(position);
        } catch (IOException e) {
            throw new StorageException(indexFile(), e);
        }
        try {
            timeIndex.truncateTo(offset);
        } catch (IOException e) {
            throw new StorageException(timeIndexFile(), e);
        }
        resetTo(0);
        for (long at = 0; at < position; ) {
            BatchHeader header = headerAt(at);
            track(header, (int) at, false);
            at += header.sizeInBytes();
        }
        // The batches kept were counted without being indexed: the count restarts, as Kafka's
        // LogSegment.truncateTo restarts it, so the next entry comes after the interval, not at once.
        bytesSinceLastIndexEntry = 0;
    }

    /** Forgets every batch from byte {@code newSize} on (the indexes are the caller's). */
    void resetTo(int newSize) {
        file.forgetRecent(); // the bytes it holds may be cut, and others written in their place
        size = newSize;
        nextOffset = baseOffset;
        maxTimestamp = BatchHeader.NO_TIMESTAMP;
        largestSoFar = new TimeIndex.Entry(BatchHeader.NO_TIMESTAMP, baseOffset);
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

    /** The largest timestamp so far as the time index keeps it (given code; -1 when there is none). */
    public long largestTimestampSoFar() {
        return largestSoFar.timestamp();
    }

    /** The largest timestamp of any batch in it (-1 when empty): retention by time compares this (chapter 6). */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    public List<OffsetIndex.Entry> indexEntries() {
        return index.entries();
    }

    public List<TimeIndex.Entry> timeIndexEntries() {
        return timeIndex.entries();
    }

    public Path logFile() {
        return dir.resolve(fileName(baseOffset, LOG_SUFFIX));
    }

    public Path indexFile() {
        return dir.resolve(fileName(baseOffset, INDEX_SUFFIX));
    }

    public Path timeIndexFile() {
        return dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX));
    }

    public Path txnIndexFile() {
        return dir.resolve(fileName(baseOffset, TXN_INDEX_SUFFIX));
    }

    /**
     * The segment stops being the active one (a roll, or a later segment found at open): its time
     * index gets a last entry holding its largest timestamp, when it has none yet (Kafka's
     * LogSegment.onBecomeInactiveSegment), so that the index's last entry is the segment's newest
     * timestamp.
     */
    void onBecomeInactive() throws IOException {
        try {
            timeIndex.maybeAppend(largestSoFar.timestamp(), largestSoFar.offset());
        } catch (IOException e) {
            throw new StorageException(timeIndexFile(), e);
        }
    }

    /**
     * The first record at or after {@code startingOffset} whose timestamp is at or after
     * {@code timestamp}, in offset order; empty when the segment has none (Kafka's
     * LogSegment.findOffsetByTimestamp). The time index gives the last entry at or below the
     * timestamp (every record before its offset is older), the offset index where that offset's
     * batch starts, and the batch headers from there are walked: only a batch whose max timestamp
     * reaches the target is decoded.
     */
    public Optional<TimestampAndOffset> findOffsetByTimestamp(long timestamp, long startingOffset) throws IOException {
        TimeIndex.Entry entry = timeIndex.lookup(timestamp);
        long position = index.lookup(Math.max(entry.offset(), startingOffset)).position();
        while (position < size) {
            BatchHeader header = headerAt(position);
            if (header.maxTimestamp() >= timestamp && header.lastOffset() >= startingOffset) {
                for (Record record : RecordBatch.decode(batchAt(position)).records()) {
                    if (record.timestamp() >= timestamp && record.offset() >= startingOffset) {
                        return Optional.of(new TimestampAndOffset(record.timestamp(), record.offset(),
                                header.partitionLeaderEpoch()));
                    }
                }
            }
            position += header.sizeInBytes();
        }
        return Optional.empty();
    }

    /**
     * The first record holding this segment's largest timestamp; empty when the segment has no
     * timestamp (Kafka's answer to ListOffsets' MAX_TIMESTAMP, KIP-734).
     */
    public Optional<TimestampAndOffset> findLargestTimestamp() throws IOException {
        if (largestSoFar.timestamp() == BatchHeader.NO_TIMESTAMP) {
            return Optional.empty();
        }
        return findOffsetByTimestamp(largestSoFar.timestamp(), baseOffset)
                .filter(found -> found.timestamp() == largestSoFar.timestamp());
    }

    /**
     * A record found by its timestamp: that timestamp, its offset, and the leader epoch of its batch
     * (-1 when none was stamped), as Kafka's ListOffsets answers it.
     */
    public record TimestampAndOffset(long timestamp, long offset, int leaderEpoch) {
    }

    /** The largest timestamp so far and the batch that first reached it, as the time index keeps it. */
    TimeIndex.Entry largestSoFar() {
        return largestSoFar;
    }

    /** The segment's {@code .log} file itself: its channel, the reads it keeps, the sends that hold it open. */
    SegmentFile file() {
        return file;
    }

    void flush() throws IOException {
        file.force();
        try {
            index.flush();
        } catch (IOException e) {
            throw new StorageException(indexFile(), e);
        }
        try {
            timeIndex.flush();
        } catch (IOException e) {
            throw new StorageException(timeIndexFile(), e);
        }
    }

    /**
     * What {@link #flush} forces, each file through a channel of its own opened for this force
     * ({@code fsync} reaches the file, whichever descriptor asks): a thread interrupted in the
     * middle (the ticker, which its broker stops with an interrupt) closes that channel, never the
     * segment's own, which the log's close still needs. An index file not created yet is skipped.
     */
    void forceThroughOwnChannels() throws IOException {
        for (Path path : List.of(logFile(), indexFile(), timeIndexFile())) {
            if (path.equals(logFile()) || Files.exists(path)) {
                try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                    channel.force(true);
                }
            }
        }
    }

    /** How far from the start this segment's bytes are known good (never past its size). */
    int verifiedEnd() {
        return Math.min(verifiedEnd, size);
    }

    /** The bytes {@code [from, to)} are known good: the known-good prefix grows if they continue it. */
    void verifiedThrough(int from, int to) {
        if (from <= verifiedEnd() && to > verifiedEnd) {
            verifiedEnd = to;
        }
    }

    /** Closes the files (the {@code .log} only once the sends holding it are over, see {@link SegmentFile}). */
    @Override
    public void close() throws IOException {
        try {
            file.close();
        } finally {
            try {
                if (index != null) {
                    index.close();
                }
            } finally {
                if (timeIndex != null) {
                    timeIndex.close();
                }
            }
        }
    }

    /** Closes whatever is open, after a failure that is already being thrown. */
    void closeQuietly() {
        try {
            close();
        } catch (IOException ignored) {
            // the failure being thrown says more
        }
    }

    /** Closes and removes its files (chapter 11's {@code .txnindex} too, when it has one). */
    void delete() throws IOException {
        close();
        for (Path file : files()) {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Retention's first step, under the partition's lock: renames each file to
     * {@code <name>.deleted}, the {@code .log} first (Kafka's {@code changeFileSuffixes("", ".deleted")}).
     * A rename is a change of the directory only, no {@code fsync}, no blocks freed; the files stay
     * open, so a send already holding the {@code .log} goes on. {@link #deleteRenamed} removes them
     * later, without the lock; a crash in between leaves {@code .deleted} files, which the next
     * open removes ({@link LogLoader}), and an index still under its own name, an orphan it removes too.
     */
    void renameToDeleted() throws IOException {
        for (Path file : files()) {
            if (file.equals(logFile()) || Files.exists(file)) {
                Files.move(file, deletedFileOf(file), StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    /** Retention's second step, without the partition's lock: closes the files and unlinks the renamed ones. */
    void deleteRenamed() throws IOException {
        close();
        for (Path file : files()) {
            Path deleted = deletedFileOf(file);
            try {
                Files.deleteIfExists(deleted);
            } catch (IOException e) {
                throw new StorageException(deleted, e);
            }
        }
    }

    /** {@code file}'s name once retention renamed it. */
    static Path deletedFileOf(Path file) {
        return file.resolveSibling(file.getFileName() + Log.DELETED_SUFFIX);
    }

    /** Every file a segment may have, the {@code .log} first. */
    private List<Path> files() {
        return List.of(logFile(), indexFile(), timeIndexFile(), txnIndexFile());
    }
}
