package kaenlog.txn;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.Partition;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.log.BatchTooLargeException;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * The markers on one broker: each partition of the transaction is this broker's, and its marker is
 * a control batch appended to its log through chapter 3's append path, under the partition's lock,
 * as a leader's append (Kafka's WriteTxnMarkers handler appends with the coordinator's origin). The
 * marker's timestamp is the coordinator's time: the partition's leader stamps it in Kafka, and on
 * one broker the two are the same clock.
 */
public final class LocalMarkers implements MarkerChannel {
    /** The partitions this broker holds: a partition nobody created is not created by a marker. */
    @FunctionalInterface
    public interface Partitions {
        Optional<Partition> existing(String name) throws IOException;
    }

    private final Partitions partitions;

    public LocalMarkers(Partitions partitions) {
        this.partitions = partitions;
    }

    @Override
    public void send(TxnMarker marker, long nowMs, Results results) {
        for (TopicPartition partition : marker.partitions()) {
            try {
                Optional<Partition> local = partitions.existing(partition.name());
                if (local.isPresent()) {
                    local.get().locked(log -> log.append(marker.endTransactionMarker()
                            .controlBatch(marker.producerId(), marker.producerEpoch(), nowMs)));
                }
                results.written(marker, partition);
            } catch (MalformedMessageException notAPartition) {
                results.written(marker, partition); // a name no partition can have: nothing to end there
            } catch (IOException | ProduceRefusedException | BatchTooLargeException e) {
                results.failed(marker, partition, e.toString()); // a storage error, a refusal: sent again at the next tick
            }
        }
    }
}
