package kaenlog.compaction;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CompactedBatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.Log;
import kaenlog.log.Segment;

/**
 * Compaction ({@code cleanup.policy=compact}): keeps the latest record of every key in the closed
 * segments and <b>never moves an offset</b>. Kafka's {@code LogCleaner} runs {@code Cleaner} in
 * two passes: build an {@link OffsetMap} (key -> latest offset) over the cleanable segments, then
 * rewrite each segment keeping a record only if it is its key's latest, through
 * {@code MemoryRecords.filterTo}. A rewritten batch keeps its base and last offset and its
 * producer fields (chapter 1's {@link CompactedBatchBuilder}); offsets simply become sparse, and a
 * consumer sees the gaps.
 *
 * <p>What kaen-log leaves out: Kafka remembers how far it cleaned (the "clean" and "dirty" parts
 * of the log, {@code cleaner-offset-checkpoint}), waits until enough of the log is dirty
 * ({@code min.cleanable.dirty.ratio}), and merges small segments into one cleaned segment
 * ({@code groupSegmentsBySize}). kaen-log maps and rewrites every closed segment on every run,
 * one segment at a time: slower, same result.
 */
public final class Cleaner {
    /** One rewritten segment, before and after. */
    public record SegmentCleaned(long baseOffset, int batchesBefore, int batchesAfter, int recordsBefore,
                                 int recordsAfter, int bytesBefore, int bytesAfter) {
    }

    /** What one cleaning run did: the segments it rewrote and how many keys its map held. */
    public record Result(List<SegmentCleaned> segments, int keys) {
        public Result {
            segments = List.copyOf(segments);
        }
    }

    private final long deleteRetentionMs;
    private final SegmentSwap swap;

    /** A cleaner whose tombstones live {@code delete.retention.ms} after their first cleaning. */
    public Cleaner(long deleteRetentionMs) {
        this(deleteRetentionMs, SegmentSwap.Hook.NONE);
    }

    /** The same, with a hook into every segment swap (tests crash it there). */
    public Cleaner(long deleteRetentionMs, SegmentSwap.Hook hook) {
        if (deleteRetentionMs < 0) {
            throw new IllegalArgumentException("delete.retention.ms must not be negative, not " + deleteRetentionMs);
        }
        this.deleteRetentionMs = deleteRetentionMs;
        this.swap = new SegmentSwap(hook);
    }

    /**
     * Runs a step of a cleaning while nobody else touches the log: the broker passes its partition's
     * lock, so appends and fetches wait for one step at most; {@link #NONE} runs it as it is (one
     * thread owns the log: the demo, the tests).
     */
    @FunctionalInterface
    public interface Guard {
        Guard NONE = Step::run;

        void locked(Step step) throws IOException;

        /** A step of a cleaning. */
        @FunctionalInterface
        interface Step {
            void run() throws IOException;
        }
    }

    /**
     * What a log's transactions add to a cleaning. Chapter 6's logs have none ({@link #NONE}); chapter
     * 11's append hook has them, and the broker's cleaner asks the log's hook
     * ({@link #of(Log)}). Kafka's cleaner stops below the last stable offset, leaves the records of
     * aborted transactions out of its map and drops them, and keeps a transaction's marker while any
     * batch of the transaction is left ({@code CleanedTransactionMetadata}).
     */
    public interface Transactions {
        /**
         * No transactions this cleaning can judge: it stops below the high watermark and judges every batch
         * by the map. A log that holds transactional batches all the same (chapter 11 writes a transaction's
         * offsets to {@code __consumer_offsets}, which has no append hook) is cleaned only below the first
         * of them: without its transactions' view, the map would let one marker's key stand for every
         * marker and keep an aborted offset over a committed one, so that part is left as it is.
         */
        Transactions NONE = (log, nowMs) -> {
            long bound = firstTransactionalOffset(log, log.highWatermark());
            return () -> bound;
        };

        /** The base offset of the first transactional or control batch below {@code limit}, else {@code limit}. */
        private static long firstTransactionalOffset(Log log, long limit) throws IOException {
            for (Segment segment : log.segments()) {
                if (segment.baseOffset() >= limit) {
                    break;
                }
                for (BatchHeader header : segment.headers()) {
                    if (header.isTransactional() || header.isControl()) {
                        return Math.min(limit, header.baseOffset());
                    }
                }
            }
            return limit;
        }

        /** The round's view of the log's transactions, taken under the guard when a cleaning starts at {@code nowMs}. */
        Round begin(Log log, long nowMs) throws IOException;

