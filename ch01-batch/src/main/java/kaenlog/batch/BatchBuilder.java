package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import kaenlog.workbook.Todo;

/**
 * Builds a fresh batch the way a producer does: records get consecutive offsets from 0, the
 * producer fields are -1 unless an idempotent producer sets them (chapter 7), the partition
 * leader epoch is -1 until a leader stamps it (chapter 8). The leader, not the producer, decides
 * the real offsets: see {@link RecordBatch#assignBaseOffset}.
 */
public final class BatchBuilder {
    private long producerId = BatchHeader.NO_PRODUCER_ID;
    private short producerEpoch = BatchHeader.NO_PRODUCER_EPOCH;
    private int baseSequence = BatchHeader.NO_SEQUENCE;
    private int partitionLeaderEpoch = BatchHeader.NO_PARTITION_LEADER_EPOCH;
    private Compression compression = Compression.NONE;
    private final List<Record> records = new ArrayList<>();

    /** Marks the batch as written by idempotent producer {@code producerId} (chapter 7). */
    public BatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    public BatchBuilder partitionLeaderEpoch(int epoch) {
        this.partitionLeaderEpoch = epoch;
        return this;
    }

    /** Compresses the records with {@code codec}, as a producer with {@code compression.type} does. */
    public BatchBuilder compression(Compression codec) {
        this.compression = codec;
        return this;
    }

    /** Adds a record; its offset is its position in the batch (the base offset is 0 until assigned). */
    public BatchBuilder append(long timestamp, byte[] key, byte[] value, RecordHeader... headers) {
        records.add(new Record(records.size(), timestamp, key, value, List.of(headers)));
        return this;
    }

    public BatchBuilder append(long timestamp, String key, String value) {
        return append(timestamp, Record.bytes(key), Record.bytes(value));
    }

    public int recordCount() {
        return records.size();
    }

    /** The batch with base offset 0, as a producer sends it. */
    public ByteBuffer build() {
        return build(0);
    }

    /** The batch with the given base offset, its records compressed with the builder's codec. */
    public ByteBuffer build(long baseOffset) {
        ByteBuffer plain = fresh(baseOffset);
        return compression == Compression.NONE ? plain : Compression.compress(plain, compression);
    }

    /** The plain batch with the given base offset; baseTimestamp is the first record's, maxTimestamp the largest. */
    private ByteBuffer fresh(long baseOffset) {
        throw new Todo("ch01 task 5: a fresh producer batch (BatchBuilderTest)");
    }

    /**
     * Lays out a batch: the header (with batchLength, recordCount and crc filled in here, whatever
     * the given header says), then each record relative to the header's baseOffset and
     * baseTimestamp, then the CRC over attributes..end. Returns a buffer positioned at 0.
     * Both builders end here: the fresh one above and chapter 6's {@link CompactedBatchBuilder}.
     * When the header's attributes name a codec, the records are then compressed as one stream
     * ({@link Compression#compress}): batchLength and the CRC are over the compressed bytes.
     */
    public static ByteBuffer encode(BatchHeader header, List<Record> records) {
        return Compression.compress(layout(header, records));
    }

    /** {@link #encode}'s layout, records uncompressed whatever the attributes say. */
    private static ByteBuffer layout(BatchHeader header, List<Record> records) {
        throw new Todo("ch01 task 5: lay out header, records and CRC (BatchBuilderTest)");
    }
}
