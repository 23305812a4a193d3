package kaenlog.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;

/**
 * What a partition holds, read two independent ways: the segment files on disk, every batch
 * decoded (CRC and all) with chapter 1's {@link RecordBatch#decode}; and a consumer's fetches over
 * TCP. A crash test compares both with what the producers were told.
 */
public final class LogContents {
    private static final int FETCH_MAX_BYTES = 512 * 1024;
    private static final int MAX_FETCHES = 1_000_000;

    /** One record as found: its offset and its value as text. */
    public record Entry(long offset, String value) {
    }

    /** The segment files decoded: every batch, in file order, and how many batches there were. */
    public record OnDisk(List<Entry> entries, List<RecordBatch> batches, int segments) {
    }

    private LogContents() {
    }

    /**
     * Decodes every batch of every {@code .log} segment file in {@code partitionDir}, oldest
     * segment first. Throws {@link CorruptBatchException} at the first batch that does not decode.
     */
    public static OnDisk readSegments(Path partitionDir) throws IOException {
        List<Path> files = segmentFiles(partitionDir);
        List<RecordBatch> batches = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        for (Path file : files) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            while (bytes.hasRemaining()) {
                int at = bytes.position();
                RecordBatch batch;
                try {
                    batch = RecordBatch.decode(bytes);
                } catch (CorruptBatchException e) {
                    throw new CorruptBatchException(e.field(), e.position(), file.getFileName() + " byte " + at
                            + ": " + e.getMessage());
                }
                batches.add(batch);
                for (Record r : batch.records()) {
                    entries.add(new Entry(r.offset(), Record.show(r.value())));
                }
            }
        }
        return new OnDisk(entries, batches, files.size());
    }

    /** The segment files of a partition directory, oldest first (their names sort by base offset). */
    static List<Path> segmentFiles(Path partitionDir) throws IOException {
        if (!Files.isDirectory(partitionDir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(partitionDir)) {
            return list.filter(p -> Segment.parseBaseOffset(p.getFileName().toString(), Segment.LOG_SUFFIX).isPresent())
                    .sorted().toList();
        }
    }

    /**
     * Bytes at the end of the newest segment file that are not a whole valid batch: a torn tail.
     * Read before the broker restarts (recovery cuts them off).
     */
    static long tornTailBytes(Path partitionDir) throws IOException {
        List<Path> files = segmentFiles(partitionDir);
        if (files.isEmpty()) {
            return 0;
        }
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(files.get(files.size() - 1)));
        while (bytes.hasRemaining()) {
            int at = bytes.position();
            try {
                RecordBatch.decode(bytes);
            } catch (CorruptBatchException torn) {
                return bytes.limit() - at;
            }
        }
        return 0;
    }

    /** Consumes the whole partition from offset 0 up to the high watermark, as a consumer (replicaId -1). */
    public static List<Entry> consume(BrokerClient client, String partition) throws IOException {
        List<Entry> entries = new ArrayList<>();
        long offset = 0;
        for (int fetches = 0; fetches < MAX_FETCHES; fetches++) {
            FetchResponse response = client.fetch(FetchRequest.consumer(partition, offset, FETCH_MAX_BYTES, 0));
            if (response.error() != ErrorCode.NONE) {
                throw new IOException("fetch " + partition + " at " + offset + ": " + response.error());
            }
            List<RecordBatch> batches = RecordBatch.decodeAll(response.records());
            if (batches.isEmpty()) {
                return entries;
            }
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    if (r.offset() >= offset) {
                        entries.add(new Entry(r.offset(), Record.show(r.value())));
                    }
                }
                offset = batch.nextOffset();
            }
        }
        throw new IOException("consuming " + partition + " took more than " + MAX_FETCHES + " fetches");
    }

    /** Offsets that do not follow on from the previous batch (a log nobody compacted has none). */
    public static long offsetGaps(List<RecordBatch> batches) {
        long gaps = 0;
        long expected = batches.isEmpty() ? 0 : batches.get(0).baseOffset();
        for (RecordBatch batch : batches) {
            if (batch.baseOffset() != expected) {
                gaps++;
            }
            expected = batch.nextOffset();
        }
        return gaps;
    }
}