        /** The transactions of {@code log}: its append hook's, if the hook keeps them, else none. */
        static Transactions of(Log log) {
            return log.appendHook() instanceof Transactions transactions ? transactions : NONE;
        }
    }

    /** One cleaning's view of the transactions (see {@link Transactions}). */
    @FunctionalInterface
    public interface Round {
        /** The first offset this cleaning must not clean: no segment reaching it is cleanable. */
        long firstUncleanableOffset();

        /** A new walk over the cleanable segments, oldest first: the map's, then the rewrite's. */
        default Walk walk() {
            return batch -> Verdict.CLEAN;
        }

        /** What becomes of {@code batch} if it ends up with no record: chapter 6's rule ({@link #batchRetention}). */
        default BatchRetention retention(BatchHeader batch, Map<Long, Long> lastOffsetOfProducers, long endOfRound) {
            return batchRetention(batch, lastOffsetOfProducers, endOfRound);
        }

        /** Under the guard, once {@code cleaned} replaced the segment {@code walk} (the rewrite's) has just left. */
        default void replaced(Segment cleaned, Walk walk) throws IOException {
        }
    }

    /** A walk over the cleanable segments, oldest first, batch by batch. */
    @FunctionalInterface
    public interface Walk {
        /** The walk reaches {@code segment}, the next segment starting at {@code nextSegmentOffset}. */
        default void enter(Segment segment, long nextSegmentOffset) throws IOException {
        }

        /** What becomes of the next batch of the walk. */
        Verdict judge(RecordBatch batch);
    }

    /** What a walk makes of a batch (Kafka's {@code checkBatchRetention} and its record filter). */
    public enum Verdict {
        /** Chapter 6's cleaning: each record judged by the map (and mapped by the first pass). */
        CLEAN,
        /** Every record goes (an aborted transaction's, or a marker past its delete horizon); left out of the map. */
        DISCARD,
        /** Kept as it is (a marker whose transaction still has batches in the log); left out of the map. */
        KEEP,
        /** Kept until its delete horizon, stamped now if it has none (a marker whose transaction is gone). */
        KEEP_UNTIL_HORIZON
    }

    /**
     * Cleans {@code log} at time {@code nowMs}. The cleanable segments are the ones retention may
     * consider: closed and wholly below the high watermark (Kafka: below the "first uncleanable
     * offset"); the active segment is never touched. The map is built over all of them first,
     * then each is rewritten and swapped in.
     */
    public Result clean(Log log, long nowMs) throws IOException {
        return clean(log, nowMs, Guard.NONE);
    }

    /**
     * The same while producers append and consumers fetch (Kafka's cleaner threads run beside the
     * request handlers): what reads the active segment (which segments are cleanable, the producers'
     * last offsets) and each segment swap run under {@code guard}; building the map and rewriting
     * the closed segments, which nobody else writes, run outside it.
     */
    public Result clean(Log log, long nowMs, Guard guard) throws IOException {
        return clean(log, nowMs, guard, Transactions.NONE);
    }

    /**
     * The same for a log with {@code transactions}: the cleanable segments stop below the round's
     * first uncleanable offset, and each batch is what the round's walks make of it.
     */
    public Result clean(Log log, long nowMs, Guard guard, Transactions transactions) throws IOException {
        List<Segment> segments = new ArrayList<>();
        List<Segment> cleanable = new ArrayList<>();
        List<BatchHeader> activeHeaders = new ArrayList<>();
        List<Round> rounds = new ArrayList<>();
        guard.locked(() -> {
            segments.addAll(log.segments());
            Round round = transactions.begin(log, nowMs);
            rounds.add(round);
            cleanable.addAll(Retention.candidates(log));
            while (!cleanable.isEmpty() && segments.get(cleanable.size()).baseOffset() > round.firstUncleanableOffset()) {
                cleanable.remove(cleanable.size() - 1);
            }
            activeHeaders.addAll(log.activeSegment().headers());
        });
        Round round = rounds.get(0);
        if (cleanable.isEmpty()) {
            return new Result(List.of(), 0);
        }
        // The closed segments change only through this cleaner (and retention, on the same thread).
        Map<Long, Long> lastOffsets = new HashMap<>();
        for (Segment closed : segments.subList(0, segments.size() - 1)) {
            putLastOffsets(closed.headers(), lastOffsets);
        }
        putLastOffsets(activeHeaders, lastOffsets);
        long endOfRound = segments.get(cleanable.size()).baseOffset();
        // one segment's batches in memory at a time: the map keeps keys, not every record read
        OffsetMap map = new OffsetMap();
        Walk mapping = round.walk();
        for (int i = 0; i < cleanable.size(); i++) {
            mapping.enter(cleanable.get(i), segments.get(i + 1).baseOffset());
            List<RecordBatch> mapped = new ArrayList<>();
            for (RecordBatch batch : cleanable.get(i).batches()) {
                if (mapping.judge(batch) == Verdict.CLEAN) {
                    mapped.add(batch);
                } else {
                    map.updateLatestOffset(batch.lastOffset()); // Kafka: read, not mapped
                }
            }
            map.putAll(OffsetMap.of(mapped));
        }
        List<SegmentCleaned> cleaned = new ArrayList<>();
        Walk rewriting = round.walk();
        for (int i = 0; i < cleanable.size(); i++) {
            rewriting.enter(cleanable.get(i), segments.get(i + 1).baseOffset());
            cleaned.add(cleanSegment(log, cleanable.get(i), map, lastOffsets, endOfRound, nowMs, guard, round, rewriting));
        }
        return new Result(cleaned, map.size());
    }

