package kaenlog.log;

/**
 * A fetch for an offset the log does not have: below the log start offset (deleted by retention)
 * or past the log end offset. An error, never an empty answer: an empty answer would make a
 * consumer that lost its place wait forever instead of resetting.
 */
public final class OffsetOutOfRangeException extends RuntimeException {
    private final long offset;

    public OffsetOutOfRangeException(long offset, long logStartOffset, long logEndOffset) {
        super("offset " + offset + " is out of range: the log holds " + logStartOffset + " to " + logEndOffset
                + " (log start offset to log end offset)");
        this.offset = offset;
    }

    /** An offset refused for another reason than the log's range (a log start past the high watermark). */
    public OffsetOutOfRangeException(long offset, String message) {
        super(message);
        this.offset = offset;
    }

    public long offset() {
        return offset;
    }
}
