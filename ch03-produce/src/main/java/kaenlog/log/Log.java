package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * A partition's log as the broker sees it (Kafka's {@code UnifiedLog}): the leader's append, which
 * validates a producer's batch and gives it its offsets, reads up to a bound, and the offsets that
 * say what a reader may see. Its segments and their files are kept by a {@link LocalLog}, opened
 * by a {@link LogLoader}. Not thread-safe: {@code kaenlog.broker.Partition} guards it with a lock.
 *
 * <p>Three offsets describe it. The <b>log start offset</b> is the first offset still held
 * (retention moves it forward). The <b>log end offset</b> (LEO) is the offset the next record will
 * get: 0 for an empty log. The <b>high watermark</b> (HW) is exclusive: records below it are
 * committed and visible to consumers. With one replica the HW follows the LEO on every append
 * ("eager"); with followers it moves only when they have the records.
 *
 * <p>The later chapters extend it through the seams at the end of this file, each where Kafka's
 * {@code UnifiedLog} has the same step: the producer state, the follower's append and truncation,
 * the high watermark moved from outside, and retention and compaction.
 */
public final class Log implements Closeable {
    /** A compaction's rewritten segment, {@code X.log.cleaned}, then {@code X.log.swap} once committed (chapter 6). */
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String DELETED_SUFFIX = ".deleted";
    // The files a log keeps beside its segments, by Kafka's names where Kafka has the file: what each
    // holds and why is said where it is read, in LogLoader.
    /** The clean-shutdown marker: written by {@link #close()}, deleted by {@link #open}. */
    public static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    /** The recovery point: every offset below it was flushed to disk. */
    public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
    /** The log start offset, written before retention deletes a segment. */
    public static final String LOG_START_OFFSET_FILE = "log-start-offset-checkpoint";
    /** The base offset of every segment the log holds (kaen-log's own file). */
    public static final String SEGMENT_BASES_FILE = "segment-bases-checkpoint";

    private final LocalLog local;
    /** What {@link #open} did beyond loading (and a compaction's reopened segment after it). */
    private final List<String> openEvents;
    private long logStartOffset;
    /**
     * What {@link #LOG_START_OFFSET_FILE} says: written without the partition's lock, by
     * {@link #finishDeletion}, under {@link #deletionLock}; read under the partition's lock too.
     */
    private volatile long checkpointedLogStart;
    private final Object deletionLock = new Object();
    /** Segments retention or a new log start took out of the log, renamed {@code .deleted}, their files not yet unlinked. */
    private final List<Segment> retired = new ArrayList<>();
    private long highWatermark;
    private boolean eagerHighWatermark = true;
    /** The producer state's step in front of the leader's append; null for none. */
    private AppendHook appendHook;

    private Log(LogLoader.Loaded loaded) {
        this.local = loaded.local();
        this.openEvents = new ArrayList<>(loaded.events());
        this.logStartOffset = loaded.logStartOffset();
        this.checkpointedLogStart = loaded.logStartOffset(); // the loader wrote it when the file said otherwise
        this.highWatermark = local.logEndOffset(); // not persisted here
    }

    /**
     * Opens (or creates) the log in {@code dir}, as {@link LogLoader} says: after a clean shutdown
     * ({@link #CLEAN_SHUTDOWN_FILE}) nothing is recovered; after an unclean one, the batches from the
     * recovery point on are checked one by one and cut at the first bad one, every complete batch
     * before it surviving. What opening did is told in {@link #openEvents()}. A directory that cannot
     * be written is opened read-only. The high watermark starts at the log end offset. On failure
     * nothing stays open.
     */
    public static Log open(Path dir, LogConfig config) throws IOException {
        return open(dir, config, false);
    }

    /**
     * As {@link #open(Path, LogConfig)}; with {@code acceptDataLoss}, a log whose files hold fewer
     * offsets than it wrote opens anyway: it goes on past the missing offsets (they are never handed
     * out again) and says so in {@link #openEvents()}. Without it such a log refuses to open with a
     * {@link LostDataException} naming them, and leaves its files as they are.
     */
    public static Log open(Path dir, LogConfig config, boolean acceptDataLoss) throws IOException {
        return new Log(LogLoader.load(dir, config, acceptDataLoss));
    }

