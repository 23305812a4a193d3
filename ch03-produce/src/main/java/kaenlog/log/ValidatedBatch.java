package kaenlog.log;

import java.nio.ByteBuffer;
import kaenlog.batch.BatchHeader;

/**
 * A producer's batch that {@link Log#validate} accepted, with the header that validation read.
 * Only the log makes one (the constructor is the package's), so holding one is proof that the
 * bytes passed every check of a leader append: {@link Log#append(ValidatedBatch, int)} writes it
 * without walking its records a second time. Chapter 7's idempotent append validates, judges, then
 * appends this proof: one validation per batch, as Kafka's {@code UnifiedLog.append} runs its
 * {@code LogValidator} once before the producer-state check and the write. The log changes the
 * bytes in place when it appends them (base offset, leader epoch): a proof is appended once.
 */
public final class ValidatedBatch {
    private final ByteBuffer bytes;
    private final BatchHeader header;

    ValidatedBatch(ByteBuffer bytes, BatchHeader header) {
        this.bytes = bytes;
        this.header = header;
    }

    /** The producer's bytes, exactly one batch (the buffer itself, not a copy). */
    public ByteBuffer bytes() {
        return bytes;
    }

    /** The header as validation read it (its base offset is the producer's, before the log assigns one). */
    public BatchHeader header() {
        return header;
    }
}
