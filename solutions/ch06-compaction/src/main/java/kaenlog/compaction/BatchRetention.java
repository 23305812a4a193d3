package kaenlog.compaction;

/**
 * What the cleaner does with a batch that loses all its records. Kafka's
 * {@code MemoryRecords.RecordFilter.BatchRetention} has a third value, DELETE, for the records of
 * aborted transactions; kaen-log's cleaner says that with {@link Cleaner.Verdict#DISCARD} (chapter 11).
 */
public enum BatchRetention {
    /** Keep the batch as an empty 61-byte header even when no record survives. */
    RETAIN_EMPTY,
    /** Drop the batch when no record survives. */
    DELETE_EMPTY
}