    /** What {@link #open} did beyond loading: recoveries (file, byte, offsets cut), orphans removed, indexes rebuilt. */
    public List<String> openEvents() {
        return List.copyOf(openEvents);
    }

    /**
     * Appends a producer's batch as the leader: validates it ({@link #validate}), assigns its offsets
     * by rewriting baseOffset to the log end offset (chapter 1: the CRC stays valid), stamps the
     * leader epoch when one is given (>= 0), rolls a new segment when the batch would not fit, and
     * writes it. The producer never chooses offsets; whatever baseOffset it sent is overwritten. The
     * buffer is changed in place: validation copies no record and the offsets are written into the
     * producer's own bytes, as Kafka's broker does with a request's records (no copy of the batch is
     * made). With a producer state ({@link AppendHook}) the hook validates, judges and appends.
     *
     * <p>The leader epoch is the replicated chapters' seam: Kafka's {@code appendAsLeader(records,
     * leaderEpoch)} stamps every batch with the epoch of the leader that wrote it, and a follower
     * that copies the batch learns from it where each epoch starts (KIP-101).
     */
    public AppendInfo append(ByteBuffer batch, int leaderEpoch) throws IOException {
        local.ensureWritable("append");
        if (appendHook == null) {
            return append(validate(batch), leaderEpoch);
        }
        // The hook writes through append(ValidatedBatch), which is given no epoch: the epoch goes on
        // first. It lies outside the CRC (chapter 1), so it changes nothing the hook's validation
        // reads; a buffer too short to hold it is no batch, and the hook's validation says so.
        if (leaderEpoch >= 0 && batch.remaining() >= BatchHeader.SIZE) {
            RecordBatch.assignPartitionLeaderEpoch(batch, leaderEpoch);
        }
        return appendHook.append(this, batch);
    }

    /** {@link #append(ByteBuffer, int)} without a leader epoch (one replica has no epochs). */
    public AppendInfo append(ByteBuffer batch) throws IOException {
        return append(batch, BatchHeader.NO_PARTITION_LEADER_EPOCH);
    }

    /**
     * Checks a producer's batch as a leader append does, without writing anything: a valid v2 batch
     * (chapter 1's {@code RecordBatch.validate}, every record walked, none copied), exactly one (as
     * Kafka's LogValidator requires of a v2 produce), claiming exactly as many offsets as it has
     * records. The buffer is not moved. Returns the proof that {@link #append(ValidatedBatch, int)} takes.
     *
     * @throws CorruptBatchException when it is not such a batch
     */
    public ValidatedBatch validate(ByteBuffer batch) {
        throw new Todo("ch03 task 3: validate a producer's batch (LogAppendTest)");
    }

    /**
     * Writes a batch {@link #validate} accepted, as the leader: its offsets assigned from the log end
     * offset, the leader epoch stamped when one is given (>= 0); its records are not walked again.
     * This is the write itself, with no producer-state step in front of it: a producer's batch comes
     * in through {@link #append(ByteBuffer, int)}, and the step ({@link AppendHook}) calls this one
     * once it has judged the batch.
     */
    public AppendInfo append(ValidatedBatch valid, int leaderEpoch) throws IOException {
        local.ensureWritable("append");
        throw new Todo("ch03 task 3: append as the leader, assigning offsets (LogAppendTest)");
    }

    /** {@link #append(ValidatedBatch, int)} without a leader epoch. */
    public AppendInfo append(ValidatedBatch valid) throws IOException {
        return append(valid, BatchHeader.NO_PARTITION_LEADER_EPOCH);
    }

    /** A new active segment when the batch would push a non-empty one past segment.bytes. */
    public static boolean shouldRoll(int activeSize, int batchSize, int segmentBytes) {
        throw new Todo("ch03 task 3: roll when the next batch would not fit (LogAppendTest)");
    }

