package kaenlog.idem;

import java.util.Objects;
import kaenlog.workbook.Todo;

/** The idempotent producer's rules, independent of any log. */
public final class Idempotence {

    private Idempotence() {
    }

    /**
     * Judges a batch {@code [firstSeq, lastSeq]} from a producer whose state is {@code entry}.
     *
     * <ol>
     *   <li>A retained batch with exactly this first AND last sequence, and the same epoch, makes it a
     *       {@link Verdict.Duplicate} carrying that batch's offsets and timestamp. Kafka's
     *       {@code ProducerStateEntry.findDuplicateBatch} checks the epoch, then looks for the exact
     *       range. A half overlap is not a duplicate. This check runs first: a resend's sequence is
     *       always behind the expected one.</li>
     *   <li>Otherwise {@code firstSeq == entry.expectedFirstSeq()} makes it {@link Verdict.Append}.</li>
     *   <li>Otherwise {@link Verdict.OutOfOrderSequenceNumber}(expected, got = firstSeq).</li>
     * </ol>
     *
     * <p>Where Kafka goes further: its broker also fences older epochs and, on a new epoch, requires
     * sequence 0 and forgets the old batches. kaen-log uses the epoch only in rule 1.
     */
    public static Verdict judge(ProducerStateEntry entry, short epoch, int firstSeq, int lastSeq) {
        Objects.requireNonNull(entry, "entry");
        throw new Todo("ch07 task 3: judge a batch: duplicate, append or out of order (JudgeTest)");
    }
}
