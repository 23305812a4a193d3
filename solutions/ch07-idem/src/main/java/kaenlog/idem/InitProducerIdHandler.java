package kaenlog.idem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.log.Log;
import kaenlog.produce.ErrorCode;

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
 */
public final class InitProducerIdHandler implements RequestHandler {
    public static final String PARTITION = "__producer_ids-0";
    public static final short EPOCH = 0;

    /** The last id handed out per open log of {@value #PARTITION} (a new broker opens a new Log). */
    private final Map<Log, Long> lastIssued = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public short apiKey() {
        return InitProducerId.API_KEY;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        InitProducerId.decodeRequest(body);
        long producerId = broker.partition(PARTITION).locked(this::issue);
        return Optional.of(new InitProducerId.Response(ErrorCode.NONE, producerId, EPOCH).encode());
    }

    /** The next id, written to the log before it is returned. Runs under the partition's lock. */
    private long issue(Log log) throws IOException {
        long last = lastIssued.containsKey(log) ? lastIssued.get(log) : lastWritten(log);
        long next = last + 1;
        ByteBuffer record = new BatchBuilder().append(0L, null, Long.toString(next)).build();
        log.append(record);
        lastIssued.put(log, next);
        return next;
    }

    /** The id in the newest record of the log, or -1 when none was ever issued. */
    static long lastWritten(Log log) throws IOException {
        long last = -1;
        for (RecordBatch batch : log.activeSegment().batches()) {
            for (Record record : batch.records()) {
                last = Long.parseLong(Record.show(record.value()));
            }
        }
        if (last < 0 && log.segments().size() > 1) {
            // The active segment just rolled and is empty: the newest record is in the one before.
            for (RecordBatch batch : log.segments().get(log.segments().size() - 2).batches()) {
                for (Record record : batch.records()) {
                    last = Long.parseLong(Record.show(record.value()));
                }
            }
        }
        return last;
    }
}