    /**
     * Rolls if needed, writes, moves the high watermark when it is eager, and flushes when
     * {@code flush.messages} messages are not flushed yet, in the order of Kafka's
     * {@code UnifiedLog.append} ({@code maybeRoll}, {@code localLog.append}, the high watermark,
     * then {@code flush} when {@code unflushedMessages} reach the interval).
     */
    private void write(ByteBuffer batch) throws IOException {
        local.ensureWritable("append");
        if (batch.remaining() > config().segmentBytes()) {
            throw new BatchTooLargeException(batch.remaining(), config().segmentBytes());
        }
        if (shouldRoll(activeSegment().size(), batch.remaining(), config().segmentBytes())) {
            local.roll();
        }
        local.append(batch);
        if (eagerHighWatermark) {
            highWatermark = logEndOffset();
        }
        if (local.unflushedMessages() >= config().flushMessages()) {
            local.flush();
        }
    }

    /**
     * Reads whole batches from the one holding {@code fetchOffset}: at most {@code maxBytes}, but
     * always at least one batch (a batch larger than maxBytes must not stall a reader forever), and
     * nothing at or past the isolation's bound: the log end for a follower, the high watermark for
     * a consumer (the last stable offset for a read_committed one, chapter 11: given code around
     * this task). Below the log start offset or past the log end offset is an error.
     */
    public ByteBuffer read(long fetchOffset, int maxBytes, FetchIsolation isolation) throws IOException {
        local.ensureOnline();
        if (isolation == FetchIsolation.TXN_COMMITTED) {
            // Chapter 11's read_committed: what a read to the high watermark returns, cut at the last
            // stable offset (whole batches, so the same as a read bounded there).
            return below(read(fetchOffset, maxBytes, FetchIsolation.HIGH_WATERMARK), lastStableOffset());
        }
        throw new Todo("ch03 task 4: read whole batches up to the isolation's bound (LogReadTest)");
    }

    /** The whole batches of {@code batches} (one read's answer) that end below {@code bound}. */
    private static ByteBuffer below(ByteBuffer batches, long bound) {
        int end = batches.position();
        while (batches.limit() - end >= BatchHeader.SIZE) {
            BatchHeader header = BatchHeader.readFrom(batches.duplicate().position(end));
            if (header.lastOffset() >= bound) {
                break;
            }
            end += header.sizeInBytes();
        }
        return batches.limit(end);
    }

    /**
     * How far a reader of {@code isolation} may read (exclusive): the log end offset for a follower,
     * the high watermark for a consumer, the last stable offset for a read_committed one (Kafka's
     * {@code UnifiedLog.read}: {@code maxOffsetMetadata} by isolation).
     */
    public long upperBound(FetchIsolation isolation) throws IOException {
        return switch (isolation) {
            case LOG_END -> logEndOffset();
            case HIGH_WATERMARK -> highWatermark;
            case TXN_COMMITTED -> lastStableOffset();
        };
    }

    private static ByteBuffer concat(List<ByteBuffer> batches, int total) {
        ByteBuffer out = ByteBuffer.allocate(total);
        batches.forEach(b -> out.put(b.duplicate()));
        return out.flip();
    }

    /**
     * The earliest offset whose record's timestamp is at or after {@code timestamp}, with that
     * timestamp and its batch's leader epoch; empty when no record is that new (Kafka's
     * UnifiedLog.fetchOffsetByTimestamp: the first segment whose largest timestamp reaches the
     * target is searched through its time index, then its batches). Up to the log end: a consumer's
     * answer (ListOffsets) is bounded by the high watermark by its caller. Given code: no task.
     */
    public Optional<Segment.TimestampAndOffset> offsetForTimestamp(long timestamp) throws IOException {
        local.ensureOnline();
        for (Segment segment : local.segments().all()) {
            if (segment.largestTimestampSoFar() >= timestamp) {
                return segment.findOffsetByTimestamp(timestamp, logStartOffset);
            }
        }
        return Optional.empty();
    }

    /**
     * The first record holding the log's largest timestamp; empty when no record has a timestamp
     * (Kafka's answer to ListOffsets' MAX_TIMESTAMP, -3, KIP-734: the first segment with the largest
     * timestamp, then the first record in it with that timestamp).
     */
    public Optional<Segment.TimestampAndOffset> largestTimestamp() throws IOException {
        local.ensureOnline();
        Segment latest = null;
        for (Segment segment : local.segments().all()) {
            if (latest == null || segment.largestTimestampSoFar() > latest.largestTimestampSoFar()) {
                latest = segment;
            }
        }
        return latest.findLargestTimestamp();
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return local.logEndOffset();
    }

    public long highWatermark() {
        return highWatermark;
    }

