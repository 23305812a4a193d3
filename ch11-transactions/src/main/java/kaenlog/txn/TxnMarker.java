package kaenlog.txn;

import java.util.Collection;
import java.util.SortedSet;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * The markers of one transaction's end, to be written into each of its partitions: what Kafka's
 * WriteTxnMarkers request carries for one transaction (its {@code WritableTxnMarker}).
 *
 * @param transactionalId  whose transaction it is (for the coordinator's bookkeeping; not written)
 * @param producerId       the producer whose records the marker ends
 * @param producerEpoch    the epoch written in the marker's batch (after a fence, the bumped one)
 * @param coordinatorEpoch the coordinator's epoch, written in the marker's value
 * @param result           COMMIT or ABORT
 * @param partitions       every partition of the transaction
 */
public record TxnMarker(String transactionalId, long producerId, short producerEpoch, int coordinatorEpoch,
                        TransactionResult result, SortedSet<TopicPartition> partitions) {
    public TxnMarker {
        partitions = TxnTransit.sorted(partitions);
    }

    /** The same marker for some of its partitions only (those still owed after a failure). */
    public TxnMarker only(Collection<TopicPartition> remaining) {
        return new TxnMarker(transactionalId, producerId, producerEpoch, coordinatorEpoch, result, TxnTransit.sorted(remaining));
    }

    /** True when {@code other} ends the same transaction the same way, whichever partitions it names. */
    public boolean sameEnd(TxnMarker other) {
        return transactionalId.equals(other.transactionalId) && producerId == other.producerId
                && producerEpoch == other.producerEpoch && coordinatorEpoch == other.coordinatorEpoch
                && result == other.result;
    }

    /** The control record (chapter 11's marker in chapter 1's record format). */
    public EndTransactionMarker endTransactionMarker() {
        return new EndTransactionMarker(result.markerType(), coordinatorEpoch);
    }
}
