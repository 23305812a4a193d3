package kaenlog.log;

import java.nio.ByteBuffer;
import kaenlog.batch.CorruptBatchException;
import kaenlog.workbook.Todo;

/**
 * One entry of a segment's {@code .txnindex}: a transaction whose ABORT marker is in that segment.
 * 34 bytes, big-endian, as Kafka's {@code AbortedTxn} lays them out: version int16 (0), producerId
 * int64, firstOffset int64, lastOffset int64 (the marker's), lastStableOffset int64 (the last stable
 * offset when it was aborted). Kafka's own {@code TransactionIndex} reads what this writes.
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
    public static final short VERSION = 0;
    /** 2 + 8 + 8 + 8 + 8. */
    public static final int SIZE = 34;

    /** Writes the 34 bytes at {@code out}'s position, moving it past them. */
    public void writeTo(ByteBuffer out) {
        throw new Todo("ch11 task 9: an aborted transaction's 34 bytes (TransactionIndexTest)");
    }

    /**
     * Reads 34 bytes from {@code in}'s position, moving it past them. A version other than 0 is a
     * {@link CorruptBatchException} naming it: kaen-log knows no other layout, and guessing one would
     * answer a read_committed consumer with wrong offsets.
     */
    public static AbortedTxn readFrom(ByteBuffer in) {
        throw new Todo("ch11 task 9: an aborted transaction's 34 bytes (TransactionIndexTest)");
    }

    /** What a read_committed fetch answers about it: the producer id and the first offset. */
    public AbortedTransaction asAbortedTransaction() {
        return new AbortedTransaction(producerId, firstOffset);
    }
}
