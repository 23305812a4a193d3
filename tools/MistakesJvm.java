import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a chapter's mistakes in one warm JVM (tools/gate/MistakesRunner.java, a fresh class loader
 * per mistake), and starts another one from the mistake after one that hung or ended the JVM, so a
 * mistake that never returns costs its own time only. The runner appends a line per test to
 * results.tsv (mistake, status, test, failure), and "DONE" or "HUNG" after a mistake's last.
 */
final class MistakesJvm {
    static final long SECONDS_PER_MISTAKE = 120;

    /** One test of a mistake's task: PASSED, FAILED, SKIPPED or HUNG, the test, its failure whole. */
    record TestResult(String status, String test, String failure) {
        boolean is(String wanted) {
            return status.equals(wanted);
        }
    }

    /** What the runner is told about one mistake: its name, its one compiled class, its task's test class, the message. */
    record Run(String name, Path classes, String testClass, String message) {
        List<String> args() {
            return List.of(name, classes.toString(), testClass, message);
        }
    }

    private MistakesJvm() {
    }

    /** Compiles a mistake's one source file into {@code classes}: javac's first errors, or null when it compiled. */
    static String compile(Path source, Path classes, List<String> classpath) throws IOException {
        String errors = TestJvm.compile(List.of(source.toFile()), classpath, classes);
        return errors == null ? null : TestJvm.firstLines(errors, 8);
    }

    /** Every run's tests, by mistake name, in the order the runner reported them. */
    static Map<String, List<TestResult>> run(Path root, String chapter, List<String> classpath,
            Map<String, String> properties, List<Run> runs, Path work) throws Exception {
        Map<String, List<TestResult>> results = new LinkedHashMap<>();
        List<Run> left = runs;
        while (!left.isEmpty()) {
            runOnce(root, chapter, classpath, properties, left, work);
            results = read(work.resolve("results.tsv"));
            List<Run> next = unfinished(runs, results);
            if (!next.isEmpty() && next.get(0).equals(left.get(0))) {
                // The JVM ended inside this mistake without a word (a test called System.exit, or it
                // crashed): say so on this one and go on with the next.
                endedInside(root, left.get(0).name(), work, results);
                next = next.subList(1, next.size());
            }
            left = next;
        }
        results.values().forEach(r -> r.removeIf(t -> t.is("DONE")));
        return results;
    }

    /** One runner JVM over these runs, killed when it outlives their time. */
    private static void runOnce(Path root, String chapter, List<String> classpath, Map<String, String> properties,
            List<Run> runs, Path work) throws Exception {
        List<String> workbook = new ArrayList<>();
        List<String> libraries = new ArrayList<>();
        libraries.add(compileRunner(root, classpath).toString());
        for (String entry : classpath) {
            // the chapters' classes are loaded again for each mistake; the testkit and the libraries once
            boolean ours = entry.startsWith(root.toString() + File.separator) && !entry.contains(File.separator + "testkit" + File.separator);
            (ours ? workbook : libraries).add(entry);
        }
        Path testSeconds = work.resolve("test-seconds.tsv");
        Files.write(testSeconds, Reports.secondsPerTest(Reports.dir(root, chapter)), StandardCharsets.UTF_8);
        List<String> args = new ArrayList<>(List.of(work.resolve("results.tsv").toString(),
                String.valueOf(SECONDS_PER_MISTAKE), String.join(File.pathSeparator, workbook), testSeconds.toString()));
        runs.forEach(r -> args.addAll(r.args()));
        Process java = new ProcessBuilder(TestJvm.command(properties, libraries, "MistakesRunner", args))
                .directory(root.resolve(chapter).toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("run.log").toFile())).start();
        if (!java.waitFor(SECONDS_PER_MISTAKE * runs.size() + 60, TimeUnit.SECONDS)) {
            java.destroyForcibly().waitFor();
        }
    }

    /** The results file as it stands: every line the runner wrote so far, by mistake. */
    private static Map<String, List<TestResult>> read(Path out) throws IOException {
        Map<String, List<TestResult>> results = new LinkedHashMap<>();
        for (String line : Files.exists(out) ? Files.readAllLines(out, StandardCharsets.UTF_8) : List.<String>of()) {
            String[] f = line.split("\t", 4);
            if (f.length == 4) {
                results.computeIfAbsent(f[0], k -> new ArrayList<>()).add(new TestResult(f[1], f[2], unescape(f[3])));
            }
        }
        return results;
    }

    /** The runs whose mistake the runner has not finished (no DONE, no HUNG), in order. */
    private static List<Run> unfinished(List<Run> runs, Map<String, List<TestResult>> results) {
        List<Run> unfinished = new ArrayList<>();
        for (Run run : runs) {
            List<TestResult> r = results.get(run.name());
            if (r == null || r.stream().noneMatch(t -> t.is("DONE") || t.is("HUNG"))) {
                unfinished.add(run);
            }
        }
        return unfinished;
    }

    /** Records, in memory and in the results file, that the test JVM ended while running this mistake. */
    private static void endedInside(Path root, String name, Path work, Map<String, List<TestResult>> results)
            throws IOException {
        results.put(name, new ArrayList<>(List.of(new TestResult("FAILED", "(the runner)",
                "the test JVM ended while running this mistake: see " + root.relativize(work.resolve("run.log"))),
                new TestResult("DONE", "-", "-"))));
        Files.writeString(work.resolve("results.tsv"), name + "\tFAILED\t(the runner)\tthe test JVM ended while running it\n"
                + name + "\tDONE\t-\t-\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND, StandardOpenOption.CREATE);
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

    private static Path compileRunner(Path root, List<String> classpath) throws IOException {
        return TestJvm.compileOnce(root.resolve("tools/gate/MistakesRunner.java"), root.resolve("build/mistakes/runner"),
                classpath);
    }
}
