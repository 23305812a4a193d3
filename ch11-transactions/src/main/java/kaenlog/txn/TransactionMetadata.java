package kaenlog.txn;

import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import kaenlog.wire.PartitionNames.TopicPartition;
import kaenlog.workbook.Todo;

/**
 * One transactional id at its coordinator (Kafka's {@code TransactionMetadata}): its state as last
 * written, the transition in flight if one is, and the rules that decide what each request does to
 * it. A decision reads the state and changes nothing; the coordinator writes the transition it
 * decides on, then applies it: {@link #prepareTransitionTo}, the write, {@link #completeTransitionTo}.
 * Not thread-safe: the coordinator holds its lock.
 */
public final class TransactionMetadata {
    private final String transactionalId;
    private TxnTransit current;
    /** The state a transition in flight leads to (its record not yet written, or its markers not yet all written); null when none. */
    private TransactionState pendingState;
    /** A fence's abort could not be written: its epoch was bumped in memory, and the next fence does not bump it again. */
    private boolean hasFailedEpochFence;

    public TransactionMetadata(String transactionalId, TxnTransit current) {
        this.transactionalId = transactionalId;
        this.current = current;
    }

    /**
     * A transactional id seen for the first time: a new producer id, no epoch yet (-1: the
     * InitProducerId that creates it bumps it to 0), Empty, no transaction.
     */
    public static TransactionMetadata fresh(String transactionalId, long producerId, int txnTimeoutMs, long nowMs) {
        return new TransactionMetadata(transactionalId, new TxnTransit(producerId, TxnTransit.NO_PRODUCER_ID,
                TxnTransit.NO_PRODUCER_EPOCH, TxnTransit.NO_PRODUCER_EPOCH, txnTimeoutMs, TransactionState.EMPTY, TxnTransit.sorted(Set.of()),
                TxnTransit.NO_TIMESTAMP, nowMs));
    }

    public String transactionalId() {
        return transactionalId;
    }

    public TxnTransit current() {
        return current;
    }

    public TransactionState state() {
        return current.state();
    }

    public Optional<TransactionState> pendingState() {
        return Optional.ofNullable(pendingState);
    }

    public boolean hasFailedEpochFence() {
        return hasFailedEpochFence;
    }

    // ---- the transition's bookkeeping (Kafka's prepareTransitionTo and completeTransitionTo) ----

    /**
     * Marks {@code next} as the transition in flight, after checking it may happen: no other one in
     * flight, a producer id, an epoch, and a state that may follow the current one (the table of
     * task 1 (TransactionStateTest)). A decision that breaks one of these is a bug, an IllegalStateException.
     */
    void prepareTransitionTo(TxnTransit next) {
        if (pendingState != null) {
            throw new IllegalStateException(transactionalId + ": a transition to " + next.state() + " while one to "
                    + pendingState + " is in flight");
        }
        if (next.producerId() < 0 || (next.state() != TransactionState.DEAD && next.producerEpoch() < 0)) {
            throw new IllegalStateException(transactionalId + ": a transition to producer id " + next.producerId()
                    + " epoch " + next.producerEpoch());
        }
        if (!next.state().mayFollow(current.state())) {
            throw new IllegalStateException(transactionalId + ": " + next.state() + " may not follow " + current.state());
        }
        pendingState = next.state();
    }

    /** The transition in flight was written: it is the state now. */
    void completeTransitionTo(TxnTransit next) {
        if (pendingState != next.state()) {
            throw new IllegalStateException(transactionalId + ": completing a transition to " + next.state()
                    + " while the one in flight leads to " + pendingState);
        }
        if (next.state() == TransactionState.PREPARE_COMMIT || next.state() == TransactionState.PREPARE_ABORT) {
            hasFailedEpochFence = false; // the end is written: the abort a failed fence owed is done or replaced
        }
        current = next;
        pendingState = null;
    }

    /** The transition in flight could not be written: nothing changes. */
    void abandonTransition() {
        pendingState = null;
    }

    /**
     * The fence's abort goes ahead at {@code bumpedEpoch} (Kafka's endTransaction does this before it
     * writes the abort): the bumped epoch is the id's epoch from now on, even if that write fails, so
     * the old producer stays fenced; the fence is no longer in flight.
     */
    void acceptFence(short bumpedEpoch) {
        current = current.withEpochs(bumpedEpoch, TxnTransit.NO_PRODUCER_EPOCH);
        pendingState = null;
    }

    /** The fence's abort could not be written: the next fence keeps this epoch instead of bumping it again. */
    void failedEpochFence() {
        hasFailedEpochFence = true;
    }

    // ---- InitProducerId ----

    /** A transaction timeout a producer may ask for: more than 0, at most transaction.max.timeout.ms. */
    public static boolean isValidTimeout(int txnTimeoutMs, int maxTimeoutMs) {
        throw new Todo("ch11 task 2: a timeout from 1 ms to the maximum (InitProducerIdTest)");
    }

    /**
     * An epoch at Short.MAX_VALUE - 1 or above is used up: the client never gets Short.MAX_VALUE, so
     * the coordinator can always bump once more to fence whoever holds the id.
     */
    public static boolean isEpochExhausted(short producerEpoch) {
        throw new Todo("ch11 task 2: an epoch is used up at Short.MAX_VALUE - 1 (InitProducerIdTest)");
    }

