package kaenlog.txn;

import java.io.IOException;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.ProducerIds;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * The transaction coordinator of a broker on its own: every {@code __transaction_state} partition is
 * this broker's (coordinator epoch 0), its producer ids are chapter 7's, its markers are appended to
 * its own partitions ({@link LocalMarkers}; on an offsets partition a marker also ends the producer's
 * pending offsets, {@link OffsetsMarkers}), and a group's offsets live in chapter 6's one
 * {@code __consumer_offsets} partition. Kafka creates the 50 partitions of {@code __transaction_state}
 * the first time a transactional producer looks for its coordinator; so does {@link #start}, which
 * the Kafka port calls then.
 */
public final class LocalTransactions {
    /** Chapter 6's offsets partition: on one broker, every group's. */
    public static final TopicPartition OFFSETS_PARTITION =
            PartitionNames.parse(GroupCoordinator.OFFSETS_PARTITION).orElseThrow();

    private LocalTransactions() {
    }

    /** A coordinator of every {@code __transaction_state} partition of {@code broker}, each one loaded. */
    public static TransactionCoordinator start(BrokerContext broker, TxnConfig config) throws IOException {
        return start(broker, config, new LocalMarkers(broker::existingPartition));
    }

    /** The same, its markers sent through {@code markers} (chapter 11's demo drops them to crash the coordinator). */
    public static TransactionCoordinator start(BrokerContext broker, TxnConfig config, MarkerChannel markers)
            throws IOException {
        TransactionCoordinator coordinator = new TransactionCoordinator(config, () -> ProducerIds.of(broker).issue(broker),
                new OffsetsMarkers(markers, broker), group -> OFFSETS_PARTITION);
        for (int n = 0; n < config.stateLogPartitions(); n++) {
            String name = TransactionStateExtension.stateLogPartition(n);
            coordinator.load(n, 0, new PartitionStateLog(() -> broker.partition(name)), broker.nowMs());
        }
        return coordinator;
    }
}
