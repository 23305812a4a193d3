package kaenlog.idem;

/**
 * A transaction its marker ended on one partition (Kafka's {@code CompletedTxn}): its producer, the
 * offset of its first batch here, the marker's offset, whether it was aborted, and the last stable
 * offset at the moment it ended, which an ABORT's entry in the {@code .txnindex} keeps.
 *
 * @param lastStableOffset the first offset of the oldest transaction of another producer still open
 *                         then, or the offset after the marker when none is (Kafka's
 *                         {@code ProducerStateManager.lastStableOffset(completedTxn)}, not bounded by
 *                         the high watermark)
 */
public record CompletedTxn(long producerId, long firstOffset, long lastOffset, boolean aborted,
                           long lastStableOffset) {
}
