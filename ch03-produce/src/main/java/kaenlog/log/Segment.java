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
import java.util.Optional;
import java.util.OptionalLong;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.FileBatches;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * One segment of a partition: {@code <baseOffset>.log}, a plain concatenation of v2 batches that
 * Kafka's own dump tool can read, its sparse {@code <baseOffset>.index} and its sparse
 * {@code <baseOffset>.timeindex} (given code, {@link TimeIndex}). Only the newest
 * segment (the active one) is appended to; the others are closed and immutable until retention
 * deletes them or compaction rewrites them (chapter 6).
 */
public final class Segment implements Closeable {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";

    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private FileChannel log;
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
    /**
     * The last {@link #window} read of at most one index interval and a header (the span
     * {@link #positionOf} reads): the fetch that called positionOf reads the same span again right
     * after (Log.read's window, FileSlice's header walk), and a consumer at the end of the log asks
     * for the same few KiB fetch after fetch. Served from here, those reads cost no system call.
     * Its bytes were below {@link #size} when read, and those never change until a truncation,
     * which drops it ({@link #resetTo}); they are only ever read, never written.
     */
    private volatile Window recent;
    /** Sends holding the log channel open ({@link #retainForSend}); guarded by this segment's monitor. */
    private int sends;
    private boolean closeAfterSends;