    /**
     * InitProducerId with this transactional id (Kafka's TransactionCoordinator.prepareInitProducerIdTransit):
     * the producer that asks becomes the only one allowed to use the id.
     *
     * <ol>
     *   <li>A transition in flight: CONCURRENT_TRANSACTIONS (retry).</li>
     *   <li>The request names the producer it was ({@code expected}, KIP-360) and that producer is not
     *       this id's: PRODUCER_FENCED.</li>
     *   <li>A transaction being ended (a Prepare state): CONCURRENT_TRANSACTIONS.</li>
     *   <li>No transaction open (Empty, a Complete state): the epoch is bumped (Empty again, no
     *       partitions, the new timeout); when the epoch is used up, a new producer id at epoch 0.</li>
     *   <li>A transaction open (Ongoing): the old producer is fenced by aborting its transaction at
     *       the next epoch; the new one retries.</li>
     * </ol>
     */
    public Decision prepareInitProducerId(int txnTimeoutMs, Optional<ProducerIdAndEpoch> expected, ProducerIdSource ids,
                                          long nowMs) throws IOException {
        throw new Todo("ch11 task 2: bump, fence or wait (InitProducerIdTest)");
    }

    /**
     * The producer a request names may ask for this id: the id was just created (no epoch yet), or it
     * is the id's producer (its epoch is judged next), or it is the producer id this one replaced
     * when the epochs ran out, with a used-up epoch (a retry whose answer was lost).
     */
    private boolean isValidProducerId(ProducerIdAndEpoch expected) {
        throw new Todo("ch11 task 2: which producer may ask (InitProducerIdTest)");
    }

    /**
     * The next epoch (Kafka's prepareIncrementProducerEpoch). Without an expected epoch: epoch + 1,
     * and no last epoch. With one: the current epoch (or none yet) is bumped and remembered as the
     * last; the last epoch is a retry of a bump that succeeded, answered with the current epoch, not
     * bumped again; any other epoch is a fenced producer's. A used-up epoch cannot be bumped.
     */
    private Decision prepareIncrementProducerEpoch(int txnTimeoutMs, Optional<Short> expectedEpoch, long nowMs) {
        throw new Todo("ch11 task 2: bump the epoch, or answer a retry with it (InitProducerIdTest)");
    }

    /**
     * The epochs of this producer id are used up: a new producer id at epoch 0 (Kafka's
     * prepareProducerIdRotation). When the producer named its epoch, that epoch is kept as the last
     * one, so that a retry of this request is recognised.
     */
    private TxnTransit prepareProducerIdRotation(long newProducerId, int txnTimeoutMs, long nowMs, boolean recordLastEpoch) {
        throw new Todo("ch11 task 2: a new producer id when the epochs are used up (InitProducerIdTest)");
    }

    /**
     * Fences the producer holding the id (Kafka's prepareFenceProducerEpoch): PrepareEpochFence at
     * epoch + 1, no last epoch. After a fence whose abort could not be written the epoch was bumped
     * already: it is kept. Short.MAX_VALUE cannot be bumped (and no producer ever holds it).
     */
    public TxnTransit prepareFenceProducerEpoch() {
        throw new Todo("ch11 task 2: fence with the next epoch (InitProducerIdTest)");
    }

    // ---- AddPartitionsToTxn, AddOffsetsToTxn ----

    /**
     * AddPartitionsToTxn (Kafka's handleAddPartitionsToTransaction): the producer must be this id's,
     * at its epoch, and no transaction being ended; then the partitions join the transaction, which
     * begins now if none was open. Partitions already in the open transaction are answered at once,
     * nothing written.
     */
    public Decision prepareAddPartitions(long producerId, short producerEpoch, Set<TopicPartition> partitions, long nowMs) {
        throw new Todo("ch11 task 4: add partitions to the transaction (AddPartitionsTest)");
    }

    // ---- EndTxn, and the markers ----

    /**
     * EndTxn (Kafka's endTransactionWithTV1): commit or abort the open transaction, by writing its
     * Prepare state; the markers and the Complete state follow. A request from the client must carry
     * the id's epoch exactly; the coordinator's own abort (a fence) carries the bumped one. An end
     * already reached the same way is answered NONE, one being reached CONCURRENT_TRANSACTIONS; the
     * other way, or with nothing open, INVALID_TXN_STATE.
     */
    public Decision prepareEndTxn(long producerId, short producerEpoch, TransactionResult result, boolean fromClient,
                                  long nowMs) {
        throw new Todo("ch11 task 5: end the transaction: its Prepare state, or an answer (EndTxnTest)");
    }

    /**
     * The state once every marker is written (Kafka's prepareComplete): CompleteCommit after
     * PrepareCommit, CompleteAbort after PrepareAbort, the partitions gone, same producer and epoch.
     */
    public TxnTransit prepareComplete(long nowMs) {
        throw new Todo("ch11 task 5: the Complete state that follows the markers (EndTxnTest)");
    }

    /** The partitions whose markers the transaction in its Prepare state still owes. */
    public SortedSet<TopicPartition> partitions() {
        return current.partitions();
    }

    @Override
    public String toString() {
        return transactionalId + " " + current + (pendingState == null ? "" : " pending " + pendingState);
    }
}
