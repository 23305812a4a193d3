package kaenlog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The log against the disk it sits on: appending a 100 x 1 KiB batch (no fsync) versus writing the
 * same bytes with a raw FileChannel, and fetching one batch by offset through the sparse index
 * versus reading the same byte range at a known position.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LogBench {
    /** 500 batches of ~105 KB: about 52 MB, all in the first 64 MiB segment. */
    static final int BATCHES = 500;

    private Path dir;
    private ByteBuffer batch;
    private Log log;
    private FileChannel raw;
    private long rawPosition;
    private Log readLog;
    private FileChannel readRaw;
    private int batchSize;
    private int next;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("kaen-bench");
        Inputs inputs = new Inputs(100, 1024);
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < inputs.size(); i++) {
            builder.append(inputs.timestamps[i], inputs.keys[i], inputs.values[i]);
        }
        batch = builder.build();
        batchSize = batch.remaining();
        LogConfig config = LogConfig.defaults().withSegmentBytes(64 << 20);
        log = Log.open(dir.resolve("append"), config);
        raw = FileChannel.open(dir.resolve("raw.log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        rawPosition = 0;
        readLog = Log.open(dir.resolve("read"), config);
        for (int i = 0; i < BATCHES; i++) {
            readLog.append(batch.duplicate());
        }
        if (readLog.segments().size() != 1) {
            throw new IllegalStateException("the fetch comparison needs every batch in one segment");
        }
        readRaw = FileChannel.open(readLog.segments().get(0).logFile(), StandardOpenOption.READ);
        next = 0;
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        log.close();
        raw.close();
        readLog.close();
        readRaw.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public long appendLog() throws IOException {
        return log.append(batch.duplicate()).lastOffset();
    }

    @Benchmark
    public long appendRaw() throws IOException {
        ByteBuffer bytes = batch.duplicate();
        while (bytes.hasRemaining()) {
            rawPosition += raw.write(bytes, rawPosition);
        }
        return rawPosition;
    }

    @Benchmark
    public ByteBuffer fetchLog() throws IOException {
        long offset = (long) (next++ % BATCHES) * 100 + 50;
        return readLog.read(offset, batchSize, FetchIsolation.LOG_END);
    }

    @Benchmark
    public ByteBuffer fetchRaw() throws IOException {
        long position = (long) (next++ % BATCHES) * batchSize;
        ByteBuffer bytes = ByteBuffer.allocate(batchSize);
        while (bytes.hasRemaining()) {
            if (readRaw.read(bytes, position + bytes.position()) < 0) {
                throw new IllegalStateException("read past the end of the segment");
            }
        }
        return bytes.flip();
    }
}
