package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds a batch from the records compaction keeps (chapter 6), preserving what the producer
 * state needs: the base offset and the last offset (so lastOffsetDelta, and with it the last
 * sequence), the producer id, epoch and base sequence, the partition leader epoch and the
 * transactional/control bits, even when records at the ends were removed.
 *
 * <p>Kafka's DefaultRecordBatch calls this the "On Compaction" rule: "we must preserve the last
 * offset from the initial batch in order to ensure that the last sequence number from the batch
 * remains even after compaction" (MemoryRecords.buildRetainedRecordsInto). A batch that keeps no
 * record at all is written as an empty header (Kafka's DefaultRecordBatch.writeEmptyHeader:
 * recordCount 0, baseTimestamp -1, maxTimestamp the original's) so the producer's last sequence
 * survives; chapter 7 rebuilds its window from those headers.
 *
 * <p>A batch whose timestamp type is LogAppendTime keeps its append time with nothing more to do:
 * its records, as {@link RecordBatch#decode} reads them, all carry the original's {@code maxTimestamp}
 * (the broker's append time), so the kept records and both header timestamps are that time, as
 * Kafka's cleaner writes them.
 */
public final class CompactedBatchBuilder {
    private final BatchHeader original;
    private final List<Record> retained = new ArrayList<>();

    public CompactedBatchBuilder(BatchHeader original) {
        this.original = original;
    }

    /** Keeps a record of the original batch, at its original offset. */
    public CompactedBatchBuilder retain(Record record) {
        if (record.offset() < original.baseOffset() || record.offset() > original.lastOffset()) {
            throw new IllegalArgumentException("offset " + record.offset() + " is outside the batch "
                    + original.baseOffset() + ".." + original.lastOffset());
        }
        if (!retained.isEmpty() && record.offset() <= retained.get(retained.size() - 1).offset()) {
            throw new IllegalArgumentException("records must be retained in offset order");
        }
        retained.add(record);
        return this;
    }

    public int retainedCount() {
        return retained.size();
    }

    /** The rewritten batch: same base and last offset, same producer fields, only the retained records. */
    public ByteBuffer build() {
        // BEGIN-SOLUTION ch01 task 8: the preserving builder (CompactedBatchBuilderTest)
        long baseTimestamp = retained.isEmpty() ? BatchHeader.NO_TIMESTAMP : retained.get(0).timestamp();
        long maxTimestamp = retained.isEmpty() ? original.maxTimestamp()
                : retained.stream().mapToLong(Record::timestamp).max().orElseThrow();
        BatchHeader header = new BatchHeader(original.baseOffset(), 0, original.partitionLeaderEpoch(),
                BatchHeader.MAGIC, 0, original.attributes(), original.lastOffsetDelta(), baseTimestamp, maxTimestamp,
                original.producerId(), original.producerEpoch(), original.baseSequence(), 0);
        return BatchBuilder.encode(header, retained);
        // END-SOLUTION
    }
}
