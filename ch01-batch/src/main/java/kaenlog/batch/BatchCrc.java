package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import kaenlog.workbook.Todo;

/**
 * The batch checksum: CRC-32C (Castagnoli, the JDK's {@link CRC32C}), not the CRC-32 of
 * {@code java.util.zip.CRC32} that magic 0 and 1 used. It covers the bytes from attributes to the
 * end of the batch. baseOffset, batchLength and partitionLeaderEpoch sit before it on purpose:
 * the leader rewrites baseOffset and partitionLeaderEpoch on every append without recomputing it.
 * Source: Kafka's {@code DefaultRecordBatch.computeChecksum} and {@code Crc32C}.
 */
public final class BatchCrc {
    private BatchCrc() {
    }

    /**
     * The CRC-32C of a batch that starts at {@code batch.position()} and ends at its limit.
     * The buffer's position and limit are left as they were.
     */
    public static int compute(ByteBuffer batch) {
        throw new Todo("ch01 task 4: CRC-32C over attributes..end (BatchCrcTest)");
    }

    /** The CRC the batch carries in its header (bytes 17..20). */
    public static int stored(ByteBuffer batch) {
        return batch.getInt(batch.position() + BatchHeader.CRC_OFFSET);
    }

    /** True when the stored CRC matches the bytes. */
    public static boolean isValid(ByteBuffer batch) {
        return stored(batch) == compute(batch);
    }
}
