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
    private final String problem;

    public CorruptBatchException(String field, long position, String problem) {
        super(field + " at byte " + position + ": " + problem);
        this.field = field;
        this.position = position;
        this.problem = problem;
    }

    /**
     * The same problem with its field named inside {@code outer}: {@code "key"} within
     * {@code "record[2]"} is {@code "record[2].key"}. A reader names a field relative to what it
     * reads and the caller that knows which record (or header) it was adds the rest, on this error
     * path only: a label built for every good record costs a broker more than checking the record.
     */
    public CorruptBatchException within(String outer) {
        return new CorruptBatchException(outer + "." + field, position, problem);
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
