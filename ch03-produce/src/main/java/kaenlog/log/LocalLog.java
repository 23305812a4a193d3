package kaenlog.log;

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
import java.util.Optional;

/**
 * A log's segments on disk (Kafka's {@code LocalLog}): writing a batch whose offsets are final to
 * the active segment, rolling a new one, flushing and the recovery point, cutting the tail,
 * deleting and swapping closed segments, and the files that record all this. It knows offsets
 * only as its segments hold them (the log end offset); the log start offset and the high
 * watermark are {@link Log}'s, which decides what to write and when to roll.
 *
 * <p>Fail-stop (Kafka's {@code LogDirFailureChannel}): after a write failed half-way, what is in
 * memory may not match the files, so the log goes offline and takes nothing more; recovery at the
 * next open decides what the files hold. Not thread-safe: the partition's lock guards it.
 */
final class LocalLog {
    private final Path dir;
    /** Changed only by {@link #updateConfig}: a topic's configs altered while its log is open. */
    private LogConfig config;
    private final boolean readOnly;
    private final LogSegments segments;
    private long recoveryPoint;
    /**
     * Offsets below it are in segments a roll closed without forcing them (-1: none): they wait for
     * {@link #pendingFlush}, which forces them without the partition's lock.
     */
    private long rolledUnflushedEnd = -1;
    /**
     * Counts truncations: a force begun before one may no longer cover the offsets below its end.
     * Written under the partition's lock, read without it too ({@link #checkpointFlushed}).
     */
    private volatile long truncations;
    /**
     * What {@value Log#RECOVERY_POINT_FILE} says. Every write of that file holds this lock, with or
     * without the partition's (always in that order): the force of a roll writes it without.
     */
    private final Object checkpointLock = new Object();
    private long checkpointedRecoveryPoint;
    /**
     * Counts the changes of the segments' base offsets that {@value Log#SEGMENT_BASES_FILE} must follow
     * (rolls, truncations; guarded by the partition's lock), and the count its file says (guarded by
     * {@link #checkpointLock}): a roll leaves the file to {@link #checkpointFlushed}, without the lock.
     */
    private long basesVersion;
    private long writtenBasesVersion;
    private long lastFlushMs = -1;
    private StorageException offline;
    private boolean closed;

    LocalLog(Path dir, LogConfig config, boolean readOnly, LogSegments segments, long recoveryPoint) {
        this.dir = dir;
        this.config = config;
        this.readOnly = readOnly;
        this.segments = segments;
        this.recoveryPoint = recoveryPoint;
        this.checkpointedRecoveryPoint = recoveryPoint;
    }

    /** The offset the next batch will get: where the active segment ends. */
    long logEndOffset() {
        return segments.active().nextOffset();
    }

    LogSegments segments() {
        return segments;
    }

    Path dir() {
        return dir;
    }

    LogConfig config() {
        return config;
    }

    /**
     * Writes a batch whose offsets are final at the end of the active segment. A write that fails
     * takes the log offline. The batch was validated on its way in: a fetch need not check it again.
     */
    void append(ByteBuffer batch) throws IOException {
        ensureWritable("append");
        Segment active = segments.active();
        int before = active.size();
        try {
            active.append(batch);
        } catch (IOException e) {
            throw goOffline(e);
        }
        active.verifiedThrough(before, active.size());
    }

    /**
     * Starts a new active segment at the log end offset (the old one becomes closed). The closed
     * segment is not forced here, under the partition's lock, where every produce and fetch of the
     * partition would wait for the {@code fsync} (tens to hundreds of milliseconds for a segment of
     * 128 MiB): as Kafka's {@code UnifiedLog.roll} leaves it to a "flush-log" task, it is left to
     * {@link #pendingFlush}, and the recovery point moves once that force is done.
     */
    void roll() throws IOException {
        ensureWritable("roll");
        long base = logEndOffset();
        if (segments.active().isEmpty()) {
            return;
        }
        try {
            segments.active().onBecomeInactive();
            segments.add(Segment.create(dir, base, config.indexIntervalBytes()));
            // The record of the segments is written with the recovery point, once the rolled segment is
            // forced, without the lock (forcing it here held every follower's fetch 75-150 ms under load):
            // until then the new segment is unrecorded, and no offset in it or after it is claimed either.
            basesVersion++;
            rolledUnflushedEnd = base;
        } catch (IOException e) {
            throw goOffline(e);
        }
    }

