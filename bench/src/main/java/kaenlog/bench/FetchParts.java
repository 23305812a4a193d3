package kaenlog.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;
import kaenlog.log.FetchIsolation;
import kaenlog.log.FileSlice;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;

/**
 * What one random fetch of {@link LogBench} costs, part by part: the same 64 MiB log and the same
 * seeded offsets, each part run over every offset in turn, round after round, timed in wall clock
 * and in the thread's CPU time. CPU time is what a loaded machine disturbs least (a thread waiting
 * for a core is not charged), so on 2 shared cores it is the figure to compare; the wall clock is
 * printed beside it. Parts: the raw read of the batch at its known position (LogBench's
 * reference), a raw read of one index interval and a header (what {@code positionOf} reads), the
 * learner's {@code Segment.positionOf}, {@code Log.read}, {@code FileSlice.read} (positions only)
 * and the broker's whole send ({@code FileSlice.read}, then {@code writeTo} /dev/null).
 *
 * <p>{@code java -cp bench/target/benchmarks.jar kaenlog.bench.FetchParts [shape, e.g. 1x100] [rounds]}
 */
public final class FetchParts {
    private static final String[] PARTS = {"raw read of the batch", "raw read of 4 KiB + header", "positionOf",
        "Log.read", "FileSlice.read", "FileSlice.read + writeTo"};

    private final Log log;
    private final Segment segment;
    private final FileChannel raw;
    private final FileChannel sink;
    private final long[] offsets;
    private final int recordsPerBatch;
    private final int batchBytes;
    private final int spanBytes;
    private long checksum;

    private FetchParts(Path dir, String shape) throws IOException {
        Inputs inputs = Inputs.of(shape);
        recordsPerBatch = inputs.size();
        ByteBuffer batch = inputs.kaenLogBatch();
        batchBytes = batch.remaining();
        int appends = Math.max(1, (64 << 20) / batchBytes);
        LogConfig config = LogConfig.defaults();
        spanBytes = config.indexIntervalBytes() + kaenlog.batch.BatchHeader.SIZE;
        log = Log.open(dir.resolve("read"), config);
        for (int i = 0; i < appends; i++) {
            log.append(batch.duplicate());
        }
        segment = log.segments().get(0);
        raw = FileChannel.open(segment.logFile(), StandardOpenOption.READ);
        sink = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
        Random random = new Random(7);
        offsets = new long[appends];
        for (int i = 0; i < appends; i++) {
            offsets[i] = (long) random.nextInt(appends) * recordsPerBatch;
        }
    }

    public static void main(String[] args) throws IOException {
        String shape = args.length > 0 ? args[0] : "1x100";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int warmup = Math.min(3, rounds - 1);
        Path dir = Files.createTempDirectory("kaen-fetch-parts");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try {
            FetchParts bench = new FetchParts(dir, shape);
            double[][] wall = new double[PARTS.length][rounds];
            double[][] cpu = new double[PARTS.length][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int part = 0; part < PARTS.length; part++) {
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    long wall0 = System.nanoTime();
                    bench.runPart(part);
                    wall[part][round] = (System.nanoTime() - wall0) / 1e3 / bench.offsets.length;
                    cpu[part][round] = (threads.getCurrentThreadCpuTime() - cpu0) / 1e3 / bench.offsets.length;
                }
            }
            System.out.printf("%s: %,d fetches of one %d-byte batch a round, %d rounds (the first %d not counted);"
                    + " load %s%n", shape, bench.offsets.length, bench.batchBytes, rounds, warmup, loadAverage());
            System.out.printf("%-26s %15s %15s %10s%n", "part", "CPU us/fetch", "wall us/fetch", "CPU ratio");
            double rawCpu = median(cpu[0], warmup);
            for (int part = 0; part < PARTS.length; part++) {
                System.out.printf("%-26s %15s %15s %9.2fx%n", PARTS[part], figure(cpu[part], warmup),
                        figure(wall[part], warmup), rawCpu / median(cpu[part], warmup));
            }
            System.out.printf("(median [min-max] of the counted rounds; ratio: the raw read's CPU time over the"
                    + " part's; checksum %d)%n", bench.checksum);
            bench.close();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private void runPart(int part) throws IOException {
        for (long offset : offsets) {
            checksum += switch (part) {
                case 0 -> rawRead(offset / recordsPerBatch * batchBytes, batchBytes);
                case 1 -> rawRead(offset / recordsPerBatch * batchBytes / spanBytes * spanBytes, spanBytes);
                case 2 -> segment.positionOf(offset);
                case 3 -> log.read(offset, batchBytes, FetchIsolation.LOG_END).remaining();
                case 4 -> slice(offset, false);
                default -> slice(offset, true);
            };
        }
    }

    private int rawRead(long position, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(length, raw.size() - position));
        while (bytes.hasRemaining()) {
            if (raw.read(bytes, position + bytes.position()) < 0) {
                throw new IllegalStateException("read past the end of the segment");
            }
        }
        return bytes.position();
    }

    private int slice(long offset, boolean send) throws IOException {
        try (FileSlice slice = FileSlice.read(log, offset, batchBytes, FetchIsolation.LOG_END, true)) {
            if (send) {
                slice.writeTo(sink, () -> { });
            }
            return slice.sizeInBytes();
        }
    }

    private void close() throws IOException {
        log.close();
        raw.close();
        sink.close();
    }

    private static double median(double[] values, int skip) {
        double[] counted = Arrays.copyOfRange(values, skip, values.length);
        Arrays.sort(counted);
        int n = counted.length;
        return n % 2 == 1 ? counted[n / 2] : (counted[n / 2 - 1] + counted[n / 2]) / 2;
    }

    private static String figure(double[] values, int skip) {
        double[] counted = Arrays.copyOfRange(values, skip, values.length);
        Arrays.sort(counted);
        return String.format("%.2f [%.2f-%.2f]", median(values, skip), counted[0], counted[counted.length - 1]);
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
