package kaenlog.log;

/**
 * The storage settings chapter 3 teaches, with Kafka's names and defaults.
 *
 * @param segmentBytes       {@code segment.bytes}: roll a new active segment when the next batch would
 *                           not fit (Kafka's default 1 GiB)
 * @param indexIntervalBytes {@code index.interval.bytes}: write a sparse index entry after at least this
 *                           many bytes of batches since the last one (Kafka's default 4096)
 * @param flushMessages      {@code flush.messages}: fsync the log once this many messages were appended
 *                           since the last flush (Kafka's default Long.MAX_VALUE: never; 1 = before every answer)
 * @param flushMs            {@code flush.ms}: fsync the log once this much time passed since the last
 *                           flush (Kafka's default Long.MAX_VALUE: never); checked when the partition ticks
 */
public record LogConfig(int segmentBytes, int indexIntervalBytes, long flushMessages, long flushMs) {
    public static final int DEFAULT_SEGMENT_BYTES = 1 << 30;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    /** Kafka's default for flush.messages and flush.ms: the operating system decides when to write. */
    public static final long NEVER = Long.MAX_VALUE;

    public LogConfig {
        if (segmentBytes < 1) {
            throw new IllegalArgumentException("segment.bytes must be positive, not " + segmentBytes);
        }
        if (indexIntervalBytes < 0) {
            throw new IllegalArgumentException("index.interval.bytes must not be negative, not " + indexIntervalBytes);
        }
        if (flushMessages < 1) {
            throw new IllegalArgumentException("flush.messages must be positive, not " + flushMessages);
        }
        if (flushMs < 0) {
            throw new IllegalArgumentException("flush.ms must not be negative, not " + flushMs);
        }
    }

    /** Without explicit flushes (Kafka's default). */
    public LogConfig(int segmentBytes, int indexIntervalBytes) {
        this(segmentBytes, indexIntervalBytes, NEVER, NEVER);
    }

    public static LogConfig defaults() {
        return new LogConfig(DEFAULT_SEGMENT_BYTES, DEFAULT_INDEX_INTERVAL_BYTES);
    }

    public LogConfig withSegmentBytes(int bytes) {
        return new LogConfig(bytes, indexIntervalBytes, flushMessages, flushMs);
    }

    public LogConfig withIndexIntervalBytes(int bytes) {
        return new LogConfig(segmentBytes, bytes, flushMessages, flushMs);
    }

    public LogConfig withFlushMessages(long messages) {
        return new LogConfig(segmentBytes, indexIntervalBytes, messages, flushMs);
    }

    public LogConfig withFlushMs(long ms) {
        return new LogConfig(segmentBytes, indexIntervalBytes, flushMessages, ms);
    }
}
