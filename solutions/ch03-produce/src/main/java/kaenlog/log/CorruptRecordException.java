package kaenlog.log;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A stored batch that fails its CRC or record checks when it is read (Kafka's
 * CorruptRecordException): bit rot below the recovery point, or damage after a clean shutdown.
 * It carries the batch's raw bytes and offsets as its header states them, so the broker can say
 * which offsets are damaged instead of serving the bytes as if they were good, and a consumer
 * can choose to skip them.
 */
public final class CorruptRecordException extends RuntimeException {
    private final transient ByteBuffer batch;
    private final long baseOffset;
    private final long lastOffset;

    public CorruptRecordException(Path file, long position, long baseOffset, long lastOffset, ByteBuffer batch,
                                  RuntimeException cause) {
        super(file.getFileName() + " byte " + position + ": the batch at offsets " + baseOffset + ".." + lastOffset
                + " is corrupt: " + cause.getMessage(), cause);
        this.batch = batch;
        this.baseOffset = baseOffset;
        this.lastOffset = lastOffset;
    }

    /** The batch's bytes as stored. */
    public ByteBuffer batch() {
        return batch.duplicate();
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long lastOffset() {
        return lastOffset;
    }
}
