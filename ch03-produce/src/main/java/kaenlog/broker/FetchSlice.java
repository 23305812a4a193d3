package kaenlog.broker;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.FileSlice;
import kaenlog.wire.ErrorCode;

/**
 * A fetch's answer for one partition with its records as file ranges ({@link FileSlice}), for the
 * zero-copy send; a CORRUPT_BATCH answer carries the damaged batch's bytes instead, as chapter 3's
 * fetch does. Close it once sent (or dropped): it holds its segments' files open.
 *
 * <p>Chapter 11's two fields, read under the same lock as the records: the last stable offset, and
 * for a read_committed fetch the aborted transactions of the range read (null for any other fetch,
 * as Kafka's answer has none then).
 */
public record FetchSlice(String partition, ErrorCode error, long highWatermark, long logStartOffset, FileSlice records,
                         ByteBuffer corruptBatch, long lastStableOffset, List<AbortedTransaction> abortedTransactions)
        implements FetchHandler.Read {
    /** An answer without transactions: the last stable offset is the high watermark. */
    public FetchSlice(String partition, ErrorCode error, long highWatermark, long logStartOffset, FileSlice records,
                      ByteBuffer corruptBatch) {
        this(partition, error, highWatermark, logStartOffset, records, corruptBatch, highWatermark, null);
    }

    public static FetchSlice error(String partition, ErrorCode error) {
        return new FetchSlice(partition, error, -1, -1, FileSlice.EMPTY, null);
    }

    /** Bytes of records the answer carries (the file range, or the corrupt batch). */
    public int recordBytes() {
        return corruptBatch != null ? corruptBatch.remaining() : records.sizeInBytes();
    }

    /** No record and no error: the fetch may wait for data. */
    @Override
    public boolean foundNothing() {
        return error == ErrorCode.NONE && recordBytes() == 0;
    }

    @Override
    public void close() {
        records.close();
    }
}
