package kaenlog.log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.stream.Stream;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;

/**
 * Opens a log's directory (Kafka's {@code LogLoader}): finishes or discards what an interrupted
 * segment swap left behind (chapter 6), removes the orphans of a failed roll, loads the segments
 * and, after an unclean shutdown, recovers the batches from the recovery point on. Then it checks
 * that the files hold every offset the log's checkpoints say it wrote: a loss is refused, or gone
 * past when the operator accepts it. It returns the segments as a {@link LocalLog}, with the log
 * start offset and what it did; {@link Log#open} builds the log from them.
 *
 * <p>What it reads beside the segments:
 * <ul>
 *   <li>{@value Log#CLEAN_SHUTDOWN_FILE}, written by {@link Log#close()} after everything was
 *       flushed, deleted here: when it is there, the log was shut down cleanly and nothing needs
 *       recovering (Kafka's {@code CleanShutdownFileHandler} keeps one per log directory; kaen-log
 *       one per partition, as partitions open on first use).</li>
 *   <li>{@value Log#RECOVERY_POINT_FILE}: every offset below it was flushed to disk. Written (to a
 *       temporary file, then renamed over the old one) after every flush; after an unclean shutdown
 *       recovery checks only the batches from there on. Kafka keeps the points of all partitions of
 *       a log directory in one file of this name.</li>
 *   <li>{@value Log#LOG_START_OFFSET_FILE}, written before retention deletes a segment, so that a
 *       log whose files start later than it is known to have lost them (Kafka's file of this name
 *       holds a log directory's log start offsets; here, as the recovery point, one per
 *       partition).</li>
 *   <li>{@value Log#SEGMENT_BASES_FILE}, the base offset of every segment, one per line, written
 *       with the recovery point once a roll's segment is forced, by a truncation and by an open; a base
 *       below the log start offset claims nothing, so retention leaves it there until the next write. kaen-log's own file: Kafka knows its segments
 *       only by their file names and looks for no gap between them (compaction leaves gaps there,
 *       see {@link #missingOffsets}).</li>
 * </ul>
 */
final class LogLoader {
    private final Path dir;
    private final LogConfig config;
    private final boolean readOnly;
    /** The operator accepts that offsets missing from the files are lost ({@link LostDataException}). */
    private final boolean acceptDataLoss;
    private final LogSegments segments = new LogSegments();
    /** What opening did beyond loading: recoveries, orphans removed, indexes rebuilt; {@link Log#openEvents} tells it. */
    private final List<String> events = new ArrayList<>();

    /** A loaded log: its segments and files, its log start offset, and what loading did. */
    record Loaded(LocalLog local, long logStartOffset, List<String> events) {
    }

    private LogLoader(Path dir, LogConfig config, boolean readOnly, boolean acceptDataLoss) {
        this.dir = dir;
        this.config = config;
        this.readOnly = readOnly;
        this.acceptDataLoss = acceptDataLoss;
    }

