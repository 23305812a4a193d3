package kaenlog.idem;

/**
 * What an idempotent append answers: the verdict and where the batch is in the log.
 *
 * <ul>
 *   <li>{@link Verdict.Append}: the offsets the leader just gave the batch.</li>
 *   <li>{@link Verdict.Duplicate}: the offsets of the FIRST write; nothing was written this time.</li>
 *   <li>{@link Verdict.OutOfOrderSequenceNumber}: -1 and -1; nothing was written.</li>
 * </ul>
 *
 * @param verdict    how the batch was judged
 * @param baseOffset offset of the batch's first record, or -1
 * @param lastOffset offset of the batch's last record, or -1
 */
public record IdempotentAppend(Verdict verdict, long baseOffset, long lastOffset) {
    public static final long NO_OFFSET = -1L;

    public static IdempotentAppend rejected(Verdict.OutOfOrderSequenceNumber verdict) {
        return new IdempotentAppend(verdict, NO_OFFSET, NO_OFFSET);
    }

    /** True when the producer may treat the batch as written (a duplicate is a success too). */
    public boolean succeeded() {
        return !(verdict instanceof Verdict.OutOfOrderSequenceNumber);
    }
}
