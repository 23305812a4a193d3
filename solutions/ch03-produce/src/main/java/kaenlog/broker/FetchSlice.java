package kaenlog.broker;

import java.nio.ByteBuffer;
import kaenlog.log.FileSlice;
import kaenlog.wire.ErrorCode;

/**
 * A fetch's answer for one partition with its records as file ranges ({@link FileSlice}), for the
 * zero-copy send; a CORRUPT_BATCH answer carries the damaged batch's bytes instead, as chapter 3's
 * fetch does. Close it once sent (or dropped): it holds its segments' files open.
 */
public record FetchSlice(String partition, ErrorCode error, long highWatermark, long logStartOffset, FileSlice records,
                         ByteBuffer corruptBatch) implements FetchHandler.Read {
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
