package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.workbook.Todo;

/**
 * The end of a transaction, written by its coordinator into every partition the transaction
 * touched: a <b>control batch</b> (chapter 1's batch with the transactional and control bits set,
 * the producer's id and epoch, base sequence -1) holding one control record. A consumer never sees
 * a control record as data; reading it tells a read_committed consumer that the producer's records
 * before it are committed (COMMIT) or to be skipped (ABORT).
 *
 * <pre>
 * key   version int16 (0) · type int16 (ABORT 0, COMMIT 1)
 * value version int16 (0) · coordinatorEpoch int32
 * </pre>
 *
 * <p>The coordinator epoch is the leader epoch of the coordinator's {@code __transaction_state}
 * partition: a partition that has seen a marker of epoch 5 refuses one of epoch 4 from a coordinator
 * that lost its job without knowing it. Sources: Kafka's {@code EndTransactionMarker},
 * {@code ControlRecordType} and {@code MemoryRecords.withEndTransactionMarker}; the value is the
 * generated {@code EndTxnMarker} message, version 0.
 */
public record EndTransactionMarker(ControlRecordType type, int coordinatorEpoch) {
    /** Both the key's and the value's version: the only one Kafka writes. */
    public static final short VERSION = 0;
    public static final int KEY_SIZE = 4;
    public static final int VALUE_SIZE = 6;
    /** The bits of a control batch's attributes: transactional (0x10) and control (0x20). */
    public static final short CONTROL_BATCH_ATTRIBUTES =
            (short) (BatchHeader.TRANSACTIONAL_FLAG_MASK | BatchHeader.CONTROL_FLAG_MASK);

    public EndTransactionMarker {
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            throw new IllegalArgumentException("an end-transaction marker is COMMIT or ABORT, not " + type);
        }
    }

    /** The control record's key: the key's version, then the marker's type. */
    public byte[] key() {
        throw new Todo("ch11 task 6: the control record's key (EndTransactionMarkerTest)");
    }

    /** The control record's value: the value's version, then the coordinator epoch. */
    public byte[] value() {
        throw new Todo("ch11 task 6: the control record's value (EndTransactionMarkerTest)");
    }

    /**
     * The control batch a partition's leader appends for this marker, as a producer's batch is
     * sent: base offset 0 and partition leader epoch -1 (the log assigns both), one record stamped
     * {@code timestamp}, the producer's id and epoch, base sequence -1 (a marker takes no sequence
     * number: the producer's next batch keeps its own), CreateTime, uncompressed. Chapter 1's
     * {@link BatchBuilder#encode} lays it out.
     */
    public ByteBuffer controlBatch(long producerId, short producerEpoch, long timestamp) {
        throw new Todo("ch11 task 6: a control batch of one marker (EndTransactionMarkerTest)");
    }

    /**
     * The marker a control record holds. Its bytes come from a log, so each is checked: a key of at
     * least 4 bytes with a version of 0 or more (a newer version is read as version 0, as Kafka does),
     * a type COMMIT or ABORT, a value of at least 6 bytes with a version of 0 or more. Anything else is a
     * {@link CorruptBatchException} naming the field.
     */
    public static EndTransactionMarker read(Record record) {
        throw new Todo("ch11 task 6: read a marker back, checking every field (EndTransactionMarkerTest)");
    }

    /** {@code bytes} as a buffer, if it is at least {@code size} long and starts with a version >= 0. */
    private static ByteBuffer checked(byte[] bytes, int size, String field) {
        if (bytes == null || bytes.length < size) {
            throw new CorruptBatchException(field, 0, (bytes == null ? "null" : bytes.length + " byte(s)")
                    + ", at least " + size + " expected");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getShort(0) < 0) {
            throw new CorruptBatchException(field, 0, "version " + buffer.getShort(0) + " is negative");
        }
        return buffer;
    }
}
