package kaenlog.testkit.loop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.opentest4j.AssertionFailedError;

/**
 * One screen per verdict: a line per task (passed / failing / not started), then the first failure
 * in full (its message, expected and actual, the learner's own frame and the test's line) and
 * nothing else unless asked. Fed by JUnit Platform events, so Maven (through
 * {@link TaskTableListener}) and {@code ./workbook watch} print the same table from the same runs.
 */
public final class TaskTable implements TestExecutionListener {
    /** One finished test: its class, its name, and why it failed (null when it passed or was skipped). */
    public record Outcome(String testClass, String test, Throwable failure, boolean skipped) {
    }

    private final Map<String, List<Outcome>> byClass = new LinkedHashMap<>();

    // ---------------------------------------------------------------- collecting

    @Override
    public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Optional<String> cls = testClassOf(id);
        if (cls.isEmpty()) {
            return;
        }
        Throwable failure = result.getStatus() == TestExecutionResult.Status.FAILED
                ? result.getThrowable().orElse(new AssertionError("failed")) : null;
        boolean skipped = result.getStatus() == TestExecutionResult.Status.ABORTED;
        // A container (a test class) only counts when it failed on its own: @BeforeAll, a constructor, class init.
        if (id.isTest() || failure != null) {
            record(new Outcome(cls.get(), id.isTest() ? id.getDisplayName() : "(the class itself)", failure, skipped));
        }
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier id, String reason) {
        testClassOf(id).ifPresent(cls -> record(new Outcome(cls, id.getDisplayName(), null, true)));
    }

    public synchronized void record(Outcome outcome) {
        byClass.computeIfAbsent(outcome.testClass(), k -> new ArrayList<>()).add(outcome);
    }

    public synchronized void clear() {
        byClass.clear();
    }

    public synchronized List<Outcome> outcomes() {
        return byClass.values().stream().flatMap(List::stream).toList();
    }

    private static Optional<String> testClassOf(TestIdentifier id) {
        TestSource source = id.getSource().orElse(null);
        String name = source instanceof MethodSource m ? m.getClassName()
                : source instanceof ClassSource c ? c.getClassName() : null;
        if (name == null) {
            return Optional.empty();
        }
        String outer = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
        return Optional.of(outer.substring(outer.lastIndexOf('.') + 1));
    }

    // ---------------------------------------------------------------- verdicts

    public enum State {
        PASSED("passed"), FAILING("failing"), NOT_STARTED("not started"), PENDING("..."), NOT_RUN("no tests ran");

        final String word;

        State(String word) {
            this.word = word;
        }
    }

    /** The state of the tests of one class; {@code pending} classes have not run yet in this round. */
    public synchronized State stateOf(String testClass, Set<String> pending) {
        if (pending.contains(testClass)) {
            return State.PENDING;
        }
        List<Outcome> cases = byClass.getOrDefault(testClass, List.of());
        List<Throwable> failures = cases.stream().map(Outcome::failure).filter(f -> f != null).toList();
        if (cases.stream().allMatch(Outcome::skipped)) {
            return State.NOT_RUN;
        }
        if (failures.isEmpty()) {
            return State.PASSED;
        }
        return failures.stream().allMatch(TaskTable::isTodo) ? State.NOT_STARTED : State.FAILING;
    }

    /** The first task (in order) that has not passed, or empty when every task passed. */
    public synchronized Optional<Tasks.Task> currentTask(List<Tasks.Task> tasks) {
        return tasks.stream().filter(t -> stateOf(t.testClass(), Set.of()) != State.PASSED).findFirst();
    }

    /** A skeleton's exercise body throws kaenlog.workbook.Todo("TODO chNN task N: ..."). */
    static boolean isTodo(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getClass().getSimpleName().equals("Todo") || String.valueOf(c.getMessage()).contains("TODO ch")) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- the screen

    /**
     * The table, then the first failure (every failure with {@code all}). {@code yourCode} says which
     * classes are the learner's, to point at their frame; {@code pending} classes are still running.
     */
    public synchronized String render(String chapter, List<Tasks.Task> tasks, Set<String> pending, boolean all,
            Predicate<String> yourCode) {
        StringBuilder out = new StringBuilder();
        long passed = tasks.stream().filter(t -> stateOf(t.testClass(), pending) == State.PASSED).count();
        out.append(String.format("%s: %d of %d tasks passed%n", chapter, passed, tasks.size()));
        List<String> taskClasses = new ArrayList<>();
        for (Tasks.Task task : tasks) {
            taskClasses.add(task.testClass());
            State state = stateOf(task.testClass(), pending);
            out.append(String.format("  task %-2d %-12s %s (%s)%s%n", task.number(), state.word, task.what(), task.testClass(),
                    state == State.FAILING || state == State.NOT_STARTED ? failCount(task.testClass()) : ""));
        }
        List<String> others = byClass.keySet().stream().filter(c -> !taskClasses.contains(c)).sorted().toList();
        if (!others.isEmpty()) {
            long othersPassed = others.stream().filter(c -> stateOf(c, pending) == State.PASSED).count();
            List<String> red = others.stream().filter(c -> stateOf(c, pending) == State.FAILING
                    || stateOf(c, pending) == State.NOT_STARTED).toList();
            out.append(String.format("  other   %d of %d test classes pass%s%n", othersPassed, others.size(),
                    red.isEmpty() ? "" : " (red: " + String.join(", ", red) + ")"));
        }
        List<Outcome> failures = new ArrayList<>();
        for (String cls : concat(taskClasses, others)) {
            if (!pending.contains(cls)) {
                byClass.getOrDefault(cls, List.of()).stream().filter(o -> o.failure() != null).forEach(failures::add);
            }
        }
        for (Outcome failure : all ? failures : failures.stream().limit(1).toList()) {
            out.append(System.lineSeparator());
            describe(failure, yourCode, out);
        }
        if (!all && failures.size() > 1) {
            out.append(String.format("%n(%d more failing tests: --all or -Dverbose shows every one)%n", failures.size() - 1));
        }
        return out.toString();
    }

    private String failCount(String testClass) {
        List<Outcome> cases = byClass.getOrDefault(testClass, List.of());
        long failing = cases.stream().filter(o -> o.failure() != null).count();
        return String.format("  %d of %d tests fail", failing, cases.size());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** A failure in full: which test, the message, expected/actual when the message lacks them, the frames that matter. */
    static void describe(Outcome o, Predicate<String> yourCode, StringBuilder out) {
        Throwable t = o.failure();
        String nl = System.lineSeparator();
        out.append("FAILED ").append(o.testClass()).append(" > ").append(o.test()).append(nl);
        String type = t instanceof AssertionError ? "" : t.getClass().getName() + ": ";
        out.append(indent(type + String.valueOf(t.getMessage()).strip())).append(nl);
        if (t instanceof AssertionFailedError a && a.isExpectedDefined() && a.isActualDefined()) {
            String expected = a.getExpected().getStringRepresentation();
            String actual = a.getActual().getStringRepresentation();
            String message = String.valueOf(t.getMessage());
            if (!message.contains(expected) || !message.contains(actual)) {
                out.append("  expected: ").append(expected).append(nl).append("  actual:   ").append(actual).append(nl);
            }
        }
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
            out.append("  caused by ").append(c.getClass().getName()).append(": ").append(c.getMessage()).append(nl);
        }
        frame(t, yourCode).ifPresent(f -> out.append("  at ").append(f).append("   <- your code").append(nl));
        frame(t, cls -> cls.endsWith("." + o.testClass()) || cls.contains("." + o.testClass() + "$"))
                .ifPresent(f -> out.append("  at ").append(f).append("   <- the test").append(nl));
    }

    /** The first frame in a class {@code which} accepts, as Class.method(File.java:line) (no class loader or module prefix). */
    private static Optional<String> frame(Throwable t, Predicate<String> which) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            for (StackTraceElement e : c.getStackTrace()) {
                if (which.test(e.getClassName())) {
                    return Optional.of(e.getClassName() + "." + e.getMethodName() + "(" + e.getFileName() + ":" + e.getLineNumber() + ")");
                }
            }
        }
        return Optional.empty();
    }

    private static String indent(String text) {
        return "  " + text.replace("\n", System.lineSeparator() + "  ");
    }
}
