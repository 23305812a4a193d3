package kaenlog.txn;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Partition;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;

/**
 * A {@code __transaction_state} partition on one broker: chapter 3's partition and its log, through
 * the log's public API only (append, read to the log end), under the partition's lock. The
 * partition is asked for at each use ({@link Opener}): a broker may close a partition to stay under
 * its limit of open ones, and opens it again when asked.
 */
public final class PartitionStateLog implements StateLog {
    /** Where the partition comes from: on a broker, {@code broker.partition(name)}. */
    @FunctionalInterface
    public interface Opener {
        Partition open() throws IOException;
    }

    /** How much one read of the replay takes at most (Kafka's transaction.state.log.load.buffer.size); a larger batch is read whole. */
    public static final int LOAD_BUFFER_SIZE = 5 * 1024 * 1024;

    private final Opener partition;

    public PartitionStateLog(Opener partition) {
        this.partition = partition;
    }

    @Override
    public void append(ByteBuffer batch) throws IOException {
        partition.open().locked(log -> log.append(batch));
    }

    @Override
    public void forEachRecord(RecordVisitor visitor) throws IOException {
        Partition partition = this.partition.open();
        long offset = partition.locked(Log::logStartOffset);
        while (true) {
            long from = offset;
            ByteBuffer chunk = partition.locked(log -> from < log.logEndOffset()
                    ? log.read(from, LOAD_BUFFER_SIZE, FetchIsolation.LOG_END) : ByteBuffer.allocate(0));
            List<RecordBatch> batches = RecordBatch.decodeAll(chunk);
            if (batches.isEmpty()) {
                return;
            }
            for (RecordBatch batch : batches) {
                for (Record record : batch.records()) {
                    visitor.visit(record);
                }
                offset = batch.nextOffset();
            }
        }
    }
}
