package kaenlog.compaction;

/**
 * The two retention settings of a log whose {@code cleanup.policy} is {@code delete}, with Kafka's
 * names. Retention forgets whole segments, oldest first; it never removes a single record.
 *
 * @param retentionMs    {@code retention.ms}: a closed segment whose newest record is older than this
 *                       (against the time passed in as {@code nowMs}) is deleted; -1 means no time limit
 * @param retentionBytes {@code retention.bytes}: the oldest segments are deleted while the log stays at or
 *                       above this size without them; -1 means no size limit (Kafka's default)
 */
public record RetentionConfig(long retentionMs, long retentionBytes) {
    /** Kafka's value for "no limit" in both settings. */
    public static final long NO_LIMIT = -1;

    public RetentionConfig {
        if (retentionMs < NO_LIMIT) {
            throw new IllegalArgumentException("retention.ms must be -1 or more, not " + retentionMs);
        }
        if (retentionBytes < NO_LIMIT) {
            throw new IllegalArgumentException("retention.bytes must be -1 or more, not " + retentionBytes);
        }
    }

    public static RetentionConfig byTime(long retentionMs) {
        return new RetentionConfig(retentionMs, NO_LIMIT);
    }

    public static RetentionConfig bySize(long retentionBytes) {
        return new RetentionConfig(NO_LIMIT, retentionBytes);
    }
}
