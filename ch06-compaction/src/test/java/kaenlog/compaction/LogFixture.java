package kaenlog.compaction;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.demo.compaction.CompactionDemo;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;

/** Small logs for the chapter's tests: keyed string records, idempotent batches, what is left on disk. */
final class LogFixture {
    static final long T0 = 1_700_000_000_000L;
    static final long HOUR = 3_600_000L;

    private LogFixture() {
    }

    static Log open(Path dir) throws IOException {
        return Log.open(dir, LogConfig.defaults());
    }

    /**
     * Appends one plain batch (producer id -1) of key/value pairs at {@code timestamp}; a null
     * value is a tombstone.
     */
    static AppendInfo put(Log log, long timestamp, String... keysAndValues) throws IOException {
        return log.append(batch(new BatchBuilder(), timestamp, keysAndValues).build());
    }

    /** Appends one batch written by idempotent producer {@code producerId}. */
    static AppendInfo putIdempotent(Log log, long producerId, short epoch, int baseSequence, long timestamp,
                                    String... keysAndValues) throws IOException {
        return log.append(batch(new BatchBuilder().producer(producerId, epoch, baseSequence), timestamp,
                keysAndValues).build());
    }

    static BatchBuilder batch(BatchBuilder builder, long timestamp, String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values come in pairs");
        }
        for (int i = 0; i < keysAndValues.length; i += 2) {
            builder.append(timestamp, keysAndValues[i], keysAndValues[i + 1]);
        }
        return builder;
    }

    /** A decoded batch at base offset {@code baseOffset}, not in any log. */
    static RecordBatch decoded(long baseOffset, long timestamp, String... keysAndValues) {
        return RecordBatch.decode(batch(new BatchBuilder(), timestamp, keysAndValues).build(baseOffset));
    }

    /** Every record left in the log, by offset. */
    static SortedMap<Long, Record> records(Log log) throws IOException {
        return CompactionDemo.records(log);
    }

    /** Every batch header left in the log, oldest first. */
    static List<BatchHeader> headers(Log log) throws IOException {
        List<BatchHeader> headers = new ArrayList<>();
        for (Segment segment : log.segments()) {
            headers.addAll(segment.headers());
        }
        return headers;
    }

    /** "offset:key=value" for every record left, the easiest thing to read in a failure message. */
    static List<String> show(Log log) throws IOException {
        return records(log).values().stream().map(LogFixture::show).toList();
    }

    static String show(Record r) {
        return r.offset() + ":" + Record.show(r.key()) + "=" + Record.show(r.value());
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(List<ByteBuffer> batches) {
        ByteBuffer all = ByteBuffer.allocate(batches.stream().mapToInt(ByteBuffer::remaining).sum());
        batches.forEach(b -> all.put(b.duplicate()));
        return all.array();
    }

    /** The file names in {@code dir}, sorted, but for chapter 3's checkpoints and clean-shutdown marker. */
    static List<String> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString())
                    .filter(name -> !List.of(Log.RECOVERY_POINT_FILE, Log.LOG_START_OFFSET_FILE, Log.SEGMENT_BASES_FILE,
                            Log.CLEAN_SHUTDOWN_FILE).contains(name))
                    .sorted().toList();
        }
    }
}
