package kaenlog.batch;

/**
 * What a control record says, the int16 type in its key. Chapter 11 writes two of them, the
 * end-transaction markers: ABORT 0 and COMMIT 1 (Kafka's {@code ControlRecordType}; the code, not
 * KIP-98's prose, fixes the numbers). Kafka numbers more (2 to 6: KRaft's own records, which never
 * reach a partition of a topic); any type but these two is {@link #UNKNOWN} here, as Kafka's
 * {@code fromTypeId} answers a type it does not know.
 */
public enum ControlRecordType {
    ABORT((short) 0),
    COMMIT((short) 1),
    UNKNOWN((short) -1);

    private final short id;

    ControlRecordType(short id) {
        this.id = id;
    }

    public short id() {
        return id;
    }

    public static ControlRecordType of(short id) {
        return switch (id) {
            case 0 -> ABORT;
            case 1 -> COMMIT;
            default -> UNKNOWN;
        };
    }
}
