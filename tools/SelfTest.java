import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The tools' own tests (./workbook selftest, run by CI): the rules every other command relies on,
 * checked on small made-up inputs.
 */
public final class SelfTest {
    private static final List<String> FAILURES = new ArrayList<>();

    private SelfTest() {
    }

    static int main(Path root, String[] args) throws Exception {
        markers();
        progress();
        hints();
        mistakes();
        if (!FAILURES.isEmpty()) {
            FAILURES.forEach(f -> System.out.println("SELFTEST FAILED " + f));
            return 1;
        }
        System.out.println("tools self-test: markers, task states, status rules, hint renumbering and mistake edits hold");
        return 0;
    }

    /** A mistake's edit applies only where it is unique and inside a block of its own task. */
    static void mistakes() {
        Mistakes.Mistake inTask = new Mistakes.Mistake(Path.of("task2-x.txt"), "task2-x",
                java.util.Map.of("task", "2", "file", "X.java"), List.of(new Mistakes.Edit("        return helper();\n", "        return 3;\n")));
        List<String> problems = new ArrayList<>();
        String wrong = Mistakes.apply(inTask, SOURCE, Mistakes.regions(SOURCE, "ch09 task 2"), problems);
        check(wrong != null && wrong.contains("return 3;") && !wrong.contains("return helper();") && problems.isEmpty(),
                "mistakes: an edit inside its task's block applies: " + problems);
        problems.clear();
        check(Mistakes.apply(inTask, SOURCE, Mistakes.regions(SOURCE, "ch09 task 1"), problems) == null
                && problems.get(0).contains("not inside a block of task"), "mistakes: an edit outside its task's block is refused");
        Mistakes.Mistake helper = new Mistakes.Mistake(Path.of("task2-y.txt"), "task2-y", java.util.Map.of("task", "2"),
                List.of(new Mistakes.Edit("        return 2;\n", "        return 0;\n")));
        problems.clear();
        check(Mistakes.apply(helper, SOURCE, Mistakes.regions(SOURCE, "ch09 task 2"), problems) != null,
                "mistakes: an edit of a reference-only helper applies: " + problems);
        Mistakes.Mistake twice = new Mistakes.Mistake(Path.of("task1-z.txt"), "task1-z", java.util.Map.of("task", "1"),
                List.of(new Mistakes.Edit("        // END-SOLUTION\n", "")));
        problems.clear();
        check(Mistakes.apply(twice, SOURCE, Mistakes.regions(SOURCE, "ch09 task 1"), problems) == null
                && problems.get(0).contains("more than once"), "mistakes: an edit whose text occurs twice is refused");
        Mistakes.Mistake stale = new Mistakes.Mistake(Path.of("task1-s.txt"), "task1-s", java.util.Map.of("task", "1"),
                List.of(new Mistakes.Edit("        return 7;\n", "")));
        problems.clear();
        check(Mistakes.apply(stale, SOURCE, Mistakes.regions(SOURCE, "ch09 task 1"), problems) == null
                && problems.get(0).contains("stale"), "mistakes: an edit whose text is gone is reported stale");
        String[] hung = {"HUNG", "-", "x"};
        check(Mistakes.verdict(inTask, List.<String[]>of(hung)).startsWith("hung"), "mistakes: a hung run is no catch");
        Mistakes.Mistake named = new Mistakes.Mistake(Path.of("t.txt"), "t", java.util.Map.of("message", "the rule"), List.of());
        check(Mistakes.verdict(named, List.<String[]>of(new String[] {"FAILED", "T.a", "[breaks the rule] expected 1"}))
                .startsWith("caught"), "mistakes: a failure naming the rule catches");
        check(!Mistakes.verdict(named, List.<String[]>of(new String[] {"FAILED", "T.a", "NullPointerException"}))
                .startsWith("caught"), "mistakes: a failure that does not name the rule does not catch");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            FAILURES.add(what);
        }
    }

    static final String SOURCE = String.join("\n",
            "package kaenlog.x;",
            "",
            "import java.util.List;",
            "",
            "class X {",
            "    int one() {",
            "        // BEGIN-SOLUTION ch09 task 1: the first (OneTest)",
            "        return 1;",
            "        // END-SOLUTION",
            "    }",
            "",
            "    int two() {",
            "        // BEGIN-SOLUTION ch09 task 2: the second (TwoTest)",
            "        return helper();",
            "        // END-SOLUTION",
            "    }",
            "",
            "    // BEGIN-SOLUTION-ONLY",
            "    private int helper() {",
            "        return 2;",
            "    }",
            "    // END-SOLUTION-ONLY",
            "}",
            "");

    static void markers() {
        String skeleton = Markers.skeleton(SOURCE);
        check(skeleton.contains("throw new Todo(\"ch09 task 1: the first (OneTest)\");"), "the skeleton throws task 1's TODO");
        check(skeleton.contains("throw new Todo(\"ch09 task 2: the second (TwoTest)\");"), "the skeleton throws task 2's TODO");
        check(!skeleton.contains("helper()") && !skeleton.contains("return 1;"), "the skeleton has no reference code");
        check(skeleton.contains("import java.util.List;\nimport kaenlog.workbook.Todo;"), "the Todo import is added in order");
        String afterOne = Markers.variant(SOURCE, 2);
        check(afterOne.contains("return 1;") && !afterOne.contains("ch09 task 1:"), "before task 2, task 1's body is kept");
        check(afterOne.contains("throw new Todo(\"ch09 task 2:"), "before task 2, task 2 is a TODO");
        check(afterOne.contains("private int helper()"), "solution-only helpers are kept for the bodies that may call them");
        String done = Markers.variant(SOURCE, 3);
        check(!done.contains("Todo") && done.contains("return helper();"), "after every task, no TODO is left");
        try {
            Markers.skeleton("class Y {\n  int f() {\n    // BEGIN-SOLUTION ch09 task 1: x (T)\n    return 1;\n  }\n}");
            check(false, "an unclosed block is refused");
        } catch (IllegalStateException expected) {
            // refused: good
        }
    }

    static Markers.Task task(int n, String testClass) {
        return new Markers.Task("ch09", n, testClass,
                List.of(new Markers.Block("ch09", n, "task " + n, testClass, Path.of("X.java"), n)));
    }

    static Reports.Outcome outcome(String cls, String name, Reports.Status status) {
        return new Reports.Outcome("kaenlog.x." + cls, name, status, status == Reports.Status.FAILED ? "boom" : null);
    }

    static void progress() {
        List<Markers.Task> tasks = List.of(task(1, "OneTest"), task(2, "TwoTest"), task(3, "ThreeTest"));
        Progress.ChapterProgress p = Progress.of("ch09-x", tasks, List.of(
                outcome("OneTest", "a", Reports.Status.PASSED),
                outcome("TwoTest", "b", Reports.Status.PASSED),
                outcome("TwoTest", "c", Reports.Status.SKIPPED),
                outcome("ThreeTest", "d", Reports.Status.PASSED)), null, List.of());
        check(p.done() == 2, "a task with a skipped test is not done (done " + p.done() + ", expected 2)");
        check(p.next() != null && p.next().number() == 2, "the next task is the first not done, task 2, though task 3 passes");
        check(p.next() != null && p.next().problem().contains("skipped"), "the status says the test is skipped");

        Progress.ChapterProgress missing = Progress.of("ch09-x", tasks, List.of(
                outcome("OneTest", "a", Reports.Status.PASSED)), null, List.of());
        check(missing.next().number() == 2 && missing.next().problem().contains("no test"),
                "a task whose tests did not run is not done");

        Progress.ChapterProgress failing = Progress.of("ch09-x", tasks, List.of(
                outcome("OneTest", "a", Reports.Status.FAILED),
                outcome("TwoTest", "b", Reports.Status.PASSED),
                outcome("ThreeTest", "d", Reports.Status.PASSED)), null, List.of("M ch09-x/src/test/java/TwoTest.java"));
        check(failing.next().number() == 1 && failing.done() == 2, "a failing task 1 is next even when later tasks pass");
        String json = Progress.json(List.of(failing));
        check(json.contains("\"next\": 1") && json.contains("\"editedTests\": [\"M ch09-x/src/test/java/TwoTest.java\"]"),
                "the JSON names the next task and the edited test file: " + json);

        Progress.ChapterProgress broken = Progress.of("ch09-x", tasks, null, "X.java:[3,1] error", List.of());
        check(!broken.compiled() && broken.done() == 0, "a chapter that does not compile has no task done");
        Progress.ChapterProgress cached = Progress.fromProperties("ch09-x", Progress.toProperties(p), List.of());
        check(cached.equals(p), "the status cache gives back what it stored");
    }

    static void hints() {
        List<String> guide = List.of("## Hints", "", "**Task 1.** one", "", "**Task 2.** two", "", "## Sources");
        List<String> swapped = TaskTables.renumberHints(guide, new java.util.TreeMap<>(java.util.Map.of(1, "OneTest", 2,
                "TwoTest")), new java.util.TreeMap<>(java.util.Map.of("OneTest", 2, "TwoTest", 1)));
        check(swapped.equals(List.of("## Hints", "", "**Task 1.** two", "", "**Task 2.** one", "", "## Sources")),
                "hints follow their test class to its new number: " + swapped);
    }
}
