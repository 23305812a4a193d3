import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs inside one forked JVM per task state of the progressive gate (tools/Gate.java compiles it
 * against the JUnit Platform launcher): runs the given test classes, the ones surefire ran (of a
 * later task's class only its tests tagged passes-on-skeleton), and
 * writes one tab-separated line per test: status, class, test, tagged passes-on-skeleton, the
 * first "TODO chNN task N" in its failure (or -), the failure's first line.
 *
 *   java -cp <the chapter's test classpath> GateRunner out.tsv kaenlog.batch.VarintTest ...
 */
public class GateRunner {
    static final Pattern TODO = Pattern.compile("TODO (ch\\d\\d task \\d+):");
    static final String TAG = "passes-on-skeleton";

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        // "Class" runs every test of the class; "Class#passes-on-skeleton" (a later task's class)
        // only its tests tagged so: the only ones of it the gate has a rule for in this state.
        List<String> whole = new ArrayList<>();
        List<String> tagged = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].endsWith("#" + TAG)) {
                tagged.add(args[i].substring(0, args[i].length() - TAG.length() - 1));
            } else {
                whole.add(args[i]);
            }
        }
        List<String> lines = new ArrayList<>();
        List<String> times = new ArrayList<>();
        TestExecutionListener listener = listener(lines, times);
        if (!whole.isEmpty()) {
            LauncherFactory.create().execute(request(whole).build(), listener);
        }
        if (!tagged.isEmpty()) {
            LauncherFactory.create().execute(request(tagged).filters(TagFilter.includeTags(TAG)).build(), listener);
        }
        Files.write(out, lines, StandardCharsets.UTF_8);
        times.add(ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L)
                + "\t(the test JVM's CPU, user+sys)");
        Files.write(Path.of(out + ".times"), times, StandardCharsets.UTF_8);
        System.exit(0);
    }

    static LauncherDiscoveryRequestBuilder request(List<String> classes) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        classes.forEach(c -> request.selectors(DiscoverySelectors.selectClass(c)));
        return request;
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
