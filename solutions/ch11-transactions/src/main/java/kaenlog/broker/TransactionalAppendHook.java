package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.BatchRetention;
import kaenlog.compaction.CleanedTransactions;
import kaenlog.compaction.Cleaner;
import kaenlog.idem.CompletedTxn;
import kaenlog.idem.OngoingTransactions;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.AbortedTxn;
import kaenlog.log.AppendInfo;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.log.TransactionIndex;
import kaenlog.wire.ErrorCode;

/**
 * Chapter 11's log side, around chapter 7's producer state ({@code inner}, which still judges and
 * writes every batch): what the log learns from each batch written, as Kafka's {@code UnifiedLog.append}
 * learns it after {@code localLog.append}. A transactional data batch opens its producer's transaction
 * ({@link OngoingTransactions}); a COMMIT or ABORT marker ends it, and an ABORT puts an entry in the
 * {@code .txnindex} of the segment the marker went to. From these the log answers the last stable
 * offset and, for a read_committed fetch, the aborted transactions of the range read; and it tells
 * chapter 6's cleaner what a cleaning of this log keeps of its transactions ({@link #begin}).
 *
 * <p>Everything is rebuilt at the first use after the partition is opened (or cut back), from every
 * segment's batch headers, oldest first, and every {@code .txnindex} is written again from them: a
 * broker that crashed finds the same entries a broker that never stopped wrote. Kafka reads a
 * producer-state snapshot and recovers only from the recovery point; kaen-log has no snapshot.
 */
public final class TransactionalAppendHook implements Log.AppendHook, Cleaner.Transactions {
    private final Log.AppendHook inner;
    /** Null until the first use: then rebuilt from the log ({@link #loaded}). */
    private OngoingTransactions transactions;
    /** Each segment's aborted transactions, by base offset. */
    private final TreeMap<Long, TransactionIndex> indexes = new TreeMap<>();
    /** The newest epoch each producer id wrote here, its markers' included (rebuilt with {@link #transactions}). */
    private final TreeMap<Long, Short> epochs = new TreeMap<>();
    /** The newest coordinator epoch of each producer id's markers here (rebuilt with {@link #transactions}). */
    private final TreeMap<Long, Integer> coordinatorEpochs = new TreeMap<>();

    public TransactionalAppendHook(Log.AppendHook inner) {
        this.inner = inner;
    }

    /**
     * The batch goes through chapter 7's step; only when it was written (not a duplicate, whose first
     * write was learnt already) does the transaction state learn it, at the offsets it was given.
     */
    @Override
    public AppendInfo append(Log log, ByteBuffer batch) throws IOException {
        OngoingTransactions state = loaded(log);
        BatchHeader header = batch.remaining() >= BatchHeader.SIZE ? BatchHeader.readFrom(batch.duplicate()) : null;
        if (header != null) {
            checkProducerEpoch(log, header);
            checkCoordinatorEpoch(header, batch);
        }
        long endBefore = log.logEndOffset();
        AppendInfo written = inner.append(log, batch);
        if (header != null && log.logEndOffset() > endBefore) {
            learn(log.activeSegment(), state, header, written.firstOffset(), batch);
        }
        forgetDeletedSegments(log);
        return written;
    }

    /** A follower copied a batch the leader wrote: learnt the same way, at the offsets it already has. */
    @Override
    public void appendedAsFollower(Log log, BatchHeader header) throws IOException {
        inner.appendedAsFollower(log, header);
        if (transactions == null) {
            loaded(log); // the rebuild reads this batch too
            return;
        }
        ByteBuffer batch = header.isControl() ? log.read(header.baseOffset(), 1, FetchIsolation.LOG_END) : null;
        learn(log.activeSegment(), transactions, header, header.baseOffset(), batch);
    }

    /** The log was cut back: what was learnt is rebuilt from what it holds now, at the next use. */
    @Override
    public void truncated(Log log) throws IOException {
        inner.truncated(log);
        transactions = null;
        indexes.clear();
        epochs.clear();
        coordinatorEpochs.clear();
    }

