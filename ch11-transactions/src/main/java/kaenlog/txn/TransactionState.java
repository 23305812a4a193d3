package kaenlog.txn;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import kaenlog.workbook.Todo;

/**
 * The states of a transactional id at its coordinator, with the byte each is written as in
 * {@code __transaction_state} and the name Kafka's DescribeTransactions shows. Source: Kafka
 * 4.1.1's {@code org.apache.kafka.coordinator.transaction.TransactionState}.
 *
 * <pre>
 * Empty ──AddPartitions──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers written──▶ CompleteCommit
 *                             │    ──EndTxn(abort)───▶ PrepareAbort  ──markers written──▶ CompleteAbort
 *                             └──InitProducerId, timeout──▶ PrepareEpochFence ──▶ PrepareAbort
 * </pre>
 *
 * A Prepare state is the coordinator's promise: once it is written, the transaction ends that way
 * whatever fails next (the coordinator that loads the log finishes it). PrepareEpochFence and Dead
 * are never written: the first lasts only until the abort it leads to is written, the second only
 * until the tombstone of an expired id is.
 */
public enum TransactionState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final byte id;
    private final String stateName;

    TransactionState(int id, String stateName) {
        this.id = (byte) id;
        this.stateName = stateName;
    }

    /** The status byte of a {@code __transaction_state} value. */
    public byte id() {
        return id;
    }

    /** The name Kafka's tools show (DescribeTransactions, kafka-transactions.sh). */
    public String stateName() {
        return stateName;
    }

    /** The state a status byte names; empty for a byte no state has. */
    public static Optional<TransactionState> fromId(byte id) {
        for (TransactionState state : values()) {
            if (state.id == id) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }

    /**
     * The states a transactional id may be in when it moves to this one. Each entry is a request
     * or an event: AddPartitions (to Ongoing), EndTxn (to a Prepare state), the markers written (to
     * a Complete state), InitProducerId (to Empty, or to PrepareEpochFence when a transaction is
     * open), the fence's abort (PrepareEpochFence to PrepareAbort), expiry (to Dead). PrepareAbort
     * also follows Empty and the Complete states: KIP-890's transactions (version 2) may abort with
     * nothing open, and the table is Kafka's whole table.
     */
    public Set<TransactionState> validPreviousStates() {
        throw new Todo("ch11 task 1: the states each state may be entered from (TransactionStateTest)");
    }

    /** True when an id in state {@code previous} may move to this state. */
    public boolean mayFollow(TransactionState previous) {
        return validPreviousStates().contains(previous);
    }

    /** A transaction is open (Ongoing) or being ended (a Prepare state): its producer id may not change. */
    public boolean hasPendingTransaction() {
        return this == ONGOING || this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }
}