    /**
     * The last stable offset (LSO): a read_committed consumer reads below it. Without transactions it
     * is the high watermark; chapter 11's producer state holds it back at the first offset of the
     * oldest transaction still open (Kafka's {@code UnifiedLog.lastStableOffset}), through the
     * {@link AppendHook}.
     */
    public long lastStableOffset() throws IOException {
        return appendHook == null ? highWatermark : appendHook.lastStableOffset(this);
    }

    /**
     * The aborted transactions a read_committed fetch of {@code [fetchOffset, upperBoundOffset)}
     * answers with, oldest first (Kafka's {@code LocalLog.collectAbortedTransactions}): none without
     * chapter 11's producer state.
     */
    public List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBoundOffset) throws IOException {
        local.ensureOnline();
        return appendHook == null ? List.of() : appendHook.abortedTransactions(this, fetchOffset, upperBoundOffset);
    }

    public Segment activeSegment() {
        return local.segments().active();
    }

    /** The segments from the one holding {@code offset} on, oldest first (a view: read it under the partition's lock). */
    public Collection<Segment> segmentsFrom(long offset) {
        return local.segments().from(offset);
    }

    /** Every segment, oldest first; the last is the active one. */
    public List<Segment> segments() {
        return List.copyOf(local.segments().all());
    }

    public Path dir() {
        return local.dir();
    }

    public LogConfig config() {
        return local.config();
    }

    /** Starts a new active segment at the log end offset (the old one becomes closed). */
    public void roll() throws IOException {
        local.roll();
    }

    /**
     * Writes every segment that holds unflushed offsets to disk ({@code fsync}) and moves the
     * recovery point to the log end offset. A read-only log has nothing to flush.
     */
    public void flush() throws IOException {
        local.flush();
    }

    /**
     * The {@code fsync} a roll leaves undone: the closed segments below {@code end} (the last roll's
     * base offset) from the recovery point on. {@link #force} and {@link Log#checkpointFlushed} run
     * WITHOUT the partition's lock, so that produces and fetches go on meanwhile;
     * {@link Log#completeFlush} then moves the recovery point under it. Kafka's {@code UnifiedLog.roll} schedules the same work as a "flush-log" task:
     * {@code LocalLog.flush} outside the log's lock, {@code markFlushed} inside it. {@code bases} (at
     * {@code basesVersion}) is the record of the segments when it was taken: {@link Log#checkpointFlushed}
     * writes it to {@link #SEGMENT_BASES_FILE} before the recovery point, unless a truncation came since.
     */
    public record PendingFlush(long end, List<Segment> segments, long truncations, List<Long> bases, long basesVersion) {
        /**
         * Forces each segment's files to disk; no lock held, none needed: a closed segment is only
         * read. Through channels of its own ({@link Segment#forceThroughOwnChannels}): an interrupt
         * throws {@link java.nio.channels.ClosedByInterruptException} and leaves the segments open.
         */
        public void force() throws IOException {
            for (Segment segment : segments) {
                segment.forceThroughOwnChannels();
            }
        }
    }

    /** What a roll left to force, if anything (see {@link PendingFlush}); ask under the partition's lock. */
    public Optional<PendingFlush> pendingFlush() {
        return local.pendingFlush();
    }

    /**
     * WITHOUT the partition's lock, after {@code flush.force()}: writes the flush's end to
     * {@link #RECOVERY_POINT_FILE}, unless a truncation came in between (see {@link LocalLog}).
     */
    public void checkpointFlushed(PendingFlush flush) throws IOException {
        local.checkpointFlushed(flush);
    }

    /**
     * Under the partition's lock, after {@code flush.force()} and {@link #checkpointFlushed} ran
     * without it: {@code failure} is what they threw, or null. The recovery point moves to the
     * flush's end (not after a truncation that came in between); a failure takes the log offline
     * (fail-stop) unless a segment of it went meanwhile (retention, compaction), in which case the
     * next {@link #pendingFlush} tries again.
     */
    public void completeFlush(PendingFlush flush, IOException failure) throws IOException {
        local.completeFlush(flush, failure);
    }

    /**
     * {@code flush.ms}: flushes when that much time passed since the last flush this method made
     * (the partition calls it on every tick; time is a parameter, as everywhere in chapter code).
     */
    public void maybeFlush(long nowMs) throws IOException {
        local.maybeFlush(nowMs);
    }

    /**
     * Offsets below it are on disk: a flush moves it, and so does the force a roll leaves to
     * {@link #pendingFlush} once it is done; recovery after a crash starts there.
     */
    public long recoveryPoint() {
        return local.recoveryPoint();
    }

    /** The storage failure that took this log offline (fail-stop, see {@link LocalLog}), if one did. */
    public Optional<StorageException> offline() {
        return Optional.ofNullable(local.offline());
    }

    public boolean readOnly() {
        return local.readOnly();
    }

    /**
     * A clean shutdown: flushes, then writes {@link #CLEAN_SHUTDOWN_FILE} so that the next open
     * recovers nothing, then closes the files. An offline or read-only log only closes its files:
     * without the marker, the next open recovers.
     */
    @Override
    public void close() throws IOException {
        try {
            if (local.offline() == null && !local.readOnly()) {
                Optional<PendingDeletion> pending = pendingDeletion();
                if (pending.isPresent()) {
                    finishDeletion(pending.get());
                }
            }
        } finally {
            retired.forEach(Segment::closeQuietly); // an offline log's: their .deleted files go at the next open
            retired.clear();
            local.close();
        }
    }

    // The seams the later chapters extend the log through.

    /**
     * Chapter 7's producer state and its step in front of every leader append (and chapter 11's
     * transactions: the last stable offset and the aborted transactions a read_committed fetch needs). Kafka's
     * {@code UnifiedLog} owns its {@code ProducerStateManager} the same way: it judges a producer's
     * batch before {@code LocalLog.append}, answers a duplicate with the first write's offsets
     * without writing, learns every batch a follower copies and forgets what a truncation cuts.
     */
    @FunctionalInterface
    public interface AppendHook {
        /**
         * A producer's batch, as the leader takes it: the hook validates the bytes once
         * ({@code log.validate}) and writes the proof through {@code log.append(ValidatedBatch)},
         * or answers without writing (a duplicate's offsets), or throws to refuse the batch.
         */
        AppendInfo append(Log log, ByteBuffer batch) throws IOException;

        /**
         * A batch the leader judged and wrote was copied here as it is: the state this hook keeps
         * learns it without judging it again, as Kafka's follower updates its producer state on
         * every append, so that it is ready the moment it leads.
         */
        default void appendedAsFollower(Log log, BatchHeader header) throws IOException {
        }

        /** The log was cut back ({@link #truncateTo}): what the hook kept of the cut batches must go too. */
        default void truncated(Log log) throws IOException {
        }

        /**
         * Chapter 11: the last stable offset ({@link Log#lastStableOffset}); without transactions the
         * high watermark.
         */
        default long lastStableOffset(Log log) throws IOException {
            return log.highWatermark();
        }

        /** Chapter 11: the aborted transactions of a read_committed fetch ({@link Log#abortedTransactions}). */
        default List<AbortedTransaction> abortedTransactions(Log log, long fetchOffset, long upperBoundOffset)
                throws IOException {
            return List.of();
        }
    }

    /** Puts {@code hook} in front of every leader append from now on (see {@link AppendHook}); null removes it. */
    public void setAppendHook(AppendHook hook) {
        this.appendHook = hook;
    }

    /**
     * The step in front of this log's appends, or null: chapter 6's cleaner asks it whether the log
     * keeps transactions (chapter 11's hook says where a cleaning must stop and what its markers keep).
     */
    public AppendHook appendHook() {
        return appendHook;
    }

    /**
     * Chapter 8's follower: appends the leader's batches as they are, their offsets already given
     * (Kafka's {@code appendAsFollower}: validated, never given new offsets), each at or after the
     * log end offset. The producer state learns each batch without judging it (chapter 10: a follower
     * that becomes leader must know the producers the old leader answered).
     */
    public void appendAsFollower(ByteBuffer batches) throws IOException {
        local.ensureWritable("append");
        ByteBuffer in = batches.duplicate();
        while (in.hasRemaining()) {
            int start = in.position();
            BatchHeader header = RecordBatch.validate(in);
            if (header.baseOffset() < logEndOffset()) {
                throw new IllegalArgumentException("batch at offset " + header.baseOffset()
                        + " is below the log end offset " + logEndOffset() + ": offsets only grow");
            }
            write(in.slice(start, header.sizeInBytes()));
            if (appendHook != null) {
                appendHook.appendedAsFollower(this, header);
            }
        }
    }

    /**
     * Chapter 8's truncation: removes every batch whose last offset is at or past {@code offset}, a
     * follower cutting its log back to what its leader holds. The high watermark never stays past
     * the new end, and the producer state forgets the cut batches (Kafka's {@code UnifiedLog.truncateTo}
     * rebuilds its producer state after the cut).
     */
    public void truncateTo(long offset) throws IOException {
        local.ensureWritable("truncate");
        if (offset >= logEndOffset()) {
            return;
        }
        if (offset < logStartOffset) {
            throw new IllegalArgumentException("cannot truncate to " + offset + ", below the log start offset "
                    + logStartOffset);
        }
        local.truncateTo(offset);
        highWatermark = Math.min(highWatermark, logEndOffset());
        if (appendHook != null) {
            appendHook.truncated(this);
        }
    }

    /** Chapter 8: from now on only {@link #updateHighWatermark} moves the HW (the followers' LEOs decide it). */
    public void stopEagerHighWatermark() {
        eagerHighWatermark = false;
    }

    public boolean eagerHighWatermark() {
        return eagerHighWatermark;
    }

    /**
     * Sets the HW; it can never pass the log end offset or fall below the log start offset. Chapter
     * 8's leader moves it as its followers catch up, its follower as the leader's answers say;
     * chapter 10's restarted replica sets it from its checkpoint (Kafka's
     * {@code replication-offset-checkpoint}: the HW is not in the log's own files).
     */
    public void updateHighWatermark(long hw) {
        if (hw < logStartOffset || hw > logEndOffset()) {
            throw new IllegalArgumentException("high watermark " + hw + " outside " + logStartOffset + ".."
                    + logEndOffset());
        }
        highWatermark = hw;
    }

    /**
     * Chapter 6's retention: removes the oldest segment, never the active one, and the log start
     * offset moves to the next segment's base offset (Kafka's {@code deleteOldSegments} deletes whole
     * segments, oldest first, never single records, and moves the log start offset with them).
     *
     * <p>Under the partition's lock only the cheap half is done: the segment leaves the log (no read
     * finds it any more), its files are renamed {@code .deleted} and the log start moves in memory.
     * The slow half, the {@code fsync} of {@link #LOG_START_OFFSET_FILE} and the unlink of 128 MiB of
     * files (69 ms and more measured, with every produce and fetch of the partition waiting), is left
     * to {@link #pendingDeletion}, done without the lock, as Kafka's {@code asyncDeleteSegment} leaves
     * the files to a "delete-file" task and its log start checkpoint to the log manager's scheduler.
     * A crash in between loses nothing: the next open finds the {@code .deleted} files and finishes.
     */
    public void deleteSegment(Segment segment) throws IOException {
        local.ensureWritable("delete a segment");
        if (segment == activeSegment()) {
            throw new IllegalArgumentException("the active segment is never deleted");
        }
        if (!local.segments().holds(segment)) {
            throw new IllegalArgumentException("segment " + segment.baseOffset() + " is not part of this log");
        }
        if (segment != local.segments().first()) {
            throw new IllegalArgumentException("segment " + segment.baseOffset() + " is not the oldest: retention"
                    + " deletes from the log start, so that what is left is always a suffix of the log");
        }
        local.retire(segment);
        retired.add(segment);
        logStartOffset = Math.max(logStartOffset, local.segments().first().baseOffset());
        highWatermark = Math.max(highWatermark, logStartOffset);
    }

    /**
     * Moves the log start offset forward to {@code offset}, as Kafka's DeleteRecords does
     * ({@code UnifiedLog.maybeIncrementLogStartOffset}): the records below it are gone for every reader
     * at once (a fetch there is out of range, ListOffsets' earliest is the new start), and the segments
     * wholly below it leave the log now (Kafka's next retention check does it,
     * {@code deleteLogStartOffsetBreachedSegments}); the segment holding {@code offset} stays and is read
     * from the batch that holds it, as after retention. Never past the high watermark (an
     * {@link OffsetOutOfRangeException}, Kafka's answer): a consumer must not lose records it could not
     * yet read. An offset at or below the log start changes nothing. As with {@link #deleteSegment},
     * the segments' files are renamed {@code .deleted} here, and the new start is written to
     * {@link #LOG_START_OFFSET_FILE} before any file goes, without the partition's lock
     * ({@link #pendingDeletion}); a caller that promises the new start survives a crash (DeleteRecords'
     * answer) finishes that first. Returns the log start offset after the call (Kafka's low watermark,
     * for one replica).
     */
    public long advanceLogStartOffset(long offset) throws IOException {
        local.ensureWritable("move the log start offset");
        if (offset > highWatermark) {
            throw new OffsetOutOfRangeException(offset, "cannot move the log start offset to " + offset + ": it is past"
                    + " the high watermark " + highWatermark);
        }
        if (offset <= logStartOffset) {
            return logStartOffset;
        }
        logStartOffset = offset;
        retired.addAll(local.retireWhollyBelow(offset));
        return logStartOffset;
    }

    /**
     * What a deletion left to do without the partition's lock: write {@code logStartOffset} to
     * {@link #LOG_START_OFFSET_FILE}, then unlink the files of {@code segments}, already out of the
     * log and renamed {@code .deleted}. In that order: a segment whose files are gone while the
     * checkpoint still says an older start would look lost at the next open.
     */
    public record PendingDeletion(long logStartOffset, List<Segment> segments) {
    }

    /**
     * Under the partition's lock: the deletion work owed (see {@link PendingDeletion}), if any; the
     * caller runs it through {@link #finishDeletion} without the lock. Its segments are handed over
     * once: a second call does not return them again.
     */
    public Optional<PendingDeletion> pendingDeletion() {
        if (retired.isEmpty() && logStartOffset <= checkpointedLogStart) {
            return Optional.empty();
        }
        PendingDeletion pending = new PendingDeletion(logStartOffset, List.copyOf(retired));
        retired.clear();
        return Optional.of(pending);
    }

    /**
     * WITHOUT the partition's lock: writes the log start offset's checkpoint (unless a later deletion
     * already wrote as much: several threads may finish deletions, the file only moves forward), then
     * unlinks the segments' {@code .deleted} files.
     */
    public void finishDeletion(PendingDeletion pending) throws IOException {
        synchronized (deletionLock) {
            if (pending.logStartOffset() > checkpointedLogStart) {
                LocalLog.writeCheckpoint(dir(), LOG_START_OFFSET_FILE, List.of(pending.logStartOffset()));
                checkpointedLogStart = pending.logStartOffset();
            }
        }
        for (Segment segment : pending.segments()) {
            segment.deleteRenamed();
        }
    }

    /** Under the partition's lock: {@link #finishDeletion} failed, and the log goes offline (fail-stop). */
    public void deletionFailed(IOException failure) throws IOException {
        throw local.goOffline(failure);
    }

    /**
     * A topic's configs changed while this log is open (Kafka's {@code UnifiedLog.updateConfig}): the
     * next roll decision, the next segment's index interval and the next flush follow {@code newConfig};
     * what is written stays as it was written.
     */
    public void updateConfig(LogConfig newConfig) {
        local.updateConfig(newConfig);
    }

    /**
     * Chapter 6's compaction: replaces a closed segment with a rewritten one. {@code swapFile} must
     * be {@code <base>.log.swap} in this directory, fully written and flushed: its existence is the
     * commit point (Kafka's {@code LocalLog.replaceSegments}). The old segment is closed, the swap
     * renamed over it atomically, the index rebuilt. A crash anywhere in between is finished by
     * {@link #open}.
     */
    public Segment replaceSegment(Segment old, Path swapFile) throws IOException {
        return local.replaceSegment(old, swapFile, openEvents);
    }

    /** The suffix a segment's swap file carries. */
    public static Path swapFileOf(Segment segment) {
        return segment.logFile().resolveSibling(segment.logFile().getFileName() + SWAP_SUFFIX);
    }

    /** Where a rewritten segment is written before it is committed (renamed to {@link #swapFileOf}). */
    public static Path cleanedFileOf(Segment segment) {
        return segment.logFile().resolveSibling(segment.logFile().getFileName() + CLEANED_SUFFIX);
    }
}
