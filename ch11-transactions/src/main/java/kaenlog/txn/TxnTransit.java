package kaenlog.txn;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.SortedSet;
import java.util.TreeSet;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * One transactional id's state as a transition leaves it: what the coordinator writes to
 * {@code __transaction_state} before it applies it (Kafka's {@code TxnTransitMetadata}).
 *
 * @param producerId             the producer id the transactional id has
 * @param prevProducerId         the producer id before this transition (it differs only when the
 *                               epochs ran out and a new id was given); in memory, never written
 * @param producerEpoch          the epoch of the one producer allowed to use the id
 * @param lastProducerEpoch      the epoch before the last bump, when the producer asked for it (a
 *                               retried InitProducerId is then answered without bumping again); -1
 *                               otherwise; in memory, never written
 * @param txnTimeoutMs           how long a transaction may stay open before the coordinator aborts it
 * @param state                  where the transaction is
 * @param partitions             the partitions of the open transaction, sorted (empty outside one)
 * @param txnStartTimestamp      when the transaction began (its first partition added), -1 outside one
 * @param txnLastUpdateTimestamp when the id last changed
 */
public record TxnTransit(long producerId, long prevProducerId, short producerEpoch, short lastProducerEpoch,
                         int txnTimeoutMs, TransactionState state, SortedSet<TopicPartition> partitions,
                         long txnStartTimestamp, long txnLastUpdateTimestamp) {
    /** -1: no producer id, no epoch, no time (Kafka's RecordBatch.NO_PRODUCER_ID and NO_PRODUCER_EPOCH). */
    public static final long NO_PRODUCER_ID = -1;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1;
    /** Partitions in one order everywhere (topic, then number): the log's records are the same bytes every run. */
    public static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TxnTransit {
        partitions = sorted(partitions);
    }

    /** An unmodifiable sorted copy. */
    public static SortedSet<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        TreeSet<TopicPartition> copy = new TreeSet<>(ORDER);
        copy.addAll(partitions);
        return Collections.unmodifiableSortedSet(copy);
    }

    /**
     * The start of every transition from this state to {@code newState}: everything kept, and the
     * producer id before it remembered as the previous one (Kafka's prepareTransitionTo does the same).
     */
    public TxnTransit next(TransactionState newState) {
        return new TxnTransit(producerId, producerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, newState, partitions,
                txnStartTimestamp, txnLastUpdateTimestamp);
    }

    public TxnTransit withEpochs(short newEpoch, short newLastEpoch) {
        return new TxnTransit(producerId, prevProducerId, newEpoch, newLastEpoch, txnTimeoutMs, state, partitions,
                txnStartTimestamp, txnLastUpdateTimestamp);
    }

    public TxnTransit withProducerId(long newProducerId) {
        return new TxnTransit(newProducerId, prevProducerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, state,
                partitions, txnStartTimestamp, txnLastUpdateTimestamp);
    }

    public TxnTransit withTimeout(int newTimeoutMs) {
        return new TxnTransit(producerId, prevProducerId, producerEpoch, lastProducerEpoch, newTimeoutMs, state, partitions,
                txnStartTimestamp, txnLastUpdateTimestamp);
    }

    public TxnTransit withPartitions(Collection<TopicPartition> newPartitions) {
        return new TxnTransit(producerId, prevProducerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, state,
                sorted(newPartitions), txnStartTimestamp, txnLastUpdateTimestamp);
    }

    public TxnTransit withTimes(long newStartTimestamp, long newLastUpdateTimestamp) {
        return new TxnTransit(producerId, prevProducerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, state, partitions,
                newStartTimestamp, newLastUpdateTimestamp);
    }
}
