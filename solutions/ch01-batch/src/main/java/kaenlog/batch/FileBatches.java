package kaenlog.batch;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads the raw bytes of one batch from a file. A batch's length comes from the file itself, so
 * it is checked against what the file still holds before a buffer of that size is allocated: a
 * corrupt length can never make the reader allocate gigabytes. Used by {@code klog dump} and by
 * chapter 3's segments.
 */
public final class FileBatches {
    private FileBatches() {
    }

    /**
     * The bytes of the batch starting at {@code position}, where the readable data ends at
     * {@code end}. Throws {@link CorruptBatchException} (positions relative to the batch) when
     * the batch is cut off or its length is impossible; the bytes are not decoded here.
     */
    public static ByteBuffer readAt(FileChannel channel, long position, long end) throws IOException {
        long available = end - position;
        ByteBuffer overhead = ByteBuffer.allocate(BatchHeader.LOG_OVERHEAD);
        if (available < BatchHeader.LOG_OVERHEAD) {
            throw new CorruptBatchException("batchLength", 0, "truncated: " + available
                    + " byte(s) left in the file, a batch needs 12 for baseOffset and batchLength");
        }
        readFully(channel, overhead, position);
        int batchLength = overhead.getInt(BatchHeader.BATCH_LENGTH_OFFSET);
        int minimum = BatchHeader.SIZE - BatchHeader.LOG_OVERHEAD;
        if (batchLength < minimum) {
            throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET,
                    "length " + batchLength + " is less than the " + minimum + " bytes of header after it");
        }
        if (batchLength > available - BatchHeader.LOG_OVERHEAD) {
            throw new CorruptBatchException("batchLength", BatchHeader.BATCH_LENGTH_OFFSET, "truncated: length "
                    + batchLength + " but only " + (available - BatchHeader.LOG_OVERHEAD) + " byte(s) follow");
        }
        ByteBuffer batch = ByteBuffer.allocate(BatchHeader.LOG_OVERHEAD + batchLength);
        readFully(channel, batch, position);
        batch.flip();
        return batch;
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long position) throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            int n = channel.read(into, at);
            if (n < 0) {
                throw new EOFException("file ended at byte " + at + " while reading a batch");
            }
            at += n;
        }
    }
}
