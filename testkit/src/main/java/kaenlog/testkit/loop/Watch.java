package kaenlog.testkit.loop;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The warm loop behind {@code ./workbook watch chNN}: one JVM that, on every save, recompiles the
 * source sets that changed (in-process javac), loads them in a fresh class loader and runs the
 * chapter's tests through the JUnit Platform Launcher: the current task's test class first, so its
 * verdict shows at once, then the rest of the chapter. Same sources as {@code mvn -PchNN test}
 * (chapter NN and the earlier chapters from the learner's tree; {@code --earlier=reference} takes
 * the earlier ones from solutions/), same test classes (surefire's default includes), same system
 * properties (read from the poms), same engines.
 *
 * <p>Started by tools/Watch.java with the test classpath (JUnit, AssertJ, kafka-clients, testkit).
 * Options: {@code --earlier=reference}, {@code --solutions} (chapter NN from the reference too),
 * {@code --all} (every failure in full), {@code --once} (one round, exit 0 when green),
 * {@code --list} (with --once: one line per test, for comparing with Maven's reports).
 */
public final class Watch {
    private final Path root;
    private final String chapter;
    private final boolean earlierReference;
    private final boolean solutions;
    private final boolean all;
    private final PrintStream out;
    private final boolean terminal;
    private final List<SourceSet> sets = new ArrayList<>();
    private final List<Path> resources = new ArrayList<>();
    private final List<Tasks.Task> tasks;
    private final Map<String, String> systemProperties;
    private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    private final StandardJavaFileManager files;
    private final Launcher launcher = LauncherFactory.create();
    private final TaskTable table = new TaskTable();
    private String current;
    /** The sources of this chapter changed by the last save, relative to src/main/java. */
    private final Set<String> saved = new LinkedHashSet<>();
    private final Map<String, Tasks.Task> taskOfFile;

    /** One javac unit: a folder of sources compiled into one output folder. */
    static final class SourceSet {
        final String name;
        final Path sources;
        final Path output;
        Map<Path, String> stamps = Map.of();
        Map<String, String> api = Map.of();

        SourceSet(String name, Path sources, Path output) {
            this.name = name;
            this.sources = sources;
            this.output = output;
        }

        Map<Path, String> scan() throws IOException {
            Map<Path, String> now = new HashMap<>();
            if (Files.isDirectory(sources)) {
                try (Stream<Path> walk = Files.walk(sources)) {
                    for (Path p : walk.filter(f -> f.toString().endsWith(".java")).toList()) {
                        now.put(p, Files.getLastModifiedTime(p).toMillis() + ":" + Files.size(p));
                    }
                }
            }
            return now;
        }
    }

    Watch(Path root, String chapter, boolean earlierReference, boolean solutions, boolean all, PrintStream out) throws Exception {
        this.root = root;
        this.chapter = chapter;
        this.earlierReference = earlierReference;
        this.solutions = solutions;
        this.all = all;
        this.out = out;
        this.terminal = System.console() != null;
        this.files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        this.tasks = Tasks.of(root, chapter);
        this.taskOfFile = Tasks.byFile(root, chapter);
        Path build = root.resolve("build/watch");
        for (String module : TaskTableListener.chaptersUpTo(root, chapter)) {
            boolean reference = module.equals(chapter) ? solutions : earlierReference || solutions;
            Path src = reference ? root.resolve("solutions").resolve(module).resolve("src/main/java")
                    : root.resolve(module).resolve("src/main/java");
            // target/classes and target/test-classes: the names ArchUnit's "no tests" import option knows.
            sets.add(new SourceSet(module, src, build.resolve(module).resolve("target/classes")));
            resources.add(root.resolve(module).resolve("src/main/resources"));
        }
        sets.add(new SourceSet(chapter + " tests", root.resolve(chapter).resolve("src/test/java"),
                build.resolve(chapter).resolve("target/test-classes")));
        resources.add(root.resolve(chapter).resolve("src/test/resources"));
        List<String> profiles = new ArrayList<>();
        if (solutions) {
            profiles.add("solutions");
        }
        profiles.add(chapter.substring(0, 4));
        this.systemProperties = PomProperties.surefireSystemProperties(root, chapter, profiles);
        // The Maven-side table stays quiet: this loop prints its own screen.
        systemProperties.put("workbook.tasks", "false");
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
        String chapter = null;
        boolean earlierReference = false;
        boolean solutions = false;
        boolean all = false;
        boolean once = false;
        boolean list = false;
        for (String a : args) {
            switch (a) {
                case "--earlier=reference" -> earlierReference = true;
                case "--earlier=learner", "--earlier=yours" -> earlierReference = false;
                case "--solutions" -> solutions = true;
                case "--all" -> all = true;
                case "--once" -> once = true;
                case "--list" -> list = true;
                default -> {
                    if (a.startsWith("-") || chapter != null) {
                        usage("unknown argument '" + a + "'");
                    }
                    chapter = a;
                }
            }
        }
        if (chapter == null) {
            usage("which chapter?");
        }
        chapter = module(root, chapter);
        Watch watch = new Watch(root, chapter, earlierReference, solutions, all, System.out);
        if (once) {
            boolean green = watch.round(watch.started);
            if (list) {
                watch.list();
            }
            System.exit(green ? 0 : 1);
        }
        watch.loop();
    }

    static void usage(String problem) {
        System.err.println("watch: " + problem + "\nusage: ./workbook watch chNN [--earlier=reference] [--all]");
        System.exit(2);
    }

    static String module(Path root, String wanted) throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            List<String> chapters = dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted().toList();
            for (String c : chapters) {
                if (c.equals(wanted) || c.startsWith(wanted + "-")) {
                    return c;
                }
            }
            usage("no chapter '" + wanted + "' (chapters: " + String.join(", ", chapters) + ")");
            return null;
        }
    }

    // ---------------------------------------------------------------- the loop

    private final long started = System.currentTimeMillis();
    private boolean firstRound = true;

    void loop() throws Exception {
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            Set<Path> watched = new LinkedHashSet<>();
            register(watcher, watched);
            round(started);
            while (true) {
                WatchKey key = watcher.take();
                // An editor's save is often several events (a temp file, a rename): let them settle.
                while (key != null) {
                    key.pollEvents();
                    key.reset();
                    key = watcher.poll(40, TimeUnit.MILLISECONDS);
                }
                register(watcher, watched);
                long savedAt = latestChange();
                if (savedAt >= 0) {
                    round(savedAt);
                }
            }
        }
    }

    private void register(WatchService watcher, Set<Path> watched) throws IOException {
        List<Path> roots = new ArrayList<>();
        sets.forEach(s -> roots.add(s.sources));
        roots.addAll(resources);
        for (Path dir : roots) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path d : walk.filter(Files::isDirectory).toList()) {
                    if (watched.add(d)) {
                        d.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                                StandardWatchEventKinds.ENTRY_DELETE);
                    }
                }
            }
        }
    }

    /** The modification time of the newest changed source, or -1 when no source changed (e.g. an editor's backup file). */
    private long latestChange() throws IOException {
        long latest = -1;
        saved.clear();
        for (SourceSet set : sets) {
            Map<Path, String> now = set.scan();
            if (!now.equals(set.stamps)) {
                for (Map.Entry<Path, String> e : now.entrySet()) {
                    if (!e.getValue().equals(set.stamps.get(e.getKey()))) {
                        latest = Math.max(latest, Files.getLastModifiedTime(e.getKey()).toMillis());
                        if (set.name.equals(chapter)) {
                            saved.add(set.sources.relativize(e.getKey()).toString());
                        }
                    }
                }
                latest = Math.max(latest, set.stamps.isEmpty() || now.size() < set.stamps.size() ? System.currentTimeMillis() : latest);
            }
        }
        return latest;
    }

    /** One verdict: compile what changed, run the current task's tests, then the rest. True when all is green. */
    boolean round(long savedAt) throws Exception {
        clear();
        out.println("watch: " + chapter + " · " + origin() + " · compiling ...");
        Optional<String> errors = compile();
        long compiled = System.currentTimeMillis();
        if (errors.isPresent()) {
            clear();
            out.print(errors.get());
            out.printf("%ndoes not compile: %.1f s after the %s · %s%n", (compiled - savedAt) / 1000.0, since(), watchedWhat());
            firstRound = false;
            return false;
        }
        table.clear();
        List<String> order = testClassesInOrder();
        // The current task (the first that fails); with every task green, the task of the file just saved.
        String lead = current != null ? current : saved.stream().map(taskOfFile::get).filter(t -> t != null)
                .min(java.util.Comparator.comparingInt(Tasks.Task::number)).map(Tasks.Task::testClass).orElse(null);
        List<String> first = lead != null && order.contains(lead) ? List.of(lead) : List.of();
        try (URLClassLoader loader = loader()) {
            if (!first.isEmpty()) {
                run(loader, first);
                long verdict = System.currentTimeMillis();
                Set<String> pending = new LinkedHashSet<>(order);
                pending.removeAll(first);
                screen(pending, String.format("first verdict %.1f s after the %s; running the rest ...", (verdict - savedAt) / 1000.0, since()));
            }
            List<String> rest = new ArrayList<>(order);
            rest.removeAll(first);
            run(loader, rest);
        }
        long done = System.currentTimeMillis();
        current = table.currentTask(tasks).map(Tasks.Task::testClass).orElse(null);
        boolean green = table.outcomes().stream().allMatch(o -> o.failure() == null);
        screen(Set.of(), String.format("%s whole chapter %.1f s after the %s (compiled at %.1f s) · %s",
                green ? "GREEN:" : "red:", (done - savedAt) / 1000.0, since(), (compiled - savedAt) / 1000.0, watchedWhat()));
        firstRound = false;
        return green;
    }

    private void screen(Set<String> pending, String footer) {
        clear();
        out.println("watch: " + chapter + " · " + origin());
        out.print(table.render(chapter, tasks, pending, all, yourCode()));
        out.println();
        out.println(footer);
        out.flush();
    }

    private void clear() {
        if (terminal) {
            out.print("\033[H\033[2J");
        } else {
            out.println("----");
        }
    }

    private String origin() {
        return solutions ? "the reference solutions" : earlierReference ? "your " + chapter.substring(0, 4) + " on the reference's earlier chapters"
                : "your code (this chapter and the earlier ones)";
    }

    private String since() {
        return firstRound ? "start" : "save";
    }

    private String watchedWhat() {
        String what = solutions ? "solutions/" : earlierReference || chapter.startsWith("ch01") ? chapter + "/src"
                : "the src of ch01.." + chapter.substring(0, 4);
        return "watching " + what + ", Ctrl-C stops";
    }

    private Predicate<String> yourCode() {
        List<SourceSet> learner = sets.stream().filter(s -> !s.name.endsWith(" tests") && !s.sources.startsWith(root.resolve("solutions"))).toList();
        return className -> {
            String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
            String file = outer.replace('.', '/') + ".java";
            return learner.stream().anyMatch(s -> Files.exists(s.sources.resolve(file)));
        };
    }

    // ---------------------------------------------------------------- compiling

    /**
     * Recompiles what changed: only the edited files when their classes' API stays the same (an edit
     * inside a method body), else the whole source set and every set after it. The errors of the
     * first set that fails, if any.
     */
    private Optional<String> compile() throws IOException {
        boolean upstreamApiChanged = false;
        List<Path> classpath = new ArrayList<>(jars());
        for (SourceSet set : sets) {
            Map<Path, String> now = set.scan();
            List<Path> changed = now.keySet().stream().filter(p -> !now.get(p).equals(set.stamps.get(p))).sorted().toList();
            boolean deleted = set.stamps.keySet().stream().anyMatch(p -> !now.containsKey(p));
            boolean whole = upstreamApiChanged || deleted || set.stamps.isEmpty() || !Files.isDirectory(set.output);
            if (!whole && !changed.isEmpty()) {
                List<Path> own = new ArrayList<>(classpath);
                own.add(set.output);
                Optional<String> errors = javac(set, changed, own);
                if (errors.isPresent()) {
                    return errors;
                }
                whole = !ClassApi.of(set.output).equals(set.api);
            }
            if (whole) {
                deleteTree(set.output);
                Files.createDirectories(set.output);
                Optional<String> errors = javac(set, now.keySet().stream().sorted().toList(), classpath);
                if (errors.isPresent()) {
                    set.stamps = Map.of();
                    return errors;
                }
                Map<String, String> api = ClassApi.of(set.output);
                upstreamApiChanged |= !api.equals(set.api);
                set.api = api;
            }
            set.stamps = now;
            classpath.add(set.output);
        }
        return Optional.empty();
    }

    private Optional<String> javac(SourceSet set, List<Path> sources, List<Path> classpath) throws IOException {
        if (sources.isEmpty()) {
            return Optional.empty();
        }
        files.setLocationFromPaths(StandardLocation.CLASS_OUTPUT, List.of(set.output));
        files.setLocationFromPaths(StandardLocation.CLASS_PATH, classpath);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("--release", "17", "-encoding", "UTF-8", "-proc:none", "-implicit:none",
                "-sourcepath", "", "-nowarn", "-Xlint:none");
        boolean ok = javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources)).call();
        if (ok) {
            return Optional.empty();
        }
        List<Diagnostic<? extends JavaFileObject>> errors = diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
        StringBuilder text = new StringBuilder("watch: " + set.name + " does not compile (" + errors.size() + " error"
                + (errors.size() == 1 ? "" : "s") + ")" + System.lineSeparator() + System.lineSeparator());
        for (Diagnostic<? extends JavaFileObject> d : all ? errors : errors.subList(0, Math.min(1, errors.size()))) {
            text.append(describe(d));
        }
        if (!all && errors.size() > 1) {
            text.append(String.format("(%d more errors: --all shows every one)%n", errors.size() - 1));
        }
        return Optional.of(text.toString());
    }

    /** As javac and Maven print it: file:line: message, the source line, a caret under the column. */
    private String describe(Diagnostic<? extends JavaFileObject> d) {
        String nl = System.lineSeparator();
        StringBuilder text = new StringBuilder();
        String file = d.getSource() == null ? "?" : root.relativize(Path.of(d.getSource().toUri())).toString();
        text.append(file).append(':').append(d.getLineNumber()).append(": error: ").append(d.getMessage(Locale.ROOT)).append(nl);
        try {
            if (d.getSource() != null && d.getLineNumber() > 0) {
                String line = Files.readAllLines(Path.of(d.getSource().toUri()), StandardCharsets.UTF_8).get((int) d.getLineNumber() - 1);
                text.append(line).append(nl).append(" ".repeat((int) Math.max(0, d.getColumnNumber() - 1))).append('^').append(nl);
            }
        } catch (IOException | IndexOutOfBoundsException ignored) {
            // the message alone still names file and line
        }
        return text.append(nl).toString();
    }

    /** The engine's own classpath (JUnit, AssertJ, kafka-clients, the testkit): what the chapter compiles against. */
    private static List<Path> jars() {
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("watch.classpath", "").split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                jars.add(Path.of(entry));
            }
        }
        return jars;
    }

    // ---------------------------------------------------------------- running

    private URLClassLoader loader() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (SourceSet set : sets) {
            urls.add(set.output.toUri().toURL());
        }
        for (Path r : resources) {
            if (Files.isDirectory(r)) {
                urls.add(r.toUri().toURL());
            }
        }
        // Unnamed: a named loader would prefix every stack frame the learner reads with its name.
        return new URLClassLoader(urls.toArray(URL[]::new), Watch.class.getClassLoader());
    }

    /** surefire's default includes: Test*, *Test, *Tests, *TestCase; top-level classes only; task order first. */
    private List<String> testClassesInOrder() throws IOException {
        Path classes = sets.get(sets.size() - 1).output;
        List<String> found = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            for (Path p : walk.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().contains("$")).sorted().toList()) {
                String name = classes.relativize(p).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", "");
                String simple = name.substring(name.lastIndexOf('.') + 1);
                if (simple.startsWith("Test") || simple.endsWith("Test") || simple.endsWith("Tests") || simple.endsWith("TestCase")) {
                    found.add(name);
                }
            }
        }
        List<String> ordered = new ArrayList<>();
        for (Tasks.Task task : tasks) {
            found.stream().filter(n -> n.endsWith("." + task.testClass()) && !ordered.contains(n)).forEach(ordered::add);
        }
        found.stream().filter(n -> !ordered.contains(n)).forEach(ordered::add);
        return qualified(ordered);
    }

    private final Map<String, String> simpleToQualified = new HashMap<>();

    private List<String> qualified(List<String> names) {
        List<String> simple = new ArrayList<>();
        for (String n : names) {
            String s = n.substring(n.lastIndexOf('.') + 1);
            simpleToQualified.put(s, n);
            simple.add(s);
        }
        return simple;
    }

    private void run(URLClassLoader loader, List<String> simpleNames) throws Exception {
        if (simpleNames.isEmpty()) {
            return;
        }
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        Map<String, String> previous = new HashMap<>();
        systemProperties.forEach((k, v) -> previous.put(k, System.setProperty(k, v)));
        thread.setContextClassLoader(loader);
        // What the tests print (and kafka-clients' SLF4J notice) would scroll the verdict away;
        // surefire keeps it out of the console too.
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
            for (String simple : simpleNames) {
                request.selectors(selectClass(Class.forName(simpleToQualified.get(simple), false, loader)));
            }
            LauncherDiscoveryRequest built = request.build();
            launcher.execute(built, table);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            thread.setContextClassLoader(before);
        }
    }

    /** --list: per test class "Class tests=N failures=F skipped=S", sorted, to compare with surefire's reports. */
    void list() {
        Map<String, int[]> counts = new java.util.TreeMap<>();
        for (TaskTable.Outcome o : table.outcomes()) {
            int[] c = counts.computeIfAbsent(o.testClass(), k -> new int[3]);
            c[0]++;
            c[1] += o.failure() != null ? 1 : 0;
            c[2] += o.skipped() ? 1 : 0;
        }
        counts.forEach((cls, c) -> out.println(cls + " tests=" + c[0] + " failures=" + c[1] + " skipped=" + c[2]));
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.delete(p);
            }
        }
    }
}
