package kaenlog.txn;

import java.io.IOException;
import java.nio.ByteBuffer;
import kaenlog.batch.Record;

/**
 * Where the coordinator keeps one {@code __transaction_state} partition: a compacted log it appends
 * its transitions to and reads back when it takes the partition over. On one broker, chapter 3's
 * log of that partition ({@link PartitionStateLog}); in a cluster, the partition's leader replica,
 * whose appends are answered only once the in-sync replicas have them (Kafka writes this log with
 * acks=all).
 */
public interface StateLog {
    /** Appends one batch; returns once it is as safe as the coordinator needs, or throws and nothing may be assumed. */
    void append(ByteBuffer batch) throws IOException;

    /** Every record from the log's start to its end, oldest first. */
    void forEachRecord(RecordVisitor visitor) throws IOException;

    @FunctionalInterface
    interface RecordVisitor {
        void visit(Record record) throws IOException;
    }
}
