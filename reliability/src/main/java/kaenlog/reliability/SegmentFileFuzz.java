package kaenlog.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.log.LostDataException;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.log.CorruptRecordException;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetOutOfRangeException;

/**
 * Item 4 on disk: the decoders a broker runs on its own files after a crash, fed damaged files.
 * A small log (closed segments and an active one, sparse indexes) is written once; each input
 * damages one of its files with a seeded mutation (the active segment's log, a closed segment's
 * log, a closed segment's index) or moves one batch's baseOffset (outside the CRC, so only the
 * offset checks can catch it), then the log is opened ({@code Log.open}: recovery) and read from
 * its start to its end. Allowed: a {@link CorruptBatchException} (a closed segment is trusted
 * only as far as its batch headers), a {@link CorruptRecordException} (damage inside a batch
 * surfaces when it is read, with the batch's offsets), an {@link OffsetOutOfRangeException}, and a
 * {@link LostDataException} (a file cut below the recovery point holds fewer offsets than were
 * flushed: the log names them and refuses to open). Anything else, or a hang, is a finding.
 */
public final class SegmentFileFuzz {
    static final LogConfig CONFIG = new LogConfig(700, 100);
    private static final long HANG_MS = 10_000;

    public record Config(long seed, int inputs) {
        public static Config full() {
            return new Config(6, 5_000);
        }
    }

    /** What the damaged logs did, by which file was damaged. */
    public record Result(Config config, long inputs, Map<String, Long> opened, Map<String, Long> typedErrors,
                         Map<String, Long> untyped, boolean hung, List<String> findings) implements Figures {
        public Result {
            opened = Map.copyOf(opened);
            typedErrors = Map.copyOf(typedErrors);
            untyped = Map.copyOf(untyped);
            findings = List.copyOf(findings);
        }

        public long untypedTotal() {
            return untyped.values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public Row row() {
            return new Row("4 damaged segment files (Log.open)", inputs, -1, inputs, -1, -1, -1);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (String victim : new TreeMap<>(opened).keySet()) {
                lines.add(String.format("%-38s opened and read %5d, typed errors %5d, untyped %d", victim,
                        opened.getOrDefault(victim, 0L), typedErrors.getOrDefault(victim, 0L),
                        untyped.getOrDefault(victim, 0L)));
            }
            lines.add("hangs " + (hung ? "YES" : "0") + "; untyped errors " + untypedTotal());
            findings.forEach(f -> lines.add("  " + f));
            return lines;
        }

        @Override
        public boolean ok() {
            return untypedTotal() == 0 && !hung;
        }
    }

    private SegmentFileFuzz() {
    }

    public static Result run(Path root, Config config) throws IOException {
        Path template = Files.createDirectories(root.resolve("template"));
        writeTemplate(template, config.seed());
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(template)) {
            for (Path f : list.toList()) {
                files.put(f.getFileName().toString(), Files.readAllBytes(f));
            }
        }
        List<String> logs = files.keySet().stream().filter(n -> n.endsWith(".log")).sorted().toList();
        String active = logs.get(logs.size() - 1);
        Map<String, Long> opened = new TreeMap<>();
        Map<String, Long> typed = new TreeMap<>();
        Map<String, Long> untyped = new TreeMap<>();
        List<String> findings = new ArrayList<>();
        AtomicLong done = new AtomicLong();
        Path work = root.resolve("work");
        Thread worker = new Thread(() -> {
            for (long i = 0; i < config.inputs(); i++) {
                Random r = new Random(config.seed() * 1_000_003L + i);
                String victim = switch (r.nextInt(10)) {
                    case 0, 1, 2, 3 -> active;
                    case 4, 5, 6 -> logs.get(r.nextInt(logs.size() - 1));
                    default -> logs.get(r.nextInt(logs.size() - 1)).replace(".log", ".index");
                };
                String kind = victim.equals(active) ? "active segment .log" : victim.endsWith(".log")
                        ? "closed segment .log" : "closed segment .index";
                boolean move = victim.endsWith(".log") && r.nextInt(4) == 0;
                byte[] damaged = move ? moveABaseOffset(files.get(victim), r)
                        : Mutator.mutate(files.get(victim), r, List.of(files.get(victim)), Mutator.Shape.MESSAGE);
                if (move) {
                    kind += ", baseOffset moved";
                }
                String outcome = openAndRead(work, files, victim, damaged);
                switch (outcome) {
                    case "ok" -> opened.merge(kind, 1L, Long::sum);
                    case "typed" -> typed.merge(kind, 1L, Long::sum);
                    default -> {
                        untyped.merge(kind, 1L, Long::sum);
                        // the first input of each kind of failure (its exception class), to reproduce it
                        String shape = kind + ": " + outcome.replaceFirst(":.*", "");
                        if (findings.size() < 8 && findings.stream().noneMatch(f -> f.startsWith(shape))) {
                            findings.add(shape + " (input #" + i + ", " + victim + ": " + outcome + ")");
                        }
                    }
                }
                done.incrementAndGet();
            }
        }, "segment-file-fuzz");
        worker.setDaemon(true);
        worker.start();
        boolean hung = !watch(worker, done);
        if (hung) {
            findings.add("input #" + done.get() + " did not return in " + HANG_MS / 1000 + " s");
        }
        return new Result(config, done.get(), opened, typed, untyped, hung, findings);
    }

