package kaenlog.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.Cleaner;
import kaenlog.compaction.SegmentSwap;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;

/**
 * Item 1, a crash during compaction's swap. A log of keyed records (some tombstones) over several
 * segments is compacted by a child JVM ({@link CompactionCrashChild}); at a chosen
 * {@link SegmentSwap.Step} of the swap of the first or second segment the child stops and is
 * SIGKILLed. Then the log is opened again ({@code Log.open}: what a restarting broker does) and:
 * <ul>
 * <li>every segment decodes, and no {@code .cleaned} or {@code .swap} file is left;</li>
 * <li>each segment is whole: the segments swapped before the crash are their cleaned version, the
 *     crashed one is the old version before the commit point (the rename to {@code .swap}) and the
 *     new one from it on, the later ones untouched; never a mix;</li>
 * <li>no record moved: each one is the record written at that offset; every key's latest record
 *     is there;</li>
 * <li>compaction finished on the reopened log gives the same log as compaction without a crash,
 *     and the log accepts writes.</li>
 * </ul>
 */
public final class CompactionCrash {
    static final LogConfig CONFIG = new LogConfig(700, 0);
    static final long T0 = 1_700_000_000_000L;
    static final long NOW_MS = T0 + 10_000;
    static final long DELETE_RETENTION_MS = 86_400_000L;
    static final int KEYS = 12;
    static final int BATCHES = 150;

    /** One kill and what the reopened log showed. */
    public record Outcome(SegmentSwap.Step step, int ordinal, boolean reachedCrashPoint, List<String> leftovers,
                          String crashedSegmentIs, long segmentsWrongOrMixed, long recordsChecked, long movedRecords,
                          long lostKeys, boolean finishesLikeNoCrash, boolean acceptsWrites, List<String> problems) {
        public Outcome {
            leftovers = List.copyOf(leftovers);
            problems = List.copyOf(problems);
        }

        boolean ok() {
            return reachedCrashPoint && segmentsWrongOrMixed == 0 && movedRecords == 0 && lostKeys == 0
                    && finishesLikeNoCrash && acceptsWrites && problems.isEmpty();
        }
    }

    /** The figures of every crash. */
    public record Result(List<Outcome> outcomes, int segmentsBefore, int recordsBefore) implements Figures {
        public Result {
            outcomes = List.copyOf(outcomes);
        }

        @Override
        public Row row() {
            return new Row("1 SIGKILL inside compaction's swap", outcomes.size(),
                    outcomes.stream().mapToLong(Outcome::recordsChecked).sum(), outcomes.size(),
                    outcomes.stream().mapToLong(o -> o.movedRecords() + o.lostKeys()).sum(), 0,
                    outcomes.stream().filter(Outcome::ok).count());
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            lines.add("a log of " + recordsBefore + " keyed records in " + segmentsBefore + " segments, compacted in a"
                    + " child JVM killed at each step of the 1st and 2nd segment's swap, then Log.open");
            for (Outcome o : outcomes) {
                lines.add(String.format("%-22s swap %d: its files at the kill %s -> %s segment kept whole; moved %d,"
                                + " keys lost %d, finishes like no crash: %s%s", o.step(), o.ordinal(), o.leftovers(),
                        o.crashedSegmentIs(), o.movedRecords(), o.lostKeys(), o.finishesLikeNoCrash() ? "yes" : "NO",
                        o.problems().isEmpty() ? "" : " " + o.problems()));
            }
            return lines;
        }

        @Override
        public boolean ok() {
            return !outcomes.isEmpty() && outcomes.stream().allMatch(Outcome::ok);
        }
    }

    private CompactionCrash() {
    }