    /**
     * Loads the log in {@code dir}, creating the directory when there is none; a directory that
     * cannot be written is loaded read-only. On failure nothing stays open.
     */
    static Loaded load(Path dir, LogConfig config, boolean acceptDataLoss) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
        }
        LogLoader loader = new LogLoader(dir, config, !Files.isWritable(dir), acceptDataLoss);
        try {
            return loader.load();
        } catch (IOException | RuntimeException e) {
            loader.segments.closeQuietly();
            throw e;
        }
    }

    /**
     * After a clean shutdown ({@link Log#CLEAN_SHUTDOWN_FILE}) nothing is recovered; after an unclean
     * one, the batches from the recovery point on. The marker is deleted once the segments are
     * loaded: from then on a crash is an unclean shutdown.
     */
    private Loaded load() throws IOException {
        Path marker = dir.resolve(Log.CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        cleanUp();
        long recoverFrom = clean || readOnly ? Long.MAX_VALUE : readRecoveryPoint();
        Written onDisk = Written.read(dir);
        loadSegments(recoverFrom, clean);
        List<Path> retired = retiredFiles();
        Written written = onDisk.afterRetention(retiredBelow(retired));
        List<LostDataException.Range> missing = missingOffsets(written);
        if (!missing.isEmpty()) {
            if (!acceptDataLoss) {
                throw new LostDataException(dir, missing, written.describe());
            }
            goOnPast(missing, written);
        }
        closeAllButTheLast();
        if (clean && !readOnly) {
            Files.delete(marker);
        }
        long logStartOffset = Math.max(segments.first().baseOffset(), written.start().orElse(0));
        finishInterruptedRetention(logStartOffset, retired);
        LocalLog local = new LocalLog(dir, config, readOnly, segments,
                Math.min(recoverFrom, segments.active().nextOffset()));
        if (!readOnly) {
            checkpointWritten(onDisk, logStartOffset);
        }
        return new Loaded(local, logStartOffset, events);
    }

    /** Finishes what an interrupted swap or roll left; a read-only directory is left as it is. */
    private void cleanUp() throws IOException {
        if (readOnly) {
            events.add("read-only: its directory cannot be written; reads are served, writes refused, nothing"
                    + " recovered");
        } else {
            finishInterruptedSwaps();
            removeOrphanIndexes();
        }
    }

    /** Opens every segment on disk, oldest first; an empty one inside its predecessor is a failed roll's orphan. */
    private void loadSegments(long recoverFrom, boolean clean) throws IOException {
        List<Long> baseOffsets = segmentBaseOffsets();
        if (!clean && !readOnly && !baseOffsets.isEmpty()) {
            events.add("no clean shutdown: recovering the batches from offset " + recoverFrom
                    + " (the recovery point) on");
        }
        for (long base : baseOffsets) {
            Segment segment = Segment.open(dir, base, config.indexIntervalBytes(), recoverFrom, clean, readOnly,
                    events);
            if (!segments.isEmpty() && base < segments.active().nextOffset()) {
                dropOrphan(segment, segments.active());
                continue;
            }
            segments.add(segment);
        }
    }

    /**
     * Every segment but the last is closed: its time index gets its last entry. A log without a
     * segment gets its first one, at offset 0.
     */
    private void closeAllButTheLast() throws IOException {
        if (!readOnly && !segments.isEmpty()) {
            for (Segment closed : segments.below(segments.active().baseOffset())) {
                closed.onBecomeInactive();
            }
        }
        if (segments.isEmpty()) {
            if (readOnly) {
                throw new ReadOnlyLogException(dir, "create the first segment");
            }
            segments.add(Segment.create(dir, 0, config.indexIntervalBytes()));
        }
    }

    /**
     * What the log's checkpoints say it wrote: its recovery point (every offset below it was
     * flushed), its log start offset and the base offsets of its segments; each absent when its file
     * is (a log from before these files, or one that never rolled or deleted a segment).
     */
    private record Written(long end, OptionalLong start, List<Long> bases) {
        static Written read(Path dir) throws IOException {
            OptionalLong end = readOffsets(dir.resolve(Log.RECOVERY_POINT_FILE)).stream().mapToLong(Long::longValue)
                    .findFirst();
            OptionalLong start = readOffsets(dir.resolve(Log.LOG_START_OFFSET_FILE)).stream().mapToLong(Long::longValue)
                    .findFirst();
            return new Written(end.orElse(0), start, readOffsets(dir.resolve(Log.SEGMENT_BASES_FILE)));
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

        /**
         * What the checkpoints claim once the segments retention had renamed {@code .deleted} are
         * counted as deleted: a log start at least {@code retiredBelow} (the first segment after them),
         * and no recorded base below it. Retention renames first and writes the log start offset after,
         * without the partition's lock ({@link Log#deleteSegment}): a crash in between leaves the old
         * log start in its file and the renamed files on disk. -1: nothing retired, nothing changes.
         */
        Written afterRetention(long retiredBelow) {
            if (retiredBelow < 0 || start.orElse(0) >= retiredBelow) {
                return this;
            }
            return new Written(end, OptionalLong.of(retiredBelow), bases.stream().filter(b -> b >= retiredBelow).toList());
        }

        String describe() {
            return Log.RECOVERY_POINT_FILE + " " + end + (start.isPresent() ? ", " + Log.LOG_START_OFFSET_FILE + " "
                    + start.getAsLong() : "") + (bases.isEmpty() ? "" : ", " + Log.SEGMENT_BASES_FILE + " " + bases);
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
     * {@link Log#SEGMENT_BASES_FILE} until retention deletes that segment (and moves the log start past it),
     * so a recorded base at or above the log start missing from disk lost its whole segment, while offsets
     * missing inside a segment were removed by the cleaner.
     * Nothing above the recovery point is claimed: a crash may lose what was never flushed.
     */
    private List<LostDataException.Range> missingOffsets(Written written) {
        long start = written.start().orElse(written.bases().isEmpty()
                ? (segments.isEmpty() ? 0 : segments.first().baseOffset()) : written.bases().get(0));
        TreeSet<Long> bounds = new TreeSet<>(segments.baseOffsets());
        bounds.addAll(written.bases());
        List<LostDataException.Range> missing = new ArrayList<>();
        long from = start;
        for (Segment segment : segments.all()) {
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
        events.add("offsets " + LostDataException.describe(missing) + " were written and are not on disk ("
                + written.describe() + "): the loss is accepted; the log goes on past them, never handing them out"
                + " again");
        long end = segments.isEmpty() ? 0 : segments.active().nextOffset();
        if (written.end() > end && !readOnly) {
            segments.add(Segment.create(dir, written.end(), config.indexIntervalBytes()));
        }
    }

    /**
     * The files retention renamed {@code .deleted} ({@link Log#deleteSegment}) and a crash left before
     * it unlinked them: every {@code <name>.deleted}.
     */
    private List<Path> retiredFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(Log.DELETED_SUFFIX))
                    .sorted().toList();
        }
    }

    private static boolean isRetiredLog(Path file) {
        return file.getFileName().toString().endsWith(Segment.LOG_SUFFIX + Log.DELETED_SUFFIX);
    }

    /**
     * The base offset of the first segment on disk, when retention had renamed the segments before
     * it {@code .deleted}: the log starts there at least. -1 when there is no such file, or when one
     * lies above a segment on disk (retention only ever takes the oldest: that file is no retention's,
     * and the files are judged as they are).
     */
    private long retiredBelow(List<Path> retired) {
        List<Long> bases = retired.stream().filter(LogLoader::isRetiredLog)
                .map(p -> p.getFileName().toString())
                .map(name -> Segment.parseBaseOffset(name.substring(0, name.length() - Log.DELETED_SUFFIX.length()),
                        Segment.LOG_SUFFIX))
                .filter(OptionalLong::isPresent).map(OptionalLong::getAsLong).toList();
        if (bases.isEmpty() || segments.isEmpty()) {
            return -1;
        }
        long first = segments.first().baseOffset();
        return bases.stream().allMatch(base -> base < first) ? first : -1;
    }

    /**
     * Retention a crash interrupted, finished. Segments wholly below the checkpointed log start:
     * the new log start was written and the crash came before their files went. Files renamed
     * {@code .deleted}: their segment had left the log; they go (once the log is known to have
     * lost nothing, so that a refused open leaves every file as it was).
     */
    private void finishInterruptedRetention(long logStartOffset, List<Path> retired) throws IOException {
        if (readOnly) {
            return;
        }
        for (Path file : retired) {
            Files.deleteIfExists(file);
            if (isRetiredLog(file)) {
                events.add("removed " + file.getFileName() + ": retention had taken its segment out of the log"
                        + " (the log starts at " + logStartOffset + "), a crash came before its files went");
            }
        }
        for (Segment below : segments.removeWhollyBelow(logStartOffset)) {
            below.delete();
            events.add("removed " + below.logFile().getFileName() + ": below the log start offset "
                    + logStartOffset + " (a retention a crash interrupted)");
        }
    }

    /** After an open: the checkpoints say what the log holds now (written only when they differ). */
    private void checkpointWritten(Written written, long logStartOffset) throws IOException {
        List<Long> bases = segments.baseOffsets();
        if (!bases.equals(written.bases()) && (bases.size() > 1 || !written.bases().isEmpty())) {
            LocalLog.writeCheckpoint(dir, Log.SEGMENT_BASES_FILE, bases);
        }
        if (written.start().orElse(0) != logStartOffset) {
            LocalLog.writeCheckpoint(dir, Log.LOG_START_OFFSET_FILE, List.of(logStartOffset));
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
        events.add("ignored " + name + ": an empty segment starting at " + segment.baseOffset() + ", inside "
                + previous.logFile().getFileName() + " (which ends at " + previous.nextOffset() + "): the orphan of a"
                + " roll that failed" + (readOnly ? "" : "; removed"));
    }

    /** An index (offset or time) whose log file is missing belongs to no segment (a roll that failed after it). */
    private void removeOrphanIndexes() throws IOException {
        List<Path> orphans;
        try (Stream<Path> files = Files.list(dir)) {
            orphans = files.filter(p -> orphanIndex(p, Segment.INDEX_SUFFIX) || orphanIndex(p, Segment.TIME_INDEX_SUFFIX)
                            || orphanIndex(p, Segment.TXN_INDEX_SUFFIX))
                    .sorted().toList();
        }
        for (Path orphan : orphans) {
            Files.delete(orphan);
            events.add("removed " + orphan.getFileName() + ": an index without its log");
        }
        for (String checkpoint : List.of(Log.RECOVERY_POINT_FILE, Log.LOG_START_OFFSET_FILE, Log.SEGMENT_BASES_FILE)) {
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
        Path file = dir.resolve(Log.RECOVERY_POINT_FILE);
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
        events.add(Log.RECOVERY_POINT_FILE + " holds '" + text + "', not an offset: recovering every segment");
        return 0;
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
     * the segment, so it goes; a .swap file did, so the swap is finished (.deleted files are
     * retention's: {@link #finishInterruptedRetention}).
     * Either the old segment or the new one survives whole, never a mix (Kafka's LogLoader does the same).
     */
    private void finishInterruptedSwaps() throws IOException {
        List<Path> leftovers;
        try (Stream<Path> files = Files.list(dir)) {
            leftovers = files.filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(Log.CLEANED_SUFFIX) || name.endsWith(Log.SWAP_SUFFIX);
            }).sorted().toList();
        }
        for (Path leftover : leftovers) {
            String name = leftover.getFileName().toString();
            if (name.endsWith(Log.SWAP_SUFFIX)) {
                String target = name.substring(0, name.length() - Log.SWAP_SUFFIX.length());
                Files.move(leftover, dir.resolve(target), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Files.deleteIfExists(dir.resolve(target.replace(Segment.LOG_SUFFIX, Segment.INDEX_SUFFIX)));
                Files.deleteIfExists(dir.resolve(target.replace(Segment.LOG_SUFFIX, Segment.TIME_INDEX_SUFFIX)));
            } else {
                Files.deleteIfExists(leftover);
            }
        }
    }
}