    /** Joins the worker; false when it made no progress for HANG_MS. */
    private static boolean watch(Thread worker, AtomicLong done) {
        long seen = -1;
        Deadline stall = Deadline.in(HANG_MS);
        while (worker.isAlive()) {
            try {
                worker.join(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
            if (done.get() != seen) {
                seen = done.get();
                stall = Deadline.in(HANG_MS);
            } else if (stall.passed()) {
                return false;
            }
        }
        return true;
    }

    /** "ok", "typed", or the untyped throwable. */
    private static String openAndRead(Path work, Map<String, byte[]> files, String victim, byte[] damaged) {
        try {
            reset(work, files, victim, damaged);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Log log = Log.open(work, CONFIG)) {
            long offset = log.logStartOffset();
            for (int reads = 0; reads < 10_000 && offset < log.logEndOffset(); reads++) {
                List<RecordBatch> batches = RecordBatch.decodeAll(log.read(offset, 64 * 1024, FetchIsolation.LOG_END));
                if (batches.isEmpty()) {
                    break;
                }
                long next = batches.get(batches.size() - 1).nextOffset();
                if (next <= offset) {
                    return "read made no progress at offset " + offset;
                }
                offset = next;
            }
            return "ok";
        } catch (CorruptBatchException | CorruptRecordException | OffsetOutOfRangeException | LostDataException typed) {
            return "typed";
        } catch (Throwable t) {
            return t.toString();
        }
    }

    private static void reset(Path work, Map<String, byte[]> files, String victim, byte[] damaged) throws IOException {
        if (Files.isDirectory(work)) {
            try (Stream<Path> list = Files.list(work)) {
                for (Path f : list.toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(work);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Files.write(work.resolve(f.getKey()), f.getKey().equals(victim) ? damaged : f.getValue());
        }
    }

    /** One batch's baseOffset (not covered by the CRC) set to another value. */
    private static byte[] moveABaseOffset(byte[] segment, Random r) {
        byte[] out = segment.clone();
        List<Integer> starts = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(out);
        for (int at = 0; at + BatchHeader.LOG_OVERHEAD <= out.length; ) {
            starts.add(at);
            at += BatchHeader.LOG_OVERHEAD + b.getInt(at + BatchHeader.BATCH_LENGTH_OFFSET);
        }
        if (starts.isEmpty()) {
            return out;
        }
        int at = starts.get(r.nextInt(starts.size()));
        long[] values = {0, -1, b.getLong(at) + 1, b.getLong(at) - 1, b.getLong(at) + (1L << 31), Long.MAX_VALUE - 5,
                1L << 40};
        b.putLong(at, values[r.nextInt(values.length)]);
        return out;
    }

    private static void writeTemplate(Path dir, long seed) throws IOException {
        Random r = new Random(seed);
        try (Log log = Log.open(dir, CONFIG)) {
            for (int b = 0; b < 40; b++) {
                BatchBuilder builder = new BatchBuilder();
                if (b % 3 == 0) {
                    builder.producer(7, (short) 0, b * 10);
                }
                for (int k = 0; k < 1 + r.nextInt(4); k++) {
                    builder.append(1_700_000_000_000L + b, "k" + r.nextInt(5), "value-" + b + "-" + k);
                }
                log.append(builder.build());
            }
        }
    }
}