    /**
     * The force the last rolls left to do (Kafka's {@code flush-log} task): the closed segments
     * from the recovery point up to the last roll's base offset; empty when there is none. The
     * caller forces them WITHOUT the partition's lock ({@link Log.PendingFlush#force}: a closed
     * segment is only read meanwhile), then hands them back to {@link #completeFlush} under it.
     */
    Optional<Log.PendingFlush> pendingFlush() {
        if (closed || offline != null || readOnly || rolledUnflushedEnd <= recoveryPoint) {
            return Optional.empty();
        }
        List<Segment> rolled = segments.from(recoveryPoint).stream()
                .filter(segment -> segment.baseOffset() < rolledUnflushedEnd && segment != segments.active())
                .toList();
        return Optional.of(new Log.PendingFlush(rolledUnflushedEnd, rolled, truncations, segments.baseOffsets(),
                basesVersion));
    }

    /**
     * A {@link #pendingFlush} is done: the recovery point moves to its end (Kafka's
     * {@code markFlushed}, under the log's lock), unless a truncation came in between (the offsets
     * below its end may hold other batches now). When its force failed, the log goes offline
     * (fail-stop), unless one of its segments went meanwhile (retention, compaction, a truncation
     * closed it): then nothing is claimed, and the next call forces what is still there.
     */
    void completeFlush(Log.PendingFlush flush, IOException failure) throws IOException {
        if (closed || offline != null) {
            return;
        }
        if (failure != null) {
            if (flush.segments().stream().allMatch(segments::holds)) {
                throw goOffline(failure);
            }
            return;
        }
        long end = Math.min(flush.end(), logEndOffset());
        if (flush.truncations() == truncations && end > recoveryPoint) {
            recoveryPoint = end; // its file was written by checkpointFlushed, without the lock
        }
    }

    /**
     * WITHOUT the partition's lock, after {@code flush.force()}: writes the flush's end to
     * {@value Log#RECOVERY_POINT_FILE} (a temporary file, forced, renamed), unless a truncation came
     * since the flush was taken or the file already says as much. The force of that small file
     * waits for the disk's journal right after the segment's force: 113-157 ms measured under
     * load, which under the lock held every fetch again. Kafka's {@code markFlushed} only moves the
     * point in memory, and its file is written every 60 s by the log manager.
     */
    void checkpointFlushed(Log.PendingFlush flush) throws IOException {
        synchronized (checkpointLock) {
            if (flush.truncations() != truncations) {
                return; // a truncation since: its own write of the segments' record is newer
            }
            if (flush.basesVersion() > writtenBasesVersion) {
                // Before the recovery point: every segment below a claimed offset is recorded first.
                writeCheckpoint(dir, Log.SEGMENT_BASES_FILE, flush.bases());
                writtenBasesVersion = flush.basesVersion();
            }
            if (flush.end() <= checkpointedRecoveryPoint) {
                return;
            }
            writeCheckpoint(dir, Log.RECOVERY_POINT_FILE, List.of(flush.end()));
            checkpointedRecoveryPoint = flush.end();
        }
    }

    /**
     * Writes every segment that holds unflushed offsets to disk ({@code fsync}) and moves the
     * recovery point to the log end offset. A read-only log has nothing to flush.
     */
    void flush() throws IOException {
        ensureOnline();
        if (readOnly) {
            return;
        }
        long end = logEndOffset();
        try {
            for (Segment segment : segments.from(recoveryPoint)) {
                segment.flush();
            }
            checkpointRecoveryPoint(end);
        } catch (IOException e) {
            throw goOffline(e);
        }
    }

