package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import kaenlog.workbook.Todo;

/**
 * A decoded v2 batch: its header and its records. Decoding is where untrusted bytes enter the
 * broker (a segment after a crash, a request from the network), so it checks every length
 * before it trusts it, and reports every problem as a {@link CorruptBatchException}.
 */
public record RecordBatch(BatchHeader header, List<Record> records) {
    /** The smallest record on disk: length, attributes, timestampDelta, offsetDelta, key, value, header count. */
    static final int MIN_RECORD_SIZE = 7;

    public RecordBatch {
        records = List.copyOf(records);
    }

    /**
     * Decodes one batch at the buffer's position and moves the position past it. Checks, in
     * order: 12 bytes for baseOffset and batchLength; a batchLength that covers a header and fits
     * in the buffer; magic 2; the CRC; a codec of Kafka's, whose records inflate within
     * {@link Compression#MAX_INFLATED_BYTES}; a record count that can fit; every record; no bytes
     * left over (in a compressed batch, every check after the CRC is on the inflated records). A record's
     * timestamp is the batch's baseTimestamp plus its delta, or, in a LogAppendTime batch (attribute bit
     * {@code 0x08}), the batch's maxTimestamp: the time the broker appended it.
     */
    public static RecordBatch decode(ByteBuffer in) {
        return decode(in, true);
    }

    /**
     * Checks one batch exactly as {@link #decode} does and moves past it, without copying a record
     * out of it: how a broker validates what it is about to store (chapter 3's log append).
     */
    public static BatchHeader validate(ByteBuffer in) {
        return decode(in, false).header();
    }

    /** {@link #decode} when {@code keepRecords}, {@link #validate} when not: the same checks either way. */
    static RecordBatch decode(ByteBuffer in, boolean keepRecords) {
        throw new Todo("ch01 task 6: decode untrusted bytes (RecordBatchDecodeTest)");
    }

    /**
     * The bytes of the batch at the buffer's position, checked just enough to know where it ends:
     * 12 bytes of overhead, a batchLength that covers a v2 header and fits, and magic 2. A reader
     * that scans a segment uses this to step from batch to batch. The buffer is not moved.
     */
    public static ByteBuffer slice(ByteBuffer in) {
        throw new Todo("ch01 task 6: find where a batch ends (RecordBatchDecodeTest)");
    }

    /** Offsets inside a batch only grow and never pass the batch's last offset. */
    private static void checkOffset(BatchHeader header, long offset, long previous, int at, int index) {
        if (offset <= previous || offset > header.lastOffset()) {
            throw new CorruptBatchException("record[" + index + "].offsetDelta", at, "offset " + offset
                    + " is not between " + (previous + 1) + " and lastOffset " + header.lastOffset());
        }
    }

    /** The bytes of every batch of a buffer, front to back, each a slice (nothing decoded, nothing copied). */
    public static List<ByteBuffer> sliceAll(ByteBuffer in) {
        List<ByteBuffer> batches = new ArrayList<>();
        ByteBuffer rest = in.duplicate();
        while (rest.hasRemaining()) {
            ByteBuffer one = slice(rest);
            batches.add(one);
            rest.position(rest.position() + one.remaining());
        }
        return batches;
    }

    /** Decodes every batch of a buffer, front to back (a whole segment file, a fetch response). */
    public static List<RecordBatch> decodeAll(ByteBuffer in) {
        List<RecordBatch> batches = new ArrayList<>();
        while (in.hasRemaining()) {
            batches.add(decode(in));
        }
        return batches;
    }

    /**
     * Moves a batch to new offsets, as a leader does on append: rewrites the 8 bytes of
     * baseOffset and nothing else. Every record stores only its offsetDelta, and the CRC does not
     * cover baseOffset, so the checksum the producer computed stays valid.
     */
    public static void assignBaseOffset(ByteBuffer batch, long baseOffset) {
        throw new Todo("ch01 task 7: assign offsets without touching the CRC (OffsetAssignmentTest)");
    }

    /** Stamps the leader's epoch on a batch (chapter 8); also outside the CRC. */
    public static void assignPartitionLeaderEpoch(ByteBuffer batch, int epoch) {
        batch.putInt(batch.position() + BatchHeader.PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    public long baseOffset() {
        return header.baseOffset();
    }

    public long lastOffset() {
        return header.lastOffset();
    }

    public long nextOffset() {
        return header.nextOffset();
    }
}
