package kaenlog.batch;

/**
 * Bytes that do not decode as a v2 record batch.
 *
 * <p>Decoding reads untrusted bytes (a file after a crash, a frame from the network), so every
 * problem is reported as this one type, naming the field and the byte position where it was
 * found. The position counts from the first byte of the batch.
 */
public final class CorruptBatchException extends RuntimeException {
    private final String field;
    private final long position;

    public CorruptBatchException(String field, long position, String problem) {
        super(field + " at byte " + position + ": " + problem);
        this.field = field;
        this.position = position;
    }

    /** The header or record field that was wrong, e.g. {@code "crc"} or {@code "record[2].key"}. */
    public String field() {
        return field;
    }

    /** Where the wrong field starts, counted from the first byte of the batch. */
    public long position() {
        return position;
    }
}
