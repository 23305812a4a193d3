import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.testkit.loop.Tasks;

/**
 * The mistakes corpus: a green task means its rule was learnt.
 *
 *   ./workbook mistakes [chNN...] [-v]     (after mvn -Psolutions verify, whose reports it reads)
 *
 * Beside every chapter, {@code chNN-x/mistakes/taskN-name.txt} holds one realistic wrong body of a
 * task: the rule it breaks in the guide's words and an edit to the reference (see {@link Mistake}).
 * For each one this applies the edit to a scratch copy of the one reference file, compiles that file
 * in process into chNN-x/target/mistakes/ (the tracked tree is never written), and runs the task's
 * test class in one warm JVM per chapter ({@link MistakesJvm}). A mistake is caught when a test of
 * THAT task fails with the mistake's {@code message:} in its failure: the test names the rule. It
 * prints one line per chapter (mistakes, caught, declared) and exits 1 naming every mistake that
 * was not caught, every stale edit, every task with fewer than {@link #PER_TASK} mistakes and
 * every declared mistake that a test catches after all.
 *
 * <p>{@code --from DIR} measures mistakes that are not (yet) in the corpus, for example ones written
 * by someone who has not read the tests: DIR/chNN-x/taskN-name.txt, same format. With
 * {@code --any-message} a mistake counts as caught when any test of its task fails, whatever its
 * failure says (a fresh mistake has no message yet: -v prints the first failure line to choose one
 * from); the per-task minimum is not checked for such a directory.
 */
public final class Mistakes {
    static final int PER_TASK = 3;
    /**
     * Chapters checked at once (-Dmistakes.jobs overrides). Three: in CI, niced beside Maven, two
     * left chapters 10 and 11 (the heaviest, ready last) waiting behind chapter 8 for 90 s.
     */
    static final int JOBS = 3;
    /**
     * JVMs at once for a chapter whose mistakes' task classes took {@link #SHARD_ABOVE_SECONDS} or more
     * in the reference run (-Dmistakes.shards overrides; -v runs one): chapters 10 and 11, whose
     * tests wait on ZooKeeper and brokers. A chapter whose tests compute (chapter 1's 126 mistakes:
     * 61 s in one JVM, 128 s in two at a load of 20-35, a warm-up each) keeps one.
     */
    static final int SHARDS = 2;
    static final double SHARD_ABOVE_SECONDS = 60;
    static final Set<String> KINDS = Set.of("step left out", "wrong order", "boundary", "overflow", "wrong fallback",
            "maximum kept instead of latest", "wrong one used", "shared buffer moved", "other");
    private static final String USAGE = "usage: ./workbook mistakes [chNN...] [-v]";

    private Mistakes() {
    }

    /** Where mistakes are read from: beside each chapter, or DIR/chNN-x with --from DIR. */
    record Source(Path from, boolean anyMessage) {
        static final Source CORPUS = new Source(null, false);

        Path dir(Path root, String chapter) {
            return from == null ? root.resolve(chapter).resolve("mistakes") : from.resolve(chapter);
        }
    }

