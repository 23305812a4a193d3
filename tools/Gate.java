import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import kaenlog.testkit.loop.Tasks;

/**
 * The progressive gate: every task of every chapter can be solved in order.
 *
 *   ./workbook gate                 every chapter (after mvn -Psolutions verify, whose reports it reads)
 *   ./workbook gate ch03-produce    one chapter
 *   ./workbook gate --after-maven build/ci/verify.log   each chapter once that running mvn verify moved past it
 *
 * For each chapter with tasks 1..T and each N in 1..T it builds the chapter as a learner has it
 * after tasks 1..N-1 (the reference's bodies of those tasks, the TODOs of tasks N..T: see
 * {@link Markers#variant}), under chNN/target/gate/ (the tracked sources are never written), with
 * every earlier chapter on the reference, and runs the chapter's tests: the test classes surefire
 * ran, on the test classpath surefire recorded in its reports, with the pom's system properties,
 * each state in a class loader of its own (its classes, the workbook's), a few states to a warm JVM.
 * It checks that:
 *   - every test of task N fails, on a "TODO chNN task N" (not a later task's, not a compile error,
 *     not another exception);
 *   - every test of tasks 1..N-1 passes (so with task N added, every test of task N passes; the
 *     state after the last task is the reference, which mvn -Psolutions verify ran);
 *   - a test declared @PassesOnSkeleton may pass before its task, but never fails except on a TODO
 *     of a task left (an assumption may skip it: a guide check on a learner's code);
 *   - a test of no task (the demo's golden test, the oracles) fails only on this chapter's TODOs
 *     while tasks are left, and on the skeleton fails on one;
 *   - every state runs as many tests per class as surefire ran (of a later task's class, its
 *     @PassesOnSkeleton tests: the others have no rule before their task, so they are not run).
 * It prints one line per chapter and exits 1 naming every test that broke a rule.
 */
public final class Gate {
    /** States built and run at once (-Dgate.jobs overrides). */
    static final int JOBS = 4;
    /** testkit's PassesOnSkeleton.TAG, which tools/gate/GateRunner.java filters on. */
    static final String TAG = "passes-on-skeleton";
    /**
     * The ONE place the tools name Maven for a build with every chapter on the reference (earlier
     * chapters included: -Dearlier=reference keeps them there whatever the learner's default is).
     * The gate runs it (with "test") only when a chapter has no surefire reports yet, for their test
     * classes and classpath (CI runs mvn -Psolutions verify just before); regen adds the golden flags.
     */
    static final List<String> MAVEN_REFERENCE = List.of("mvn", "-B", "-q", "-Psolutions", "-Dearlier=reference");
    static final List<String> REFERENCE_BUILD = concat(MAVEN_REFERENCE, "test", "-Dsurefire.printSummary=false");

