package kaenlog.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.FileBatches;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * A segment opened from disk: which of its batches to trust, whether its indexes still match them,
 * and where to cut a torn tail. Kafka does the same in {@code LogSegment.recover} and
 * {@code sanityCheck}, which its {@code LogLoader} calls for each segment: the index is rebuilt
 * from the log, and the bytes after the last valid batch are cut off.
 *
 * <p>Batches whose last offset lies below the recovery point were flushed (or the log was shut down
 * cleanly): only their headers are read, to learn offsets and timestamps. The batches from there on
 * are recovered, checked one by one (task 5 (RecoveryTest)).
 */
final class SegmentRecovery {
    private final Segment segment;
    private final FileChannel log;

    SegmentRecovery(Segment segment) {
        this.segment = segment;
        this.log = segment.file().channel();
    }

    /**
     * Loads the segment: trusts the batches below {@code recoverFrom}, recovers the rest, and keeps
     * the stored indexes when they agree with the batches, else rebuilds them (always, when anything
     * was recovered). What was cut or rebuilt is added to {@code events}.
     *
     * <p>A damaged header in the trusted part is thrown as a {@link CorruptBatchException} after a
     * clean shutdown: those bytes may hold acknowledged records, and cutting them is not recovery.
     * After an unclean one, recovery starts there instead (a torn tail that a failed write left
     * behind in a segment that was rolled afterwards).
     *
     * @param readOnly nothing is cut or rewritten; an index that has to be rebuilt lives in memory
     */
    void load(long recoverFrom, boolean clean, boolean readOnly, List<String> events) throws IOException {
        long fileSize = log.size();
        OffsetIndex stored = OffsetIndex.load(segment.indexFile(), segment.baseOffset(), fileSize);
        // Read-only, nothing can be cut: the segment ends before its first broken header, and a
        // batch whose CRC fails is reported when it is read.
        long trustedEnd = readOnly ? scanTrusted(fileSize, Long.MAX_VALUE, false, false)
                : scanTrusted(fileSize, recoverFrom, clean, false);
        boolean recovering = trustedEnd < fileSize && !readOnly;
        if (readOnly && trustedEnd < fileSize) {
            events.add("read-only: " + segment.logFile().getFileName() + " is read up to byte " + trustedEnd + "; the "
                    + (fileSize - trustedEnd) + " byte(s) after it do not start a whole batch and are not served");
        }
        if (stored != null && !recovering && agrees(stored)) {
            segment.useIndex(stored);
            loadTimeIndex(readOnly, events);
            return;
        }
        if (stored != null) {
            stored.close();
            if (!recovering) {
                events.add("index " + segment.indexFile().getFileName() + " does not match its log (an entry points"
                        + " at no batch holding its offset): rebuilt from the log");
            }
        }
        rebuildIndexes(trustedEnd, readOnly);
        if (recovering) {
            recoverTail(fileSize, events);
        }
    }

    /** New, empty indexes (in memory only when read-only), filled again from the trusted batches' headers. */
    private void rebuildIndexes(long trustedEnd, boolean readOnly) throws IOException {
        segment.useIndex(readOnly ? OffsetIndex.inMemory(segment.indexFile(), segment.baseOffset())
                : OffsetIndex.create(segment.indexFile(), segment.baseOffset()));
        segment.useTimeIndex(readOnly ? TimeIndex.inMemory(segment.timeIndexFile(), segment.baseOffset())
                : TimeIndex.create(segment.timeIndexFile(), segment.baseOffset()));
        segment.resetTo(0);
        scanTrusted(trustedEnd, Long.MAX_VALUE, false, true);
    }