    /** {@code flush.ms}: flushes when that much time passed since the last flush this method made. */
    void maybeFlush(long nowMs) throws IOException {
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
    long recoveryPoint() {
        return recoveryPoint;
    }

    /** How many offsets were written since the last flush (Kafka's {@code unflushedMessages}). */
    long unflushedMessages() {
        return logEndOffset() - recoveryPoint;
    }

    /**
     * Removes every batch whose last offset is at or past {@code offset}: the later segments whole,
     * the one holding it from that batch on.
     */
    void truncateTo(long offset) throws IOException {
        ensureWritable("truncate");
        truncations++;
        try {
            if (segments.count() > 1 && segments.active().baseOffset() >= offset) {
                // Before the files go: a recorded segment that is not on disk would be a loss at the next open.
                // Under checkpointLock, after truncations moved: a roll's record written without the
                // partition's lock never lands after this one.
                synchronized (checkpointLock) {
                    writeCheckpoint(dir, Log.SEGMENT_BASES_FILE,
                            segments.below(offset).stream().map(Segment::baseOffset).toList());
                    writtenBasesVersion = ++basesVersion;
                }
                lowerRecoveryPointTo(offset);
            }
            while (segments.count() > 1 && segments.active().baseOffset() >= offset) {
                segments.removeLast().delete();
            }
            segments.active().truncateTo(offset);
            rolledUnflushedEnd = Math.min(rolledUnflushedEnd, segments.active().baseOffset());
            lowerRecoveryPointTo(logEndOffset());
        } catch (IOException e) {
            throw goOffline(e);
        }
    }

    /**
     * Takes the oldest segment out of the log and renames its files {@code .deleted} (Kafka's
     * {@code removeAndDeleteSegments} with {@code asyncDelete}): under the partition's lock, nothing
     * is forced or unlinked here. The caller owes the log start offset's checkpoint, then the
     * unlink ({@link Log.PendingDeletion}). A rename that fails takes the log offline.
     */
    void retire(Segment segment) throws IOException {
        try {
            segment.renameToDeleted();
        } catch (IOException e) {
            throw goOffline(e);
        }
        segments.remove(segment);
    }

    /** {@link #retire} for every closed segment whose every offset is below {@code logStartOffset}, oldest first. */
    List<Segment> retireWhollyBelow(long logStartOffset) throws IOException {
        List<Segment> below = new ArrayList<>();
        for (Segment segment : segments.all()) {
            Long next = segments.nextBaseOffset(segment.baseOffset());
            if (next == null || next > logStartOffset) {
                break;
            }
            below.add(segment);
        }
        for (Segment segment : below) {
            retire(segment);
        }
        return below;
    }

    void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    /**
     * Replaces a closed segment with the one in its swap file (see {@link Log#replaceSegment}): the
     * old segment is closed, its indexes removed, the swap renamed over it atomically, and the new
     * one opened, its indexes rebuilt (told in {@code events}).
     */
    Segment replaceSegment(Segment old, Path swapFile, List<String> events) throws IOException {
        ensureWritable("replace a segment");
        if (old == segments.active()) {
            throw new IllegalArgumentException("the active segment is never compacted");
        }
        if (!swapFile.equals(Log.swapFileOf(old))) {
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
                false, events);
        replacement.onBecomeInactive();
        segments.add(replacement);
        return replacement;
    }

    /** Writes the recovery point to its checkpoint file, then remembers it. */
    private void checkpointRecoveryPoint(long point) throws IOException {
        synchronized (checkpointLock) {
            if (basesVersion > writtenBasesVersion) {
                writeCheckpoint(dir, Log.SEGMENT_BASES_FILE, segments.baseOffsets());
                writtenBasesVersion = basesVersion;
            }
            writeCheckpoint(dir, Log.RECOVERY_POINT_FILE, List.of(point));
            checkpointedRecoveryPoint = point;
        }
        recoveryPoint = point;
    }

    /**
     * After a truncation to {@code end}: neither the recovery point nor its file may claim more. The
     * file is asked too: a roll's force may have written it ahead of the point in memory.
     */
    private void lowerRecoveryPointTo(long end) throws IOException {
        synchronized (checkpointLock) {
            if (checkpointedRecoveryPoint > end) {
                writeCheckpoint(dir, Log.RECOVERY_POINT_FILE, List.of(end));
                checkpointedRecoveryPoint = end;
            }
        }
        recoveryPoint = Math.min(recoveryPoint, end);
    }

    /**
     * Writes {@code offsets}, one per line, to a temporary file, forces it, and renames it over
     * {@code name} (atomic: a crash leaves the old file or the new one, whole).
     */
    static void writeCheckpoint(Path dir, String name, List<Long> offsets) throws StorageException {
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
     * A clean shutdown: flushes, then writes {@link Log#CLEAN_SHUTDOWN_FILE} so that the next open
     * recovers nothing, then closes the files. An offline or read-only log only closes its files:
     * without the marker, the next open recovers.
     */
    void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (offline == null && !readOnly) {
                flush();
                try (FileChannel marker = FileChannel.open(dir.resolve(Log.CLEAN_SHUTDOWN_FILE),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    marker.force(true); // as Kafka's CleanShutdownFileHandler: the marker itself is on disk
                }
            }
        } finally {
            segments.close();
        }
    }

    /** Takes the log offline for good (fail-stop); returns the failure every later call throws. */
    StorageException goOffline(IOException e) {
        if (offline == null) {
            offline = e instanceof StorageException storage ? storage : new StorageException(dir, e);
        }
        return offline;
    }

    /** Throws when the log is offline (every call) or read-only (writes). */
    void ensureWritable(String what) throws IOException {
        ensureOnline();
        if (readOnly) {
            throw new ReadOnlyLogException(dir, what);
        }
    }

    void ensureOnline() throws StorageException {
        if (offline != null) {
            throw new StorageException(offline.file(), offline);
        }
    }

    /** The failure that took the log offline, or null. */
    StorageException offline() {
        return offline;
    }

    boolean readOnly() {
        return readOnly;
    }
}
