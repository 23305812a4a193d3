package kaenlog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.log.FetchIsolation;
import kaenlog.log.FileSlice;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The log against the disk it sits on, on the same batches as {@link BatchBench}. Each measured
 * shot appends a fixed number of batches to a fresh log (no fsync: the log's segment is large
 * enough never to roll inside a shot, because a roll flushes the closed segment to disk) versus
 * writing the same bytes with a raw FileChannel; and fetches that many batches by offset through
 * the sparse index versus reading the same byte ranges at known positions.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 15)
@Fork(1)
public class LogBench {
    @Param({"100x1024", "1x100"})
    public String shape;

    private Path dir;
    private ByteBuffer batch;
    private int appends;
    private Log log;
    private FileChannel raw;
    private Log readLog;
    private FileChannel readRaw;
    private long[] fetchOffsets;
    /** Where the send benchmarks write: /dev/null, so that what is measured is the broker's side of a send. */
    private FileChannel sink;
    private int recordsPerBatch;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        Inputs inputs = Inputs.of(shape);
        recordsPerBatch = inputs.size();
        batch = inputs.kaenLogBatch();
        appends = Math.max(1, (64 << 20) / batch.remaining()); // 64 MiB a shot: 1 GiB segments never roll
        dir = Files.createTempDirectory("kaen-bench");
        LogConfig config = LogConfig.defaults();
        log = Log.open(dir.resolve("append"), config);
        raw = FileChannel.open(dir.resolve("raw.log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        readLog = Log.open(dir.resolve("read"), config);
        for (int i = 0; i < appends; i++) {
            readLog.append(batch.duplicate());
        }
        readRaw = FileChannel.open(readLog.segments().get(0).logFile(), StandardOpenOption.READ);
        sink = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
        Random random = new Random(7);
        fetchOffsets = new long[appends];
        for (int i = 0; i < appends; i++) {
            fetchOffsets[i] = (long) random.nextInt(appends) * recordsPerBatch;
        }
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        log.close();
        raw.close();
        readLog.close();
        readRaw.close();
        sink.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public long appendLog() throws IOException {
        long last = 0;
        for (int i = 0; i < appends; i++) {
            last = log.append(batch.duplicate()).lastOffset();
        }
        return last;
    }

    @Benchmark
    public long appendRaw() throws IOException {
        long position = 0;
        for (int i = 0; i < appends; i++) {
            ByteBuffer bytes = batch.duplicate();
            while (bytes.hasRemaining()) {
                position += raw.write(bytes, position);
            }
        }
        return position;
    }

    @Benchmark
    public long fetchLog() throws IOException {
        long bytes = 0;
        for (long offset : fetchOffsets) {
            bytes += readLog.read(offset, batch.remaining(), FetchIsolation.LOG_END).remaining();
        }
        return bytes;
    }

    @Benchmark
    public long fetchRaw() throws IOException {
        long total = 0;
        int size = batch.remaining();
        for (long offset : fetchOffsets) {
            long position = offset / recordsPerBatch * size;
            ByteBuffer bytes = ByteBuffer.allocate(size);
            while (bytes.hasRemaining()) {
                if (readRaw.read(bytes, position + bytes.position()) < 0) {
                    throw new IllegalStateException("read past the end of the segment");
                }
            }
            total += bytes.flip().remaining();
        }
        return total;
    }

    /**
     * The broker's fetch path since #25 (FileSlice: the same batches as {@link #fetchLog}, each CRC
     * checked through a direct buffer, then transferTo), to /dev/null.
     */
    @Benchmark
    public long fetchSend() throws IOException {
        long bytes = 0;
        for (long offset : fetchOffsets) {
            try (FileSlice slice = FileSlice.read(readLog, offset, batch.remaining(), FetchIsolation.LOG_END, true)) {
                slice.writeTo(sink, () -> { });
                bytes += slice.sizeInBytes();
            }
        }
        return bytes;
    }

    /** transferTo of the same byte ranges at known positions, to /dev/null: no index, no check. */
    @Benchmark
    public long fetchRawSend() throws IOException {
        long total = 0;
        int size = batch.remaining();
        for (long offset : fetchOffsets) {
            long position = offset / recordsPerBatch * size;
            for (long sent = 0; sent < size; ) {
                sent += readRaw.transferTo(position + sent, size - sent, sink);
            }
            total += size;
        }
        return total;
    }
}