    /**
     * Reads batch headers from byte 0 up to the first batch whose last offset reaches
     * {@code recoverFrom}, checking only what a header can show (magic, a length that fits, offsets
     * that grow), and tracks them (indexing them when {@code indexIt}). Returns where it stopped.
     * With {@code clean}, a broken header is thrown; else recovery takes over from it.
     */
    private long scanTrusted(long end, long recoverFrom, boolean clean, boolean indexIt) throws IOException {
        for (long position = 0; position < end; ) {
            BatchHeader header = wholeHeaderAt(position, end, true);
            if (header == null && clean) {
                throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET, "segment "
                        + segment.logFile().getFileName() + " has a broken batch at byte " + position + " after a"
                        + " clean shutdown: not cut, as it may hold acknowledged records");
            }
            if (header == null || header.lastOffset() >= recoverFrom) {
                return position;
            }
            segment.track(header, (int) position, indexIt);
            position += header.sizeInBytes();
        }
        return end;
    }

    /**
     * The header at {@code position} when it looks like one of a whole batch (magic, a length that
     * fits before {@code end}, a last offset an index entry can hold) and, when {@code mustFollow},
     * one that can come next in the segment; null otherwise. The CRC is not checked: only the header
     * is read.
     */
    private BatchHeader wholeHeaderAt(long position, long end, boolean mustFollow) throws IOException {
        if (end - position < BatchHeader.SIZE) {
            return null;
        }
        BatchHeader header = segment.headerAt(position);
        try {
            boolean whole = header.magic() == BatchHeader.MAGIC
                    && header.batchLength() >= BatchHeader.SIZE - BatchHeader.LOG_OVERHEAD
                    && position + BatchHeader.LOG_OVERHEAD + (long) header.batchLength() <= end
                    && header.lastOffsetDelta() >= 0
                    && (mustFollow ? segment.follows(header) : segment.fitsTheIndex(header));
            return whole ? header : null;
        } catch (CorruptBatchException overflows) {
            return null; // a last offset past Long.MAX_VALUE
        }
    }

    /** Whether every entry of a stored index points at the start of a batch whose last offset it names. */
    private boolean agrees(OffsetIndex stored) throws IOException {
        for (OffsetIndex.Entry entry : stored.entries()) {
            BatchHeader header = entry.position() < segment.size()
                    ? wholeHeaderAt(entry.position(), segment.size(), false) : null;
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
        TimeIndex stored = TimeIndex.load(segment.timeIndexFile(), segment.baseOffset(), segment.nextOffset(),
                segment.largestTimestampSoFar());
        if (stored != null && writtenByAppending(stored.entries(), expected)) {
            segment.useTimeIndex(stored);
            return;
        }
        if (stored != null) {
            stored.close();
        }
        if (Files.exists(segment.timeIndexFile())) {
            events.add("time index " + segment.timeIndexFile().getFileName() + " fails its sanity check (a partial"
                    + " entry, or entries that do not match its log's batches): rebuilt from the log");
        }
        TimeIndex rebuilt = readOnly ? TimeIndex.inMemory(segment.timeIndexFile(), segment.baseOffset())
                : TimeIndex.create(segment.timeIndexFile(), segment.baseOffset());
        segment.useTimeIndex(rebuilt);
        for (TimeIndex.Entry entry : expected) {
            rebuilt.maybeAppend(entry.timestamp(), entry.offset());
        }
    }

    /** The entries appending wrote with the offset index's entries, replayed over the batch headers. */
    private List<TimeIndex.Entry> timeIndexFromLog() throws IOException {
        List<TimeIndex.Entry> entries = new ArrayList<>();
        List<OffsetIndex.Entry> indexed = segment.indexEntries();
        int next = 0;
        long largest = BatchHeader.NO_TIMESTAMP;
        long offsetOfLargest = segment.baseOffset();
        for (long position = 0; position < segment.size() && next < indexed.size(); ) {
            BatchHeader header = segment.headerAt(position);
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
        TimeIndex.Entry rolled = segment.largestSoFar();
        boolean above = expected.isEmpty() || rolled.timestamp() > expected.get(expected.size() - 1).timestamp();
        return above && stored.size() == expected.size() + 1 && stored.subList(0, expected.size()).equals(expected)
                && stored.get(expected.size()).equals(rolled);
    }

    /**
     * Recovers the batches after the trusted ones and says what was cut: the file, the byte, the
     * whole batches (how many, which offsets) and the torn bytes after them.
     */
    private void recoverTail(long fileSize, List<String> events) throws IOException {
        // Before the cut: where the batches after the trusted ones start, as their headers say.
        List<Long> starts = new ArrayList<>();
        List<BatchHeader> headers = new ArrayList<>();
        long wholeEnd = segment.size();
        for (long at = segment.size(); ; ) {
            BatchHeader h = wholeHeaderAt(at, fileSize, false);
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
            if (starts.get(i) >= segment.size()) {
                lost.add(headers.get(i));
            }
        }
        events.add(cutReport(cut, lost, segment.size() + cut - Math.max(wholeEnd, segment.size())));
    }

    /** What recovery cut: the file, the byte, the whole batches lost (the first failed its checks), the torn bytes. */
    private String cutReport(long cut, List<BatchHeader> lost, long torn) {
        StringBuilder line = new StringBuilder("recovery cut " + segment.logFile().getFileName() + " at byte "
                + segment.size() + ": " + cut + " byte(s)");
        if (!lost.isEmpty()) {
            BatchHeader last = lost.get(lost.size() - 1);
            line.append(", ").append(lost.size()).append(" whole batch(es) with offsets ").append(lost.get(0).baseOffset())
                    .append("..").append(last.baseOffset() + last.lastOffsetDelta()).append(" (the first fails its checks)");
        }
        if (torn > 0) {
            line.append(", ").append(torn).append(" byte(s) that are no whole batch");
        }
        return line.append("; the segment goes on at offset ").append(segment.nextOffset()).toString();
    }

    /**
     * Validates the batches from the segment's current size on (0 when everything is recovered; the
     * end of the batches below the recovery point, already checked, otherwise), tracking each as an
     * append would, and truncates the file at the first batch that is torn (a crash mid-write) or
     * corrupt: every complete batch before it survives, nothing after it does. Returns how many
     * bytes were cut.
     */
    long truncateTornTail() throws IOException {
        throw new Todo("ch03 task 5: recover by truncating a torn tail (RecoveryTest)");
    }
}
