import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the mistakes corpus of one chapter in ONE warm JVM (tools/Mistakes.java compiles it against
 * the JUnit launcher and starts it): for each mistake, a fresh class loader whose first entry is
 * the mistake's one recompiled class, then the workbook's own classes (every chapter's and the test
 * classes, as surefire listed them), over a parent that holds JUnit, AssertJ and the libraries. It
 * runs the mistake's task test class, test by test until one fails naming the rule, the quickest
 * first (by the seconds each took in the reference run: a mistake that an example test and a
 * property both catch is caught by the example, in a second), and appends one line per test to the
 * output file, flushed, so that a mistake that hangs loses nothing before it:
 *
 *   mistake \t status \t test \t the failure, whole (tabs and newlines escaped)
 *
 * A mistake whose tests do not finish in the time given writes "HUNG" and halts the JVM: the tool
 * starts a new one for the mistakes after it.
 *
 *   java -cp <runner + libraries> MistakesRunner out.tsv seconds workbookDirs(path-separated) testSeconds.tsv \
 *        name classesDir testClass fragment [name classesDir testClass fragment ...]
 *
 * testSeconds.tsv: "class \t method \t seconds" per test of the reference run; a test not in it runs last.
 */
public class MistakesRunner {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        long seconds = Long.parseLong(args[1]);
        List<URL> workbook = new ArrayList<>();
        for (String dir : args[2].split(File.pathSeparator)) {
            workbook.add(Path.of(dir).toUri().toURL());
        }
        Map<String, Double> testSeconds = testSeconds(Path.of(args[3]));
        Launcher launcher = LauncherFactory.create();
        try (BufferedWriter writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            for (int i = 4; i + 3 < args.length; i += 4) {
                String name = args[i];
                List<URL> urls = new ArrayList<>();
                urls.add(Path.of(args[i + 1]).toUri().toURL());
                urls.addAll(workbook);
                long start = System.nanoTime();
                List<String> lines = run(launcher, urls, args[i + 2], args[i + 3], seconds, testSeconds);
                Files.writeString(Path.of(out + ".times"), (System.nanoTime() - start) / 1_000_000 + "\t" + name + "\n",
                        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                if (lines == null) {
                    writer.write(name + "\tHUNG\t-\tthe tests did not finish in " + seconds + " s\n");
                    writer.flush();
                    Runtime.getRuntime().halt(3);
                }
                for (String line : lines) {
                    writer.write(name + "\t" + line + "\n");
                }
                writer.write(name + "\tDONE\t-\t-\n");
                writer.flush();
            }
        }
        System.exit(0);
    }

    /**
     * The task's tests on this loader, one line each, test by test, the quickest first, stopping at
     * the first that fails naming the rule (the rest would only cost time); null when they did not
     * finish in time.
     */
    static List<String> run(Launcher launcher, List<URL> urls, String testClass, String fragment, long seconds,
            Map<String, Double> testSeconds) throws Exception {
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> broken = new AtomicReference<>();
        URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), MistakesRunner.class.getClassLoader());
        Thread worker = new Thread(() -> {
            try {
                Class<?> tests = Class.forName(testClass, false, loader);
                TestPlan plan = launcher.discover(LauncherDiscoveryRequestBuilder.request()
                        .selectors(DiscoverySelectors.selectClass(tests)).build());
                for (TestIdentifier engine : plan.getRoots()) {
                    for (TestIdentifier cls : plan.getChildren(engine)) {
                        for (TestIdentifier method : quickestFirst(plan.getChildren(cls), testSeconds)) {
                            launcher.execute(LauncherDiscoveryRequestBuilder.request()
                                    .selectors(DiscoverySelectors.selectUniqueId(method.getUniqueIdObject())).build(),
                                    listener(lines));
                            if (caught(lines, fragment)) {
                                return;
                            }
                        }
                    }
                }
            } catch (Throwable t) {
                broken.set(t);
            }
        }, "mistake");
        worker.setContextClassLoader(loader);
        worker.setDaemon(true);
        worker.start();
        worker.join(seconds * 1000);
        if (worker.isAlive()) {
            return null;
        }
        if (broken.get() != null) {
            lines.add("FAILED\t(the runner)\t" + escape(trace(broken.get())));
        }
        // Not closed: threads a failed test left behind may still load classes from it.
        return lines;
    }

    /** "class#method" to the seconds the test took in the reference run. */
    static Map<String, Double> testSeconds(Path file) throws IOException {
        Map<String, Double> seconds = new HashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            seconds.merge(f[0] + "#" + f[1], Double.parseDouble(f[2]), Double::sum); // a parameterized test: its cases summed
        }
        return seconds;
    }

    /** The tests in the order of their reference seconds (a test not timed last), ties in the class's order. */
    static List<TestIdentifier> quickestFirst(Set<TestIdentifier> tests, Map<String, Double> testSeconds) {
        List<TestIdentifier> ordered = new ArrayList<>(tests);
        ordered.sort(Comparator.comparingDouble(t -> t.getSource().orElse(null) instanceof MethodSource m
                ? testSeconds.getOrDefault(m.getClassName() + "#" + m.getMethodName(), Double.MAX_VALUE)
                : Double.MAX_VALUE));
        return ordered;
    }

    static boolean caught(List<String> lines, String fragment) {
        String escaped = escape(fragment);
        synchronized (lines) {
            return !fragment.isEmpty() && lines.stream().anyMatch(l -> l.startsWith("FAILED\t") && l.contains(escaped));
        }
    }

    static TestExecutionListener listener(List<String> lines) {
        return new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier test, String reason) {
                if (test.isTest()) {
                    lines.add("SKIPPED\t" + name(test) + "\t" + escape(reason));
                }
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (!test.isTest() && result.getStatus() != TestExecutionResult.Status.FAILED) {
                    return;
                }
                String status = switch (result.getStatus()) {
                    case SUCCESSFUL -> "PASSED";
                    case ABORTED -> "SKIPPED";
                    case FAILED -> "FAILED";
                };
                lines.add(status + "\t" + name(test) + "\t"
                        + escape(result.getThrowable().map(MistakesRunner::messages).orElse("")));
            }
        };
    }

    static String name(TestIdentifier test) {
        if (test.getSource().orElse(null) instanceof MethodSource m) {
            return m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1) + "." + m.getMethodName();
        }
        return test.getDisplayName();
    }

    /** The failure and its causes, each as it prints: the fragment a mistake names is looked for here. */
    static String messages(Throwable t) {
        StringBuilder text = new StringBuilder();
        for (Throwable c = t; c != null && text.length() < 20_000; c = c.getCause()) {
            text.append(text.length() == 0 ? "" : "\ncaused by: ").append(c);
        }
        return text.toString();
    }

    static String trace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "").replace("\n", "\\n");
    }
}
