import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs task states of the progressive gate, one after another in ONE warm JVM (tools/Gate.java
 * compiles it against the JUnit Platform launcher and starts it): for each state, a fresh class
 * loader whose first entries are the state's classes, then the workbook's own classes (the other
 * chapters' and the test classes, as surefire listed them), over a parent that holds JUnit,
 * AssertJ, the testkit and the libraries, loaded and compiled once. A state's code and statics
 * are its own, as in a JVM of its own; what a JVM per state cost was mostly its start (chapter 7's
 * states: 4.5 s of CPU each, its 91 tests 3 s in all).
 *
 * For each state it runs the given test classes, the ones surefire ran (of a later task's class
 * only its tests tagged passes-on-skeleton), and writes one tab-separated line per test to the
 * state's out.tsv: status, class, test, tagged passes-on-skeleton, the first "TODO chNN task N" in
 * its failure (or -), the failure's first line. A state whose tests do not finish in the time given
 * writes out.tsv.hung and halts the JVM: the gate starts another one for the states after it.
 *
 *   java -cp <runner + libraries> GateRunner seconds workbookDirs(path-separated) \
 *        out.tsv stateDirs(path-separated) kaenlog.batch.VarintTest ... [-- out.tsv stateDirs class ...]
 */
public class GateRunner {
    static final Pattern TODO = Pattern.compile("TODO (ch\\d\\d task \\d+):");
    static final String TAG = "passes-on-skeleton";
    /** This JVM's own classpath: the runner, the testkit and the libraries. */
    static final String LIBRARIES = System.getProperty("java.class.path");

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        String workbook = args[1];
        Launcher launcher = LauncherFactory.create();
        List<String> state = new ArrayList<>();
        for (int i = 2; i <= args.length; i++) {
            if (i == args.length || args[i].equals("--")) {
                runState(launcher, workbook, state, seconds);
                state.clear();
            } else {
                state.add(args[i]);
            }
        }
        System.exit(0);
    }

    static List<URL> urls(String pathSeparated) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String dir : pathSeparated.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                urls.add(Path.of(dir).toUri().toURL());
            }
        }
        return urls;
    }

    /** One state: out.tsv, its class folders, its test classes; halts the JVM when it outlives its time. */
    static void runState(Launcher launcher, String workbook, List<String> state, long seconds) throws Exception {
        Path out = Path.of(state.get(0));
        List<URL> urls = urls(state.get(1));
        urls.addAll(urls(workbook));
        // "Class" runs every test of the class; "Class#passes-on-skeleton" (a later task's class)
        // only its tests tagged so: the only ones of it the gate has a rule for in this state.
        List<String> whole = new ArrayList<>();
        List<String> tagged = new ArrayList<>();
        for (String c : state.subList(2, state.size())) {
            if (c.endsWith("#" + TAG)) {
                tagged.add(c.substring(0, c.length() - TAG.length() - 1));
            } else {
                whole.add(c);
            }
        }
        // what a test that starts a JVM of its own passes on (-cp): this state's classpath, as in a JVM of its own
        System.setProperty("java.class.path", String.join(File.pathSeparator, state.get(1), workbook, LIBRARIES));
        long cpuBefore = cpuMillis();
        long wallBefore = System.nanoTime();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        List<String> times = java.util.Collections.synchronizedList(new ArrayList<>());
        TestExecutionListener listener = listener(lines, times);
        AtomicReference<Throwable> broken = new AtomicReference<>();
        // Not closed: threads a failed test left behind may still load classes from it.
        URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), GateRunner.class.getClassLoader());
        Thread worker = new Thread(() -> {
            try {
                if (!whole.isEmpty()) {
                    launcher.execute(request(whole, loader).build(), listener);
                }
                if (!tagged.isEmpty()) {
                    launcher.execute(request(tagged, loader).filters(TagFilter.includeTags(TAG)).build(), listener);
                }
            } catch (Throwable t) {
                broken.set(t);
            }
        }, "gate-state");
        worker.setContextClassLoader(loader);
        worker.setDaemon(true);
        worker.start();
        worker.join(seconds * 1000);
        if (worker.isAlive()) {
            Files.writeString(Path.of(out + ".hung"), "the tests did not finish in " + seconds + " s\n");
            Runtime.getRuntime().halt(3);
        }
        if (broken.get() != null) {
            StringWriter trace = new StringWriter();
            broken.get().printStackTrace(new PrintWriter(trace));
            Files.writeString(Path.of(out + ".broken"), trace.toString());
            Runtime.getRuntime().halt(4);
        }
        times.add(cpuMillis() - cpuBefore + "\t(the test JVM's CPU in this state, user+sys)");
        times.add((System.nanoTime() - wallBefore) / 1_000_000 + "\t(the state's wall time)");
        Files.write(Path.of(out + ".times"), times, StandardCharsets.UTF_8);
        Files.write(out, lines, StandardCharsets.UTF_8);
    }

    static long cpuMillis() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
    }

    static LauncherDiscoveryRequestBuilder request(List<String> classes, ClassLoader loader) throws ClassNotFoundException {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String c : classes) {
            selectors.add(DiscoverySelectors.selectClass(Class.forName(c, false, loader)));
        }
        return LauncherDiscoveryRequestBuilder.request().selectors(selectors);
    }

    /**
     * A line per test that ran or was skipped, and per class that failed before its tests; in
     * {@code times}, a line per test class: its milliseconds, its name (where a state's time goes).
     */
    static TestExecutionListener listener(List<String> lines, List<String> times) {
        java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();
        return new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                started.put(test.getUniqueId(), System.nanoTime());
            }

            @Override
            public void executionSkipped(TestIdentifier test, String reason) {
                if (test.isTest()) {
                    lines.add(line("SKIPPED", test, null));
                }
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                Long start = started.remove(test.getUniqueId());
                if (start != null && test.getSource().orElse(null) instanceof org.junit.platform.engine.support.descriptor.ClassSource c) {
                    times.add((System.nanoTime() - start) / 1_000_000 + "\t" + c.getClassName());
                }
                if (test.isTest()) {
                    String status = switch (result.getStatus()) {
                        case SUCCESSFUL -> "PASSED";
                        case ABORTED -> "SKIPPED";
                        case FAILED -> "FAILED";
                    };
                    lines.add(line(status, test, result.getThrowable().orElse(null)));
                } else if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                    // A class that fails before its tests (a static initializer, @BeforeAll).
                    lines.add(line("FAILED", test, result.getThrowable().orElse(null)));
                }
            }
        };
    }

    static String line(String status, TestIdentifier test, Throwable failure) {
        String cls = "?";
        String name = test.getDisplayName();
        if (test.getSource().orElse(null) instanceof MethodSource m) {
            cls = m.getClassName();
            name = m.getMethodName() + (test.getDisplayName().startsWith(m.getMethodName() + "(") ? ""
                    : " " + test.getDisplayName());
        } else if (test.getSource().isPresent()) {
            cls = test.getSource().get().toString().replaceAll(".*className = '([^']*)'.*", "$1");
        }
        boolean passesOnSkeleton = test.getTags().stream().anyMatch(t -> t.getName().equals(TAG));
        String todo = "-";
        String first = "";
        if (failure != null) {
            StringWriter trace = new StringWriter();
            failure.printStackTrace(new PrintWriter(trace));
            Matcher m = TODO.matcher(trace.toString());
            todo = m.find() ? m.group(1) : "-";
            first = String.valueOf(failure).strip();
            int nl = first.indexOf('\n');
            first = nl < 0 ? first : first.substring(0, nl);
        }
        return String.join("\t", status, cls, clean(name), String.valueOf(passesOnSkeleton), todo, clean(first));
    }

    static String clean(String s) {
        return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