    private SegmentCleaned cleanSegment(Log log, Segment segment, OffsetMap map, Map<Long, Long> lastOffsets,
                                        long endOfRound, long nowMs, Guard guard, Round round, Walk walk)
            throws IOException {
        List<ByteBuffer> kept = new ArrayList<>();
        int batches = 0;
        int records = 0;
        int recordsKept = 0;
        for (ByteBuffer bytes : rawBatches(segment)) {
            RecordBatch batch = RecordBatch.decode(bytes.duplicate());
            batches++;
            records += batch.records().size();
            BatchRetention retention = round.retention(batch.header(), lastOffsets, endOfRound);
            Optional<ByteBuffer> cleaned = switch (walk.judge(batch)) {
                case CLEAN -> cleanBatch(batch, bytes, map, retention, nowMs);
                case DISCARD -> emptied(batch.header(), retention);
                case KEEP -> batch.records().isEmpty() ? emptied(batch.header(), retention) : Optional.of(bytes.duplicate());
                case KEEP_UNTIL_HORIZON -> batch.records().isEmpty() ? emptied(batch.header(), retention)
                        : Optional.of(DeleteHorizon.of(batch.header()).isPresent() ? bytes.duplicate()
                                : DeleteHorizon.stamp(bytes, nowMs + deleteRetentionMs));
            };
            if (cleaned.isPresent()) {
                kept.add(cleaned.get());
                recordsKept += BatchHeader.readFrom(cleaned.get().duplicate()).recordCount();
            }
        }
        int bytesBefore = segment.size();
        List<Segment> replacement = new ArrayList<>();
        guard.locked(() -> {
            replacement.add(swap.replace(log, segment, kept));
            round.replaced(replacement.get(0), walk);
        });
        return new SegmentCleaned(segment.baseOffset(), batches, kept.size(), records, recordsKept, bytesBefore,
                replacement.get(0).size());
    }

    /**
     * Kafka's {@code Cleaner.shouldRetainRecord}, for one record of a batch: a record past the
     * map's latest offset was not mapped and stays; a record without a key is dropped (a compacted
     * log has no use for it); otherwise it stays only if it is its key's latest
     * ({@code record.offset() >= map.get(key)}), and, if it is a tombstone (null value), only
     * while its batch has no delete horizon or {@code nowMs} is still before it.
     */
    public static boolean shouldRetainRecord(BatchHeader batch, Record record, OffsetMap map, long nowMs) {
        // BEGIN-SOLUTION ch06 task 4: keep a key's latest record; a tombstone until its delete horizon (BatchCleaningTest)
        if (record.offset() > map.latestOffset()) {
            return true;
        }
        if (record.key() == null) {
            return false;
        }
        boolean latestForKey = record.offset() >= map.get(record.key());
        OptionalLong horizon = DeleteHorizon.of(batch);
        boolean retainDeletes = horizon.isEmpty() || nowMs < horizon.getAsLong();
        return latestForKey && (!record.isTombstone() || retainDeletes);
        // END-SOLUTION
    }

