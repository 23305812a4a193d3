package kaenlog.broker;

import java.io.IOException;

/**
 * A record of the broker's producer-id log ({@value InitProducerIdHandler#PARTITION}) that cannot be
 * the next id: not a number, negative, too large to have a successor, or not above the record before
 * it. Handing out an id after it could hand out one that a producer already has, so the broker
 * hands out none and answers CORRUPT_PRODUCER_ID_RECORD until the log is repaired.
 */
public final class CorruptProducerIdException extends IOException {
    private final long offset;

    public CorruptProducerIdException(long offset, String problem) {
        super("producer-id record at offset " + offset + " of " + InitProducerIdHandler.PARTITION + ": " + problem);
        this.offset = offset;
    }

    /** The offset of the bad record. */
    public long offset() {
        return offset;
    }
}
