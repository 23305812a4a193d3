package kaenlog.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * A partition's log on disk: a directory of segments, the newest one active. Not thread-safe:
 * {@code kaenlog.broker.Partition} guards it with a lock.
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
    /**
     * Written by {@link #close()} after everything was flushed, deleted by {@link #open}: when it is
     * there, the log was shut down cleanly and nothing needs recovering (Kafka's LogLoader reads
     * the same file, one per log directory; kaen-log keeps one per partition, as partitions open
     * on first use).
     */
    public static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    /**
     * The recovery point: every offset below it was flushed to disk. Written (to a temporary file,
     * then renamed over the old one) after every flush; after an unclean shutdown recovery checks
     * only the batches from there on. Kafka keeps the points of all partitions of a log directory
     * in one file of this name.
     */
    public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
    /**
     * The log start offset, written before retention deletes a segment, so that a log whose files
     * start later than it is known to have lost them (Kafka keeps the log start offsets of all the
     * partitions of a log directory in one file of this name; here, as the recovery point, one
     * offset per partition).
     */
    public static final String LOG_START_OFFSET_FILE = "log-start-offset-checkpoint";
    /**
     * The base offset of every segment the log holds, one per line, written after a roll and before a
     * segment is deleted. kaen-log's own file: Kafka knows its segments only by their file names, and
     * its LogLoader looks for no gap between them (compaction leaves gaps there, see
     * {@link #missingOffsets}).
     */
    public static final String SEGMENT_BASES_FILE = "segment-bases-checkpoint";

    private final Path dir;
    /** Changed only by {@link #updateConfig}: a topic's configs altered while its log is open. */
    private LogConfig config;
    private final boolean readOnly;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private final List<String> openEvents = new ArrayList<>();
    private long logStartOffset;
    private long highWatermark;
    private boolean eagerHighWatermark = true;
    private long recoveryPoint;
    private long lastFlushMs = -1;
    private StorageException offline;
    private boolean closed;
    /** The operator accepts that offsets missing from the files are lost ({@link LostDataException}). */
    private boolean acceptDataLoss;
    /** A later chapter's step in front of the leader's append (chapter 7: idempotence); null for none. */
    private AppendHook appendHook;
    /** While the hook runs: the leader epoch of the append it stands in for; NOT_IN_HOOK otherwise. */
    private int hookLeaderEpoch = NOT_IN_HOOK;
    private static final int NOT_IN_HOOK = Integer.MIN_VALUE;

    /**
     * A step a later chapter puts in front of every leader append of this log, with the state it keeps
     * for the log (chapter 7: the producer state and the idempotent append; Kafka's {@code UnifiedLog}
     * owns its {@code ProducerStateManager} the same way). It validates the bytes once
     * ({@code log.validate}) and appends the proof through {@code log.append}, which from inside the
     * hook is the plain append, or answers without writing (a duplicate's offsets), or throws to
     * refuse the batch.
     */
    @FunctionalInterface
    public interface AppendHook {
        AppendInfo append(Log log, ByteBuffer batch) throws IOException;

        /**
         * A batch the leader judged and wrote was copied here as it is (chapter 10's follower): the
         * state this hook keeps learns it without judging it again, as Kafka's follower updates its
         * producer state on every append, so that it is ready the moment it leads.
         */
        default void appendedAsFollower(Log log, BatchHeader header) throws IOException {
        }

        /** The log was cut back ({@link #truncateTo}): what the hook kept of the cut batches must go too. */
        default void truncated(Log log) throws IOException {
        }
    }

    private Log(Path dir, LogConfig config, boolean readOnly) {
        this.dir = dir;
        this.config = config;
        this.readOnly = readOnly;
    }

    /**
     * Opens (or creates) the log in {@code dir}: finishes or discards what an interrupted segment
     * swap left behind (chapter 6), removes the orphans of a failed roll, and loads the segments.
     * After a clean shutdown ({@link #CLEAN_SHUTDOWN_FILE}) nothing is recovered. After an
     * unclean one, the batches from the recovery point on are recovered: checked one by one and
     * cut at the first bad one, every complete batch before it surviving. What opening did is
     * told in {@link #openEvents()}. A directory that cannot be written is opened read-only. The
     * high watermark starts at the log end offset (it is not persisted here). On failure nothing
     * stays open.
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
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
        }
        Log log = new Log(dir, config, !Files.isWritable(dir));
        log.acceptDataLoss = acceptDataLoss;
        try {
            log.load();
        } catch (IOException | RuntimeException e) {
            log.closeSegmentsQuietly();
            throw e;
        }
        return log;
    }

    private void load() throws IOException {
        Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        if (readOnly) {
            openEvents.add("read-only: its directory cannot be written; reads are served, writes refused, nothing"
                    + " recovered");
        } else {
            finishInterruptedSwaps();
            removeOrphanIndexes();
        }
        long checkpoint = clean || readOnly ? Long.MAX_VALUE : readRecoveryPoint();
        Written written = Written.read(dir);
        List<Long> baseOffsets = segmentBaseOffsets();
        if (!clean && !readOnly && !baseOffsets.isEmpty()) {
            openEvents.add("no clean shutdown: recovering the batches from offset " + checkpoint
                    + " (the recovery point) on");
        }
        for (long base : baseOffsets) {
            Segment segment = Segment.open(dir, base, config.indexIntervalBytes(), checkpoint, clean, readOnly,
                    openEvents);
            Segment previous = segments.isEmpty() ? null : segments.lastEntry().getValue();
            if (previous != null && base < previous.nextOffset()) {
                dropOrphan(segment, previous);
                continue;
            }
            segments.put(base, segment);
        }
        List<LostDataException.Range> missing = missingOffsets(written);
        if (!missing.isEmpty()) {
            if (!acceptDataLoss) {
                throw new LostDataException(dir, missing, written.describe());
            }
            goOnPast(missing, written);
        }
        if (!readOnly && !segments.isEmpty()) {
            for (Segment closed : segments.headMap(segments.lastKey(), false).values()) {
                closed.onBecomeInactive();
            }
        }
        if (segments.isEmpty()) {
            if (readOnly) {
                throw new ReadOnlyLogException(dir, "create the first segment");
            }
            segments.put(0L, Segment.create(dir, 0, config.indexIntervalBytes()));
        }
        if (clean && !readOnly) {
            Files.delete(marker); // from now on a crash is an unclean shutdown
        }
        logStartOffset = Math.max(segments.firstKey(), written.start().orElse(0));
        finishInterruptedRetention();
        highWatermark = logEndOffset();
        recoveryPoint = Math.min(checkpoint, logEndOffset());
        if (!readOnly) {
            checkpointWritten(written);
        }
    }

    /**
     * What the log's checkpoints say it wrote: its recovery point (every offset below it was
     * flushed), its log start offset and the base offsets of its segments; each absent when its file
     * is (a log from before these files, or one that never rolled or deleted a segment).
     */
    private record Written(long end, OptionalLong start, List<Long> bases) {
        static Written read(Path dir) throws IOException {
            OptionalLong end = readOffsets(dir.resolve(RECOVERY_POINT_FILE)).stream().mapToLong(Long::longValue)
                    .findFirst();
            OptionalLong start = readOffsets(dir.resolve(LOG_START_OFFSET_FILE)).stream().mapToLong(Long::longValue)
                    .findFirst();
            return new Written(end.orElse(0), start, readOffsets(dir.resolve(SEGMENT_BASES_FILE)));
        }

        /** Offsets, one per line; none when the file is missing or holds anything else (nothing is claimed then). */
        private static List<Long> readOffsets(Path file) throws IOException {
            if (!Files.exists(file)) {
                return List.of();
            }
            List<Long> offsets = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                try {
                    long offset = Long.parseLong(line.strip());
                    if (offset < 0) {
                        return List.of();
                    }
                    offsets.add(offset);
                } catch (NumberFormatException unreadable) {
                    return List.of();
                }
            }
            return offsets;
        }

        String describe() {
            return RECOVERY_POINT_FILE + " " + end + (start.isPresent() ? ", " + LOG_START_OFFSET_FILE + " "
                    + start.getAsLong() : "") + (bases.isEmpty() ? "" : ", " + SEGMENT_BASES_FILE + " " + bases);
        }
    }

    /**
     * The offsets the checkpoints say were written, from the log start to the recovery point, that no
     * segment on disk covers. A segment on disk covers its offsets up to the next known segment base
     * (on disk or recorded), the last one up to its own end. Why up to the next base and not to the
     * segment's last batch: compaction (chapter 6) rewrites a closed segment under the same base offset
     * and may drop its last batches, so a segment legitimately ends below the next one's base; Kafka's
     * cleaner keeps only the last batch of a cleaning round ({@code upperBoundOffsetOfCleaningRound},
     * KAFKA-17076), and its LogLoader never looks for gaps. What tells a removed record from a lost one
     * here is the record of the segments: every base offset a roll created is in
     * {@link #SEGMENT_BASES_FILE} until retention deletes that segment, so a recorded base missing from
     * disk lost its whole segment, while offsets missing inside a segment were removed by the cleaner.
     * Nothing above the recovery point is claimed: a crash may lose what was never flushed.
     */
    private List<LostDataException.Range> missingOffsets(Written written) {
        long start = written.start().orElse(written.bases().isEmpty()
                ? (segments.isEmpty() ? 0 : segments.firstKey()) : written.bases().get(0));
        TreeSet<Long> bounds = new TreeSet<>(segments.keySet());
        bounds.addAll(written.bases());
        List<LostDataException.Range> missing = new ArrayList<>();
        long from = start;
        for (Segment segment : segments.values()) {
            Long next = bounds.higher(segment.baseOffset());
            long coveredTo = next == null ? segment.nextOffset() : next;
            addMissing(missing, from, Math.min(segment.baseOffset(), written.end()));
            from = Math.max(from, coveredTo);
        }
        addMissing(missing, from, written.end());
        return missing;
    }

    private static void addMissing(List<LostDataException.Range> missing, long from, long to) {
        if (to > from) {
            missing.add(new LostDataException.Range(from, to));
        }
    }

    /**
     * The operator accepted the loss: the log goes on past the missing offsets, so that none is handed
     * out twice. Missing at the end: a new active segment starts where the log had written up to (Kafka,
     * finding a log end below its log start, starts the log again at the log start the same way);
     * missing at the start: the log starts at its first segment; in between: reads go on at the next
     * segment.
     */
    private void goOnPast(List<LostDataException.Range> missing, Written written) throws IOException {
        openEvents.add("offsets " + LostDataException.describe(missing) + " were written and are not on disk ("
                + written.describe() + "): the loss is accepted; the log goes on past them, never handing them out"
                + " again");
        long end = segments.isEmpty() ? 0 : segments.lastEntry().getValue().nextOffset();
        if (written.end() > end && !readOnly) {
            segments.put(written.end(), Segment.create(dir, written.end(), config.indexIntervalBytes()));
        }
    }

    /**
     * Segments wholly below the checkpointed log start: retention (or a DeleteRecords) wrote the new log
     * start and a crash came before it deleted them. The deletion is finished.
     */
    private void finishInterruptedRetention() throws IOException {
        for (Segment below : segmentsBelowLogStart()) {
            below.delete();
            openEvents.add("removed " + below.logFile().getFileName() + ": below the log start offset "
                    + logStartOffset + " (a retention a crash interrupted)");
        }
    }

    /** Removes the closed segments whose every offset is below the log start offset (never the active one). */
    private List<Segment> segmentsBelowLogStart() {
        List<Segment> below = new ArrayList<>();
        while (!readOnly && segments.size() > 1 && segments.higherKey(segments.firstKey()) <= logStartOffset) {
            below.add(segments.pollFirstEntry().getValue());
        }
        return below;
    }

    /** After an open: the checkpoints say what the log holds now (written only when they differ). */
    private void checkpointWritten(Written written) throws IOException {
        List<Long> bases = List.copyOf(segments.keySet());
        if (!bases.equals(written.bases()) && (bases.size() > 1 || !written.bases().isEmpty())) {
            writeCheckpoint(SEGMENT_BASES_FILE, bases);
        }
        if (written.start().orElse(0) != logStartOffset) {
            writeCheckpoint(LOG_START_OFFSET_FILE, List.of(logStartOffset));
        }
    }

    /**
     * A segment that starts below the end of the one before it. Empty, it is the orphan of a roll
     * that failed half-way (its {@code .log} made, its {@code .index} not, the old segment written
     * on): it holds nothing and is removed. With batches, two segments claim the same offsets,
     * which no write of this log can cause: the log refuses to open rather than guess.
     */
    private void dropOrphan(Segment segment, Segment previous) throws IOException {
        String name = segment.logFile().getFileName().toString();
        if (!segment.isEmpty()) {
            segment.close();
            throw new CorruptBatchException("baseOffset", BatchHeader.BASE_OFFSET_OFFSET, "segment " + name
                    + " starts at offset " + segment.baseOffset() + ", inside " + previous.logFile().getFileName()
                    + " (offsets " + previous.baseOffset() + ".." + (previous.nextOffset() - 1) + "): two segments hold"
                    + " the same offsets");
        }
        if (readOnly) {
            segment.close();
        } else {
            segment.delete();
        }
        openEvents.add("ignored " + name + ": an empty segment starting at " + segment.baseOffset() + ", inside "
                + previous.logFile().getFileName() + " (which ends at " + previous.nextOffset() + "): the orphan of a"
                + " roll that failed" + (readOnly ? "" : "; removed"));
    }

    /** An index (offset or time) whose log file is missing belongs to no segment (a roll that failed after it). */
    private void removeOrphanIndexes() throws IOException {
        List<Path> orphans;
        try (Stream<Path> files = Files.list(dir)) {
            orphans = files.filter(p -> orphanIndex(p, Segment.INDEX_SUFFIX) || orphanIndex(p, Segment.TIME_INDEX_SUFFIX))
                    .sorted().toList();
        }
        for (Path orphan : orphans) {
            Files.delete(orphan);
            openEvents.add("removed " + orphan.getFileName() + ": an index without its log");
        }
        for (String checkpoint : List.of(RECOVERY_POINT_FILE, LOG_START_OFFSET_FILE, SEGMENT_BASES_FILE)) {
            Files.deleteIfExists(dir.resolve(checkpoint + ".tmp"));
        }
    }

    private static boolean orphanIndex(Path file, String suffix) {
        String name = file.getFileName().toString();
        return Segment.parseBaseOffset(name, suffix).isPresent()
                && !Files.exists(file.resolveSibling(name.replace(suffix, Segment.LOG_SUFFIX)));
    }

    /** The checkpointed recovery point; 0 (recover everything) when there is none or it is unreadable. */
    private long readRecoveryPoint() throws IOException {
        Path file = dir.resolve(RECOVERY_POINT_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
            long point = Long.parseLong(text);
            if (point >= 0) {
                return point;
            }
        } catch (NumberFormatException unreadable) {
            // fall through: recover everything
        }
        openEvents.add(RECOVERY_POINT_FILE + " holds '" + text + "', not an offset: recovering every segment");
        return 0;
    }

    /** What {@link #open} did beyond loading: recoveries (file, byte, offsets cut), orphans removed, indexes rebuilt. */
    public List<String> openEvents() {
        return List.copyOf(openEvents);
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
                Files.deleteIfExists(dir.resolve(target.replace(Segment.LOG_SUFFIX, Segment.TIME_INDEX_SUFFIX)));
            } else {
                Files.deleteIfExists(leftover);
            }
        }
    }

    /**
     * Appends a producer's batch as the leader: validates it ({@link #validate}), assigns its offsets
     * by rewriting baseOffset to the log end offset (chapter 1: the CRC stays valid), stamps the
     * leader epoch when one is given (>= 0), rolls a new segment when the batch would not fit, and
     * writes it. The producer never chooses offsets; whatever baseOffset it sent is overwritten. The
     * buffer is changed in place: validation copies no record and the offsets are written into the
     * producer's own bytes, as Kafka's broker does with a request's records (no copy of the batch is
     * made). With a hook (chapter 7) the hook validates, judges and appends the proof itself.
     */
    public AppendInfo append(ByteBuffer batch, int leaderEpoch) throws IOException {
        ensureWritable("append");
        if (appendHook != null && hookLeaderEpoch == NOT_IN_HOOK) {
            return appendThroughHook(batch, leaderEpoch);
        }
        return append(validate(batch), leaderEpoch);
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
     * {@link #append(ByteBuffer, int)} for a batch already validated: its records are not walked
     * again. From outside a hook the hook still runs (it validates the bytes once more); from inside
     * it (chapter 7's idempotent append), this is the plain append of the batch the hook judged.
     */
    public AppendInfo append(ValidatedBatch valid, int leaderEpoch) throws IOException {
        ensureWritable("append");
        if (appendHook != null && hookLeaderEpoch == NOT_IN_HOOK) {
            return appendThroughHook(valid.bytes(), leaderEpoch);
        }
        if (hookLeaderEpoch != NOT_IN_HOOK && leaderEpoch < 0) {
            leaderEpoch = hookLeaderEpoch; // the hook's own append is the one it stands in for
        }
        throw new Todo("ch03 task 3: append as the leader, assigning offsets (LogAppendTest)");
    }

    /** {@link #append(ValidatedBatch, int)} without a leader epoch. */
    public AppendInfo append(ValidatedBatch valid) throws IOException {
        return append(valid, BatchHeader.NO_PARTITION_LEADER_EPOCH);
    }

    private AppendInfo appendThroughHook(ByteBuffer batch, int leaderEpoch) throws IOException {
        hookLeaderEpoch = leaderEpoch;
        try {
            return appendHook.append(this, batch);
        } finally {
            hookLeaderEpoch = NOT_IN_HOOK;
        }
    }

    /** Puts {@code hook} in front of every leader append from now on (see {@link AppendHook}); null removes it. */
    public void setAppendHook(AppendHook hook) {
        this.appendHook = hook;
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
        ensureWritable("append");
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
     * Rolls if needed, writes, moves the high watermark when it is eager, and flushes when
     * {@code flush.messages} messages are not flushed yet. A write that fails takes the log offline.
     */
    private void write(ByteBuffer batch) throws IOException {
        ensureWritable("append");
        if (batch.remaining() > config.segmentBytes()) {
            throw new BatchTooLargeException(batch.remaining(), config.segmentBytes());
        }
        if (shouldRoll(activeSegment().size(), batch.remaining(), config.segmentBytes())) {
            roll();
        }
        Segment active = activeSegment();
        int before = active.size();
        try {
            active.append(batch);
        } catch (IOException e) {
            throw goOffline(e);
        }
        active.verifiedThrough(before, active.size()); // validated on its way in: a fetch need not check it again
        if (eagerHighWatermark) {
            highWatermark = logEndOffset();
        }
        if (logEndOffset() - recoveryPoint >= config.flushMessages()) {
            flush();
        }
    }

    /**
     * Fail-stop (Kafka's LogDirFailureChannel): after a write failed half-way, what is in memory
     * may not match the files, so the log takes nothing more; recovery at the next open decides
     * what the files hold.
     */
    private StorageException goOffline(IOException e) {
        if (offline == null) {
            offline = e instanceof StorageException storage ? storage : new StorageException(dir, e);
        }
        return offline;
    }

    /** Throws when the log is offline (every call) or read-only (writes). */
    private void ensureWritable(String what) throws IOException {
        ensureOnline();
        if (readOnly) {
            throw new ReadOnlyLogException(dir, what);
        }
    }

    private void ensureOnline() throws StorageException {
        if (offline != null) {
            throw new StorageException(offline.file(), offline);
        }
    }

    /** The storage failure that took this log offline, if one did. */
    public Optional<StorageException> offline() {
        return Optional.ofNullable(offline);
    }

    public boolean readOnly() {
        return readOnly;
    }

    /** A new active segment when the batch would push a non-empty one past segment.bytes. */
    public static boolean shouldRoll(int activeSize, int batchSize, int segmentBytes) {
        throw new Todo("ch03 task 3: roll when the next batch would not fit (LogAppendTest)");
    }

    /** Starts a new active segment at the log end offset (the old one becomes closed). */
    public void roll() throws IOException {
        ensureWritable("roll");
        long base = logEndOffset();
        if (activeSegment().isEmpty()) {
            return;
        }
        try {
            activeSegment().onBecomeInactive();
            activeSegment().flush();
            segments.put(base, Segment.create(dir, base, config.indexIntervalBytes()));
            // After the segment exists: a recorded base missing from disk is then always a loss.
            writeCheckpoint(SEGMENT_BASES_FILE, List.copyOf(segments.keySet()));
            checkpointRecoveryPoint(base);
        } catch (IOException e) {
            throw goOffline(e);
        }
    }

    /**
     * Reads whole batches from the one holding {@code fetchOffset}: at most {@code maxBytes}, but
     * always at least one batch (a batch larger than maxBytes must not stall a reader forever), and
     * nothing at or past the isolation's bound: the log end for a follower, the high watermark for
     * a consumer. Below the log start offset or past the log end offset is an error.
     */
    public ByteBuffer read(long fetchOffset, int maxBytes, FetchIsolation isolation) throws IOException {
        ensureOnline();
        throw new Todo("ch03 task 4: read whole batches up to the isolation's bound (LogReadTest)");
    }

    /**
     * The earliest offset whose record's timestamp is at or after {@code timestamp}, with that
     * timestamp and its batch's leader epoch; empty when no record is that new (Kafka's
     * UnifiedLog.fetchOffsetByTimestamp: the first segment whose largest timestamp reaches the
     * target is searched through its time index, then its batches). Up to the log end: a consumer's
     * answer (ListOffsets) is bounded by the high watermark by its caller. Given code: no task.
     */
    public Optional<Segment.TimestampAndOffset> offsetForTimestamp(long timestamp) throws IOException {
        ensureOnline();
        for (Segment segment : segments.values()) {
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
        ensureOnline();
        Segment latest = null;
        for (Segment segment : segments.values()) {
            if (latest == null || segment.largestTimestampSoFar() > latest.largestTimestampSoFar()) {
                latest = segment;
            }
        }
        return latest.findLargestTimestamp();
    }

    /** Removes every batch whose last offset is at or past {@code offset} (a follower truncating, chapter 8). */
    public void truncateTo(long offset) throws IOException {
        ensureWritable("truncate");
        if (offset >= logEndOffset()) {
            return;
        }
        if (offset < logStartOffset) {
            throw new IllegalArgumentException("cannot truncate to " + offset + ", below the log start offset "
                    + logStartOffset);
        }
        try {
            if (segments.size() > 1 && segments.lastKey() >= offset) {
                // Before the files go: a recorded segment that is not on disk would be a loss at the next open.
                writeCheckpoint(SEGMENT_BASES_FILE, List.copyOf(segments.headMap(offset, false).keySet()));
                if (recoveryPoint > offset) {
                    checkpointRecoveryPoint(offset);
                }
            }
            while (segments.size() > 1 && segments.lastKey() >= offset) {
                segments.pollLastEntry().getValue().delete();
            }
            activeSegment().truncateTo(offset);
            if (recoveryPoint > logEndOffset()) {
                checkpointRecoveryPoint(logEndOffset());
            }
        } catch (IOException e) {
            throw goOffline(e);
        }
        highWatermark = Math.min(highWatermark, logEndOffset());
        if (appendHook != null) {
            appendHook.truncated(this);
        }
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
        ensureWritable("delete a segment");
        if (segment == activeSegment()) {
            throw new IllegalArgumentException("the active segment is never deleted");
        }
        if (segments.get(segment.baseOffset()) != segment) {
            throw new IllegalArgumentException("segment " + segment.baseOffset() + " is not part of this log");
        }
        try {
            // The new log start and the remaining segments first: files that start later than the
            // checkpointed log start, or a recorded segment missing, are a loss at the next open.
            long newStart = Math.max(logStartOffset, segments.higherKey(segment.baseOffset()));
            if (segment.baseOffset() == segments.firstKey() && newStart > logStartOffset) {
                writeCheckpoint(LOG_START_OFFSET_FILE, List.of(newStart));
            }
            segments.remove(segment.baseOffset());
            writeCheckpoint(SEGMENT_BASES_FILE, List.copyOf(segments.keySet()));
            segment.delete();
        } catch (IOException e) {
            throw goOffline(e);
        }
        logStartOffset = Math.max(logStartOffset, segments.firstKey());
        highWatermark = Math.max(highWatermark, logStartOffset);
    }

    /**
     * Moves the log start offset forward to {@code offset}, as Kafka's DeleteRecords does
     * ({@code UnifiedLog.maybeIncrementLogStartOffset}): the records below it are gone for every reader
     * at once (a fetch there is out of range, ListOffsets' earliest is the new start), and the segments
     * wholly below it are deleted now (Kafka's next retention check does it,
     * {@code deleteLogStartOffsetBreachedSegments}); the segment holding {@code offset} stays and is read
     * from the batch that holds it, as after retention. Never past the high watermark (an
     * {@link OffsetOutOfRangeException}, Kafka's answer): a consumer must not lose records it could not
     * yet read. An offset at or below the log start changes nothing. The new start is written to
     * {@link #LOG_START_OFFSET_FILE} before any file goes, so it survives a crash. Returns the log start
     * offset after the call (Kafka's low watermark, for one replica).
     */
    public long advanceLogStartOffset(long offset) throws IOException {
        ensureWritable("move the log start offset");
        if (offset > highWatermark) {
            throw new OffsetOutOfRangeException(offset, "cannot move the log start offset to " + offset + ": it is past"
                    + " the high watermark " + highWatermark);
        }
        if (offset <= logStartOffset) {
            return logStartOffset;
        }
        try {
            writeCheckpoint(LOG_START_OFFSET_FILE, List.of(offset));
            logStartOffset = offset;
            List<Segment> below = segmentsBelowLogStart();
            if (!below.isEmpty()) {
                writeCheckpoint(SEGMENT_BASES_FILE, List.copyOf(segments.keySet()));
                for (Segment segment : below) {
                    segment.delete();
                }
            }
        } catch (IOException e) {
            throw goOffline(e);
        }
        return logStartOffset;
    }

    /**
     * A topic's configs changed while this log is open (Kafka's {@code UnifiedLog.updateConfig}): the
     * next roll decision, the next segment's index interval and the next flush follow {@code newConfig};
     * what is written stays as it was written.
     */
    public void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    /**
     * Compaction (chapter 6) replaces a closed segment with a rewritten one. {@code swapFile} must
     * be {@code <base>.log.swap} in this directory, fully written and flushed: its existence is the
     * commit point. The old segment is closed, the swap renamed over it atomically, the index
     * rebuilt. A crash anywhere in between is finished by {@link #open}.
     */
    public Segment replaceSegment(Segment old, Path swapFile) throws IOException {
        ensureWritable("replace a segment");
        if (old == activeSegment()) {
            throw new IllegalArgumentException("the active segment is never compacted");
        }
        if (!swapFile.equals(old.logFile().resolveSibling(old.logFile().getFileName() + SWAP_SUFFIX))) {
            throw new IllegalArgumentException(swapFile + " is not the swap file of " + old.logFile());
        }
        try {
            old.close();
            // The old indexes first: a crash after the move must not pair the new log with the old indexes.
            Files.deleteIfExists(old.indexFile());
            Files.deleteIfExists(old.timeIndexFile());
            Files.move(swapFile, old.logFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw goOffline(e);
        }
        Segment replacement = Segment.open(dir, old.baseOffset(), config.indexIntervalBytes(), Long.MAX_VALUE, true,
                false, openEvents);
        replacement.onBecomeInactive();
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

    /** The segments from the one holding {@code offset} on, oldest first (a view: read it under the partition's lock). */
    public java.util.Collection<Segment> segmentsFrom(long offset) {
        Long floor = segments.floorKey(offset);
        return segments.tailMap(floor == null ? segments.firstKey() : floor).values();
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

    /**
     * Writes every segment that holds unflushed offsets to disk ({@code fsync}) and moves the
     * recovery point to the log end offset. A read-only log has nothing to flush.
     */
    public void flush() throws IOException {
        ensureOnline();
        if (readOnly) {
            return;
        }
        long end = logEndOffset();
        try {
            for (Segment segment : segments.tailMap(segments.floorKey(Math.max(recoveryPoint, logStartOffset))).values()) {
                segment.flush();
            }
            checkpointRecoveryPoint(end);
        } catch (IOException e) {
            throw goOffline(e);
        }
    }

    /**
     * {@code flush.ms}: flushes when that much time passed since the last flush this method made
     * (the partition calls it on every tick; time is a parameter, as everywhere in chapter code).
     */
    public void maybeFlush(long nowMs) throws IOException {
        if (lastFlushMs < 0 || logEndOffset() == recoveryPoint) {
            lastFlushMs = nowMs;
            return;
        }
        if (offline == null && !readOnly && nowMs - lastFlushMs >= config.flushMs()) {
            flush();
            lastFlushMs = nowMs;
        }
    }

    /** Offsets below it are on disk: a roll and a flush move it, recovery after a crash starts there. */
    public long recoveryPoint() {
        return recoveryPoint;
    }

    /** Writes the recovery point to a temporary file, forces it, and renames it over the old one (atomic). */
    private void checkpointRecoveryPoint(long point) throws IOException {
        writeCheckpoint(RECOVERY_POINT_FILE, List.of(point));
        recoveryPoint = point;
    }

    /** Writes {@code offsets}, one per line, to a temporary file, forces it, and renames it over {@code name}. */
    private void writeCheckpoint(String name, List<Long> offsets) throws IOException {
        Path file = dir.resolve(name);
        Path tmp = dir.resolve(name + ".tmp");
        StringBuilder lines = new StringBuilder();
        offsets.forEach(offset -> lines.append(offset).append('\n'));
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer text = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
            while (text.hasRemaining()) {
                out.write(text);
            }
            out.force(true);
        } catch (IOException e) {
            throw new StorageException(tmp, e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new StorageException(file, e);
        }
    }

    /**
     * A clean shutdown: flushes, then writes {@link #CLEAN_SHUTDOWN_FILE} so that the next open
     * recovers nothing, then closes the files. An offline or read-only log only closes its files:
     * without the marker, the next open recovers.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (offline == null && !readOnly) {
                flush();
                try (FileChannel marker = FileChannel.open(dir.resolve(CLEAN_SHUTDOWN_FILE), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE)) {
                    marker.force(true); // as Kafka's CleanShutdownFileHandler: the marker itself is on disk
                }
            }
        } finally {
            closeSegments();
        }
    }

    private void closeSegments() throws IOException {
        IOException failure = null;
        for (Map.Entry<Long, Segment> entry : segments.entrySet()) {
            try {
                entry.getValue().close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeSegmentsQuietly() {
        try {
            closeSegments();
        } catch (IOException ignored) {
            // opening failed: that failure is the one thrown
        }
    }

    private static ByteBuffer concat(List<ByteBuffer> batches, int total) {
        ByteBuffer out = ByteBuffer.allocate(total);
        batches.forEach(b -> out.put(b.duplicate()));
        return out.flip();
    }
}