    static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return List.copyOf(all);
    }

    static final long STATE_TIMEOUT_SECONDS = 300;
    /** Under --after-maven the running build makes the reports: a chapter without them is a problem, not a build of its own. */
    private static volatile boolean afterMaven;

    private Gate() {
    }

    record Result(String status, String className, String test, boolean passesOnSkeleton, String todo, String first) {
        String simpleClass() {
            return className.substring(className.lastIndexOf('.') + 1);
        }

        String id() {
            return simpleClass() + "." + test;
        }

        String why() {
            return status.equals("SKIPPED") ? "skipped" : first.isEmpty() ? status.toLowerCase() : first;
        }
    }

    static int main(Path root, String[] args) throws Exception {
        List<String> chapters = new ArrayList<>();
        List<String> named = new ArrayList<>();
        Path mavenLog = MavenLog.option(args, named);
        afterMaven = mavenLog != null;
        for (String wanted : named) {
            chapters.add(Markers.chapter(root, wanted, "usage: ./workbook gate [chNN...]"));
        }
        if (chapters.isEmpty()) {
            chapters.addAll(Markers.chapters(root));
        }
        List<String> problems = new ArrayList<>();
        long start = System.nanoTime();
        // One pool for every chapter's states: a chapter's last states overlap the next chapter's
        // first. The states wait on sockets, ZooKeeper sessions and child JVMs more than they
        // compute, so more states than cores keep the machine busy.
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Integer.getInteger("gate.jobs", JOBS)));
        try {
            List<Chapter> started = new ArrayList<>();
            for (String chapter : chapters) {
                // under --after-maven, each chapter as soon as Maven moved past it (CI's step 2 still running)
                MavenLog.await(mavenLog, chapter);
                started.add(start(root, chapter, pool));
            }
            for (Chapter chapter : started) {
                List<String> found = new ArrayList<>();
                System.out.println(check(chapter, found));
                problems.addAll(found);
            }
        } finally {
            pool.shutdownNow();
        }
        if (!problems.isEmpty()) {
            System.out.println("PROGRESSIVE GATE FAILED: " + problems.size() + " problem(s)");
            problems.forEach(p -> System.out.println("  " + p));
            return 1;
        }
        System.out.printf("progressive gate: every task of %s solvable in order (%d s)%n", String.join(", ", chapters),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        return 0;
    }

    /** What the reference run of a chapter (mvn -Psolutions verify) recorded: tests per class, the test JVM's properties. */
    record Reference(Map<String, Integer> testsPerClass, Map<String, String> properties) {
        int tests() {
            return testsPerClass.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /** Tests of one state, counted for the chapter's summary line. */
    record Counts(int taskTests, int chapterTests, int declared) {
    }

    /** A chapter whose states were handed to the pool; {@code states} is null when it could not be checked. */
    record Chapter(String name, List<Tasks.Task> tasks, Reference reference, Map<Integer, Future<State>> states,
            List<String> problems) {
    }

    /** One state's results and how long its build and test JVM took. */
    record State(List<Result> results, long nanos) {
    }

    static Chapter start(Path root, String chapter, ExecutorService pool) throws Exception {
        List<String> problems = new ArrayList<>();
        List<Tasks.Task> tasks = Markers.tasks(root, chapter, problems);
        Reference reference = reference(root, chapter, tasks, problems);
        List<String> classpath = reference == null ? null
                : testClasspath(root, chapter, reference.properties(), problems);
        if (classpath == null) {
            return new Chapter(chapter, tasks, reference, null, problems);
        }
        return new Chapter(chapter, tasks, reference,
                startStates(root, chapter, tasks, classpath, reference, compileRunner(root, classpath), pool), problems);
    }

    static String check(Chapter chapter, List<String> problems) throws Exception {
        problems.addAll(chapter.problems());
        if (chapter.states() == null) {
            return chapter.name() + ": not checked";
        }
        String id = chapter.name().substring(0, 4);
        Map<String, Integer> taskOf = taskOf(chapter.tasks());
        Map<Integer, List<Result>> results = new TreeMap<>();
        long nanos = await(chapter, results, problems);
        // The state before the last task runs every test (no class is of a later task): it counts
        // the chapter's tests and, per class, the @PassesOnSkeleton ones the earlier states run.
        List<Result> full = results.getOrDefault(chapter.tasks().size(), List.of());
        Map<String, Integer> declaredPerClass = new TreeMap<>();
        full.stream().filter(Result::passesOnSkeleton).forEach(r -> declaredPerClass.merge(r.className(), 1, Integer::sum));
        for (Map.Entry<Integer, List<Result>> e : results.entrySet()) {
            String miscounted = testsPerClass(chapter, e.getKey(), e.getValue(), taskOf, declaredPerClass);
            if (miscounted != null) {
                problems.add(miscounted);
            }
            problems.addAll(rules(id, e.getKey(), taskOf, e.getValue()));
        }
        long mine = problems.stream().filter(p -> p.startsWith(id) || p.startsWith(chapter.name())
                || p.contains(chapter.name() + "/")).count();
        Counts counts = counts(full, taskOf);
        return String.format("%s: %d tasks, %d tests (%d in task classes, %d whole-chapter, %d @PassesOnSkeleton),"
                + " %d states: %s (%d s of states)", chapter.name(), chapter.tasks().size(), chapter.reference().tests(),
                counts.taskTests(), counts.chapterTests(), counts.declared(), chapter.tasks().size(),
                mine == 0 ? "all held" : mine + " problem(s)", TimeUnit.NANOSECONDS.toSeconds(nanos));
    }

    /** Waits for every state of the chapter: their results by task, a problem for a state that broke; the states' time. */
    static long await(Chapter chapter, Map<Integer, List<Result>> results, List<String> problems) throws Exception {
        long nanos = 0;
        for (Map.Entry<Integer, Future<State>> e : chapter.states().entrySet()) {
            try {
                State state = e.getValue().get();
                results.put(e.getKey(), state.results());
                nanos += state.nanos();
            } catch (java.util.concurrent.ExecutionException failed) {
                problems.add(chapter.name() + " before task " + e.getKey() + ": " + failed.getCause().getMessage());
            }
        }
        return nanos;
    }

    /**
     * Null when the state before task n ran as many tests per class as it should (all of a class of
     * tasks 1..n or of no task, the @PassesOnSkeleton ones of a later task's), else the problem.
     */
    static String testsPerClass(Chapter chapter, int n, List<Result> results, Map<String, Integer> taskOf,
            Map<String, Integer> declaredPerClass) {
        Map<String, Integer> ran = new TreeMap<>();
        results.forEach(r -> ran.merge(r.className(), 1, Integer::sum));
        Map<String, Integer> expected = new TreeMap<>();
        chapter.reference().testsPerClass().forEach((c, count) -> {
            int tests = taskOf.getOrDefault(simple(c), 0) > n ? declaredPerClass.getOrDefault(c, 0) : count;
            if (tests > 0) {
                expected.put(c, tests);
            }
        });
        return ran.equals(expected) ? null : chapter.name() + " before task " + n + ": ran " + ran
                + " tests per class, expected " + expected + " (surefire ran " + chapter.reference().testsPerClass() + ")";
    }

    /**
     * The chapter's reference run, from its surefire reports (made first with Maven when there are
     * none), or null with a problem when they are missing, of a learner's code, or not all green.
     */
    static Reference reference(Path root, String chapter, List<Tasks.Task> tasks, List<String> problems)
            throws Exception {
        Path reports = Reports.dir(root, chapter);
        if (Reports.files(reports).isEmpty() && !afterMaven) {
            List<String> command = new ArrayList<>(REFERENCE_BUILD);
            command.addAll(List.of("-Dmaven.test.failure.ignore=true", "-pl", chapter, "-am"));
            new ProcessBuilder(command).directory(root.toFile()).inheritIO().start().waitFor();
        }
        List<Reports.Outcome> outcomes = Reports.outcomes(reports);
        if (outcomes.isEmpty()) {
            problems.add(chapter + ": no surefire reports in " + root.relativize(reports) + ": run mvn -Psolutions verify first");
            return null;
        }
        Map<String, String> properties = Reports.properties(Reports.files(reports).get(0));
        if (!"reference".equals(properties.get("chapter.kind"))) {
            problems.add(chapter + ": the surefire reports in " + root.relativize(reports) + " are of a run on "
                    + properties.get("chapter.kind") + " code, not the reference: run mvn -Psolutions verify first");
            return null;
        }
        Map<String, Integer> testsPerClass = new TreeMap<>();
        for (Reports.Outcome o : outcomes) {
            testsPerClass.merge(o.className(), 1, Integer::sum);
            if (o.status() != Reports.Status.PASSED) {
                problems.add(chapter + ": " + o.simpleClass() + "." + o.name() + " does not pass on the reference: "
                        + (o.failure() == null ? "skipped" : o.failure()));
            }
        }
        for (Tasks.Task t : tasks) {
            if (testsPerClass.keySet().stream().noneMatch(c -> c.endsWith("." + t.testClass()))) {
                problems.add(t.blocks().get(0).where() + ": task " + t.number() + " names " + t.testClass()
                        + ", but surefire ran no test class of that name in " + chapter);
            }
        }
        return new Reference(testsPerClass, properties);
    }

    /**
     * Every state (before task 1, 2, ... T), handed to the pool. A state before task n runs every
     * test class of tasks 1..n and of no task whole, and of a later task's class only its
     * {@code @PassesOnSkeleton} tests: its other tests have no rule before their task. The states
     * are dealt to {@link #runners} warm JVMs (tools/gate/GateRunner.java), the last states first:
     * they run the most tests, and a chapter's longest state started last was the gate's tail.
     */
    static Map<Integer, Future<State>> startStates(Path root, String chapter, List<Tasks.Task> tasks,
            List<String> classpath, Reference reference, Path runner, ExecutorService pool) {
        Map<String, Integer> taskOf = taskOf(tasks);
        Map<Integer, Future<State>> states = new TreeMap<>();
        List<List<Planned>> runs = new ArrayList<>();
        int n = runners(tasks.size());
        for (int i = 0; i < n; i++) {
            runs.add(new ArrayList<>());
        }
        for (int i = 0; i < tasks.size(); i++) {
            int number = tasks.get(tasks.size() - 1 - i).number();
            List<String> classes = reference.testsPerClass().keySet().stream()
                    .map(c -> taskOf.getOrDefault(simple(c), 0) > number ? c + "#" + TAG : c)
                    .toList();
            Planned state = new Planned(number, classes, new CompletableFuture<>());
            runs.get(i % n).add(state);
            states.put(number, state.result());
        }
        for (List<Planned> run : runs) {
            pool.submit(() -> runStates(root, chapter, classpath, reference.properties(), runner, run));
        }
        return states;
    }

    /** Warm JVMs for a chapter's states: one per four states (chapter 10's 13 in four), and at least one. */
    static int runners(int states) {
        return Math.max(1, (states + 3) / 4);
    }

    /** A state to build and run: its task, its test classes, and where its results go once it ran. */
    record Planned(int task, List<String> classes, CompletableFuture<State> result) {
    }

    static Map<String, Integer> taskOf(List<Tasks.Task> tasks) {
        Map<String, Integer> taskOf = new LinkedHashMap<>();
        tasks.forEach(t -> taskOf.put(t.testClass(), t.number()));
        return taskOf;
    }

    static String simple(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    static Counts counts(List<Result> results, Map<String, Integer> taskOf) {
        int taskTests = (int) results.stream().filter(r -> taskOf.containsKey(r.simpleClass())).count();
        return new Counts(taskTests, results.size() - taskTests,
                (int) results.stream().filter(Result::passesOnSkeleton).count());
    }

    /** Every rule a state's results break: "the state: the test and what it did". Pure: SelfTest checks it. */
    static List<String> rules(String id, int n, Map<String, Integer> taskOf, List<Result> results) {
        String state = n == 1 ? id + " skeleton" : id + " with tasks 1.." + (n - 1) + " done";
        List<String> problems = new ArrayList<>();
        for (Result r : results) {
            String broken = rule(id, n, taskOf.getOrDefault(r.simpleClass(), 0), r);
            if (broken != null) {
                problems.add(state + ": " + r.id() + broken);
            }
        }
        return problems;
    }

    /**
     * The gate's rule for one test in the state before task {@code n} (tasks 1..n-1 done), or null
     * when it holds; {@code t} is the test's task, 0 for a whole-chapter test.
     */
    static String rule(String id, int n, int t, Result r) {
        boolean passed = r.status().equals("PASSED");
        int todo = todoTask(r, id);
        if (r.passesOnSkeleton()) {
            // Declared to pass before its task (or on the skeleton): it may, but it never fails except
            // on a TODO of a task left, and once its task is done it passes. A guide check assumes
            // the reference and is skipped on a learner's code: fine.
            boolean broken = r.status().equals("FAILED") && (t > 0 && t < n || todo < n);
            return broken ? " is declared @PassesOnSkeleton but fails: " + r.why() : null;
        }
        if (t == n) {
            if (passed) {
                return " (task " + n + ") passes before its task is written"
                        + " (a test that cannot fail? if it must, declare it @PassesOnSkeleton)";
            }
            return r.todo().equals(id + " task " + n) ? null : " (task " + n + ") fails, but not on TODO " + id
                    + " task " + n + ": " + (r.todo().equals("-") ? "" : "on TODO " + r.todo() + ": ") + r.why();
        }
        if (t > 0) {
            return t > n || passed ? null : " (task " + t + ") does not pass after its task: " + r.why();
        }
        if (!passed) {
            return todo >= n ? null : " (no task: a whole-chapter test) fails, but not on a TODO of a task left: "
                    + r.why();
        }
        return n > 1 ? null : " (no task: a whole-chapter test) passes on the skeleton"
                + " (a test that cannot fail? if it must, declare it @PassesOnSkeleton)";
    }

    /** The task number of the TODO a test failed on, 0 when it failed on none of this chapter's. */
    static int todoTask(Result r, String id) {
        return r.todo().startsWith(id + " task ") ? Integer.parseInt(r.todo().substring(id.length() + 6)) : 0;
    }

    /** Surefire's test classpath, with the chapter's reference classes swapped for a state's. */
    static List<String> testClasspath(Path root, String chapter, Map<String, String> properties, List<String> problems) {
        String recorded = properties.get("surefire.test.class.path");
        String classes = root.resolve(chapter).resolve("target/classes").toString();
        if (recorded == null || !List.of(recorded.split(File.pathSeparator)).contains(classes)) {
            problems.add(chapter + ": the surefire report records no test classpath with " + classes);
            return null;
        }
        List<String> entries = new ArrayList<>(List.of(recorded.split(File.pathSeparator)));
        String engine = entries.stream().filter(e -> e.matches(".*/junit-platform-engine-[^/]*\\.jar")).findFirst()
                .orElse(null);
        String launcher = engine == null ? null : engine.replace("junit-platform-engine", "junit-platform-launcher");
        if (launcher == null || !Files.exists(Path.of(launcher))) {
            problems.add(chapter + ": no junit-platform-launcher beside " + engine
                    + " (mvn -Psolutions verify downloads it for surefire)");
            return null;
        }
        entries.add(launcher);
        return entries;
    }

    /** Compiles tools/gate/GateRunner.java against the JUnit launcher of the test classpath, once. */
    static Path compileRunner(Path root, List<String> classpath) throws IOException {
        return TestJvm.compileOnce(root.resolve("tools/gate/GateRunner.java"), root.resolve("build/gate/runner"), classpath);
    }

    /**
     * Builds these states and runs them in one warm JVM, again in a new one from the state after one
     * that hung or ended the JVM; completes each state's result, or fails it with what went wrong.
     */
    static void runStates(Path root, String chapter, List<String> classpath, Map<String, String> properties, Path runner,
            List<Planned> states) {
        try {
            buildAndRun(root, chapter, classpath, properties, runner, states);
        } catch (RuntimeException | Error e) {
            // never a state left without a result: the gate waits for every one
            states.forEach(state -> state.result().completeExceptionally(e));
        }
    }

    static void buildAndRun(Path root, String chapter, List<String> classpath, Map<String, String> properties,
            Path runner, List<Planned> states) {
        Path module = root.resolve(chapter);
        List<Planned> built = new ArrayList<>();
        Map<Integer, Long> compileNanos = new TreeMap<>();
        for (Planned state : states) {
            try {
                long start = System.nanoTime();
                build(root, chapter, state.task(), classpath);
                compileNanos.put(state.task(), System.nanoTime() - start);
                built.add(state);
            } catch (Exception | Error e) {
                state.result().completeExceptionally(e);
            }
        }
        List<Planned> left = built;
        while (!left.isEmpty()) {
            try {
                runInOneJvm(module, classpath, properties, runner, left);
            } catch (Exception | Error e) {
                left.forEach(state -> state.result().completeExceptionally(e));
                return;
            }
            List<Planned> next = new ArrayList<>();
            boolean said = false; // a state said why the JVM stopped (it hung, or the runner broke)
            for (Planned state : left) {
                Path dir = stateDir(module, state.task());
                Path out = dir.resolve("results.tsv");
                try {
                    if (Files.exists(out)) {
                        state.result().complete(new State(results(out), compileNanos.get(state.task())
                                + stateNanos(Path.of(out + ".times"))));
                    } else if (Files.exists(Path.of(out + ".hung"))) {
                        said = true;
                        state.result().completeExceptionally(new IllegalStateException("the tests did not finish in "
                                + STATE_TIMEOUT_SECONDS + " s (see " + log(module, left) + ")"));
                    } else if (Files.exists(Path.of(out + ".broken"))) {
                        said = true;
                        state.result().completeExceptionally(new IllegalStateException("the runner broke: "
                                + TestJvm.firstLines(Files.readString(Path.of(out + ".broken")), 6)));
                    } else {
                        next.add(state);
                    }
                } catch (IOException e) {
                    state.result().completeExceptionally(e);
                }
            }
            if (!said && !next.isEmpty()) {
                // the JVM ended inside the first state left without a word (a test called System.exit)
                next.get(0).result().completeExceptionally(new IllegalStateException("the test JVM ended while running"
                        + " this state (see " + log(module, left) + ")"));
                next = next.subList(1, next.size());
            }
            left = next;
        }
    }

    /** The chapter's reference sources as a learner has them before task n, written under {@code src}. */
    static List<File> writeState(Path root, String chapter, int n, Path src) throws IOException {
        Path reference = Markers.reference(root, chapter);
        List<File> sources = new ArrayList<>();
        for (Path file : Markers.javaFiles(reference)) {
            Path target = src.resolve(reference.relativize(file));
            Files.createDirectories(target.getParent());
            Files.writeString(target, Markers.variant(Files.readString(file, StandardCharsets.UTF_8), n),
                    StandardCharsets.UTF_8);
            sources.add(target.toFile());
        }
        return sources;
    }

    /** The test classpath without the chapter's own classes and tests: what a state compiles against. */
    static List<String> compileClasspath(Path module, List<String> classpath) {
        String chapterClasses = module.resolve("target/classes").toString();
        String testClasses = module.resolve("target/test-classes").toString();
        return classpath.stream().filter(e -> !e.equals(chapterClasses) && !e.equals(testClasses)).toList();
    }

    static Path stateDir(Path module, int n) {
        return module.resolve("target/gate/before-task-" + n);
    }

    /** The log of the JVM that runs these states (their test output, and what killed it). */
    static Path log(Path module, List<Planned> states) {
        return module.resolve("target/gate/jvm-" + states.get(0).task() + ".log");
    }

    /** Builds the chapter with tasks 1..n-1 done into its state folder's classes. */
    static void build(Path root, String chapter, int n, List<String> classpath) throws Exception {
        Path module = root.resolve(chapter);
        Path dir = stateDir(module, n);
        Workbook.deleteTree(dir);
        Path classes = dir.resolve("classes");
        long compileStart = System.nanoTime();
        long compileCpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        String errors = TestJvm.compile(writeState(root, chapter, n, dir.resolve("src")), compileClasspath(module, classpath),
                classes);
        if (errors != null) {
            throw new IllegalStateException("does not compile (" + dir + "):\n" + TestJvm.firstLines(errors, 10));
        }
        Files.writeString(dir.resolve("compile.times"), (System.nanoTime() - compileStart) / 1_000_000 + " ms wall, "
                + (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - compileCpu) / 1_000_000
                + " ms CPU\n");
    }

    /** A state's test time, from the runner's .times file (its last line: the state's wall time). */
    static long stateNanos(Path times) throws IOException {
        List<String> lines = Files.readAllLines(times, StandardCharsets.UTF_8);
        return TimeUnit.MILLISECONDS.toNanos(Long.parseLong(lines.get(lines.size() - 1).split("\t")[0]));
    }

    /**
     * One runner JVM over these states, killed when it outlives their time: on its classpath the
     * runner, the testkit and the libraries; each state's classes (and the chapter's resources) and
     * the workbook's other classes go to the state's own class loader.
     */
    static void runInOneJvm(Path module, List<String> classpath, Map<String, String> properties, Path runner,
            List<Planned> states) throws Exception {
        Path root = module.getParent();
        String chapterClasses = module.resolve("target/classes").toString();
        List<String> workbook = new ArrayList<>();
        List<String> libraries = new ArrayList<>(List.of(runner.toString()));
        for (String entry : classpath) {
            // the chapters' classes are loaded again for each state; the testkit and the libraries once
            boolean ours = entry.startsWith(root + File.separator) && !entry.contains(File.separator + "testkit" + File.separator);
            if (!entry.equals(chapterClasses)) {
                (ours ? workbook : libraries).add(entry);
            }
        }
        List<String> args = new ArrayList<>(List.of(String.valueOf(STATE_TIMEOUT_SECONDS),
                String.join(File.pathSeparator, workbook)));
        for (Planned state : states) {
            Path dir = stateDir(module, state.task());
            List<String> own = new ArrayList<>(List.of(dir.resolve("classes").toString()));
            Path resources = module.resolve("src/main/resources");
            if (Files.isDirectory(resources)) {
                own.add(resources.toString());
            }
            if (state != states.get(0)) {
                args.add("--");
            }
            args.add(dir.resolve("results.tsv").toString());
            args.add(String.join(File.pathSeparator, own));
            args.addAll(state.classes());
        }
        Process java = new ProcessBuilder(TestJvm.command(properties, libraries, "GateRunner", args))
                .directory(module.toFile()).redirectErrorStream(true)
                .redirectOutput(log(module, states).toFile()).start();
        if (!java.waitFor(STATE_TIMEOUT_SECONDS * states.size() + 60, TimeUnit.SECONDS)) {
            java.destroyForcibly().waitFor();
        }
    }

    /** GateRunner's lines: status, class, test, @PassesOnSkeleton, the TODO, the failure's first line. */
    static List<Result> results(Path out) throws IOException {
        List<Result> results = new ArrayList<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t", -1);
            results.add(new Result(f[0], f[1], f[2], Boolean.parseBoolean(f[3]), f[4], f[5]));
        }
        return results;
    }
}