    @Override
    public long lastStableOffset(Log log) throws IOException {
        return loaded(log).lastStableOffset(log.logStartOffset(), log.highWatermark());
    }

    /**
     * The aborted transactions of a read_committed fetch of {@code [fetchOffset, upperBoundOffset)}:
     * each segment's index is asked, from the segment holding the fetch offset on (a transaction that
     * began in it may have been aborted in a later one), until one says its search is complete
     * (Kafka's {@code LocalLog.collectAbortedTransactions}).
     */
    @Override
    public List<AbortedTransaction> abortedTransactions(Log log, long fetchOffset, long upperBoundOffset)
            throws IOException {
        return abortedTxns(log, fetchOffset, upperBoundOffset).stream().map(AbortedTxn::asAbortedTransaction).toList();
    }

    /** The index entries of the aborted transactions that overlap {@code [fetchOffset, upperBoundOffset)}, in order. */
    List<AbortedTxn> abortedTxns(Log log, long fetchOffset, long upperBoundOffset) throws IOException {
        loaded(log);
        // BEGIN-SOLUTION ch11 task 10: ask each segment's index from the fetch offset's on, until complete (ReadCommittedTest)
        List<AbortedTxn> aborted = new ArrayList<>();
        for (Segment segment : log.segmentsFrom(fetchOffset)) {
            TransactionIndex index = indexes.get(segment.baseOffset());
            if (index == null) {
                continue;
            }
            TransactionIndex.Search search = index.collect(fetchOffset, upperBoundOffset);
            aborted.addAll(search.found());
            if (search.complete()) {
                break;
            }
        }
        return aborted;
        // END-SOLUTION
    }

    /**
     * A cleaning of this log starts (chapter 6's cleaner, through {@link Cleaner.Transactions}): it may
     * clean only below the first uncleanable offset; it knows the aborted transactions of that range
     * (from the {@code .txnindex} files) and each producer's last record, as Kafka's
     * {@code UnifiedLog.lastRecordsOfActiveProducers} tells its cleaner; each walk of the cleaning is a
     * new {@link CleanedTransactions}; each cleaned segment's {@code .txnindex} keeps what its walk retained.
     */
    @Override
    public Cleaner.Round begin(Log log, long nowMs) throws IOException {
        loaded(log);
        long firstUncleanable = firstUncleanableOffset(log);
        List<AbortedTxn> aborted = abortedTxns(log, log.logStartOffset(), firstUncleanable);
        Map<Long, LastRecord> lastRecords = lastRecords(log);
        Map<Long, Long> lastDataOffsets = new HashMap<>();
        lastRecords.forEach((producerId, last) -> last.dataOffset().ifPresent(o -> lastDataOffsets.put(producerId, o)));
        return new Cleaner.Round() {
            @Override
            public long firstUncleanableOffset() {
                return firstUncleanable;
            }

            @Override
            public Cleaner.Walk walk() {
                return new CleanedTransactions(aborted, nowMs);
            }

            /**
             * Kafka's {@code checkBatchRetention}: a batch is kept, emptied, when it holds its producer's last
             * data offset, or when the producer's last record is a marker (no data at its epoch since) and
             * this is a marker of that epoch ("it has the last producer epoch, which is needed to ensure
             * fencing"); or when it ends the cleaning round. Chapter 6's rule, with the data offsets of
             * the producers' current epochs and the marker rule before it.
             */
            @Override
            public BatchRetention retention(BatchHeader batch, Map<Long, Long> lastOffsetOfProducers, long endOfRound) {
                LastRecord last = lastRecords.get(batch.producerId());
                if (batch.isControl() && last != null && last.dataOffset().isEmpty()
                        && batch.producerEpoch() == last.epoch()) {
                    return BatchRetention.RETAIN_EMPTY;
                }
                return Cleaner.batchRetention(batch, lastDataOffsets, endOfRound);
            }

            @Override
            public void replaced(Segment cleaned, Cleaner.Walk walk) throws IOException {
                TransactionIndex index = TransactionIndex.empty(cleaned.txnIndexFile());
                for (AbortedTxn txn : ((CleanedTransactions) walk).takeRetained()) {
                    index.append(txn);
                }
                indexes.put(cleaned.baseOffset(), index);
            }
        };
    }

