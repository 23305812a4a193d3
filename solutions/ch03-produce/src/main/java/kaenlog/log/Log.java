package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Stream;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;

/**
 * A partition's log on disk: a directory of segments, the newest one active. Not thread-safe:
 * {@code kaenlog.produce.Partition} guards it with a lock.
 *
 * <p>Three offsets describe it. The <b>log start offset</b> is the first offset still held
 * (retention moves it forward, chapter 6). The <b>log end offset</b> (LEO) is the offset the next
 * record will get: 0 for an empty log. The <b>high watermark</b> (HW) is exclusive: records below
 * it are committed and visible to consumers. With one replica the HW follows the LEO on every
 * append ("eager"); chapter 8 turns that off with {@link #stopEagerHighWatermark()} and moves the
 * HW only when the followers have the records.
 */
public final class Log implements Closeable {
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String DELETED_SUFFIX = ".deleted";

    private final Path dir;
    private final LogConfig config;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private long logStartOffset;
    private long highWatermark;
    private boolean eagerHighWatermark = true;

    private Log(Path dir, LogConfig config) {
        this.dir = dir;
        this.config = config;
    }

    /**
     * Opens (or creates) the log in {@code dir}: finishes or discards what an interrupted segment
     * swap left behind (chapter 6), loads the closed segments, and recovers the active one by
     * truncating a torn tail. The high watermark starts at the log end offset when eager and at
     * the log start offset otherwise (it is not persisted here).
     */
    public static Log open(Path dir, LogConfig config) throws IOException {
        Files.createDirectories(dir);
        Log log = new Log(dir, config);
        log.finishInterruptedSwaps();
        List<Long> baseOffsets = log.segmentBaseOffsets();
        if (baseOffsets.isEmpty()) {
            log.segments.put(0L, Segment.create(dir, 0, config.indexIntervalBytes()));
        }
        for (int i = 0; i < baseOffsets.size(); i++) {
            long base = baseOffsets.get(i);
            boolean active = i == baseOffsets.size() - 1;
            log.segments.put(base, Segment.open(dir, base, config.indexIntervalBytes(), active));
        }
        log.logStartOffset = log.segments.firstKey();
        log.highWatermark = log.logEndOffset();
        return log;
    }

