package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.CorruptRecordException;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.log.StorageException;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.InitProducerId;

/**
 * Answers INIT_PRODUCER_ID with a producer id no producer of this broker had before, restarts
 * included. A reused id would be a silent disaster: the new producer's sequence 0 would be judged
 * against the old producer's window, and an exact match would be answered DUPLICATE without
 * writing anything.
 *
 * <p>So the ids are written down before they are handed out, in an internal partition
 * {@value #PARTITION} of the broker's own log (Kafka keeps its producer-id blocks in its metadata
 * log the same way, a block of 1000 at a time). Each init appends one record whose value is the id
 * it hands out; after a restart the next id follows the last record. The epoch is always 0:
 * without transactions there is no reason to bump it.
 *
 * <p>That log is the broker's own (clients may neither produce to nor fetch from {@code __...}
 * partitions), and it is still read as untrusted bytes: every record must be a decimal id above the
 * one before it, or {@link #lastWritten} throws {@link CorruptProducerIdException} naming its offset
 * and INIT_PRODUCER_ID answers CORRUPT_PRODUCER_ID_RECORD: no id twice, no overflow to a negative id.
 * A log damaged on disk (a batch whose CRC fails, files that cannot be opened) is answered the same,
 * with one rate-limited line in the broker's log ({@code CorruptProducerIdLogTest}).
 * The ids handed out so far are also the only ones a produce may carry ({@link #wasIssued}).
 */
public final class InitProducerIdHandler implements RequestHandler {
    public static final String PARTITION = "__producer_ids-0";
    public static final short EPOCH = 0;
    /** The largest id a record may hold: the next one must still be a valid id. */
    static final long MAX_ID = Long.MAX_VALUE - 1;

    /** The last id handed out per open log of {@value #PARTITION} (a new broker opens a new Log). */
    private static final Map<Log, Long> LAST_ISSUED = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public short apiKey() {
        return InitProducerId.API_KEY;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        InitProducerId.decodeRequest(body);
        try {
            long producerId = ProducerIds.of(broker).issue(broker);
            return Optional.of(new InitProducerId.Response(ErrorCode.NONE, producerId, EPOCH).encode());
        } catch (CorruptProducerIdException | CorruptBatchException | CorruptRecordException | StorageException e) {
            // A bad record, a batch whose CRC fails, files that cannot be read: the last id is unknown, so
            // none is handed out. An answer, not a closed connection, which every idempotent producer
            // would meet again on every reconnect.
            broker.trouble(PARTITION, "INIT_PRODUCER_ID answered CORRUPT_PRODUCER_ID_RECORD: " + PARTITION + " cannot"
                    + " be read: " + LogText.clean(e.getMessage()));
            return Optional.of(new InitProducerId.Response(ErrorCode.CORRUPT_PRODUCER_ID_RECORD, -1, (short) -1)
                    .encode());
        }
    }

    /**
     * True when this broker has handed {@code producerId} out. A produce carrying any other id is
     * refused (UNKNOWN_PRODUCER_ID): ids are sequential, so a client could otherwise write as the
     * next producer before it exists, and that producer's first batch would be out of order.
     */
    public static boolean wasIssued(BrokerContext broker, long producerId) throws IOException {
        return ProducerIds.of(broker).wasIssued(broker, producerId);
    }

    /** Chapter 7's ids: this broker's own log {@value #PARTITION}. */
    static final ProducerIds LOCAL = new ProducerIds() {
        @Override
        public long issue(BrokerContext broker) throws IOException {
            return broker.partition(PARTITION).locked(InitProducerIdHandler::issue);
        }

        @Override
        public boolean wasIssued(BrokerContext broker, long producerId) throws IOException {
            return producerId >= 0
                    && producerId <= broker.partition(PARTITION).locked(InitProducerIdHandler::lastIssued);
        }
    };

    /** The next id, written to the log before it is returned. Runs under the partition's lock. */
    private static long issue(Log log) throws IOException {
        long last = lastIssued(log);
        if (last >= MAX_ID) {
            throw new CorruptProducerIdException(log.logEndOffset() - 1, "every producer id has been handed out");
        }
        long next = last + 1;
        ByteBuffer record = new BatchBuilder().append(0L, null, Long.toString(next)).build();
        log.append(record);
        LAST_ISSUED.put(log, next);
        return next;
    }

    /** The last id handed out, -1 when none. Runs under the partition's lock. */
    private static long lastIssued(Log log) throws IOException {
        Long known = LAST_ISSUED.get(log);
        if (known != null) {
            return known;
        }
        long last = lastWritten(log);
        LAST_ISSUED.put(log, last);
        return last;
    }

    /**
     * The id in the newest record of the log, or -1 when none was ever issued. Reads the active
     * segment (and the one before when the active one has just rolled and is empty), checking every
     * record: a decimal id in 0..2^63-2, above the one before it.
     */
    static long lastWritten(Log log) throws IOException {
        List<Segment> segments = log.segments();
        long last = lastIn(segments.get(segments.size() - 1), -1);
        if (last < 0 && segments.size() > 1) {
            last = lastIn(segments.get(segments.size() - 2), -1);
        }
        return last;
    }

    private static long lastIn(Segment segment, long before) throws IOException {
        long last = before;
        for (RecordBatch batch : segment.batches()) {
            for (Record record : batch.records()) {
                last = checkedId(record, last);
            }
        }
        return last;
    }

    /** The id a record holds, if it may follow {@code previous}; else a CorruptProducerIdException naming its offset. */
    static long checkedId(Record record, long previous) throws CorruptProducerIdException {
        byte[] value = record.value();
        if (value == null || value.length == 0 || value.length > 19) {
            throw new CorruptProducerIdException(record.offset(), "not a producer id (" + describe(value) + ")");
        }
        long id = 0;
        for (byte b : value) {
            if (b < '0' || b > '9') {
                throw new CorruptProducerIdException(record.offset(), "not a producer id (" + describe(value) + ")");
            }
            if (id > (MAX_ID - (b - '0')) / 10) {
                throw new CorruptProducerIdException(record.offset(), describe(value) + " is over the largest id, "
                        + MAX_ID);
            }
            id = id * 10 + (b - '0');
        }
        if (id <= previous) {
            throw new CorruptProducerIdException(record.offset(), "id " + id + " is not above the id before it, "
                    + previous + ": it may already belong to a producer");
        }
        return id;
    }

    private static String describe(byte[] value) {
        if (value == null) {
            return "null";
        }
        String shown = Record.show(value);
        return "'" + (shown.length() > 40 ? shown.substring(0, 40) + "..." : shown) + "'";
    }
}
