package kaenlog.idem;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogOffsetMetadata;
import org.apache.kafka.storage.internals.log.ProducerAppendInfo;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;

/**
 * Kafka 4.1.1's own producer state in the test JVM, the judge of the log side: its
 * {@code ProducerStateManager} is given the same batches (built by kafka-clients, appended as a
 * follower appends, so that only the transaction rules speak), and tells the first unstable offset,
 * the transactions each marker completes and the last stable offset of that moment.
 */
public final class KafkaProducerState {
    public static final short EPOCH = 0;
    private final ProducerStateManager manager;

    public KafkaProducerState(Path dir) throws IOException {
        manager = new ProducerStateManager(new TopicPartition("orders", 0), dir.toFile(), 900_000,
                new ProducerStateManagerConfig(86_400_000, false), Time.SYSTEM);
    }

    /** A transactional batch of {@code count} records of {@code producerId} at {@code offset}. */
    public static RecordBatch dataBatch(long producerId, int sequence, long offset, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1_700_000_000_000L, ("v" + (offset + i)).getBytes());
        }
        return MemoryRecords.withTransactionalRecords(offset, Compression.NONE, producerId, EPOCH, sequence, 0, records)
                .batches().iterator().next();
    }

    /** A COMMIT or ABORT marker of {@code producerId} at {@code offset}. */
    public static RecordBatch markerBatch(long producerId, long offset, boolean abort) {
        return MemoryRecords.withEndTransactionMarker(offset, 1_700_000_000_000L, 0, producerId, EPOCH,
                new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 0))
                .batches().iterator().next();
    }

    /** Appends {@code batch} as UnifiedLog does; a marker's completed transaction with Kafka's last stable offset of that moment. */
    public Optional<CompletedTxn> append(RecordBatch batch) {
        ProducerAppendInfo info = manager.prepareUpdate(batch.producerId(), AppendOrigin.REPLICATION);
        Optional<org.apache.kafka.storage.internals.log.CompletedTxn> completed =
                info.append(batch, Optional.of(new LogOffsetMetadata(batch.baseOffset())));
        manager.update(info);
        manager.updateMapEndOffset(batch.lastOffset() + 1);
        return completed.map(txn -> {
            long lastStable = manager.lastStableOffset(txn);
            manager.completeTxn(txn);
            return new CompletedTxn(txn.producerId, txn.firstOffset, txn.lastOffset, txn.isAborted, lastStable);
        });
    }

    /**
     * Kafka's last stable offset: {@code UnifiedLog.lastStableOffset} over the manager's first unstable
     * offset once the high watermark is known to it ({@code onHighWatermarkUpdated}), not below the
     * log start ({@code maybeIncrementFirstUnstableOffset}).
     */
    public long lastStableOffset(long logStartOffset, long highWatermark) {
        manager.onHighWatermarkUpdated(highWatermark);
        Optional<Long> firstUnstable = manager.firstUnstableOffset().map(m -> Math.max(m.messageOffset, logStartOffset));
        return firstUnstable.isPresent() && firstUnstable.get() < highWatermark ? firstUnstable.get() : highWatermark;
    }
}
