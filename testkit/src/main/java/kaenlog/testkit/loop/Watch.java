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
 * verdict shows at once, then the rest of the chapter. Same test classes as {@code mvn -PchNN test}
 * (surefire's default includes), same system properties (read from the poms), same engines, same
 * table. The earlier chapters are chosen as {@code ./workbook status} does: each one's task tests
 * run first on the learner's code of it (warm, again only when it changed), and it is the learner's
 * when all its tasks pass, else the reference's; the screen says which, and the table's first
 * lines say why. {@code --earlier=reference} takes every earlier chapter from solutions/,
 * {@code --earlier=yours} every one from the learner's tree (as {@code mvn -PchNN test} does).
 *
 * <p>Started by tools/Watch.java with the test classpath (JUnit, AssertJ, kafka-clients, testkit).
 * Options: {@code --earlier=reference|yours}, {@code --solutions} (chapter NN from the reference too),
 * {@code --all} (every failure in full), {@code --once} (one round, exit 0 when green),
 * {@code --list} (with --once: one line per test, for comparing with Maven's reports).
 */
public final class Watch {
    private final Path root;
    private final String chapter;
    private final Earlier earlierMode;
    private final boolean solutions;
    private final boolean all;
    private final PrintStream out;
    private final boolean terminal;
    /** The earlier chapters in order, then this chapter. */
    private final List<String> modules;
    /** Per module: its learner's and its reference's sources, and its tests (compiled against one of them). */
    private final Map<String, SourceSet> learner = new HashMap<>();
    private final Map<String, SourceSet> reference = new HashMap<>();
    private final Map<String, SourceSet> tests = new HashMap<>();
    private final List<Path> resources = new ArrayList<>();
    private final List<Tasks.Task> tasks;
    private final Map<String, Map<String, String>> systemProperties = new HashMap<>();
    private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    private final StandardJavaFileManager files;
    private final Launcher launcher = LauncherFactory.create();
    private final TaskTable table = new TaskTable();
    private String current;
    /** The sources of this chapter changed by the last save, relative to src/main/java. */
    private final Set<String> saved = new LinkedHashSet<>();
    private final Map<String, Tasks.Task> taskOfFile;
    /** Per earlier chapter: the learner's code of it on its own task tests, and the inputs that result is for. */
    private final Map<String, EarlierChapters.Earlier> probed = new HashMap<>();
    private final Map<String, String> probedInputs = new HashMap<>();
    /** Per earlier chapter: true when this chapter's tests run on the reference's code of it. */
    private final Map<String, Boolean> onReference = new HashMap<>();

    /** Whose earlier chapters: chosen as ./workbook status does, the reference's, or the learner's. */
    enum Earlier { CHOSEN, REFERENCE, YOURS }

    /** One javac unit: a folder of sources compiled into one output folder. */
    static final class SourceSet {
        final String name;
        final String module;
        final String kind;
        final Path sources;
        final Path output;
        Map<Path, String> stamps = Map.of();
        Map<String, String> api = Map.of();
        /** Bumped whenever this set's API changes: what compiled against it must be compiled again. */
        int version;
        /** The sets (and their versions) this one was last compiled against. */
        String upstream;

        SourceSet(String name, String module, String kind, Path sources, Path output) {
            this.name = name;
            this.module = module;
            this.kind = kind;
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

    Watch(Path root, String chapter, Earlier earlierMode, boolean solutions, boolean all, PrintStream out) throws Exception {
        this.root = root;
        this.chapter = chapter;
        this.earlierMode = solutions ? Earlier.REFERENCE : earlierMode;
        this.solutions = solutions;
        this.all = all;
        this.out = out;
        this.terminal = System.console() != null;
        this.files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        this.tasks = Tasks.of(root, chapter);
        this.taskOfFile = Tasks.byFile(root, chapter);
        this.modules = TaskTableListener.chaptersUpTo(root, chapter);
        Path build = root.resolve("build/watch");
        for (String module : modules) {
            // target/classes and target/test-classes: the names ArchUnit's "no tests" import option knows,
            // and the module's name two levels up, from which EarlierChapterFailures names a test's chapter.
            learner.put(module, new SourceSet(module, module, "learner", root.resolve(module).resolve("src/main/java"),
                    build.resolve("learner").resolve(module).resolve("target/classes")));
            reference.put(module, new SourceSet(module + " (reference)", module, "reference",
                    root.resolve("solutions").resolve(module).resolve("src/main/java"),
                    build.resolve("reference").resolve(module).resolve("target/classes")));
            boolean testsOnReference = module.equals(chapter) && solutions;
            tests.put(module, new SourceSet(module + " tests", module, "test", root.resolve(module).resolve("src/test/java"),
                    build.resolve(testsOnReference ? "reference" : "learner").resolve(module).resolve("target/test-classes")));
            resources.add(root.resolve(module).resolve("src/main/resources"));
            List<String> profiles = new ArrayList<>();
            if (solutions) {
                profiles.add("solutions");
            }
            profiles.add(module.substring(0, 4));
            Map<String, String> properties = PomProperties.surefireSystemProperties(root, module, profiles);
            // The Maven-side table stays quiet: this loop prints its own screen.
            properties.put("workbook.tasks", "false");
            systemProperties.put(module, properties);
        }
        resources.add(root.resolve(chapter).resolve("src/test/resources"));
        for (String module : earlierModules()) {
            onReference.put(module, this.earlierMode != Earlier.YOURS);
        }
    }

    private List<String> earlierModules() {
        return modules.subList(0, modules.size() - 1);
    }

    /** What a run of {@code module}'s tests compiles, in order: the earlier chapters as chosen, the module's sources, its tests. */
    private List<SourceSet> chain(String module, boolean ownOnReference) {
        List<SourceSet> chain = new ArrayList<>();
        for (String m : modules) {
            if (m.equals(module)) {
                break;
            }
            chain.add(onReference.get(m) ? reference.get(m) : learner.get(m));
        }
        chain.add(ownOnReference ? reference.get(module) : learner.get(module));
        chain.add(tests.get(module));
        return chain;
    }

    private List<SourceSet> mainChain() {
        return chain(chapter, solutions);
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
        String chapter = null;
        Earlier earlier = Earlier.CHOSEN;
        boolean solutions = false;
        boolean all = false;
        boolean once = false;
        boolean list = false;
        for (String a : args) {
            switch (a) {
                case "--earlier=reference" -> earlier = Earlier.REFERENCE;
                case "--earlier=learner", "--earlier=yours" -> earlier = Earlier.YOURS;
                case "--earlier=chosen", "--earlier=status" -> earlier = Earlier.CHOSEN;
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
        Watch watch = new Watch(root, chapter, earlier, solutions, all, System.out);
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
        System.err.println("watch: " + problem + "\nusage: ./workbook watch chNN [--earlier=reference|yours] [--all]");
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
        watchedSets().forEach(set -> roots.add(set.sources));
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

    /** What a save can change: this chapter's run and, unless every earlier chapter is the reference's, their own tests. */
    private List<SourceSet> watchedSets() {
        Set<SourceSet> watched = new LinkedHashSet<>(mainChain());
        if (earlierMode != Earlier.REFERENCE) {
            for (String module : earlierModules()) {
                watched.add(learner.get(module));
                watched.add(tests.get(module));
            }
        }
        return new ArrayList<>(watched);
    }

    /** The modification time of the newest changed source, or -1 when no source changed (e.g. an editor's backup file). */
    private long latestChange() throws IOException {
        long latest = -1;
        saved.clear();
        for (SourceSet set : watchedSets()) {
            Map<Path, String> now = set.scan();
            if (!now.equals(set.stamps)) {
                for (Map.Entry<Path, String> e : now.entrySet()) {
                    if (!e.getValue().equals(set.stamps.get(e.getKey()))) {
                        latest = Math.max(latest, Files.getLastModifiedTime(e.getKey()).toMillis());
                        if (set == learner.get(chapter) || set == reference.get(chapter)) {
                            saved.add(set.sources.relativize(e.getKey()).toString());
                        }
                    }
                }
                latest = Math.max(latest, set.stamps.isEmpty() || now.size() < set.stamps.size() ? System.currentTimeMillis() : latest);
            }
        }
        return latest;
    }

    /** One verdict: choose the earlier chapters, compile what changed, run the current task's tests, then the rest. True when all is green. */
    boolean round(long savedAt) throws Exception {
        clear();
        out.println("watch: " + chapter + " · " + origin() + " · compiling ...");
        chooseEarlier();
        Optional<String> errors = compile(mainChain());
        long compiled = System.currentTimeMillis();
        if (errors.isPresent()) {
            clear();
            out.println("watch: " + chapter + " · " + origin());
            earlierLines().forEach(out::println);
            out.print(errors.get());
            out.printf("%ndoes not compile: %.1f s after the %s · %s%n", (compiled - savedAt) / 1000.0, since(), watchedWhat());
            firstRound = false;
            return false;
        }
        table.clear();
        List<String> order = testClassesInOrder(tests.get(chapter).output, tasks);
        // The current task (the first that fails); with every task green, the task of the file just saved.
        String leadClass = current != null ? current : saved.stream().map(taskOfFile::get).filter(t -> t != null)
                .min(java.util.Comparator.comparingInt(Tasks.Task::number)).map(Tasks.Task::testClass).orElse(null);
        List<String> first = order.stream().filter(n -> leadClass != null && n.endsWith("." + leadClass)).limit(1).toList();
        try (URLClassLoader loader = loader(mainChain(), chapter)) {
            if (!first.isEmpty()) {
                run(loader, chapter, first, table);
                long verdict = System.currentTimeMillis();
                Set<String> pending = new LinkedHashSet<>(simple(order));
                pending.removeAll(simple(first));
                screen(pending, String.format("first verdict %.1f s after the %s; running the rest ...", (verdict - savedAt) / 1000.0, since()));
            }
            List<String> rest = new ArrayList<>(order);
            rest.removeAll(first);
            run(loader, chapter, rest, table);
        }
        long done = System.currentTimeMillis();
        current = table.currentTask(tasks).map(Tasks.Task::testClass).orElse(null);
        boolean green = table.outcomes().stream().allMatch(o -> o.failure() == null);
        screen(Set.of(), String.format("%s whole chapter %.1f s after the %s (compiled at %.1f s) · %s",
                green ? "GREEN:" : "red:", (done - savedAt) / 1000.0, since(), (compiled - savedAt) / 1000.0, watchedWhat()));
        firstRound = false;
        return green;
    }

    // ---------------------------------------------------------------- the earlier chapters

    /**
     * Runs each earlier chapter's task tests on the learner's code of it (on the earlier chapters
     * chosen so far), again only when something it is built from changed, and, unless told whose to
     * use, takes the learner's when all its tasks pass, else the reference's: as ./workbook status does.
     */
    private void chooseEarlier() throws Exception {
        if (earlierMode == Earlier.REFERENCE) {
            return;
        }
        for (String module : earlierModules()) {
            List<SourceSet> chain = chain(module, false);
            String inputs = inputsOf(chain);
            if (!inputs.equals(probedInputs.get(module))) {
                out.println("watch: running your " + module.substring(0, 4) + "'s own task tests (" + describeEarlier(module)
                        + ") ...");
                out.flush();
                probed.put(module, probe(module, chain));
                probedInputs.put(module, inputsOf(chain));
            }
            if (earlierMode == Earlier.CHOSEN) {
                EarlierChapters.Earlier e = probed.get(module);
                onReference.put(module, !(e.passed() >= 0 && e.passed() == e.total() && e.total() > 0));
            }
        }
    }

    private EarlierChapters.Earlier probe(String module, List<SourceSet> chain) throws Exception {
        List<Tasks.Task> own = Tasks.of(root, module);
        int todo = EarlierChapters.todos(root, module, own);
        if (compile(chain).isPresent()) {
            return new EarlierChapters.Earlier(module, true, -1, own.size(), todo, "it does not compile");
        }
        List<String> classes = testClassesInOrder(tests.get(module).output, own);
        List<String> taskClasses = classes.stream()
                .filter(n -> own.stream().anyMatch(t -> n.endsWith("." + t.testClass()))).toList();
        TaskTable results = new TaskTable();
        try (URLClassLoader loader = loader(chain, module)) {
            run(loader, module, taskClasses, results);
        }
        int n = TaskTable.number(module);
        int passed = (int) own.stream().filter(t -> results.stateOf(t.testClass(), Set.of(), n) == TaskTable.State.PASSED).count();
        return new EarlierChapters.Earlier(module, true, passed, own.size(), todo, "its task tests, just now");
    }

    /** What a run of {@code chain} is built from: every source's stamp, and whose each set is. */
    private static String inputsOf(List<SourceSet> chain) throws IOException {
        StringBuilder inputs = new StringBuilder();
        for (SourceSet set : chain) {
            inputs.append(set.name).append('=').append(new java.util.TreeMap<>(set.scan())).append(';');
        }
        return inputs.toString();
    }

    /** "ch01 yours, ch03 reference" for the chapters before {@code module}, as ./workbook status writes it. */
    private String describeEarlier(String module) {
        List<String> parts = new ArrayList<>();
        for (String m : earlierModules()) {
            if (m.compareTo(module) >= 0) {
                break;
            }
            boolean unknown = earlierMode == Earlier.CHOSEN && !probed.containsKey(m);
            parts.add(m.substring(0, 4) + (unknown ? " (not chosen yet)" : onReference.get(m) ? " reference" : " yours"));
        }
        return parts.isEmpty() ? "no earlier chapters" : "on " + String.join(", ", parts);
    }

    /** The table's first lines: the learner's earlier chapters that fail their own tests, and what this run took instead. */
    private List<String> earlierLines() {
        if (earlierMode == Earlier.REFERENCE) {
            return List.of();
        }
        List<EarlierChapters.Earlier> earlier = new ArrayList<>();
        for (String module : earlierModules()) {
            EarlierChapters.Earlier e = probed.get(module);
            if (e != null) {
                earlier.add(new EarlierChapters.Earlier(module, !onReference.get(module), e.passed(), e.total(), e.todo(), e.evidence()));
            }
        }
        return EarlierChapters.lines(TaskTable.number(chapter), earlier, advice());
    }

    private EarlierChapters.Advice advice() {
        String me = chapter.substring(0, 4);
        return new EarlierChapters.Advice(n -> "./workbook watch " + me + " --earlier=reference takes the reference's earlier chapters",
                n -> String.format("./workbook watch ch%02d", n));
    }

    private void screen(Set<String> pending, String footer) {
        clear();
        out.println("watch: " + chapter + " · " + origin());
        out.print(table.render(chapter, tasks, pending, all, yourCode(), earlierLines(), advice().useReference()));
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
        if (solutions) {
            return "the reference solutions";
        }
        if (earlierModules().isEmpty()) {
            return "your code";
        }
        String how = switch (earlierMode) {
            case CHOSEN -> " (yours when all their tasks pass, as ./workbook status chooses)";
            case REFERENCE -> " (--earlier=reference)";
            case YOURS -> " (--earlier=yours)";
        };
        return "your " + chapter.substring(0, 4) + ", earlier chapters: " + describeEarlier(chapter).replaceFirst("^on ", "") + how;
    }

    private String since() {
        return firstRound ? "start" : "save";
    }

    private String watchedWhat() {
        String what = solutions ? "solutions/" : earlierMode == Earlier.REFERENCE || earlierModules().isEmpty() ? chapter + "/src"
                : "the src of ch01.." + chapter.substring(0, 4);
        return "watching " + what + ", Ctrl-C stops";
    }

    private Predicate<String> yourCode() {
        List<SourceSet> yours = mainChain().stream().filter(set -> set.kind.equals("learner")).toList();
        return className -> {
            String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
            String file = outer.replace('.', '/') + ".java";
            return yours.stream().anyMatch(set -> Files.exists(set.sources.resolve(file)));
        };
    }

    // ---------------------------------------------------------------- compiling

    /**
     * Recompiles what changed in {@code chain}, in order: only the edited files when their classes'
     * API stays the same (an edit inside a method body), else the whole source set, and every set
     * after it that was compiled against another API (or another set: the reference's chapter in
     * place of the learner's). The errors of the first set that fails, if any.
     */
    private Optional<String> compile(List<SourceSet> chain) throws IOException {
        List<Path> classpath = new ArrayList<>(jars());
        StringBuilder upstream = new StringBuilder();
        for (SourceSet set : chain) {
            String against = upstream.toString();
            Map<Path, String> now = set.scan();
            List<Path> changed = now.keySet().stream().filter(p -> !now.get(p).equals(set.stamps.get(p))).sorted().toList();
            boolean deleted = set.stamps.keySet().stream().anyMatch(p -> !now.containsKey(p));
            boolean whole = !against.equals(set.upstream) || deleted || set.stamps.isEmpty() || !Files.isDirectory(set.output);
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
                    set.upstream = null;
                    return errors;
                }
                Map<String, String> api = ClassApi.of(set.output);
                if (!api.equals(set.api)) {
                    set.version++;
                }
                set.api = api;
                set.upstream = against;
                marker(set);
            }
            set.stamps = now;
            classpath.add(set.output);
            upstream.append(set.name).append('@').append(set.version).append(';');
        }
        return Optional.empty();
    }

    /** The chapter marker Maven filters into every chapter's classes, which EarlierChapterFailures reads. */
    private static void marker(SourceSet set) throws IOException {
        if (set.kind.equals("test")) {
            return;
        }
        Path marker = set.output.resolve(EarlierChapters.MARKER);
        Files.createDirectories(marker.getParent());
        Files.writeString(marker, "module=" + set.module + "\nkind=" + set.kind + "\n", StandardCharsets.UTF_8);
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

    private URLClassLoader loader(List<SourceSet> chain, String module) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (SourceSet set : chain) {
            urls.add(set.output.toUri().toURL());
        }
        List<Path> dirs = new ArrayList<>();
        for (String m : modules) {
            dirs.add(root.resolve(m).resolve("src/main/resources"));
            if (m.equals(module)) {
                break;
            }
        }
        dirs.add(root.resolve(module).resolve("src/test/resources"));
        for (Path r : dirs) {
            if (Files.isDirectory(r)) {
                urls.add(r.toUri().toURL());
            }
        }
        // Unnamed: a named loader would prefix every stack frame the learner reads with its name.
        return new URLClassLoader(urls.toArray(URL[]::new), Watch.class.getClassLoader());
    }

    /** surefire's default includes: Test*, *Test, *Tests, *TestCase; top-level classes only; task order first. Qualified names. */
    private static List<String> testClassesInOrder(Path classes, List<Tasks.Task> tasks) throws IOException {
        List<String> found = new ArrayList<>();
        if (!Files.isDirectory(classes)) {
            return found;
        }
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
        return ordered;
    }

    private static List<String> simple(List<String> qualified) {
        return qualified.stream().map(n -> n.substring(n.lastIndexOf('.') + 1)).toList();
    }

    private void run(URLClassLoader loader, String module, List<String> classNames, TaskTable results) throws Exception {
        if (classNames.isEmpty()) {
            return;
        }
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        Map<String, String> previous = new HashMap<>();
        systemProperties.get(module).forEach((k, v) -> previous.put(k, System.setProperty(k, v)));
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
            for (String name : classNames) {
                request.selectors(selectClass(Class.forName(name, false, loader)));
            }
            LauncherDiscoveryRequest built = request.build();
            launcher.execute(built, results);
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