    private Segment(Path dir, long baseOffset, int indexIntervalBytes) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
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
     * failed roll leaves the old layout; should the removal fail too, {@code Log.open} recognises
     * an empty segment below the previous one's end as the orphan of a failed roll.
     */
    static Segment create(Path dir, long baseOffset, int indexIntervalBytes) throws IOException {
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes);
        try {
            segment.log = FileChannel.open(segment.logFile(), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StorageException(segment.logFile(), e);
        }
        Path failed = segment.indexFile();
        try {
            segment.index = OffsetIndex.create(segment.indexFile(), baseOffset);
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
     * An existing segment. Batches whose last offset is below {@code recoverFrom} (the recovery
     * point: they were flushed, or the log was shut down cleanly) are trusted: only their headers
     * are read, to learn offsets and timestamps. The batches from there on are recovered: checked
     * batch by batch and cut at the first bad one (see {@link #recover}); what was cut is added to
     * {@code events}. The index is loaded and checked against the batches it points at, or rebuilt
     * (always, when anything was recovered). On failure nothing stays open.
     *
     * <p>A damaged header in the trusted part is thrown as a {@link CorruptBatchException} after
     * a clean shutdown: those bytes may hold acknowledged records, and cutting them is not
     * recovery. After an unclean one, recovery starts there instead (a torn tail that a failed
     * write left behind in a segment that was rolled afterwards).
     *
     * @param readOnly open the files for reading only: nothing is cut or rewritten, the index
     *                 lives in memory when it has to be rebuilt
     */
    static Segment open(Path dir, long baseOffset, int indexIntervalBytes, long recoverFrom, boolean clean,
                        boolean readOnly, List<String> events) throws IOException {
        Segment segment = new Segment(dir, baseOffset, indexIntervalBytes);
        try {
            segment.load(recoverFrom, clean, readOnly, events);
            return segment;
        } catch (IOException | RuntimeException e) {
            segment.closeQuietly();
            throw e;
        }
    }

    private void load(long recoverFrom, boolean clean, boolean readOnly, List<String> events) throws IOException {
        log = readOnly ? FileChannel.open(logFile(), StandardOpenOption.READ)
                : FileChannel.open(logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE);
        long fileSize = log.size();
        OffsetIndex stored = OffsetIndex.load(indexFile(), baseOffset, fileSize);
        // Read-only, nothing can be cut: the segment ends before its first broken header, and a
        // batch whose CRC fails is reported when it is read.
        long trustedEnd = readOnly ? scanTrusted(fileSize, Long.MAX_VALUE, false)
                : scanTrusted(fileSize, recoverFrom, clean);
        boolean recovering = trustedEnd < fileSize && !readOnly;
        if (readOnly && trustedEnd < fileSize) {
            events.add("read-only: " + logFile().getFileName() + " is read up to byte " + trustedEnd + "; the "
                    + (fileSize - trustedEnd) + " byte(s) after it do not start a whole batch and are not served");
        }
        if (stored != null && !recovering && agrees(stored)) {
            index = stored;
            loadTimeIndex(readOnly, events);
            return;
        }
        if (stored != null) {
            stored.close();
            if (!recovering) {
                events.add("index " + indexFile().getFileName() + " does not match its log (an entry points at no"
                        + " batch holding its offset): rebuilt from the log");
            }
        }
        index = readOnly ? OffsetIndex.inMemory(indexFile(), baseOffset) : OffsetIndex.create(indexFile(), baseOffset);
        useTimeIndex(readOnly ? TimeIndex.inMemory(timeIndexFile(), baseOffset)
                : TimeIndex.create(timeIndexFile(), baseOffset));
        resetTo(0);
        scanTrusted(trustedEnd, Long.MAX_VALUE, false);
        if (recovering) {
            recoverTail(fileSize, events);
        }
    }

    /**
     * Reads batch headers from byte 0 up to the first batch whose last offset reaches
     * {@code recoverFrom}, checking only what a header can show (magic, a length that fits, offsets
     * that grow). Returns where it stopped. With {@code clean}, a broken header is thrown; else
     * recovery takes over from it.
     */
    private long scanTrusted(long end, long recoverFrom, boolean clean) throws IOException {
        boolean indexIt = index != null;
        for (long position = 0; position < end; ) {
            BatchHeader header = wholeHeaderAt(position, end);
            if (header == null && clean) {
                throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET, "segment "
                        + logFile().getFileName() + " has a broken batch at byte " + position + " after a clean shutdown:"
                        + " not cut, as it may hold acknowledged records");
            }
            if (header == null || header.lastOffset() >= recoverFrom) {
                return position;
            }
            track(header, (int) position, indexIt);
            position += header.sizeInBytes();
        }
        return end;
    }

    /**
     * The header at {@code position} when it looks like one of a whole batch that can come next
     * (magic, a length that fits before {@code end}, offsets that grow); null otherwise. The CRC is
     * not checked: only the header is read.
     */
    private BatchHeader wholeHeaderAt(long position, long end) throws IOException {
        if (end - position < BatchHeader.SIZE) {
            return null;
        }
        BatchHeader header = headerAt(position);
        try {
            boolean whole = header.magic() == BatchHeader.MAGIC
                    && header.batchLength() >= BatchHeader.SIZE - BatchHeader.LOG_OVERHEAD
                    && position + BatchHeader.LOG_OVERHEAD + (long) header.batchLength() <= end
                    && header.lastOffsetDelta() >= 0 && follows(header);
            return whole ? header : null;
        } catch (CorruptBatchException overflows) {
            return null; // a last offset past Long.MAX_VALUE
        }
    }

    /** {@link #wholeHeaderAt} without the rule that offsets grow: a survey, not a check. */
    private BatchHeader wholeHeaderAtAnyOffset(long position, long end) throws IOException {
        long savedNext = nextOffset;
        nextOffset = Long.MIN_VALUE;
        try {
            return wholeHeaderAt(position, end);
        } finally {
            nextOffset = savedNext;
        }
    }

    /** Whether every entry of a stored index points at the start of a batch whose last offset it names. */
    private boolean agrees(OffsetIndex stored) throws IOException {
        for (OffsetIndex.Entry entry : stored.entries()) {
            BatchHeader header = entry.position() < size ? wholeHeaderAtAnyOffset(entry.position(), size) : null;
            if (header == null || header.lastOffset() != entry.offset()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The offset index was kept: the stored time index is kept too when it passes its sanity check
     * ({@link TimeIndex#load}) and holds exactly the entries appending would have written for these
     * batches (a time index is cheap to check: the batch headers were read anyway); missing or
     * failing, it is rebuilt from the batch headers, an entry with each offset index entry.
     */
    private void loadTimeIndex(boolean readOnly, List<String> events) throws IOException {
        List<TimeIndex.Entry> expected = timeIndexFromLog();
        TimeIndex stored = TimeIndex.load(timeIndexFile(), baseOffset, nextOffset, largestSoFar.timestamp());
        if (stored != null && writtenByAppending(stored.entries(), expected)) {
            useTimeIndex(stored);
            return;
        }
        if (stored != null) {
            stored.close();
        }
        if (Files.exists(timeIndexFile())) {
            events.add("time index " + timeIndexFile().getFileName() + " fails its sanity check (a partial entry, or"
                    + " entries that do not match its log's batches): rebuilt from the log");
        }
        useTimeIndex(readOnly ? TimeIndex.inMemory(timeIndexFile(), baseOffset)
                : TimeIndex.create(timeIndexFile(), baseOffset));
        for (TimeIndex.Entry entry : expected) {
            timeIndex.maybeAppend(entry.timestamp(), entry.offset());
        }
    }

    /** The entries appending wrote with the offset index's entries, replayed over the batch headers. */
    private List<TimeIndex.Entry> timeIndexFromLog() throws IOException {
        List<TimeIndex.Entry> entries = new ArrayList<>();
        List<OffsetIndex.Entry> indexed = index.entries();
        int next = 0;
        long largest = BatchHeader.NO_TIMESTAMP;
        long offsetOfLargest = baseOffset;
        for (long position = 0; position < size && next < indexed.size(); ) {
            BatchHeader header = headerAt(position);
            if (header.maxTimestamp() > largest) {
                largest = header.maxTimestamp();
                offsetOfLargest = header.lastOffset();
            }
            if (indexed.get(next).position() == position) {
                if (largest != BatchHeader.NO_TIMESTAMP
                        && (entries.isEmpty() || largest > entries.get(entries.size() - 1).timestamp())) {
                    entries.add(new TimeIndex.Entry(largest, offsetOfLargest));
                }
                next++;
            }
            position += header.sizeInBytes();
        }
        return entries;
    }

    /** {@code stored} is {@code expected}, or {@code expected} and the last entry a roll adds (the segment's largest timestamp). */
    private boolean writtenByAppending(List<TimeIndex.Entry> stored, List<TimeIndex.Entry> expected) {
        if (stored.equals(expected)) {
            return true;
        }
        TimeIndex.Entry rolled = largestSoFar;
        boolean above = expected.isEmpty() || rolled.timestamp() > expected.get(expected.size() - 1).timestamp();
        return above && stored.size() == expected.size() + 1 && stored.subList(0, expected.size()).equals(expected)
                && stored.get(expected.size()).equals(rolled);
    }

    /** Makes {@code index} this segment's time index, written with every offset index entry from now on. */
    private void useTimeIndex(TimeIndex newIndex) {
        timeIndex = newIndex;
        index.onAppend((offset, position) -> timeIndex.maybeAppend(largestSoFar.timestamp(), largestSoFar.offset()));
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

    /**
     * Recovers the batches after the trusted ones and says what was cut: the file, the byte, the
     * whole batches (how many, which offsets) and the torn bytes after them.
     */
    private void recoverTail(long fileSize, List<String> events) throws IOException {
        // Before the cut: where the batches after the trusted ones start, as their headers say.
        List<Long> starts = new ArrayList<>();
        List<BatchHeader> headers = new ArrayList<>();
        long wholeEnd = size;
        for (long at = size; ; ) {
            BatchHeader h = wholeHeaderAtAnyOffset(at, fileSize);
            if (h == null) {
                break;
            }
            starts.add(at);
            headers.add(h);
            at += h.sizeInBytes();
            wholeEnd = at;
        }
        long cut = truncateTornTail();
        if (cut == 0) {
            return;
        }
        List<BatchHeader> lost = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            if (starts.get(i) >= size) {
                lost.add(headers.get(i));
            }
        }
        StringBuilder line = new StringBuilder("recovery cut " + logFile().getFileName() + " at byte " + size + ": "
                + cut + " byte(s)");
        if (!lost.isEmpty()) {
            BatchHeader last = lost.get(lost.size() - 1);
            line.append(", ").append(lost.size()).append(" whole batch(es) with offsets ").append(lost.get(0).baseOffset())
                    .append("..").append(last.baseOffset() + last.lastOffsetDelta()).append(" (the first fails its checks)");
        }
        long torn = size + cut - Math.max(wholeEnd, size);
        if (torn > 0) {
            line.append(", ").append(torn).append(" byte(s) that are no whole batch");
        }
        events.add(line.append("; the segment goes on at offset ").append(nextOffset).toString());
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
        return truncateTornTail();
    }

    /**
     * The walk of {@link #recover}: it starts at the segment's current {@link #size} (0, or the end
     * of the batches below the recovery point, already checked), with next offset and index up to
     * there.
     */
    private long truncateTornTail() throws IOException {
        throw new Todo("ch03 task 5: recover by truncating a torn tail (RecoveryTest)");
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
        try {
            while (bytes.hasRemaining()) {
                log.write(bytes, position + (batch.remaining() - bytes.remaining()));
            }
        } catch (IOException e) {
            // Part of the batch may be in the file past size: only recovery (after a restart) may cut it.
            throw new StorageException(logFile(), e);
        }
        try {
            track(header, position, true);
        } catch (IOException e) {
            throw new StorageException(indexFile(), e);
        }
    }

    /** Book-keeping after a batch at {@code position}: size, next offset, max timestamp, index. */
    private void track(BatchHeader header, int position, boolean indexIt) throws IOException {
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
        int wanted = (int) Math.max(0, Math.min(length, size - position));
        Window last = recent;
        if (last != null && last.covers(position, wanted)) {
            return last.slice(position, wanted);
        }
        ByteBuffer bytes = ByteBuffer.allocate(wanted);
        while (bytes.hasRemaining()) {
            if (log.read(bytes, position + bytes.position()) < 0) {
                break;
            }
        }
        bytes.flip();
        if (bytes.limit() > 0 && bytes.limit() <= indexIntervalBytes + BatchHeader.SIZE) {
            recent = new Window(position, bytes.duplicate());
        }
        return bytes;
    }

    /**
     * Bytes of the segment file from {@code position}, kept in memory: {@link #recent}. A window
     * handed out is a slice of them (its own position and limit, the same bytes).
     */
    record Window(long position, ByteBuffer bytes) {
        boolean covers(long from, int length) {
            return from >= position && from + length <= position + bytes.limit();
        }

        ByteBuffer slice(long from, int length) {
            return bytes.slice((int) (from - position), length);
        }
    }

    /** The bytes the last small {@link #window} read, or null (FileSlice walks its headers from there). */
    Window recentWindow() {
        return recent;
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
        recent = null; // its bytes may be cut
        try {
            log.truncate(position);
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
    }

    private void resetTo(int newSize) {
        recent = null; // the bytes it holds may be cut, and others written in their place
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

    void flush() throws IOException {
        try {
            log.force(true);
        } catch (IOException e) {
            throw new StorageException(logFile(), e);
        }
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
     * Holds the segment's file open for a send ({@link FileSlice}): until {@link #releaseSend}, a
     * close (retention deleting the segment, compaction swapping it, the partition closing) leaves
     * the channel open, so the bytes a response announced can still be sent; a deleted file stays
     * readable while a descriptor holds it. Fails once the segment is closed.
     */
    synchronized FileChannel retainForSend() throws java.nio.channels.ClosedChannelException {
        if (closeAfterSends || log == null || !log.isOpen()) {
            throw new java.nio.channels.ClosedChannelException();
        }
        sends++;
        return log;
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

    /** The send is over; the last one closes the channel if the segment was closed meanwhile. */
    synchronized void releaseSend() {
        if (--sends == 0 && closeAfterSends) {
            try {
                log.close();
            } catch (IOException ignored) {
                // nothing was written through this channel since the close that was asked for
            }
        }
    }

    /** Closes the log channel now, or after the last send that holds it. */
    private synchronized void closeLogChannel() throws IOException {
        if (sends > 0) {
            closeAfterSends = true;
        } else if (log != null) {
            log.close();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            closeLogChannel();
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

    /** Closes and removes its three files. */
    void delete() throws IOException {
        close();
        Files.deleteIfExists(logFile());
        Files.deleteIfExists(indexFile());
        Files.deleteIfExists(timeIndexFile());
    }
}
