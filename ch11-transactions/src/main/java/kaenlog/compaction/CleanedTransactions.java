package kaenlog.compaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.RecordBatch;
import kaenlog.log.AbortedTxn;
import kaenlog.log.Segment;
import kaenlog.workbook.Todo;

/**
 * What a cleaning keeps of a log's transactions, one walk over the cleanable segments, oldest first
 * (Kafka's {@code CleanedTransactionMetadata}, which its {@code Cleaner} runs once to build the offset
 * map and once to rewrite the segments):
 * <ul>
 * <li>a batch of an <b>aborted</b> transaction is discarded: a read_committed consumer never reads it,
 *     and it must not hide a committed record of its key, so it is left out of the map too;</li>
 * <li>a COMMIT or ABORT <b>marker</b> is kept while the walk saw a batch of its transaction (even one
 *     this cleaning empties); an ABORT kept so keeps its entry in the cleaned segment's
 *     {@code .txnindex}, which a read_committed fetch still needs;</li>
 * <li>a marker whose transaction has no batch left is kept until its <b>delete horizon</b>, stamped by
 *     the first cleaning that finds it so (KIP-534: the cleaning's time + {@code delete.retention.ms}),
 *     and removed by the first cleaning at or after it: a consumer reading behind still sees where
 *     the transaction ended.</li>
 * </ul>
 * The transactions aborted are read from the {@code .txnindex} files: as the walk enters a segment it
 * learns the ones that overlap it, and each becomes its producer's aborted transaction once the walk
 * reaches its first offset.
 */
public final class CleanedTransactions implements Cleaner.Walk {
    /** An aborted transaction the walk is inside of, and whether it saw a batch of it. */
    private static final class Aborted {
        final AbortedTxn txn;
        boolean batchSeen;

        Aborted(AbortedTxn txn) {
            this.txn = txn;
        }
    }

    private final List<AbortedTxn> aborted;
    private final long nowMs;
    /** The aborted transactions learnt and not yet reached, by first offset. */
    private final PriorityQueue<AbortedTxn> ahead = new PriorityQueue<>(Comparator.comparingLong(AbortedTxn::firstOffset));
    /** Producer id -> its aborted transaction the walk is inside of. */
    private final Map<Long, Aborted> ongoingAborted = new HashMap<>();
    /** The producers inside a transaction that is not aborted, a batch of which the walk saw. */
    private final Set<Long> ongoingCommitted = new HashSet<>();
    /** The entries the cleaned segment's {@code .txnindex} keeps, since the last {@link #takeRetained}. */
    private final List<AbortedTxn> retained = new ArrayList<>();

    /**
     * A walk of a cleaning at {@code nowMs} over a log whose aborted transactions (the {@code .txnindex}
     * entries of the cleanable range, in marker order) are {@code aborted}.
     */
    public CleanedTransactions(List<AbortedTxn> aborted, long nowMs) {
        this.aborted = List.copyOf(aborted);
        this.nowMs = nowMs;
    }

    /**
     * The walk enters {@code segment}: the aborted transactions that overlap it, up to the next
     * segment's base offset, are learnt (Kafka's {@code collectAbortedTransactions(startOffset,
     * upperBoundOffset)}; one learnt twice is the same transaction).
     */
    @Override
    public void enter(Segment segment, long nextSegmentOffset) {
        learn(segment.baseOffset(), nextSegmentOffset);
    }

    /** The aborted transactions that overlap {@code [fromOffset, toOffset)} are learnt. */
    public void learn(long fromOffset, long toOffset) {
        for (AbortedTxn txn : aborted) {
            if (txn.lastOffset() >= fromOffset && txn.firstOffset() < toOffset) {
                ahead.add(txn);
            }
        }
    }

    /**
     * What becomes of {@code batch}: a data batch of an aborted transaction is discarded, any other
     * is cleaned as chapter 6 cleans it; a marker whose transaction still has a batch is kept; one
     * whose transaction is gone is kept until its delete horizon and discarded from then on.
     */
    @Override
    public Cleaner.Verdict judge(RecordBatch batch) {
        throw new Todo("ch11 task 11: aborted batches go, a marker stays while its transaction has batches, then until its horizon (CleanedTransactionsTest)");
    }

    /**
     * A data batch: true if it belongs to an aborted transaction (it may be discarded). The aborted
     * transactions that begin at or before its last offset are reached first. A transactional batch of
     * a transaction that is not aborted marks its producer's transaction as having a batch, so that
     * its marker is kept. Kafka's {@code onBatchRead}.
     */
    public boolean onDataBatch(BatchHeader batch) {
        throw new Todo("ch11 task 11: a batch of an aborted transaction may go (CleanedTransactionsTest)");
    }

    /**
     * A marker of type {@code type} (empty: a marker a cleaning emptied already): true if it may go,
     * false while the walk saw a batch of its transaction. An ABORT kept so keeps its transaction's
     * index entry ({@link #takeRetained}). Kafka's {@code onControlBatchRead}.
     */
    public boolean onMarker(BatchHeader marker, Optional<ControlRecordType> type) {
        throw new Todo("ch11 task 11: a marker stays while its transaction has batches; an ABORT kept keeps its entry (CleanedTransactionsTest)");
    }

    /** The index entries kept since the last call, in marker order: the cleaned segment's {@code .txnindex}. */
    public List<AbortedTxn> takeRetained() {
        List<AbortedTxn> taken = List.copyOf(retained);
        retained.clear();
        return taken;
    }

    /** Every aborted transaction learnt whose first offset is at or before {@code offset} becomes its producer's. */
    private void reach(long offset) {
        while (!ahead.isEmpty() && ahead.peek().firstOffset() <= offset) {
            AbortedTxn txn = ahead.poll();
            ongoingAborted.putIfAbsent(txn.producerId(), new Aborted(txn));
        }
    }
}
