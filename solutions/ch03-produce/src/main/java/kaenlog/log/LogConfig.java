package kaenlog.log;

/**
 * The two storage settings chapter 3 teaches, with Kafka's names and defaults.
 *
 * @param segmentBytes       {@code segment.bytes}: roll a new active segment when the next batch would
 *                           not fit (Kafka's default 1 GiB)
 * @param indexIntervalBytes {@code index.interval.bytes}: write a sparse index entry after at least this
 *                           many bytes of batches since the last one (Kafka's default 4096)
 */
public record LogConfig(int segmentBytes, int indexIntervalBytes) {
    public static final int DEFAULT_SEGMENT_BYTES = 1 << 30;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;

    public LogConfig {
        if (segmentBytes < 1) {
            throw new IllegalArgumentException("segment.bytes must be positive, not " + segmentBytes);
        }
        if (indexIntervalBytes < 0) {
            throw new IllegalArgumentException("index.interval.bytes must not be negative, not " + indexIntervalBytes);
        }
    }

    public static LogConfig defaults() {
        return new LogConfig(DEFAULT_SEGMENT_BYTES, DEFAULT_INDEX_INTERVAL_BYTES);
    }

    public LogConfig withSegmentBytes(int bytes) {
        return new LogConfig(bytes, indexIntervalBytes);
    }

    public LogConfig withIndexIntervalBytes(int bytes) {
        return new LogConfig(segmentBytes, bytes);
    }
}
