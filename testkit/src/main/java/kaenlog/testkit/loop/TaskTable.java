package kaenlog.testkit.loop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.opentest4j.AssertionFailedError;

/**
 * One screen per verdict: a line per task (passed / failing / not started / blocked by an earlier
 * chapter), then the first failure
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
        PASSED("passed"), FAILING("failing"), NOT_STARTED("not started"), BLOCKED("blocked by chapter"), PENDING("..."),
        NOT_RUN("no tests ran");

        final String word;

        State(String word) {
            this.word = word;
        }
    }

    private static final Pattern TODO = Pattern.compile("TODO ch(\\d\\d) task \\d+");
    private static final Pattern EARLIER_LINE = Pattern.compile("this fails in your chapter (\\d+) code");

    /**
     * The state of the tests of one class of chapter {@code chapter} (its number); {@code pending}
     * classes have not run yet in this round. Not started: every failure is this chapter's own TODO.
     * Blocked: every failure that is not this chapter's TODO comes from an earlier chapter (a TODO of
     * it, a stack through its code, or a rule of it answering wrong: testkit's EarlierRule), so the
     * task's own body cannot be judged yet. Failing: the rest.
     */
    public synchronized State stateOf(String testClass, Set<String> pending, int chapter) {
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
        if (failures.stream().allMatch(f -> isOwnTodo(f, chapter))) {
            return State.NOT_STARTED;
        }
        return failures.stream().allMatch(f -> isOwnTodo(f, chapter) || blockingChapter(f, chapter) > 0) ? State.BLOCKED
                : State.FAILING;
    }

    /** The earlier chapter that blocks this class's tests (the lowest), or -1. */
    synchronized int blockerOf(String testClass, int chapter) {
        return byClass.getOrDefault(testClass, List.of()).stream().map(Outcome::failure).filter(f -> f != null)
                .mapToInt(f -> blockingChapter(f, chapter)).filter(n -> n > 0).min().orElse(-1);
    }

    /** The first task (in order) that has not passed, or empty when every task passed. */
    public synchronized Optional<Tasks.Task> currentTask(List<Tasks.Task> tasks) {
        return tasks.stream().filter(t -> stateOf(t.testClass(), Set.of(), 0) != State.PASSED).findFirst();
    }

    /**
     * A skeleton's exercise body throws kaenlog.workbook.Todo("TODO chNN task N: ..."): this chapter's
     * own TODO ({@code chapter} 0: any chapter's).
     */
    static boolean isOwnTodo(Throwable t, int chapter) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            Matcher m = TODO.matcher(String.valueOf(c.getMessage()));
            if (m.find() && (chapter <= 0 || Integer.parseInt(m.group(1)) == chapter)) {
                return blockingChapter(t, chapter) < 0;
            }
        }
        return false;
    }

    /**
     * The earlier chapter a failure of chapter {@code chapter}'s test comes from: the TODO of an
     * earlier chapter (its skeleton), or the line of testkit's EarlierChapterFailures (the failure was
     * thrown in that chapter's learner code); -1 when it comes from neither.
     */
    static int blockingChapter(Throwable t, int chapter) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String message = String.valueOf(c.getMessage());
            Matcher line = EARLIER_LINE.matcher(message);
            if (line.find() && Integer.parseInt(line.group(1)) < chapter) {
                return Integer.parseInt(line.group(1));
            }
            Matcher todo = TODO.matcher(message);
            if (todo.find() && Integer.parseInt(todo.group(1)) < chapter) {
                return Integer.parseInt(todo.group(1));
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return -1;
    }

    /** "ch07-idem" gives 7; anything else 0. */
    static int number(String module) {
        return module.matches("ch\\d\\d(-.*)?") ? Integer.parseInt(module.substring(2, 4)) : 0;
    }

    // ---------------------------------------------------------------- the screen

    /**
     * The table, then the first failure (every failure with {@code all}). {@code yourCode} says which
     * classes are the learner's, to point at their frame; {@code pending} classes are still running.
     */
    public synchronized String render(String chapter, List<Tasks.Task> tasks, Set<String> pending, boolean all,
            Predicate<String> yourCode) {
        return render(chapter, tasks, pending, all, yourCode, List.of(), n -> "-Dearlier=reference runs chapter "
                + number(chapter) + " on the reference's earlier chapters");
    }

    /**
     * The same, with {@code earlier} as its first lines (what the earlier chapters the tests ran on
     * say of themselves) and {@code useReference} the command that runs this chapter on the
     * reference's chapter N (Maven's flag or watch's), for the tasks an earlier chapter blocks.
     */
    public synchronized String render(String chapter, List<Tasks.Task> tasks, Set<String> pending, boolean all,
            Predicate<String> yourCode, List<String> earlier, IntFunction<String> useReference) {
        StringBuilder out = new StringBuilder();
        int n = number(chapter);
        earlier.forEach(line -> out.append(line).append(System.lineSeparator()));
        long passed = tasks.stream().filter(t -> stateOf(t.testClass(), pending, n) == State.PASSED).count();
        out.append(String.format("%s: %d of %d tasks passed%n", chapter, passed, tasks.size()));
        List<String> taskClasses = new ArrayList<>();
        Set<Integer> blockers = new TreeSet<>();
        for (Tasks.Task task : tasks) {
            taskClasses.add(task.testClass());
            State state = stateOf(task.testClass(), pending, n);
            String word = state.word;
            if (state == State.BLOCKED) {
                blockers.add(blockerOf(task.testClass(), n));
                word = state.word + " " + blockerOf(task.testClass(), n);
            }
            out.append(String.format("  task %-2d %-20s %s (%s)%s%n", task.number(), word, task.what(), task.testClass(),
                    state == State.FAILING || state == State.NOT_STARTED || state == State.BLOCKED ? failCount(task.testClass()) : ""));
        }
        List<String> others = byClass.keySet().stream().filter(c -> !taskClasses.contains(c)).sorted().toList();
        if (!others.isEmpty()) {
            long othersPassed = others.stream().filter(c -> stateOf(c, pending, n) == State.PASSED).count();
            List<String> red = others.stream().filter(c -> {
                State s = stateOf(c, pending, n);
                return s == State.FAILING || s == State.NOT_STARTED || s == State.BLOCKED;
            }).toList();
            out.append(String.format("  other   %d of %d test classes pass%s%n", othersPassed, others.size(),
                    red.isEmpty() ? "" : " (red: " + String.join(", ", red) + ")"));
        }
        for (int blocker : blockers) {
            out.append(String.format("  blocked by chapter %d: these tests stop in your chapter %d code (a TODO, a stack through"
                    + " it, or a rule of it that answers wrong) before they reach chapter %d's; %s%n", blocker, blocker, n, useReference.apply(blocker)));
        }
        List<Outcome> failures = new ArrayList<>();
        for (String cls : concat(taskClasses, others)) {
            if (!pending.contains(cls)) {
                byClass.getOrDefault(cls, List.of()).stream().filter(o -> o.failure() != null).forEach(failures::add);
            }
        }
        for (Outcome failure : all ? failures : failures.stream().limit(1).toList()) {
            out.append(System.lineSeparator());
            describe(failure, yourCode, n, out);
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
    static void describe(Outcome o, Predicate<String> yourCode, int chapter, StringBuilder out) {
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
        int blocker = blockingChapter(t, chapter);
        String mark = blocker > 0 ? "   <- your chapter " + blocker + " code" : "   <- your code";
        frame(t, yourCode).ifPresent(f -> out.append("  at ").append(f).append(mark).append(nl));
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
