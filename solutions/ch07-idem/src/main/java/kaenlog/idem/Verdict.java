package kaenlog.idem;

/**
 * How the broker judges an idempotent batch, before it writes anything.
 *
 * <p>The surprising one is {@link Duplicate}: it is a success, answered with the offsets of the
 * first write (Kafka 4.1.1's UnifiedLog fills the response from {@code result.maybeDuplicate} and
 * skips {@code localLog.append(...)}). Kafka's error code 46 DUPLICATE_SEQUENCE_NUMBER is not what
 * the broker answers here; code 45 OUT_OF_ORDER_SEQUENCE_NUMBER is what {@link OutOfOrderSequenceNumber}
 * stands for.
 */
public sealed interface Verdict {

    /** The name the demo prints. */
    String label();

    /** {@code firstSeq} is exactly the expected sequence: write the batch. */
    record Append() implements Verdict {
        @Override
        public String label() {
            return "APPEND";
        }
    }

    /** A resend of a batch still in the window: success, with the original offsets; nothing is written. */
    record Duplicate(long firstOffset, long lastOffset, long timestamp) implements Verdict {
        @Override
        public String label() {
            return "DUPLICATE";
        }
    }

    /**
     * A gap (or a batch that left the window): a write went missing, it is not a copy. Nothing is
     * written, and the producer hears about it, so a silent loss becomes a loud error.
     */
    record OutOfOrderSequenceNumber(int expected, int got) implements Verdict {
        @Override
        public String label() {
            return "OUT_OF_ORDER_SEQUENCE_NUMBER";
        }
    }
}
