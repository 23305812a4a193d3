package kaenlog.idem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.ValidatedBatch;
import kaenlog.workbook.Todo;

/**
 * The idempotent producer's rules ({@link #judge}) and where they meet chapter 3's log: the append
 * that judges before it writes ({@link #appendIdempotent}) and the scan that rebuilds the state when
 * a log is opened ({@link #rebuildProducerState}).
 */
public final class Idempotence {

    private Idempotence() {
    }

    /**
     * Judges a batch {@code [firstSeq, lastSeq]} from a producer whose state is {@code entry}.
     *
     * <ol>
     *   <li>A retained batch with exactly this first AND last sequence, and the same epoch, makes it a
     *       {@link Verdict.Duplicate} carrying that batch's offsets and timestamp. Kafka's
     *       {@code ProducerStateEntry.findDuplicateBatch} checks the epoch, then looks for the exact
     *       range. A half overlap is not a duplicate. This check runs first: a resend's sequence is
     *       always behind the expected one.</li>
     *   <li>Otherwise {@code firstSeq == entry.expectedFirstSeq()} makes it {@link Verdict.Append}.</li>
     *   <li>Otherwise {@link Verdict.OutOfOrderSequenceNumber}(expected, got = firstSeq).</li>
     * </ol>
     *
     * <p>Where Kafka goes further: its broker also fences older epochs and, on a new epoch, requires
     * sequence 0 and forgets the old batches. kaen-log uses the epoch only in rule 1.
     */
    public static Verdict judge(ProducerStateEntry entry, short epoch, int firstSeq, int lastSeq) {
        Objects.requireNonNull(entry, "entry");
        throw new Todo("ch07 task 3: judge a batch: duplicate, append or out of order (JudgeTest)");
    }

    /**
     * Appends a producer's batch to {@code log} unless it is a resend or out of order: <b>judge
     * first, then write</b>. The producer fields come from the batch header (chapter 1): producerId,
     * producerEpoch, baseSequence, and the last sequence baseSequence + lastOffsetDelta.
     *
     * <ul>
     *   <li>{@link Verdict.Duplicate}: nothing is written; the answer carries the offsets of the first
     *       write (Kafka 4.1.1's UnifiedLog fills its answer from {@code result.maybeDuplicate} and
     *       never reaches {@code localLog.append(...)}). The log end offset does not move.</li>
     *   <li>{@link Verdict.OutOfOrderSequenceNumber}: nothing is written, offsets -1. The state is not
     *       touched either: a rejected batch must not become the new "last sequence".</li>
     *   <li>{@link Verdict.Append}: the log appends it (and assigns its offsets); then, and only then,
     *       the window remembers it, with the epoch it carried.</li>
     * </ul>
     *
     * A batch without a producer id (-1: no idempotent producer wrote it) is appended as in chapter 3,
     * unjudged. The caller holds the partition's lock (chapter 3's {@code Partition.locked}), so no
     * other append can slip in between the verdict and the write.
     *
     * @throws kaenlog.batch.CorruptBatchException when the bytes are not a valid batch (nothing is written)
     */
    public static IdempotentAppend appendIdempotent(Log log, ProducerState state, ByteBuffer batch) throws IOException {
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(state, "state");
        throw new Todo("ch07 task 4: judge first, then write; a duplicate writes nothing (AppendIdempotentTest)");
    }

    /**
     * Builds the batch an idempotent producer sends, {@code values.size()} records with sequences
     * {@code firstSeq} onwards, all stamped {@code nowMs}, and appends it with
     * {@link #appendIdempotent(Log, ProducerState, ByteBuffer)}.
     */
    public static IdempotentAppend appendIdempotent(Log log, ProducerState state, long producerId, short producerEpoch,
                                                    int firstSeq, List<String> values, long nowMs) throws IOException {
        return appendIdempotent(log, state, producerBatch(producerId, producerEpoch, firstSeq, values, nowMs));
    }

    /** An idempotent producer's batch (chapter 1's builder with the three producer fields set); keys are null. */
    public static ByteBuffer producerBatch(long producerId, short producerEpoch, int firstSeq, List<String> values,
                                           long nowMs) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one record");
        }
        if (producerId < 0 || firstSeq < 0) {
            throw new IllegalArgumentException("an idempotent batch has producerId >= 0 and baseSequence >= 0, not "
                    + producerId + " and " + firstSeq);
        }
        BatchBuilder builder = new BatchBuilder().producer(producerId, producerEpoch, firstSeq);
        for (String value : values) {
            builder.append(nowMs, null, value);
        }
        return builder.build();
    }

    /**
     * The four numbers the window keeps for a batch, read from its header alone: the last sequence
     * (baseSequence + lastOffsetDelta), the last offset, lastOffsetDelta, and maxTimestamp. No record
     * body is needed, which is why chapter 6's compaction must PRESERVE these header fields.
     */
    public static BatchMetadata metadataOf(BatchHeader header) {
        return new BatchMetadata(header.lastSequence(), header.lastOffset(), header.lastOffsetDelta(),
                header.maxTimestamp());
    }

    /**
     * Rebuilds a partition's producer state when its log is opened, by scanning the batch headers of
     * the <b>active segment only</b>, oldest first: every batch with a producer id becomes a window
     * slot of that producer (the last five survive), with the epoch its header carries.
     *
     * <p>kaen-log has no {@code .snapshot} file (Kafka's ProducerStateManager writes one) and keeps
     * nothing else on disk: this scan is the only reason dedup survives a broker restart, and it sees
     * only what the active segment still holds. A producer whose batches rolled into an older segment
     * starts over with an empty window, and then only sequence 0 is in sequence for it.
     */
    public static ProducerState rebuildProducerState(Log log) throws IOException {
        Objects.requireNonNull(log, "log");
        throw new Todo("ch07 task 5: scan the active segment only (RebuildProducerStateTest)");
    }

    /**
     * Replays batch headers, oldest first, into a fresh producer state: each header with a producer
     * id becomes a slot of that producer's window ({@link #metadataOf}), with the epoch it carries.
     * Headers without a producer id (-1) are skipped. Pointed at a compacted segment it must recover
     * the same windows as before compaction (chapter 6's seam: {@code CompactionSeamTest}).
     */
    public static ProducerState rebuildProducerState(List<BatchHeader> headers) {
        Objects.requireNonNull(headers, "headers");
        throw new Todo("ch07 task 5: replay batch headers into the windows (RebuildProducerStateTest)");
    }
}