    public static Result run(Path root, String classpath, long seed, int[] ordinals) throws IOException {
        Path prepared = root.resolve("prepared");
        prepare(prepared, seed);
        Map<Long, List<String>> original = segmentsOf(prepared);
        Path cleanedOnce = copy(prepared, root.resolve("reference"));
        try (Log log = Log.open(cleanedOnce, CONFIG)) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, NOW_MS);
        }
        Map<Long, List<String>> reference = segmentsOf(cleanedOnce);
        List<Outcome> outcomes = new ArrayList<>();
        for (int ordinal : ordinals) {
            for (SegmentSwap.Step step : SegmentSwap.Step.values()) {
                Path dir = copy(prepared, root.resolve("crash-" + step.name().toLowerCase() + "-" + ordinal));
                outcomes.add(crashAndCheck(dir, classpath, step, ordinal, original, reference));
            }
        }
        int records = original.values().stream().mapToInt(List::size).sum();
        return new Result(outcomes, original.size(), records);
    }

    /** A log of BATCHES batches of 1..3 keyed records over KEYS keys, one record in ten a tombstone. */
    static void prepare(Path dir, long seed) throws IOException {
        Random random = new Random(seed);
        try (Log log = Log.open(dir, CONFIG)) {
            for (int b = 0; b < BATCHES; b++) {
                BatchBuilder builder = new BatchBuilder();
                int count = 1 + random.nextInt(3);
                for (int r = 0; r < count; r++) {
                    String key = "k" + random.nextInt(KEYS);
                    String value = random.nextInt(10) == 0 ? null : key + "=v" + b + "." + r;
                    builder.append(T0 + b, key, value);
                }
                log.append(builder.build());
            }
        }
    }

    private static Outcome crashAndCheck(Path dir, String classpath, SegmentSwap.Step step, int ordinal,
                                         Map<Long, List<String>> original, Map<Long, List<String>> reference)
            throws IOException {
        List<String> problems = new ArrayList<>();
        List<String> leftovers = new ArrayList<>();
        List<Long> bases = new ArrayList<>(original.keySet());
        String crashedPrefix = Segment.fileName(bases.get(ordinal), "");
        boolean reached = runChildUntilCrashPoint(dir, classpath, step, ordinal, crashedPrefix, leftovers, problems);

        Map<Long, List<String>> after;
        try (Log log = Log.open(dir, CONFIG)) {
            after = segmentsOf(log);
        } catch (RuntimeException | IOException broken) {
            problems.add("Log.open failed after the crash: " + broken);
            return new Outcome(step, ordinal, reached, leftovers, "?", original.size(), 0, 0, KEYS, false, false,
                    problems);
        }
        List<String> stray = strayFiles(dir);
        if (!stray.isEmpty()) {
            problems.add("left after Log.open: " + stray);
        }
        boolean committed = step.compareTo(SegmentSwap.Step.SWAP_RENAMED) >= 0;
        long wrong = 0;
        String crashedIs = "?";
        for (int i = 0; i < bases.size(); i++) {
            long base = bases.get(i);
            List<String> now = after.get(base);
            boolean isOld = original.get(base).equals(now);
            boolean isNew = reference.containsKey(base) && reference.get(base).equals(now);
            boolean expectNew = i < ordinal || (i == ordinal && committed);
            if (i == ordinal) {
                crashedIs = isNew && isOld ? "old = new" : isNew ? "new" : isOld ? "old" : "MIXED";
            }
            if (!(expectNew ? isNew : isOld)) {
                wrong++;
                problems.add("segment " + base + " is " + (isOld ? "the old version" : isNew ? "the new version"
                        : "neither version") + ", expected the " + (expectNew ? "new" : "old") + " one");
            }
        }
        long[] checked = new long[1];
        long moved = movedRecords(original, after, checked);
        long lostKeys = lostKeys(original, after);
        boolean finishes;
        boolean accepts;
        try (Log log = Log.open(dir, CONFIG)) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, NOW_MS);
            finishes = segmentsOf(log).equals(reference);
            if (!finishes) {
                problems.add("compaction finished after the crash differs from compaction without one");
            }
            accepts = acceptsWrites(log);
        }
        return new Outcome(step, ordinal, reached, leftovers, crashedIs, wrong, checked[0], moved, lostKeys, finishes,
                accepts, problems);
    }

    /** Starts the child, waits for it to reach the crash point, lists the files, SIGKILLs it. */
    private static boolean runChildUntilCrashPoint(Path dir, String classpath, SegmentSwap.Step step, int ordinal,
                                                   String crashedPrefix, List<String> leftovers, List<String> problems)
            throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath,
                CompactionCrashChild.class.getName(), dir.toString(), Integer.toString(CONFIG.segmentBytes()),
                Integer.toString(CONFIG.indexIntervalBytes()), step.name(), Integer.toString(ordinal),
                Long.toString(NOW_MS), Long.toString(DELETE_RETENTION_MS));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (IOException ended) {
                // killed
            }
        }, "compaction-child-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            Deadline.in(60_000).await(() -> {
                synchronized (lines) {
                    return lines.stream().anyMatch(l -> l.startsWith(CompactionCrashChild.REACHED)
                            || l.startsWith(CompactionCrashChild.FINISHED)) || !child.isAlive();
                }
            });
            boolean reached;
            synchronized (lines) {
                reached = lines.stream().anyMatch(l -> l.startsWith(CompactionCrashChild.REACHED));
                if (!reached) {
                    problems.add(step + " of swap " + ordinal + " was not reached: " + lines);
                }
            }
            // The child stands at the crash point: these are the files a kill there leaves.
            leftovers.addAll(filesStartingWith(dir, crashedPrefix));
            return reached;
        } finally {
            // Kill first: the reader thread's stream ends with the process (closing it here would wait for it).
            child.destroyForcibly();
            try {
                child.waitFor(30, TimeUnit.SECONDS);
                reader.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The records of every segment, by base offset, as "offset:key=value" (decoding every batch). */
    static Map<Long, List<String>> segmentsOf(Path dir) throws IOException {
        try (Log log = Log.open(dir, CONFIG)) {
            return segmentsOf(log);
        }
    }

    static Map<Long, List<String>> segmentsOf(Log log) throws IOException {
        Map<Long, List<String>> segments = new TreeMap<>();
        for (Segment segment : log.segments()) {
            List<String> records = new ArrayList<>();
            for (RecordBatch batch : segment.batches()) {
                for (Record r : batch.records()) {
                    records.add(r.offset() + ":" + Record.show(r.key()) + "=" + Record.show(r.value()));
                }
            }
            segments.put(segment.baseOffset(), records);
        }
        return segments;
    }

    /** Records whose offset now holds something else than what was written there. */
    private static long movedRecords(Map<Long, List<String>> original, Map<Long, List<String>> after, long[] checked) {
        Map<String, String> written = new HashMap<>();
        original.values().forEach(list -> list.forEach(r -> written.put(r.substring(0, r.indexOf(':')), r)));
        long moved = 0;
        for (List<String> list : after.values()) {
            for (String r : list) {
                checked[0]++;
                if (!r.equals(written.get(r.substring(0, r.indexOf(':'))))) {
                    moved++;
                }
            }
        }
        return moved;
    }

    /** Keys whose latest record (the one compaction must keep) is gone. */
    private static long lostKeys(Map<Long, List<String>> original, Map<Long, List<String>> after) {
        Map<String, String> latest = new HashMap<>();
        original.values().forEach(list -> list.forEach(r -> latest.put(r.substring(r.indexOf(':') + 1, r.indexOf('=')), r)));
        List<String> present = after.values().stream().flatMap(List::stream).toList();
        return latest.values().stream().filter(r -> !present.contains(r)).count();
    }

    private static boolean acceptsWrites(Log log) throws IOException {
        long end = log.logEndOffset();
        log.append(new BatchBuilder().append(NOW_MS, "k0", "after-the-crash").build());
        ByteBuffer read = log.read(end, 1 << 20, FetchIsolation.LOG_END);
        List<RecordBatch> batches = RecordBatch.decodeAll(read);
        return batches.size() == 1 && batches.get(0).baseOffset() == end
                && "after-the-crash".equals(Record.show(batches.get(0).records().get(0).value()));
    }

    /** What an interrupted swap leaves: .cleaned, .swap or .deleted files. */
    private static List<String> strayFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".cleaned") || n.endsWith(".swap") || n.endsWith(".deleted"))
                    .sorted().toList();
        }
    }

    /** The files of one segment, e.g. 00000000000000000014.log, .index, .log.swap. */
    private static List<String> filesStartingWith(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix))
                    .map(n -> n.substring(prefix.length())).sorted().toList();
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return to;
    }
}
