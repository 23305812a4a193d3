package kaenlog.txn;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;

/** A {@code __transaction_state} partition in memory: the batches appended, in order, with offsets; a write can be made to fail. */
final class MemoryStateLog implements StateLog {
    private final List<ByteBuffer> batches = new ArrayList<>();
    /** Where every log of a fixture also notes what it wrote, so that the order of writes across partitions is known. */
    private final List<String> journal;
    private long nextOffset;
    /** How many of the next appends fail. */
    int failingAppends;
    /** How many of the next appends are refused as too large for the log's segments. */
    int tooLargeAppends;

    MemoryStateLog() {
        this(new ArrayList<>());
    }

    MemoryStateLog(List<String> journal) {
        this.journal = journal;
    }

    @Override
    public void append(ByteBuffer batch) throws IOException {
        if (failingAppends > 0) {
            failingAppends--;
            throw new IOException("the test's __transaction_state cannot be written");
        }
        if (tooLargeAppends > 0) {
            tooLargeAppends--;
            throw new kaenlog.log.BatchTooLargeException(batch.remaining(), 64);
        }
        ByteBuffer copy = ByteBuffer.allocate(batch.remaining()).put(batch.duplicate()).flip();
        RecordBatch.assignBaseOffset(copy, nextOffset);
        nextOffset = RecordBatch.decode(copy.duplicate()).nextOffset();
        batches.add(copy);
        for (Record record : RecordBatch.decode(copy.duplicate()).records()) {
            journal.add(describe(record));
        }
    }

    @Override
    public void forEachRecord(RecordVisitor visitor) throws IOException {
        for (Record record : records()) {
            visitor.visit(record);
        }
    }

    private static String describe(Record record) {
        try {
            return TransactionLog.readKey(record.key()).orElse("?") + " "
                    + (record.value() == null ? "tombstone" : TransactionLog.readValue(record.value()));
        } catch (RuntimeException undecodable) {
            return "undecodable: " + undecodable.getMessage();
        }
    }

    /** Appends bytes as they are (another writer's records: Kafka's, a damaged one). */
    void appendRaw(byte[] key, byte[] value) throws IOException {
        append(new kaenlog.batch.BatchBuilder().append(0L, key, value).build());
    }

    List<Record> records() {
        List<Record> records = new ArrayList<>();
        for (ByteBuffer batch : batches) {
            records.addAll(RecordBatch.decode(batch.duplicate()).records());
        }
        return records;
    }

    /** Every transition written, in order, decoded with the chapter's own codec: id and state. */
    List<Map.Entry<String, TxnTransit>> written() {
        List<Map.Entry<String, TxnTransit>> written = new ArrayList<>();
        for (Record record : records()) {
            String id = TransactionLog.readKey(record.key()).orElseThrow();
            written.add(Map.entry(id, TransactionLog.readValue(record.value())));
        }
        return written;
    }

    int size() {
        return records().size();
    }
}