    /**
     * What to do with a batch that ends up with no record, Kafka's {@code checkBatchRetention}:
     * keep it as an empty header ({@link BatchRetention#RETAIN_EMPTY}) when it holds its
     * producer's last data offset, because "it also contains the last sequence number for this
     * producer" (chapter 7 rebuilds its window from it), or when it is the last batch of the
     * cleaning round ({@code batch.nextOffset() == upperBoundOffsetOfCleaningRound}, KAFKA-17076:
     * the log keeps the offset where it ends); otherwise drop it ({@link BatchRetention#DELETE_EMPTY}).
     * Kafka forgets an expired producer ({@code producer.id.expiration.ms}); kaen-log keeps every
     * producer it finds in the log.
     */
    public static BatchRetention batchRetention(BatchHeader batch, Map<Long, Long> lastOffsetOfProducers,
                                                long endOfRound) {
        Long lastOfProducer = lastOffsetOfProducers.get(batch.producerId());
        if (batch.hasProducerId() && lastOfProducer != null && lastOfProducer == batch.lastOffset()) {
            return BatchRetention.RETAIN_EMPTY;
        }
        if (batch.nextOffset() == endOfRound) {
            return BatchRetention.RETAIN_EMPTY;
        }
        return BatchRetention.DELETE_EMPTY;
    }

    /**
     * Kafka's {@code MemoryRecords.filterTo} for one batch, whose bytes are {@code original}:
     * <ul>
     * <li>no record kept: an empty 61-byte header if {@code retention} is RETAIN_EMPTY
     *     (Kafka's {@code writeEmptyHeader}), nothing otherwise;</li>
     * <li>every record kept and no horizon to stamp: the original bytes, untouched;</li>
     * <li>otherwise the kept records rebuilt with chapter 1's preserving builder, which keeps the
     *     base and last offset, producer id, epoch and base sequence; and if the batch keeps a
     *     tombstone and has no horizon yet, or had one, stamped with it ({@link DeleteHorizon}).</li>
     * </ul>
     */
    public Optional<ByteBuffer> cleanBatch(RecordBatch batch, ByteBuffer original, OffsetMap map,
                                           BatchRetention retention, long nowMs) {
        // BEGIN-SOLUTION ch06 task 4: rewrite a batch with the preserving builder; the empty batch rule (BatchCleaningTest)
        BatchHeader header = batch.header();
        List<Record> kept = batch.records().stream()
                .filter(r -> shouldRetainRecord(header, r, map, nowMs))
                .toList();
        if (kept.isEmpty()) {
            return retention == BatchRetention.RETAIN_EMPTY
                    ? Optional.of(new CompactedBatchBuilder(DeleteHorizon.cleared(header)).build())
                    : Optional.empty();
        }
        OptionalLong horizon = DeleteHorizon.of(header);
        boolean needsHorizon = horizon.isEmpty() && kept.stream().anyMatch(Record::isTombstone);
        if (kept.size() == batch.records().size() && !needsHorizon) {
            return Optional.of(original.duplicate());
        }
        CompactedBatchBuilder builder = new CompactedBatchBuilder(DeleteHorizon.cleared(header));
        kept.forEach(builder::retain);
        ByteBuffer rebuilt = builder.build();
        if (needsHorizon) {
            return Optional.of(DeleteHorizon.stamp(rebuilt, nowMs + deleteRetentionMs));
        }
        return Optional.of(horizon.isPresent() ? DeleteHorizon.stamp(rebuilt, horizon.getAsLong()) : rebuilt);
        // END-SOLUTION
    }

    /** A batch that keeps no record: an empty 61-byte header if {@code retention} says so, else nothing. */
    private static Optional<ByteBuffer> emptied(BatchHeader header, BatchRetention retention) {
        return retention == BatchRetention.RETAIN_EMPTY
                ? Optional.of(new CompactedBatchBuilder(DeleteHorizon.cleared(header)).build())
                : Optional.empty();
    }

    /**
     * Producer id -> the last offset of its last data batch anywhere in the log, the active
     * segment included (Kafka's {@code lastRecordsOfActiveProducers}).
     */
    public static Map<Long, Long> lastOffsetsOfProducers(Log log) throws IOException {
        Map<Long, Long> last = new HashMap<>();
        for (Segment segment : log.segments()) {
            putLastOffsets(segment.headers(), last);
        }
        return last;
    }

    /** Producer id -> last offset of its data batches among {@code headers}, later ones winning. */
    private static void putLastOffsets(List<BatchHeader> headers, Map<Long, Long> last) {
        for (BatchHeader header : headers) {
            if (header.hasProducerId() && !header.isControl()) {
                last.put(header.producerId(), header.lastOffset());
            }
        }
    }

    /** The raw bytes of every batch of a segment, oldest first. */
    static List<ByteBuffer> rawBatches(Segment segment) throws IOException {
        List<ByteBuffer> batches = new ArrayList<>();
        for (long position = 0; position < segment.size(); ) {
            ByteBuffer bytes = segment.batchAt(position);
            batches.add(bytes);
            position += bytes.remaining();
        }
        return batches;
    }
}
