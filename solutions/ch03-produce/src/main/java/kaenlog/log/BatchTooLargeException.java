package kaenlog.log;

/** A batch bigger than a whole segment (segment.bytes) could never be written. */
public final class BatchTooLargeException extends IllegalArgumentException {
    public BatchTooLargeException(int batchBytes, int segmentBytes) {
        super("a batch of " + batchBytes + " bytes can never fit in a segment of segment.bytes " + segmentBytes);
    }
}
