package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * A log with chapter 7's producer state and chapter 11's transactions around it, as the broker
 * opens a client's partition, and the batches a transactional producer and its coordinator write:
 * data batches built by kafka-clients ({@code MemoryRecords.withTransactionalRecords}), markers by
 * chapter 11's {@code EndTransactionMarker}.
 */
public final class TransactionalLogs {
    public static final long T0 = 1_700_000_000_000L;
    public static final short EPOCH = 0;
    private final Map<Long, Integer> sequences = new HashMap<>();

    /** Opens (or reopens) the log in {@code dir} with the hooks, segments of {@code segmentBytes}. */
    public static Log open(Path dir, int segmentBytes) throws IOException {
        Log log = Log.open(dir, LogConfig.defaults().withSegmentBytes(segmentBytes));
        log.setAppendHook(new TransactionalAppendHook(new IdempotentAppendHook()));
        return log;
    }

    /** A transactional batch of {@code count} records of {@code producerId}, its sequences following the last. */
    public AppendInfo data(Log log, long producerId, int count) throws IOException {
        return log.append(batch(producerId, count, true));
    }

    /** An idempotent batch outside any transaction. */
    public AppendInfo plain(Log log, long producerId, int count) throws IOException {
        return log.append(batch(producerId, count, false));
    }

    private ByteBuffer batch(long producerId, int count, boolean transactional) {
        int sequence = sequences.merge(producerId, count, Integer::sum) - count;
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(T0, ("p" + producerId + "-" + (sequence + i)).getBytes());
        }
        return (transactional
                ? MemoryRecords.withTransactionalRecords(0L, Compression.NONE, producerId, EPOCH, sequence, 0, records)
                : MemoryRecords.withIdempotentRecords(0L, Compression.NONE, producerId, EPOCH, sequence, 0, records))
                .buffer();
    }

    /** The coordinator's COMMIT or ABORT marker for {@code producerId}. */
    public static AppendInfo marker(Log log, long producerId, boolean abort) throws IOException {
        return log.append(new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 0)
                .controlBatch(producerId, EPOCH, T0));
    }
}