    /**
     * The first offset a cleaning must not clean: the last stable offset (Kafka's
     * {@code LogCleanerManager.cleanableOffsets}: "we do not clean beyond the last stable offset"). An
     * open transaction's batches are never cleaned: whether they are aborted is not known yet.
     */
    private long firstUncleanableOffset(Log log) throws IOException {
        // BEGIN-SOLUTION ch11 task 11: a cleaning stops below the last stable offset (CleanedTransactionsTest)
        return lastStableOffset(log);
        // END-SOLUTION
    }

    /** A producer's last record in the log: the last offset of its data at its current epoch, if any, and that epoch. */
    private record LastRecord(OptionalLong dataOffset, short epoch) {
    }

    /**
     * Each producer's {@link LastRecord}, read from every batch header oldest first, as Kafka's producer
     * state learns them: a batch of a new epoch forgets the data of the old one, and a data batch is
     * the producer's last data.
     */
    private static Map<Long, LastRecord> lastRecords(Log log) throws IOException {
        Map<Long, LastRecord> last = new HashMap<>();
        for (Segment segment : log.segments()) {
            for (BatchHeader header : segment.headers()) {
                if (!header.hasProducerId()) {
                    continue;
                }
                LastRecord before = last.get(header.producerId());
                OptionalLong data = before == null || before.epoch() != header.producerEpoch()
                        ? OptionalLong.empty() : before.dataOffset();
                last.put(header.producerId(), new LastRecord(
                        header.isControl() ? data : OptionalLong.of(header.lastOffset()), header.producerEpoch()));
            }
        }
        return last;
    }

    /**
     * The fence on the log side, Kafka's {@code ProducerAppendInfo.checkProducerEpoch} and the new-epoch
     * rule of its {@code checkSequence}: a data batch of an epoch older than the newest its producer id
     * wrote here (a marker's included: the coordinator's fence writes its ABORT at the bumped epoch) is
     * a zombie's, refused INVALID_PRODUCER_EPOCH; a newer epoch must start at sequence 0, and chapter 7's
     * window of the old epoch is forgotten ({@link IdempotentAppendHook#newEpoch}). Without it a
     * fenced producer's late batch would open a transaction that the new producer's marker (same
     * producer id) commits. Given code: the coordinator's fence is chapter 11's lesson, this its echo.
     */
    private void checkProducerEpoch(Log log, BatchHeader header) throws IOException {
        if (!header.hasProducerId() || header.isControl()) {
            return;
        }
        Short current = epochs.get(header.producerId());
        short epoch = header.producerEpoch();
        if (current == null || epoch == current) {
            return;
        }
        if (epoch < current) {
            throw new ProduceRefusedException(ErrorCode.INVALID_PRODUCER_EPOCH, "producer " + header.producerId()
                    + " wrote epoch " + epoch + ", older than the epoch " + current + " it wrote here last: fenced");
        }
        if (header.baseSequence() != 0) {
            throw new ProduceRefusedException(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + header.producerId()
                    + " starts epoch " + epoch + " at sequence " + header.baseSequence() + ", not 0");
        }
        if (inner instanceof IdempotentAppendHook idempotent) {
            idempotent.newEpoch(log, header.producerId(), epoch);
        }
    }

    /**
     * The coordinator's fence on the log side, Kafka's {@code ProducerAppendInfo.checkCoordinatorEpoch}:
     * a marker whose coordinator epoch is older than the newest this partition took for its producer
     * comes from a coordinator that lost its {@code __transaction_state} partition and does not know it
     * yet (in a cluster, the partition's old leader), and is refused TRANSACTION_COORDINATOR_FENCED; its
     * successor's decision stands. A follower copies what its leader wrote unchecked.
     */
    private void checkCoordinatorEpoch(BatchHeader header, ByteBuffer batch) {
        if (!header.hasProducerId() || !header.isControl()) {
            return;
        }
        Integer current = coordinatorEpochs.get(header.producerId());
        int epoch = marker(batch).coordinatorEpoch();
        if (current != null && epoch < current) {
            throw new ProduceRefusedException(ErrorCode.TRANSACTION_COORDINATOR_FENCED, "a marker of producer "
                    + header.producerId() + " from coordinator epoch " + epoch + ", older than the coordinator epoch "
                    + current + " of the marker this partition took last: a zombie coordinator");
        }
    }