    private List<Long> segmentBaseOffsets() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> Segment.parseBaseOffset(p.getFileName().toString(), Segment.LOG_SUFFIX))
                    .filter(OptionalLong::isPresent).map(OptionalLong::getAsLong).sorted().toList();
        }
    }

    /**
     * A compaction swap (chapter 6) writes {@code X.log.cleaned}, renames it to {@code X.log.swap}
     * (the commit point), then replaces {@code X.log}. After a crash: a .cleaned file never became
     * the segment, so it goes; a .swap file did, so the swap is finished; .deleted leftovers go.
     * Either the old segment or the new one survives whole, never a mix (Kafka's LogLoader does the same).
     */
    private void finishInterruptedSwaps() throws IOException {
        List<Path> leftovers;
        try (Stream<Path> files = Files.list(dir)) {
            leftovers = files.filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(CLEANED_SUFFIX) || name.endsWith(SWAP_SUFFIX) || name.endsWith(DELETED_SUFFIX);
            }).sorted().toList();
        }
        for (Path leftover : leftovers) {
            String name = leftover.getFileName().toString();
            if (name.endsWith(SWAP_SUFFIX)) {
                String target = name.substring(0, name.length() - SWAP_SUFFIX.length());
                Files.move(leftover, dir.resolve(target), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Files.deleteIfExists(dir.resolve(target.replace(Segment.LOG_SUFFIX, Segment.INDEX_SUFFIX)));
            } else {
                Files.deleteIfExists(leftover);
            }
        }
    }

    /**
     * Appends a producer's batch as the leader: validates it, assigns its offsets by rewriting
     * baseOffset to the log end offset (chapter 1: the CRC stays valid), stamps the leader epoch
     * when one is given (>= 0), rolls a new segment when the batch would not fit, and writes it.
     * The producer never chooses offsets; whatever baseOffset it sent is overwritten. The buffer
     * holds exactly one batch (as Kafka's LogValidator requires of a v2 produce), and it is changed
     * in place: validation copies no record and the offsets are written into the producer's own
     * bytes, as Kafka's broker does with a request's records (no copy of the batch is made).
     */
    public AppendInfo append(ByteBuffer batch, int leaderEpoch) throws IOException {
        // BEGIN-SOLUTION ch03 task 3: append as the leader, assigning offsets (LogAppendTest)
        BatchHeader header = RecordBatch.validate(batch.duplicate());
        if (header.sizeInBytes() != batch.remaining()) {
            throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET, "a produce carries exactly one"
                    + " batch, but " + (batch.remaining() - header.sizeInBytes()) + " byte(s) follow it");
        }
        // A producer numbers its records 0..count-1: the batch claims exactly count offsets (Kafka's
        // LogValidator: "Inconsistent batch offset range"). Only compaction leaves gaps, never a producer.
        if (header.recordCount() == 0 || header.lastOffsetDelta() != header.recordCount() - 1) {
            throw new CorruptBatchException("lastOffsetDelta", BatchHeader.LAST_OFFSET_DELTA_OFFSET, "a producer's batch"
                    + " of " + header.recordCount() + " record(s) must have lastOffsetDelta " + (header.recordCount() - 1)
                    + ", not " + header.lastOffsetDelta());
        }
        long firstOffset = logEndOffset();
        RecordBatch.assignBaseOffset(batch, firstOffset);
        if (leaderEpoch >= 0) {
            RecordBatch.assignPartitionLeaderEpoch(batch, leaderEpoch);
        }
        write(batch.duplicate());
        return new AppendInfo(firstOffset, firstOffset + header.lastOffsetDelta(), header.recordCount());
        // END-SOLUTION
    }

    /** {@link #append(ByteBuffer, int)} without a leader epoch (chapters 3 to 7 have no epochs). */
    public AppendInfo append(ByteBuffer batch) throws IOException {
        return append(batch, BatchHeader.NO_PARTITION_LEADER_EPOCH);
    }

    /**
     * Appends batches that already have their offsets, as a follower does with the leader's bytes
     * (chapter 8): nothing is reassigned. Each batch must start at or after the log end offset.
     */
    public void appendAsFollower(ByteBuffer batches) throws IOException {
        ByteBuffer in = batches.duplicate();
        while (in.hasRemaining()) {
            int start = in.position();
            BatchHeader header = RecordBatch.validate(in);
            if (header.baseOffset() < logEndOffset()) {
                throw new IllegalArgumentException("batch at offset " + header.baseOffset()
                        + " is below the log end offset " + logEndOffset() + ": offsets only grow");
            }
            write(in.slice(start, header.sizeInBytes()));
        }
    }

    /** Rolls if needed, writes, and moves the high watermark when it is eager. */
    private void write(ByteBuffer batch) throws IOException {
        if (batch.remaining() > config.segmentBytes()) {
            throw new BatchTooLargeException(batch.remaining(), config.segmentBytes());
        }
        if (shouldRoll(activeSegment().size(), batch.remaining(), config.segmentBytes())) {
            roll();
        }
        activeSegment().append(batch);
        if (eagerHighWatermark) {
            highWatermark = logEndOffset();
        }
    }

    /** A new active segment when the batch would push a non-empty one past segment.bytes. */
    public static boolean shouldRoll(int activeSize, int batchSize, int segmentBytes) {
        // BEGIN-SOLUTION ch03 task 3: roll when the next batch would not fit (LogAppendTest)
        return activeSize > 0 && activeSize + batchSize > segmentBytes;
        // END-SOLUTION
    }

    /** Starts a new active segment at the log end offset (the old one becomes closed). */
    public void roll() throws IOException {
        long base = logEndOffset();
        if (activeSegment().isEmpty()) {
            return;
        }
        activeSegment().flush();
        segments.put(base, Segment.create(dir, base, config.indexIntervalBytes()));
    }

    /**
     * Reads whole batches from the one holding {@code fetchOffset}: at most {@code maxBytes}, but
     * always at least one batch (a batch larger than maxBytes must not stall a reader forever), and
     * nothing at or past the isolation's bound: the log end for a follower, the high watermark for
     * a consumer. Below the log start offset or past the log end offset is an error.
     */
    public ByteBuffer read(long fetchOffset, int maxBytes, FetchIsolation isolation) throws IOException {
        // BEGIN-SOLUTION ch03 task 4: read whole batches up to the isolation's bound (LogReadTest)
        if (fetchOffset < logStartOffset || fetchOffset > logEndOffset()) {
            throw new OffsetOutOfRangeException(fetchOffset, logStartOffset, logEndOffset());
        }
        long bound = isolation == FetchIsolation.LOG_END ? logEndOffset() : highWatermark;
        List<ByteBuffer> batches = new ArrayList<>();
        int total = 0;
        for (Segment segment : segments.tailMap(segments.floorKey(fetchOffset)).values()) {
            for (long position = segment.positionOf(fetchOffset); position < segment.size(); ) {
                BatchHeader header = segment.headerAt(position);
                boolean fits = batches.isEmpty() || total + header.sizeInBytes() <= maxBytes;
                if (header.lastOffset() >= bound || !fits) {
                    return concat(batches, total);
                }
                batches.add(segment.batchAt(position));
                total += header.sizeInBytes();
                position += header.sizeInBytes();
            }
        }
        return concat(batches, total);
        // END-SOLUTION
    }

    /** Removes every batch whose last offset is at or past {@code offset} (a follower truncating, chapter 8). */
    public void truncateTo(long offset) throws IOException {
        if (offset >= logEndOffset()) {
            return;
        }
        if (offset < logStartOffset) {
            throw new IllegalArgumentException("cannot truncate to " + offset + ", below the log start offset "
                    + logStartOffset);
        }
        while (segments.size() > 1 && segments.lastKey() >= offset) {
            segments.pollLastEntry().getValue().delete();
        }
        activeSegment().truncateTo(offset);
        highWatermark = Math.min(highWatermark, logEndOffset());
    }

    /** Chapter 8: from now on only {@link #updateHighWatermark} moves the HW. */
    public void stopEagerHighWatermark() {
        eagerHighWatermark = false;
    }

    public boolean eagerHighWatermark() {
        return eagerHighWatermark;
    }

    /** Sets the HW; it can never pass the log end offset or fall below the log start offset. */
    public void updateHighWatermark(long hw) {
        if (hw < logStartOffset || hw > logEndOffset()) {
            throw new IllegalArgumentException("high watermark " + hw + " outside " + logStartOffset + ".."
                    + logEndOffset());
        }
        highWatermark = hw;
    }

    /**
     * Retention (chapter 6) removes a whole closed segment, never the active one; the log start
     * offset moves to the next segment's base offset.
     */
    public void deleteSegment(Segment segment) throws IOException {
        if (segment == activeSegment()) {
            throw new IllegalArgumentException("the active segment is never deleted");
        }
        if (segments.remove(segment.baseOffset()) != segment) {
            throw new IllegalArgumentException("segment " + segment.baseOffset() + " is not part of this log");
        }
        segment.delete();
        logStartOffset = Math.max(logStartOffset, segments.firstKey());
        highWatermark = Math.max(highWatermark, logStartOffset);
    }

    /**
     * Compaction (chapter 6) replaces a closed segment with a rewritten one. {@code swapFile} must
     * be {@code <base>.log.swap} in this directory, fully written and flushed: its existence is the
     * commit point. The old segment is closed, the swap renamed over it atomically, the index
     * rebuilt. A crash anywhere in between is finished by {@link #open}.
     */
    public Segment replaceSegment(Segment old, Path swapFile) throws IOException {
        if (old == activeSegment()) {
            throw new IllegalArgumentException("the active segment is never compacted");
        }
        if (!swapFile.equals(old.logFile().resolveSibling(old.logFile().getFileName() + SWAP_SUFFIX))) {
            throw new IllegalArgumentException(swapFile + " is not the swap file of " + old.logFile());
        }
        old.close();
        // The old index first: a crash after the move must not pair the new log with the old index.
        Files.deleteIfExists(old.indexFile());
        Files.move(swapFile, old.logFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Segment replacement = Segment.open(dir, old.baseOffset(), config.indexIntervalBytes(), false);
        segments.put(old.baseOffset(), replacement);
        return replacement;
    }

    /** The suffix a segment's swap file carries. */
    public static Path swapFileOf(Segment segment) {
        return segment.logFile().resolveSibling(segment.logFile().getFileName() + SWAP_SUFFIX);
    }

    /** Where a rewritten segment is written before it is committed (renamed to {@link #swapFileOf}). */
    public static Path cleanedFileOf(Segment segment) {
        return segment.logFile().resolveSibling(segment.logFile().getFileName() + CLEANED_SUFFIX);
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return activeSegment().nextOffset();
    }

    public long highWatermark() {
        return highWatermark;
    }

    public Segment activeSegment() {
        return segments.lastEntry().getValue();
    }

    /** Every segment, oldest first; the last is the active one. */
    public List<Segment> segments() {
        return List.copyOf(segments.values());
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    public void flush() throws IOException {
        for (Segment segment : segments.values()) {
            segment.flush();
        }
    }

    @Override
    public void close() throws IOException {
        for (Map.Entry<Long, Segment> entry : segments.entrySet()) {
            entry.getValue().close();
        }
    }

    private static ByteBuffer concat(List<ByteBuffer> batches, int total) {
        ByteBuffer out = ByteBuffer.allocate(total);
        batches.forEach(b -> out.put(b.duplicate()));
        return out.flip();
    }
}
