package kaenlog.txn;

import java.io.IOException;
import kaenlog.broker.BrokerContext;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.TransactionalOffsets;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * The markers of a broker alone, and what a marker on an offsets partition ends: {@code inner} writes
 * every marker (a group's {@code __consumer_offsets} partition gets its control batch through the same
 * path as a data partition), and once a marker is written to an offsets partition the group coordinator
 * commits or discards the offsets the producer left pending there ({@link TransactionalOffsets#markerWritten}),
 * before the partition is reported written: Kafka's WriteTxnMarkers handler calls
 * {@code GroupCoordinator.onTransactionCompleted} after the append and before it answers. Should that
 * fail, the partition is reported failed and its marker sent again (a second marker ends nothing new).
 */
public final class OffsetsMarkers implements MarkerChannel {
    private final MarkerChannel inner;
    private final BrokerContext broker;

    public OffsetsMarkers(MarkerChannel inner, BrokerContext broker) {
        this.inner = inner;
        this.broker = broker;
    }

    @Override
    public void send(TxnMarker marker, long nowMs, Results results) {
        inner.send(marker, nowMs, new Results() {
            @Override
            public void written(TxnMarker written, TopicPartition partition) {
                if (partition.topic().equals(GroupCoordinator.OFFSETS_TOPIC)) {
                    try {
                        TransactionalOffsets.of(broker).markerWritten(broker, partition.name(), written.producerId(),
                                written.producerEpoch(), written.result() == TransactionResult.COMMIT);
                    } catch (IOException e) {
                        results.failed(written, partition, e.toString());
                        return;
                    }
                }
                results.written(written, partition);
            }

            @Override
            public void failed(TxnMarker failed, TopicPartition partition, String why) {
                results.failed(failed, partition, why);
            }
        });
    }
}
