package kaenlog.batch;

import java.nio.ByteBuffer;
import kaenlog.workbook.Todo;

/**
 * The 61-byte header of a Kafka RecordBatch v2 (magic 2), every field in the order it sits on disk.
 * All integers are big-endian. Source: Kafka's {@code DefaultRecordBatch} (the layout comment at
 * the top of the class) and the protocol guide's "Record Batch" section.
 *
 * <pre>
 * offset size field
 *      0    8 baseOffset            \
 *      8    4 batchLength            | outside the CRC: the broker rewrites baseOffset
 *     12    4 partitionLeaderEpoch   | and partitionLeaderEpoch without recomputing it
 *     16    1 magic                 /  always 2
 *     17    4 crc                     CRC-32C of bytes 21..end
 *     21    2 attributes              compression, timestamp type, transactional, control
 *     23    4 lastOffsetDelta         last offset - baseOffset
 *     27    8 baseTimestamp
 *     35    8 maxTimestamp
 *     43    8 producerId            \
 *     51    2 producerEpoch          } -1 when no idempotent producer wrote the batch
 *     53    4 baseSequence          /
 *     57    4 recordCount
 *     61      records...
 * </pre>
 */
public record BatchHeader(long baseOffset, int batchLength, int partitionLeaderEpoch, byte magic, int crc,
                          short attributes, int lastOffsetDelta, long baseTimestamp, long maxTimestamp,
                          long producerId, short producerEpoch, int baseSequence, int recordCount) {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int BATCH_LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORD_COUNT_OFFSET = 57;
    public static final int SIZE = 61;
    /** baseOffset + batchLength: the bytes before what batchLength counts (Kafka's LOG_OVERHEAD). */
    public static final int LOG_OVERHEAD = 12;

    public static final byte MAGIC = 2;
    public static final long NO_PRODUCER_ID = -1;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1;

    /** Attribute bits (Kafka's DefaultRecordBatch masks). */
    public static final int COMPRESSION_CODEC_MASK = 0x07;
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    public static final int CONTROL_FLAG_MASK = 0x20;
    public static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    /** Writes the 61 header bytes at the buffer's position, in the order of the table above. */
    public void writeTo(ByteBuffer out) {
        throw new Todo("ch01 task 3: write the 61-byte header (BatchHeaderTest)");
    }

    /** Reads the 61 header bytes at the buffer's position; the caller checks there are 61. */
    public static BatchHeader readFrom(ByteBuffer in) {
        throw new Todo("ch01 task 3: read the 61-byte header (BatchHeaderTest)");
    }

    /** The whole batch on disk: batchLength counts everything after the first 12 bytes. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength;
    }

    /**
     * The offset of the batch's last record. Stored as a delta, so a corrupt delta could push it
     * past Long.MAX_VALUE: that is an error, never a silent wrap to a negative offset.
     */
    public long lastOffset() {
        throw new Todo("ch01 task 3: last offset, overflow-checked (BatchHeaderTest)");
    }

    /** The offset after this batch: where the next batch starts. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    /**
     * The sequence number of the last record: baseSequence + lastOffsetDelta, wrapping from
     * Integer.MAX_VALUE to 0 as Kafka's DefaultRecordBatch.incrementSequence does. -1 stays -1.
     */
    public int lastSequence() {
        throw new Todo("ch01 task 3: last sequence, wrapping past Integer.MAX_VALUE to 0 (BatchHeaderTest)");
    }

    /** Sequence arithmetic: after Integer.MAX_VALUE comes 0 (Kafka never uses negative sequences). */
    public static int incrementSequence(int sequence, int increment) {
        if (sequence > Integer.MAX_VALUE - increment) {
            return increment - (Integer.MAX_VALUE - sequence) - 1;
        }
        return sequence + increment;
    }

    public boolean hasProducerId() {
        return producerId != NO_PRODUCER_ID;
    }

    public int compressionCodec() {
        return attributes & COMPRESSION_CODEC_MASK;
    }

    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes & CONTROL_FLAG_MASK) != 0;
    }

    /** The CRC as Kafka prints it: an unsigned 32-bit number. */
    public long crcUnsigned() {
        return Integer.toUnsignedLong(crc);
    }
}
