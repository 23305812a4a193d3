package kaenlog.txn;

import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import kaenlog.wire.PartitionNames.TopicPartition;

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
        // BEGIN-SOLUTION ch11 task 2: a timeout from 1 ms to the maximum (InitProducerIdTest)
        return txnTimeoutMs > 0 && txnTimeoutMs <= maxTimeoutMs;
        // END-SOLUTION
    }

    /**
     * An epoch at Short.MAX_VALUE - 1 or above is used up: the client never gets Short.MAX_VALUE, so
     * the coordinator can always bump once more to fence whoever holds the id.
     */
    public static boolean isEpochExhausted(short producerEpoch) {
        // BEGIN-SOLUTION ch11 task 2: an epoch is used up at Short.MAX_VALUE - 1 (InitProducerIdTest)
        return producerEpoch >= Short.MAX_VALUE - 1;
        // END-SOLUTION
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
        // BEGIN-SOLUTION ch11 task 2: bump, fence or wait (InitProducerIdTest)
        if (pendingState != null) {
            return Decision.answer(TxnError.CONCURRENT_TRANSACTIONS);
        }
        if (expected.isPresent() && !isValidProducerId(expected.get())) {
            return Decision.answer(TxnError.PRODUCER_FENCED);
        }
        return switch (current.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> Decision.answer(TxnError.CONCURRENT_TRANSACTIONS);
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                boolean sameEpoch = expected.map(e -> e.epoch() == current.producerEpoch()).orElse(true);
                if (isEpochExhausted(current.producerEpoch()) && sameEpoch) {
                    yield new Decision.Write(prepareProducerIdRotation(ids.next(), txnTimeoutMs, nowMs, expected.isPresent()));
                }
                yield prepareIncrementProducerEpoch(txnTimeoutMs, expected.map(ProducerIdAndEpoch::epoch), nowMs);
            }
            case ONGOING -> new Decision.Fence(prepareFenceProducerEpoch());
            case DEAD, PREPARE_EPOCH_FENCE -> throw new IllegalStateException(transactionalId + " is " + current.state()
                    + ", a state no request finds");
        };
        // END-SOLUTION
    }

    /**
     * The producer a request names may ask for this id: the id was just created (no epoch yet), or it
     * is the id's producer (its epoch is judged next), or it is the producer id this one replaced
     * when the epochs ran out, with a used-up epoch (a retry whose answer was lost).
     */
    private boolean isValidProducerId(ProducerIdAndEpoch expected) {
        // BEGIN-SOLUTION ch11 task 2: which producer may ask (InitProducerIdTest)
        return current.producerEpoch() == TxnTransit.NO_PRODUCER_EPOCH
                || expected.producerId() == current.producerId()
                || (expected.producerId() == current.prevProducerId() && isEpochExhausted(expected.epoch()));
        // END-SOLUTION
    }

    /**
     * The next epoch (Kafka's prepareIncrementProducerEpoch). Without an expected epoch: epoch + 1,
     * and no last epoch. With one: the current epoch (or none yet) is bumped and remembered as the
     * last; the last epoch is a retry of a bump that succeeded, answered with the current epoch, not
     * bumped again; any other epoch is a fenced producer's. A used-up epoch cannot be bumped.
     */
    private Decision prepareIncrementProducerEpoch(int txnTimeoutMs, Optional<Short> expectedEpoch, long nowMs) {
        // BEGIN-SOLUTION ch11 task 2: bump the epoch, or answer a retry with it (InitProducerIdTest)
        if (isEpochExhausted(current.producerEpoch())) {
            throw new IllegalStateException("Cannot allocate any more producer epochs for producerId "
                    + current.producerId());
        }
        short epoch = current.producerEpoch();
        short bumped = (short) (epoch + 1);
        TxnTransit next = current.next(TransactionState.EMPTY).withTimeout(txnTimeoutMs).withPartitions(Set.of())
                .withTimes(TxnTransit.NO_TIMESTAMP, nowMs);
        if (expectedEpoch.isEmpty()) {
            return new Decision.Write(next.withEpochs(bumped, TxnTransit.NO_PRODUCER_EPOCH));
        }
        short expected = expectedEpoch.get();
        if (epoch == TxnTransit.NO_PRODUCER_EPOCH || expected == epoch) {
            return new Decision.Write(next.withEpochs(bumped, epoch));
        }
        if (expected == current.lastProducerEpoch()) {
            return new Decision.Write(next.withEpochs(epoch, current.lastProducerEpoch()));
        }
        return Decision.answer(TxnError.PRODUCER_FENCED);
        // END-SOLUTION
    }

    /**
     * The epochs of this producer id are used up: a new producer id at epoch 0 (Kafka's
     * prepareProducerIdRotation). When the producer named its epoch, that epoch is kept as the last
     * one, so that a retry of this request is recognised.
     */
    private TxnTransit prepareProducerIdRotation(long newProducerId, int txnTimeoutMs, long nowMs, boolean recordLastEpoch) {
        // BEGIN-SOLUTION ch11 task 2: a new producer id when the epochs are used up (InitProducerIdTest)
        short lastEpoch = recordLastEpoch ? current.producerEpoch() : TxnTransit.NO_PRODUCER_EPOCH;
        return current.next(TransactionState.EMPTY).withProducerId(newProducerId).withEpochs((short) 0, lastEpoch)
                .withTimeout(txnTimeoutMs).withPartitions(Set.of()).withTimes(TxnTransit.NO_TIMESTAMP, nowMs);
        // END-SOLUTION
    }

    /**
     * Fences the producer holding the id (Kafka's prepareFenceProducerEpoch): PrepareEpochFence at
     * epoch + 1, no last epoch. After a fence whose abort could not be written the epoch was bumped
     * already: it is kept. Short.MAX_VALUE cannot be bumped (and no producer ever holds it).
     */
    public TxnTransit prepareFenceProducerEpoch() {
        // BEGIN-SOLUTION ch11 task 2: fence with the next epoch (InitProducerIdTest)
        short epoch = current.producerEpoch();
        if (epoch == Short.MAX_VALUE) {
            throw new IllegalStateException("Cannot fence producer with epoch equal to Short.MaxValue since this would overflow");
        }
        short bumped = hasFailedEpochFence ? epoch : (short) (epoch + 1);
        return current.next(TransactionState.PREPARE_EPOCH_FENCE).withEpochs(bumped, TxnTransit.NO_PRODUCER_EPOCH);
        // END-SOLUTION
    }

    // ---- AddPartitionsToTxn, AddOffsetsToTxn ----

    /**
     * AddPartitionsToTxn (Kafka's handleAddPartitionsToTransaction): the producer must be this id's,
     * at its epoch, and no transaction being ended; then the partitions join the transaction, which
     * begins now if none was open. Partitions already in the open transaction are answered at once,
     * nothing written.
     */
    public Decision prepareAddPartitions(long producerId, short producerEpoch, Set<TopicPartition> partitions, long nowMs) {
        // BEGIN-SOLUTION ch11 task 4: add partitions to the transaction (AddPartitionsTest)
        if (pendingState != null) {
            return Decision.answer(TxnError.CONCURRENT_TRANSACTIONS);
        }
        if (producerId != current.producerId()) {
            return Decision.answer(TxnError.INVALID_PRODUCER_ID_MAPPING);
        }
        if (producerEpoch != current.producerEpoch()) {
            return Decision.answer(TxnError.PRODUCER_FENCED);
        }
        TransactionState state = current.state();
        if (state == TransactionState.PREPARE_COMMIT || state == TransactionState.PREPARE_ABORT) {
            return Decision.answer(TxnError.CONCURRENT_TRANSACTIONS);
        }
        if (state == TransactionState.ONGOING && current.partitions().containsAll(partitions)) {
            return Decision.answer(TxnError.NONE);
        }
        boolean begins = state == TransactionState.EMPTY || state == TransactionState.COMPLETE_COMMIT
                || state == TransactionState.COMPLETE_ABORT;
        Set<TopicPartition> union = new HashSet<>(current.partitions());
        union.addAll(partitions);
        return new Decision.Write(current.next(TransactionState.ONGOING).withPartitions(union)
                .withTimes(begins ? nowMs : current.txnStartTimestamp(), nowMs));
        // END-SOLUTION
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
        // BEGIN-SOLUTION ch11 task 5: end the transaction: its Prepare state, or an answer (EndTxnTest)
        if (producerId != current.producerId()) {
            return Decision.answer(TxnError.INVALID_PRODUCER_ID_MAPPING);
        }
        if ((fromClient && producerEpoch != current.producerEpoch()) || producerEpoch < current.producerEpoch()) {
            return Decision.answer(TxnError.PRODUCER_FENCED);
        }
        boolean fence = pendingState == TransactionState.PREPARE_EPOCH_FENCE;
        if (pendingState != null && !fence) {
            return Decision.answer(TxnError.CONCURRENT_TRANSACTIONS);
        }
        boolean commit = result == TransactionResult.COMMIT;
        return switch (current.state()) {
            case ONGOING -> {
                TxnTransit prepare = current.next(commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT)
                        .withTimes(current.txnStartTimestamp(), nowMs);
                yield new Decision.Write(fence && !commit
                        ? prepare.withEpochs(producerEpoch, TxnTransit.NO_PRODUCER_EPOCH) : prepare);
            }
            case COMPLETE_COMMIT -> Decision.answer(commit ? TxnError.NONE : TxnError.INVALID_TXN_STATE);
            case COMPLETE_ABORT -> Decision.answer(commit ? TxnError.INVALID_TXN_STATE : TxnError.NONE);
            case PREPARE_COMMIT -> Decision.answer(commit ? TxnError.CONCURRENT_TRANSACTIONS : TxnError.INVALID_TXN_STATE);
            case PREPARE_ABORT -> Decision.answer(commit ? TxnError.INVALID_TXN_STATE : TxnError.CONCURRENT_TRANSACTIONS);
            case EMPTY -> Decision.answer(TxnError.INVALID_TXN_STATE);
            case DEAD, PREPARE_EPOCH_FENCE -> throw new IllegalStateException(transactionalId + " is " + current.state()
                    + ", a state no request finds");
        };
        // END-SOLUTION
    }

    /**
     * The state once every marker is written (Kafka's prepareComplete): CompleteCommit after
     * PrepareCommit, CompleteAbort after PrepareAbort, the partitions gone, same producer and epoch.
     */
    public TxnTransit prepareComplete(long nowMs) {
        // BEGIN-SOLUTION ch11 task 5: the Complete state that follows the markers (EndTxnTest)
        TransactionState complete = current.state() == TransactionState.PREPARE_COMMIT
                ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        return current.next(complete).withPartitions(Set.of()).withTimes(current.txnStartTimestamp(), nowMs);
        // END-SOLUTION
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