    /**
     * A transaction ended: an aborted one gets its entry in the {@code .txnindex} of {@code segment},
     * the segment its marker was written to, with the last stable offset of the moment it ended; a
     * committed one gets none (a read_committed consumer keeps its records). Kafka's
     * {@code LogSegment.updateTxnIndex}.
     */
    void recordCompleted(Segment segment, CompletedTxn txn) throws IOException {
        // BEGIN-SOLUTION ch11 task 9: an ABORT's entry goes to the marker's segment (TransactionIndexTest)
        if (txn.aborted()) {
            indexOf(segment).append(new AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(),
                    txn.lastStableOffset()));
        }
        // END-SOLUTION
    }

    /** The transaction state, rebuilt first if this is its first use since the partition was opened or cut. */
    public OngoingTransactions transactions(Log log) throws IOException {
        return loaded(log);
    }

    /** The indexes of segments retention deleted (their files went with them) are let go. */
    private void forgetDeletedSegments(Log log) {
        if (!indexes.isEmpty() && indexes.firstKey() < log.activeSegment().baseOffset()) {
            indexes.headMap(log.segmentsFrom(log.logStartOffset()).iterator().next().baseOffset()).clear();
        }
    }

    private TransactionIndex indexOf(Segment segment) throws IOException {
        TransactionIndex index = indexes.get(segment.baseOffset());
        if (index == null) {
            index = TransactionIndex.empty(segment.txnIndexFile());
            indexes.put(segment.baseOffset(), index);
        }
        return index;
    }

    /**
     * What one written batch teaches: a data batch with a producer id and the transactional bit opens
     * its producer's transaction at {@code firstOffset}; a control batch ({@code batch}, its one record
     * a marker) ends it, in {@code segment}, the segment that holds it.
     */
    private void learn(Segment segment, OngoingTransactions state, BatchHeader header, long firstOffset,
                       ByteBuffer batch) throws IOException {
        if (header.hasProducerId()) {
            epochs.merge(header.producerId(), header.producerEpoch(), (a, b) -> (short) Math.max(a, b));
        }
        if (!header.hasProducerId() || !header.isTransactional()) {
            return;
        }
        if (!header.isControl()) {
            state.appendData(header.producerId(), firstOffset);
            return;
        }
        if (header.recordCount() == 0) {
            return; // a marker the cleaner emptied: its transaction was cleaned from the log (Kafka's ProducerAppendInfo.append)
        }
        EndTransactionMarker marker = marker(batch);
        coordinatorEpochs.merge(header.producerId(), marker.coordinatorEpoch(), Math::max);
        Optional<CompletedTxn> completed = state.appendMarker(header.producerId(), firstOffset,
                marker.type() == ControlRecordType.ABORT);
        if (completed.isPresent()) {
            recordCompleted(segment, completed.get());
        }
    }

    private static EndTransactionMarker marker(ByteBuffer batch) {
        return EndTransactionMarker.read(RecordBatch.decode(batch.duplicate()).records().get(0));
    }

    /**
     * The state, rebuilt at its first use: every segment from the log start, oldest first, each batch
     * learnt as if it were being written, each segment's {@code .txnindex} written anew.
     */
    private OngoingTransactions loaded(Log log) throws IOException {
        if (transactions != null) {
            return transactions;
        }
        OngoingTransactions rebuilt = new OngoingTransactions();
        indexes.clear();
        epochs.clear();
        coordinatorEpochs.clear();
        for (Segment segment : log.segments()) {
            TransactionIndex.empty(segment.txnIndexFile());
            long position = 0;
            for (BatchHeader header : segment.headers()) {
                learn(segment, rebuilt, header, header.baseOffset(), header.isControl() ? segment.batchAt(position) : null);
                position += header.sizeInBytes();
            }
        }
        transactions = rebuilt;
        return rebuilt;
    }
}
