import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * test class in one warm JVM per chapter (tools/gate/MistakesRunner.java, a fresh class loader per
 * mistake). A mistake is caught when a test of THAT task fails with the mistake's {@code message:}
 * in its failure: the test names the rule. It prints one line per chapter (mistakes, caught,
 * declared) and exits 1 naming every mistake that was not caught, every stale edit, every task with
 * fewer than {@link #PER_TASK} mistakes and every declared mistake that a test catches after all.
 *
 * <p>{@code --from DIR} measures mistakes that are not (yet) in the corpus, for example ones written
 * by someone who has not read the tests: DIR/chNN-x/taskN-name.txt, same format. With
 * {@code --any-message} a mistake counts as caught when any test of its task fails, whatever its
 * failure says (a fresh mistake has no message yet: -v prints the first failure line to choose one
 * from); the per-task minimum is not checked for such a directory.
 */
public final class Mistakes {
    static final int PER_TASK = 3;
    /** Chapters checked at once (-Dmistakes.jobs overrides). */
    static final int JOBS = 2;
    static final long SECONDS_PER_MISTAKE = 120;
    /** The runner's arguments per mistake: name, classes, test class, the message fragment. */
    static final int ARGS = 4;
    static final Set<String> KINDS = Set.of("step left out", "wrong order", "boundary", "overflow", "wrong fallback",
            "maximum kept instead of latest", "wrong one used", "shared buffer moved", "other");

    private Mistakes() {
    }

    /** One edit: text of the reference that occurs exactly once, and what the mistake writes instead. */
    record Edit(String reference, String mistake) {
    }

    /**
     * One mistake file:
     * <pre>
     * # a title (comments start with #)
     * task: 4
     * kind: step left out
     * rule: the rule it breaks, in the guide's words
     * message: a fragment of the failure that names the rule
     * file: kaenlog/idem/Idempotence.java          (relative to solutions/chNN-x/src/main/java)
     * declared: why no test can catch it            (optional, rare)
     * &lt;&lt;&lt;&lt;&lt;&lt;&lt; reference
     * lines of the reference, exactly
     * =======
     * what the mistake writes instead (may be empty)
     * &gt;&gt;&gt;&gt;&gt;&gt;&gt; mistake
     * </pre>
     */
    record Mistake(Path path, String name, Map<String, String> fields, List<Edit> edits) {
        int task() {
            return Integer.parseInt(fields.getOrDefault("task", "0").strip());
        }

        String field(String key) {
            return fields.getOrDefault(key, "").strip();
        }
    }

    static Mistake parse(Path path) throws IOException {
        String name = path.getFileName().toString().replaceAll("\\.txt$", "");
        Map<String, String> fields = new LinkedHashMap<>();
        List<Edit> edits = new ArrayList<>();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.equals("<<<<<<< reference")) {
                int middle = find(lines, i + 1, "=======", path);
                int end = find(lines, middle + 1, ">>>>>>> mistake", path);
                edits.add(new Edit(joined(lines.subList(i + 1, middle)), joined(lines.subList(middle + 1, end))));
                i = end;
            } else if (!line.startsWith("#") && !line.isBlank()) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException(path + ":" + (i + 1) + ": expected 'key: value' or an edit block");
                }
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 1));
            }
        }
        return new Mistake(path, name, fields, edits);
    }

    static int find(List<String> lines, int from, String marker, Path path) {
        for (int j = from; j < lines.size(); j++) {
            if (lines.get(j).equals(marker)) {
                return j;
            }
        }
        throw new IllegalArgumentException(path + ": no line '" + marker + "' after line " + from);
    }

    static String joined(List<String> lines) {
        return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
    }

    /** Where mistakes are read from: beside each chapter, or DIR/chNN-x with --from DIR. */
    record Source(Path from, boolean anyMessage) {
        static final Source CORPUS = new Source(null, false);

        Path dir(Path root, String chapter) {
            return from == null ? root.resolve(chapter).resolve("mistakes") : from.resolve(chapter);
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

    /** The mistake's file with its edits applied in order, each inside a block of {@code tag}; adds to problems (and returns null) when an edit is stale. */
    static String apply(Mistake m, String source, String tag, List<String> problems) {
        String result = source;
        for (Edit e : m.edits()) {
            // Where the task's blocks are now: an earlier edit may have added or removed lines.
            List<int[]> allowed = regions(result, tag);
            int at = result.indexOf(e.reference());
            if (e.reference().isEmpty() || at < 0) {
                problems.add(m.name() + ": its reference text is not in " + m.field("file") + " (stale? copy the lines exactly)");
                return null;
            }
            if (result.indexOf(e.reference(), at + 1) >= 0) {
                problems.add(m.name() + ": its reference text occurs more than once in " + m.field("file")
                        + " (quote more lines)");
                return null;
            }
            int first = lineOf(result, at);
            int last = lineOf(result, at + e.reference().length() - 1);
            if (allowed.stream().noneMatch(r -> r[0] < first && last < r[1])) {
                problems.add(m.name() + ": its edit (lines " + first + "-" + last + " of " + m.field("file")
                        + ") is not inside a block of task " + m.task() + " (a mistake is a wrong body of its task)");
                return null;
            }
            result = result.substring(0, at) + e.mistake() + result.substring(at + e.reference().length());
        }
        return result;
    }

    static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            line += text.charAt(i) == '\n' ? 1 : 0;
        }
        return line;
    }

    /** Line ranges (exclusive of the marker lines) of the task's blocks in a file, and of its reference-only helpers. */
    static List<int[]> regions(String source, String tag) {
        String[] lines = source.split("\n", -1);
        List<int[]> regions = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String s = lines[i].strip();
            boolean ours = s.startsWith("// BEGIN-SOLUTION " + tag + ":");
            boolean only = s.equals(Markers.BEGIN_ONLY);
            if (ours || only) {
                String end = ours ? Markers.END : Markers.END_ONLY;
                for (int j = i + 1; j < lines.length; j++) {
                    if (lines[j].strip().equals(end)) {
                        regions.add(new int[] {i + 1, j + 1});
                        break;
                    }
                }
            }
        }
        return regions;
    }

    static int main(Path root, String[] args) throws Exception {
        boolean verbose = List.of(args).contains("-v");
        List<String> chapters = new ArrayList<>();
        Path from = null;
        boolean anyMessage = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--from") && i + 1 < args.length) {
                from = Path.of(args[++i]).toAbsolutePath();
            } else if (a.equals("--any-message")) {
                anyMessage = true;
            } else if (!a.startsWith("-")) {
                chapters.add(Markers.chapters(root).stream().filter(c -> c.equals(a) || c.startsWith(a + "-")).findFirst()
                        .orElseThrow(() -> new Workbook.Stop(2, "usage: ./workbook mistakes [chNN...] [-v]: no chapter '"
                                + a + "' (there are " + String.join(", ", chaptersOrNone(root)) + ")")));
            } else if (!a.equals("-v")) {
                throw new Workbook.Stop(2, "usage: ./workbook mistakes [chNN...] [-v] [--from DIR [--any-message]]: unknown flag " + a);
            }
        }
        Source source = new Source(from, anyMessage);
        if (chapters.isEmpty()) {
            chapters.addAll(Markers.chapters(root));
        }
        long start = System.nanoTime();
        List<String> problems = new ArrayList<>();
        int total = 0;
        // Each chapter runs its mistakes in one JVM of its own, mostly on one core: two chapters at
        // once keep two cores busy. -v prints per mistake as it goes, so it runs one at a time.
        ExecutorService pool = Executors.newFixedThreadPool(verbose ? 1 : Integer.getInteger("mistakes.jobs", JOBS));
        try {
            Map<String, Future<Checked>> checks = new LinkedHashMap<>();
            for (String chapter : chapters) {
                checks.put(chapter, pool.submit(() -> {
                    List<String> found = new ArrayList<>();
                    return new Checked(check(root, chapter, source, verbose, found), found);
                }));
            }
            for (Map.Entry<String, Future<Checked>> e : checks.entrySet()) {
                Checked checked = get(e.getValue());
                System.out.println(checked.line());
                problems.addAll(checked.problems());
                total += files(root, e.getKey(), source).size();
            }
        } finally {
            pool.shutdownNow();
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

    static Checked get(Future<Checked> check) throws Exception {
        try {
            return check.get();
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof Exception e ? e : failed;
        }
    }

    static List<String> chaptersOrNone(Path root) {
        try {
            return Markers.chapters(root);
        } catch (IOException e) {
            return List.of();
        }
    }

    static String check(Path root, String chapter, Source source, boolean verbose, List<String> problems) throws Exception {
        long start = System.nanoTime();
        String id = chapter.substring(0, 4);
        List<Tasks.Task> tasks = Markers.tasks(root, chapter, problems);
        Map<Integer, Tasks.Task> byNumber = new TreeMap<>();
        tasks.forEach(t -> byNumber.put(t.number(), t));
        List<Mistake> mistakes = new ArrayList<>();
        for (Path p : files(root, chapter, source)) {
            try {
                mistakes.add(parse(p));
            } catch (IllegalArgumentException bad) {
                problems.add(chapter + ": " + bad.getMessage());
            }
        }
        Map<Integer, Integer> perTask = new TreeMap<>();
        mistakes.forEach(m -> perTask.merge(m.task(), 1, Integer::sum));
        for (Tasks.Task t : source.from() == null ? tasks : List.<Tasks.Task>of()) {
            if (perTask.getOrDefault(t.number(), 0) < PER_TASK) {
                problems.add(chapter + ": task " + t.number() + " (" + t.testClass() + ") has "
                        + perTask.getOrDefault(t.number(), 0) + " mistake(s); every task has at least " + PER_TASK);
            }
        }
        if (mistakes.isEmpty()) {
            return chapter + ": 0 mistakes";
        }
        Path reports = Reports.dir(root, chapter);
        if (Reports.files(reports).isEmpty()) {
            problems.add(chapter + ": no surefire reports in " + root.relativize(reports) + ": run mvn -Psolutions verify first");
            return chapter + ": not checked";
        }
        Map<String, String> properties = Reports.properties(Reports.files(reports).get(0));
        if (!"reference".equals(properties.get("chapter.kind"))) {
            problems.add(chapter + ": the surefire reports are of a run on " + properties.get("chapter.kind")
                    + " code: run mvn -Psolutions verify first");
            return chapter + ": not checked";
        }
        List<String> classpath = Gate.testClasspath(root, chapter, properties, problems);
        if (classpath == null) {
            return chapter + ": not checked";
        }
        Map<String, String> qualified = new TreeMap<>();
        for (Reports.Outcome o : Reports.outcomes(reports)) {
            qualified.put(o.simpleClass(), o.className());
        }

        Path work = root.resolve(chapter).resolve("target/mistakes");
        Workbook.deleteTree(work);
        Path reference = Markers.reference(root, chapter);
        List<String> runs = new ArrayList<>();
        Map<String, Mistake> byName = new LinkedHashMap<>();
        for (Mistake m : mistakes) {
            Tasks.Task task = byNumber.get(m.task());
            if (task == null) {
                problems.add(m.name() + ": names task " + m.field("task") + ", which " + chapter + " does not have");
                continue;
            }
            List<String> missing = Stream.of("kind", "rule", "file").filter(k -> m.field(k).isEmpty()).toList();
            boolean needsMessage = !source.anyMessage() && m.field("message").isEmpty() && m.field("declared").isEmpty();
            if (!missing.isEmpty() || needsMessage) {
                problems.add(m.name() + ": needs " + (missing.isEmpty() ? "message" : String.join(", ", missing)));
                continue;
            }
            if (!KINDS.contains(m.field("kind"))) {
                problems.add(m.name() + ": kind '" + m.field("kind") + "' is none of " + new java.util.TreeSet<>(KINDS));
                continue;
            }
            Path file = reference.resolve(m.field("file"));
            if (!Files.isRegularFile(file)) {
                problems.add(m.name() + ": no reference file " + root.relativize(file));
                continue;
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String wrong = apply(m, text, task.tag(), problems);
            if (wrong == null) {
                continue;
            }
            Path dir = work.resolve(m.name());
            Path copy = dir.resolve("src").resolve(m.field("file"));
            Files.createDirectories(copy.getParent());
            Files.writeString(copy, wrong, StandardCharsets.UTF_8);
            String errors = compile(copy, dir.resolve("classes"), classpath);
            if (errors != null) {
                problems.add(m.name() + ": does not compile (a mistake must compile):\n" + errors);
                continue;
            }
            String testClass = qualified.get(task.testClass());
            if (testClass == null) {
                problems.add(m.name() + ": surefire ran no class " + task.testClass());
                continue;
            }
            byName.put(m.name(), m);
            runs.addAll(List.of(m.name(), dir.resolve("classes").toString(), testClass, m.field("message")));
        }

        Map<String, List<String[]>> results = run(root, chapter, classpath, properties, runs, work);
        int caught = 0;
        int declared = 0;
        for (Map.Entry<String, Mistake> e : byName.entrySet()) {
            Mistake m = e.getValue();
            List<String[]> tests = results.getOrDefault(e.getKey(), List.of());
            String verdict = verdict(m, tests, source.anyMessage());
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
                problems.add(m.name() + " (" + id + " task " + m.task() + ", " + m.field("kind") + "): " + verdict
                        + "\n      rule: " + m.field("rule"));
            }
            if (verbose) {
                System.out.printf("  %-48s task %-2d %s%n", m.name(), m.task(), verdict);
            }
        }
        return String.format("%s: %d mistakes, %d caught, %d declared, %d tasks (%d s)", chapter, mistakes.size(), caught,
                declared, tasks.size(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
    }

    /** "caught by T.m: ..." when a test of the task failed with the mistake's message, else why not. */
    static String verdict(Mistake m, List<String[]> tests, boolean anyMessage) {
        if (tests.stream().anyMatch(t -> t[0].equals("HUNG"))) {
            return "hung: a test of its task waits without a bound (give it one, with a message that names what it waits for)";
        }
        String fragment = m.field("message");
        List<String[]> failed = tests.stream().filter(t -> t[0].equals("FAILED")).toList();
        if (anyMessage && !failed.isEmpty()) {
            String first = failed.get(0)[2];
            int nl = first.indexOf('\n');
            return "caught by " + failed.get(0)[1] + ": " + (nl < 0 ? first : first.substring(0, nl));
        }
        for (String[] t : failed) {
            if (!fragment.isEmpty() && t[2].contains(fragment)) {
                return "caught by " + t[1];
            }
        }
        if (failed.isEmpty()) {
            return "not caught: every test of its task passes (" + tests.size() + " run)";
        }
        String first = failed.get(0)[2];
        int nl = first.indexOf('\n');
        return "failed " + failed.size() + " test(s), but none with '" + fragment + "' in its failure; " + failed.get(0)[1]
                + ": " + (nl < 0 ? first : first.substring(0, nl));
    }

    static String compile(Path source, Path classes, List<String> classpath) throws IOException {
        Files.createDirectories(classes);
        StringWriter errors = new StringWriter();
        var files = Gate.compiler().getStandardFileManager(null, null, StandardCharsets.UTF_8);
        boolean ok = Gate.compiler().getTask(errors, files, null, List.of("--release", "17", "-encoding", "UTF-8", "-nowarn",
                "-proc:none", "-implicit:none", "-cp", String.join(File.pathSeparator, classpath), "-d", classes.toString()),
                null, files.getJavaFileObjects(source.toFile())).call();
        return ok ? null : errors.toString().lines().limit(8).reduce("", (a, b) -> a + "      " + b + "\n");
    }

    /**
     * Runs every mistake's task tests in one JVM, and again from the mistake after one that hung.
     * Returns, per mistake, its tests as {status, test, failure}.
     */
    static Map<String, List<String[]>> run(Path root, String chapter, List<String> classpath, Map<String, String> properties,
            List<String> runs, Path work) throws Exception {
        Map<String, List<String[]>> results = new LinkedHashMap<>();
        if (runs.isEmpty()) {
            return results;
        }
        Path runner = compileRunner(root, classpath);
        List<String> workbook = new ArrayList<>();
        List<String> libraries = new ArrayList<>();
        libraries.add(runner.toString());
        for (String entry : classpath) {
            boolean ours = entry.startsWith(root.toString() + File.separator) && !entry.contains(File.separator + "testkit" + File.separator);
            (ours ? workbook : libraries).add(entry);
        }
        Path out = work.resolve("results.tsv");
        List<String> left = new ArrayList<>(runs);
        while (!left.isEmpty()) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dfile.encoding=UTF-8", "-Dchapter.kind=learner"));
            for (String key : Gate.TEST_PROPERTIES) {
                if (properties.containsKey(key)) {
                    command.add("-D" + key + "=" + properties.get(key));
                }
            }
            command.addAll(List.of("-cp", String.join(File.pathSeparator, libraries), "MistakesRunner", out.toString(),
                    String.valueOf(SECONDS_PER_MISTAKE), String.join(File.pathSeparator, workbook)));
            command.addAll(left);
            Process java = new ProcessBuilder(command).directory(root.resolve(chapter).toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("run.log").toFile())).start();
            long limit = SECONDS_PER_MISTAKE * (left.size() / ARGS) + 60;
            if (!java.waitFor(limit, TimeUnit.SECONDS)) {
                java.destroyForcibly().waitFor();
            }
            results.clear();
            for (String line : Files.exists(out) ? Files.readAllLines(out, StandardCharsets.UTF_8) : List.<String>of()) {
                String[] f = line.split("\t", 4);
                if (f.length == 4) {
                    results.computeIfAbsent(f[0], k -> new ArrayList<>()).add(new String[] {f[1], f[2], unescape(f[3])});
                }
            }
            List<String> next = new ArrayList<>();
            for (int i = 0; i < runs.size(); i += ARGS) {
                List<String[]> r = results.get(runs.get(i));
                boolean finished = r != null && r.stream().anyMatch(t -> t[0].equals("DONE") || t[0].equals("HUNG"));
                if (!finished) {
                    next.addAll(runs.subList(i, i + ARGS));
                }
            }
            if (!next.isEmpty() && next.get(0).equals(left.get(0))) {
                // The JVM ended inside this mistake without a word (a test called System.exit, or it
                // crashed): say so on this one and go on with the next.
                results.put(left.get(0), new ArrayList<>(List.<String[]>of(new String[] {"FAILED", "(the runner)",
                        "the test JVM ended while running this mistake: see " + root.relativize(work.resolve("run.log"))},
                        new String[] {"DONE", "-", "-"})));
                Files.writeString(out, left.get(0) + "\tFAILED\t(the runner)\tthe test JVM ended while running it\n"
                        + left.get(0) + "\tDONE\t-\t-\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND,
                        StandardOpenOption.CREATE);
                next = next.subList(ARGS, next.size());
            }
            left = next;
        }
        results.values().forEach(r -> r.removeIf(t -> t[0].equals("DONE")));
        return results;
    }

    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                b.append(n == 'n' ? '\n' : n == 't' ? '\t' : n);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static Path compileRunner(Path root, List<String> classpath) throws IOException {
        return Gate.compileOnce(root.resolve("tools/gate/MistakesRunner.java"), root.resolve("build/mistakes/runner"),
                classpath);
    }
}
