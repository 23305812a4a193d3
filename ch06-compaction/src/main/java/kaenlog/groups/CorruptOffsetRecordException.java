package kaenlog.groups;

/** The key or value bytes of a record in the offsets log cannot be decoded: names the field and the byte. */
public final class CorruptOffsetRecordException extends RuntimeException {
    private final String field;
    private final int position;

    public CorruptOffsetRecordException(String field, int position, String problem) {
        super(field + " at byte " + position + ": " + problem);
        this.field = field;
        this.position = position;
    }

    public String field() {
        return field;
    }

    public int position() {
        return position;
    }
}