    /** The command line: the chapters (every one when none is named), where the mistakes are, -v. */
    record Options(List<String> chapters, Source source, boolean verbose, Path afterMaven) {
        static Options parse(Path root, String[] all) throws IOException {
            List<String> chapters = new ArrayList<>();
            Path from = null;
            boolean anyMessage = false;
            List<String> rest = new ArrayList<>();
            Path afterMaven = MavenLog.option(all, rest);
            String[] args = rest.toArray(String[]::new);
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--from") && i + 1 < args.length) {
                    from = Path.of(args[++i]).toAbsolutePath();
                } else if (a.equals("--any-message")) {
                    anyMessage = true;
                } else if (!a.startsWith("-")) {
                    chapters.add(Markers.chapter(root, a, USAGE));
                } else if (!a.equals("-v")) {
                    throw new Workbook.Stop(2, USAGE + " [--from DIR [--any-message]]: unknown flag " + a);
                }
            }
            return new Options(chapters.isEmpty() ? Markers.chapters(root) : chapters, new Source(from, anyMessage),
                    List.of(args).contains("-v"), afterMaven);
        }
    }

    static List<Path> files(Path root, String chapter) throws IOException {
        return files(root, chapter, Source.CORPUS);
    }

    static List<Path> files(Path root, String chapter, Source source) throws IOException {
        Path dir = source.dir(root, chapter);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
        }
    }

    static int main(Path root, String[] args) throws Exception {
        Options options = Options.parse(root, args);
        long start = System.nanoTime();
        List<String> problems = new ArrayList<>();
        int total = 0;
        for (Map.Entry<String, Checked> e : checkAll(root, options).entrySet()) {
            System.out.println(e.getValue().line());
            problems.addAll(e.getValue().problems());
            total += files(root, e.getKey(), options.source()).size();
        }
        if (!problems.isEmpty()) {
            System.out.println("MISTAKES NOT CAUGHT: " + problems.size() + " problem(s)");
            problems.forEach(p -> System.out.println("  " + p));
            return 1;
        }
        System.out.printf("mistakes: every one of %d caught by a test of its task (%d s)%n", total,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        return 0;
    }

    /** One chapter's summary line and what it found wrong. */
    record Checked(String line, List<String> problems) {
    }

    /**
     * Every chapter checked, in the order named. Each chapter runs its mistakes in one JVM of its
     * own (or two), mostly on one core, often waiting: three chapters at once keep two cores busy. -v
     * prints per mistake as it goes, so it runs one at a time.
     */
    static Map<String, Checked> checkAll(Path root, Options options) throws Exception {
        int jobs = options.verbose() ? 1 : Integer.getInteger("mistakes.jobs", JOBS);
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            // Each job takes the first chapter of this order that is ready (under --after-maven, one
            // that Maven has moved past; else every one): a short chapter verified early does not wait
            // behind a long one Maven has not reached yet.
            List<String> waiting = new ArrayList<>(options.verbose() ? options.chapters() : longestFirst(root, options));
            Map<String, Checked> done = new java.util.concurrent.ConcurrentHashMap<>();
            List<Future<?>> workers = new ArrayList<>();
            for (int j = 0; j < jobs; j++) {
                workers.add(pool.submit(() -> {
                    for (String chapter = next(waiting, options); chapter != null; chapter = next(waiting, options)) {
                        List<String> found = new ArrayList<>();
                        done.put(chapter, new Checked(check(root, chapter, options.source(), options.verbose(), found),
                                found));
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                get(worker);
            }
            Map<String, Checked> checked = new LinkedHashMap<>();
            for (String chapter : options.chapters()) {
                checked.put(chapter, done.get(chapter));
            }
            return checked;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The first chapter of {@code waiting} that is ready, taken off it, waiting for one; null once none is left. */
    static String next(List<String> waiting, Options options) throws IOException, InterruptedException {
        while (true) {
            synchronized (waiting) {
                if (waiting.isEmpty()) {
                    return null;
                }
                for (String chapter : waiting) {
                    if (options.afterMaven() == null || MavenLog.done(options.afterMaven(), chapter)) {
                        waiting.remove(chapter);
                        return chapter;
                    }
                }
            }
            Thread.sleep(MavenLog.POLL_MS);
        }
    }

    /**
     * The chapters to start, the longest first: a chapter's mistakes run one after another in one
     * JVM, and the longest one started last would run alone at the end while the other job idles
     * (chapter 10's did for 68 s of CI's 205). The printed lines keep the chapters' order.
     */
    static List<String> longestFirst(Path root, Options options) throws Exception {
        Map<String, Double> seconds = new HashMap<>();
        for (String chapter : options.chapters()) {
            // under --after-maven, a chapter Maven has not passed has no complete reports yet: no estimate
            boolean complete = options.afterMaven() == null || MavenLog.done(options.afterMaven(), chapter);
            seconds.put(chapter, complete ? estimatedSeconds(root, chapter, options.source()) : 0.0);
        }
        return options.chapters().stream().sorted(Comparator.comparing(seconds::get).reversed()).toList();
    }

    /** A chapter's mistakes' time, from the reference run: per mistake, the seconds its task's test class took. */
    static double estimatedSeconds(Path root, String chapter, Source source) throws Exception {
        Map<String, Double> perClass = new HashMap<>();
        Reports.secondsPerClass(Reports.dir(root, chapter)).forEach((c, s) -> perClass.put(Gate.simple(c), s));
        Map<Integer, Double> perTask = new HashMap<>();
        Markers.tasks(root, chapter, new ArrayList<>())
                .forEach(t -> perTask.put(t.number(), perClass.getOrDefault(t.testClass(), 0.0)));
        double seconds = 0;
        for (Path file : files(root, chapter, source)) {
            try {
                seconds += perTask.getOrDefault(Mistake.parse(file).task(), 0.0);
            } catch (IllegalArgumentException unfit) {
                // check() reports it
            }
        }
        return seconds;
    }

    static <T> T get(Future<T> check) throws Exception {
        try {
            return check.get();
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof Exception e ? e : failed;
        }
    }

    /** The chapter's summary line; adds to {@code problems} every mistake not caught and every file not fit to run. */
    static String check(Path root, String chapter, Source source, boolean verbose, List<String> problems) throws Exception {
        long start = System.nanoTime();
        List<Tasks.Task> tasks = Markers.tasks(root, chapter, problems);
        List<Mistake> mistakes = read(root, chapter, source, problems);
        if (source.from() == null) {
            problems.addAll(tooFew(chapter, tasks, mistakes));
        }
        if (mistakes.isEmpty()) {
            return chapter + ": 0 mistakes";
        }
        Chapter setup = Chapter.of(root, chapter, tasks, problems);
        if (setup == null) {
            return chapter + ": not checked";
        }
        Workbook.deleteTree(setup.work());
        Map<String, Mistake> byName = new LinkedHashMap<>();
        List<MistakesJvm.Run> runs = new ArrayList<>();
        for (Mistake m : mistakes) {
            MistakesJvm.Run run = setup.prepare(m, source.anyMessage(), problems);
            if (run != null) {
                byName.put(m.name(), m);
                runs.add(run);
            }
        }
        Map<String, List<MistakesJvm.TestResult>> results = runShards(root, chapter, setup, runs,
                verbose || estimatedSeconds(root, chapter, source) < SHARD_ABOVE_SECONDS ? 1
                        : Integer.getInteger("mistakes.shards", SHARDS));
        Tally tally = tally(chapter, byName, results, source.anyMessage(), verbose, problems);
        return String.format("%s: %d mistakes, %d caught, %d declared, %d tasks (%d s)", chapter, mistakes.size(),
                tally.caught(), tally.declared(), tasks.size(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
    }

    /**
     * The chapter's runs split over {@code shards} warm JVMs at once, each with its own results file
     * under work/shard-N (mistake i in shard i mod shards): a chapter's mistakes mostly wait (ZooKeeper
     * sessions, sockets, a broker's threads), so one JVM left chapter 10's 151 mistakes the longest
     * step of CI (380 s) on a machine with cores to spare. Every mistake still runs, in a fresh class
     * loader, exactly as in one JVM.
     */
    static Map<String, List<MistakesJvm.TestResult>> runShards(Path root, String chapter, Chapter setup,
            List<MistakesJvm.Run> runs, int shards) throws Exception {
        int n = Math.max(1, Math.min(shards, runs.size()));
        List<List<MistakesJvm.Run>> split = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            split.add(new ArrayList<>());
        }
        for (int i = 0; i < runs.size(); i++) {
            split.get(i % n).add(runs.get(i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Map<String, List<MistakesJvm.TestResult>>>> parts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Path work = n == 1 ? setup.work() : setup.work().resolve("shard-" + (i + 1));
                Files.createDirectories(work);
                List<MistakesJvm.Run> part = split.get(i);
                parts.add(pool.submit(() -> MistakesJvm.run(root, chapter, setup.classpath(), setup.properties(), part,
                        work)));
            }
            Map<String, List<MistakesJvm.TestResult>> results = new HashMap<>();
            for (Future<Map<String, List<MistakesJvm.TestResult>>> part : parts) {
                try {
                    results.putAll(part.get());
                } catch (ExecutionException failed) {
                    throw failed.getCause() instanceof Exception e ? e : failed;
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The chapter's mistake files, parsed; a file that does not parse is a problem. */
    static List<Mistake> read(Path root, String chapter, Source source, List<String> problems) throws IOException {
        List<Mistake> mistakes = new ArrayList<>();
        for (Path p : files(root, chapter, source)) {
            try {
                mistakes.add(Mistake.parse(p));
            } catch (IllegalArgumentException bad) {
                problems.add(chapter + ": " + bad.getMessage());
            }
        }
        return mistakes;
    }

    /** A problem for every task of the corpus with fewer than {@value #PER_TASK} mistakes. */
    static List<String> tooFew(String chapter, List<Tasks.Task> tasks, List<Mistake> mistakes) {
        Map<Integer, Integer> perTask = new TreeMap<>();
        mistakes.forEach(m -> perTask.merge(m.task(), 1, Integer::sum));
        List<String> problems = new ArrayList<>();
        for (Tasks.Task t : tasks) {
            if (perTask.getOrDefault(t.number(), 0) < PER_TASK) {
                problems.add(chapter + ": task " + t.number() + " (" + t.testClass() + ") has "
                        + perTask.getOrDefault(t.number(), 0) + " mistake(s); every task has at least " + PER_TASK);
            }
        }
        return problems;
    }

    /**
     * What a chapter's mistakes run against: its tasks, the reference run's test classpath and
     * properties (from its surefire reports), its test classes by simple name, and the scratch
     * directory under target/mistakes where each mistake's copy is compiled.
     */
    record Chapter(Path root, String name, Map<Integer, Tasks.Task> tasks, List<String> classpath,
            Map<String, String> properties, Map<String, String> testClasses, Path work) {
        /** Null, with a problem added, when the chapter has no reports of a reference run to read. */
        static Chapter of(Path root, String chapter, List<Tasks.Task> tasks, List<String> problems) throws Exception {
            Path reports = Reports.dir(root, chapter);
            if (Reports.files(reports).isEmpty()) {
                problems.add(chapter + ": no surefire reports in " + root.relativize(reports) + ": run mvn -Psolutions verify first");
                return null;
            }
            Map<String, String> properties = Reports.properties(Reports.files(reports).get(0));
            if (!"reference".equals(properties.get("chapter.kind"))) {
                problems.add(chapter + ": the surefire reports are of a run on " + properties.get("chapter.kind")
                        + " code: run mvn -Psolutions verify first");
                return null;
            }
            List<String> classpath = Gate.testClasspath(root, chapter, properties, problems);
            if (classpath == null) {
                return null;
            }
            Map<Integer, Tasks.Task> byNumber = new TreeMap<>();
            tasks.forEach(t -> byNumber.put(t.number(), t));
            Map<String, String> qualified = new TreeMap<>();
            for (Reports.Outcome o : Reports.outcomes(reports)) {
                qualified.put(o.simpleClass(), o.className());
            }
            return new Chapter(root, chapter, byNumber, classpath, properties, qualified,
                    root.resolve(chapter).resolve("target/mistakes"));
        }

        /**
         * The mistake applied to a copy of its reference file and compiled, as the runner is to run
         * it; null, with a problem added, when it cannot be (a field missing, a stale edit, a
         * compile error: a mistake must compile).
         */
        MistakesJvm.Run prepare(Mistake m, boolean anyMessage, List<String> problems) throws IOException {
            Tasks.Task task = tasks.get(m.task());
            String unfit = task == null ? "names task " + m.field("task") + ", which " + name + " does not have"
                    : unfit(m, anyMessage);
            if (unfit != null) {
                problems.add(m.name() + ": " + unfit);
                return null;
            }
            Path file = Markers.reference(root, name).resolve(m.field("file"));
            String wrong = m.apply(Files.readString(file, StandardCharsets.UTF_8), task.tag(), problems);
            if (wrong == null) {
                return null;
            }
            Path dir = work.resolve(m.name());
            Path copy = dir.resolve("src").resolve(m.field("file"));
            Files.createDirectories(copy.getParent());
            Files.writeString(copy, wrong, StandardCharsets.UTF_8);
            String errors = MistakesJvm.compile(copy, dir.resolve("classes"), classpath);
            if (errors != null) {
                problems.add(m.name() + ": does not compile (a mistake must compile):\n" + errors);
                return null;
            }
            String testClass = testClasses.get(task.testClass());
            if (testClass == null) {
                problems.add(m.name() + ": surefire ran no class " + task.testClass());
                return null;
            }
            return new MistakesJvm.Run(m.name(), dir.resolve("classes"), testClass, m.field("message"));
        }

        /** What the mistake's fields lack (kind, rule, file; a message unless declared or --any-message), or null. */
        private String unfit(Mistake m, boolean anyMessage) {
            List<String> missing = Stream.of("kind", "rule", "file").filter(k -> m.field(k).isEmpty()).toList();
            boolean needsMessage = !anyMessage && m.field("message").isEmpty() && m.field("declared").isEmpty();
            if (!missing.isEmpty() || needsMessage) {
                return "needs " + (missing.isEmpty() ? "message" : String.join(", ", missing));
            }
            if (!KINDS.contains(m.field("kind"))) {
                return "kind '" + m.field("kind") + "' is none of " + new TreeSet<>(KINDS);
            }
            Path file = Markers.reference(root, name).resolve(m.field("file"));
            return Files.isRegularFile(file) ? null : "no reference file " + root.relativize(file);
        }
    }

    /** How many mistakes a test caught, and how many were declared uncatchable. */
    record Tally(int caught, int declared) {
    }

    /** Judges every mistake that ran: a problem for each one not caught, and for each declared one caught after all. */
    static Tally tally(String chapter, Map<String, Mistake> ran, Map<String, List<MistakesJvm.TestResult>> results,
            boolean anyMessage, boolean verbose, List<String> problems) {
        int caught = 0;
        int declared = 0;
        for (Mistake m : ran.values()) {
            String verdict = verdict(m, results.getOrDefault(m.name(), List.of()), anyMessage);
            boolean isCaught = verdict.startsWith("caught");
            if (!m.field("declared").isEmpty()) {
                declared++;
                if (isCaught) {
                    problems.add(m.name() + ": declared uncatchable (" + m.field("declared") + "), but " + verdict
                            + ": remove the declaration");
                }
            } else if (isCaught) {
                caught++;
            } else {
                problems.add(m.name() + " (" + chapter.substring(0, 4) + " task " + m.task() + ", " + m.field("kind")
                        + "): " + verdict + "\n      rule: " + m.field("rule"));
            }
            if (verbose) {
                System.out.printf("  %-48s task %-2d %s%n", m.name(), m.task(), verdict);
            }
        }
        return new Tally(caught, declared);
    }

    /** "caught by T.m: ..." when a test of the task failed with the mistake's message, else why not. */
    static String verdict(Mistake m, List<MistakesJvm.TestResult> tests, boolean anyMessage) {
        if (tests.stream().anyMatch(t -> t.is("HUNG"))) {
            return "hung: a test of its task waits without a bound (give it one, with a message that names what it waits for)";
        }
        String fragment = m.field("message");
        List<MistakesJvm.TestResult> failed = tests.stream().filter(t -> t.is("FAILED")).toList();
        if (anyMessage && !failed.isEmpty()) {
            return "caught by " + failed.get(0).test() + ": " + firstLine(failed.get(0).failure());
        }
        for (MistakesJvm.TestResult t : failed) {
            if (!fragment.isEmpty() && t.failure().contains(fragment)) {
                return "caught by " + t.test();
            }
        }
        if (failed.isEmpty()) {
            return "not caught: every test of its task passes (" + tests.size() + " run)";
        }
        return "failed " + failed.size() + " test(s), but none with '" + fragment + "' in its failure; "
                + failed.get(0).test() + ": " + firstLine(failed.get(0).failure());
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
