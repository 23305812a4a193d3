package kaenlog.txn;

import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Where the coordinator's markers go. On one broker, every partition is local: the control batch is
 * appended to the partition's log ({@link LocalMarkers}). In a cluster, each partition's leader
 * appends it, asked with Kafka's WriteTxnMarkers; the answers come later, on another thread.
 */
public interface MarkerChannel {
    /**
     * Writes {@code marker} into each of its partitions, and reports each partition once to
     * {@code results}, now or later: written, or failed (the coordinator sends that partition's
     * marker again at its next tick). A partition that no longer exists counts as written (Kafka
     * skips the partitions of a deleted topic).
     */
    void send(TxnMarker marker, long nowMs, Results results);

    /** What happened to each partition's marker. */
    interface Results {
        void written(TxnMarker marker, TopicPartition partition);

        void failed(TxnMarker marker, TopicPartition partition, String why);
    }
}
