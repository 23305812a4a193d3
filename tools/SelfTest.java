import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.loop.Tasks;

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
        gateRules();
        hintSteps();
        prose();
        chapters();
        mistakes();
        mavenLog();
        if (!FAILURES.isEmpty()) {
            FAILURES.forEach(f -> System.out.println("SELFTEST FAILED " + f));
            return 1;
        }
        System.out.println("tools self-test: markers, task states, status rules, hint renumbering and steps, the gate's"
                + " rules, prose references, the generated chapter list, mistake edits and when a running Maven is past a"
                + " chapter hold");
        return 0;
    }

    /** --after-maven: a chapter is done once a later module starts or the build ends, never at its own start. */
    static void mavenLog() {
        String started = "[INFO] Building ch09-kafka-wire: bonus 1.0.0-SNAPSHOT [8/13]\n"
                + "[INFO] Building jar: /w/ch09-kafka-wire/target/ch09-kafka-wire-1.0.0-SNAPSHOT.jar\n";
        String next = started + "[INFO] Building ch10-cluster: bonus: a real cluster 1.0.0-SNAPSHOT [9/13]\n";
        check(!MavenLog.done(started, "ch09-kafka-wire"), "maven log: a chapter still building is not done");
        check(MavenLog.done(next, "ch09-kafka-wire"), "maven log: a chapter is done once the next module starts");
        check(!MavenLog.done(next, "ch10-cluster") && !MavenLog.done(next, "ch11-transactions"),
                "maven log: the module building and one not reached are not done");
        check(MavenLog.done(next + "[INFO] BUILD FAILURE\n", "ch11-transactions"),
                "maven log: a build that ended is done with every chapter (its missing reports are then the problem)");
    }

    /** A mistake's edit applies only where it is unique and inside a block of its own task. */
    static void mistakes() {
        Mistake inTask = new Mistake(Path.of("task2-x.txt"), "task2-x",
                java.util.Map.of("task", "2", "file", "X.java"), List.of(new Mistake.Edit("        return helper();\n", "        return 3;\n")));
        List<String> problems = new ArrayList<>();
        String wrong = inTask.apply(SOURCE, "ch09 task 2", problems);
        check(wrong != null && wrong.contains("return 3;") && !wrong.contains("return helper();") && problems.isEmpty(),
                "mistakes: an edit inside its task's block applies: " + problems);
        problems.clear();
        check(inTask.apply(SOURCE, "ch09 task 1", problems) == null
                && problems.get(0).contains("not inside a block of task"), "mistakes: an edit outside its task's block is refused");
        Mistake helper = new Mistake(Path.of("task2-y.txt"), "task2-y", java.util.Map.of("task", "2"),
                List.of(new Mistake.Edit("        return 2;\n", "        return 0;\n")));
        problems.clear();
        check(helper.apply(SOURCE, "ch09 task 2", problems) != null,
                "mistakes: an edit of a reference-only helper applies: " + problems);
        Mistake twice = new Mistake(Path.of("task1-z.txt"), "task1-z", java.util.Map.of("task", "1"),
                List.of(new Mistake.Edit("        // END-SOLUTION\n", "")));
        problems.clear();
        check(twice.apply(SOURCE, "ch09 task 1", problems) == null
                && problems.get(0).contains("more than once"), "mistakes: an edit whose text occurs twice is refused");
        Mistake stale = new Mistake(Path.of("task1-s.txt"), "task1-s", java.util.Map.of("task", "1"),
                List.of(new Mistake.Edit("        return 7;\n", "")));
        problems.clear();
        check(stale.apply(SOURCE, "ch09 task 1", problems) == null
                && problems.get(0).contains("stale"), "mistakes: an edit whose text is gone is reported stale");
        // Two edits of one task, the first adding lines: the second is still found inside the block.
        Mistake shifted = new Mistake(Path.of("task2-w.txt"), "task2-w", java.util.Map.of("task", "2"),
                List.of(new Mistake.Edit("        return helper();\n", "        int a = 1;\n        int b = 2;\n        return helper();\n"),
                        new Mistake.Edit("        int b = 2;\n", "        int b = 3;\n")));
        problems.clear();
        check(shifted.apply(SOURCE, "ch09 task 2", problems) != null,
                "mistakes: a second edit after one that added lines still lies in its block: " + problems);
        MistakesJvm.TestResult hung = new MistakesJvm.TestResult("HUNG", "-", "x");
        check(Mistakes.verdict(inTask, List.of(hung), false).startsWith("hung"), "mistakes: a hung run is no catch");
        Mistake named = new Mistake(Path.of("t.txt"), "t", java.util.Map.of("message", "the rule"), List.of());
        check(Mistakes.verdict(named, List.of(new MistakesJvm.TestResult("FAILED", "T.a", "[breaks the rule] expected 1")), false)
                .startsWith("caught"), "mistakes: a failure naming the rule catches");
        check(!Mistakes.verdict(named, List.of(new MistakesJvm.TestResult("FAILED", "T.a", "NullPointerException")), false)
                .startsWith("caught"), "mistakes: a failure that does not name the rule does not catch");
        check(Mistakes.verdict(named, List.of(new MistakesJvm.TestResult("FAILED", "T.a", "NullPointerException")), true)
                .startsWith("caught"), "mistakes --any-message: any failure of its task catches a fresh mistake");
        check(!Mistakes.verdict(named, List.of(new MistakesJvm.TestResult("PASSED", "T.a", "")), true)
                .startsWith("caught"), "mistakes --any-message: a mistake every test passes is not caught");
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

    static Tasks.Task task(int n, String testClass) {
        return new Tasks.Task("ch09", n, testClass,
                List.of(new Tasks.Block("ch09", n, "task " + n, testClass, Path.of("X.java"), n)));
    }

    static Reports.Outcome outcome(String cls, String name, Reports.Status status) {
        return new Reports.Outcome("kaenlog.x." + cls, name, status, status == Reports.Status.FAILED ? "boom" : null);
    }

    static void progress() {
        List<Tasks.Task> tasks = List.of(task(1, "OneTest"), task(2, "TwoTest"), task(3, "ThreeTest"));
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

    static Gate.Result result(String status, String cls, boolean declared, String todo) {
        return new Gate.Result(status, "kaenlog.x." + cls, "t", declared, todo, status.equals("PASSED") ? "" : "boom");
    }

    static void gateRules() {
        String id = "ch09";
        // Before task 2 (task 1 done): task 2's test must fail on its own TODO.
        check(Gate.rule(id, 2, 2, result("FAILED", "TwoTest", false, "ch09 task 2")) == null,
                "a task's test failing on its own TODO holds");
        check(Gate.rule(id, 2, 2, result("PASSED", "TwoTest", false, "-")).contains("passes before its task"),
                "a task's test passing before its task is written breaks the gate");
        check(Gate.rule(id, 2, 2, result("FAILED", "TwoTest", false, "ch09 task 3")).contains("on TODO ch09 task 3"),
                "a task's test failing on a later task's TODO breaks the gate, naming that TODO");
        check(Gate.rule(id, 2, 2, result("FAILED", "TwoTest", false, "-")).contains("not on TODO ch09 task 2"),
                "a task's test failing on another exception breaks the gate");
        check(Gate.rule(id, 2, 2, result("SKIPPED", "TwoTest", false, "-")) != null, "a skipped test of the task is no TODO failure");
        check(Gate.rule(id, 2, 1, result("FAILED", "OneTest", false, "ch09 task 2")).contains("does not pass after its task"),
                "an earlier task's test failing breaks the gate");
        check(Gate.rule(id, 2, 1, result("PASSED", "OneTest", false, "-")) == null, "an earlier task's test passing holds");
        check(Gate.rule(id, 2, 3, result("PASSED", "ThreeTest", false, "-")) == null
                && Gate.rule(id, 2, 3, result("FAILED", "ThreeTest", false, "-")) == null,
                "a later task's test may do anything");
        check(Gate.rule(id, 2, 0, result("FAILED", "GoldenTest", false, "ch09 task 2")) == null,
                "a whole-chapter test may fail on the TODO of a task left");
        check(Gate.rule(id, 3, 0, result("FAILED", "GoldenTest", false, "ch09 task 1")) != null,
                "a whole-chapter test failing on a done task's TODO breaks the gate");
        check(Gate.rule(id, 2, 0, result("FAILED", "GoldenTest", false, "-")) != null,
                "a whole-chapter test failing on no TODO breaks the gate");
        check(Gate.rule(id, 1, 0, result("PASSED", "GoldenTest", false, "-")).contains("passes on the skeleton"),
                "a whole-chapter test passing on the skeleton breaks the gate");
        check(Gate.rule(id, 2, 0, result("PASSED", "GoldenTest", false, "-")) == null,
                "a whole-chapter test may pass once tasks are done");
        check(Gate.rule(id, 1, 1, result("PASSED", "OneTest", true, "-")) == null,
                "a declared @PassesOnSkeleton test may pass before its task");
        check(Gate.rule(id, 1, 1, result("FAILED", "OneTest", true, "ch09 task 1")) == null,
                "a declared test may fail on a TODO of a task left");
        check(Gate.rule(id, 2, 1, result("FAILED", "OneTest", true, "ch09 task 2")).contains("@PassesOnSkeleton but fails"),
                "a declared test failing after its task is done breaks the gate");
        check(Gate.rule(id, 2, 0, result("SKIPPED", "GuideTest", true, "-")) == null,
                "a declared test may be skipped (a guide check on a learner's code)");
        List<String> broken = Gate.rules(id, 2, java.util.Map.of("OneTest", 1, "TwoTest", 2), List.of(
                result("PASSED", "OneTest", false, "-"), result("PASSED", "TwoTest", false, "-")));
        check(broken.size() == 1 && broken.get(0).startsWith("ch09 with tasks 1..1 done: TwoTest.t (task 2) passes"),
                "rules name the state and the test: " + broken);
    }

    static void hintSteps() {
        List<String> guide = List.of("## Hints", "", "**Task 1.** Start at `x`, not **y**. Then see [the table](#t): it",
                "says *why*. Last, e.g. a case.", "", "**Task 2.** Other.", "", "## Sources");
        List<String> steps = Hints.steps(guide, 1);
        check(steps.equals(List.of("Start at x, not y.", "Then see the table: it says why.", "Last, e.g. a case.")),
                "a hint is plain-text sentences, one step each: " + steps);
        check(Hints.steps(guide, 3).isEmpty(), "a task without a hint has no steps");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        Hints.wrap("word ".repeat(40).strip(), "  ", new java.io.PrintStream(bytes, true));
        List<String> lines = bytes.toString().lines().toList();
        check(lines.size() > 1 && lines.stream().allMatch(l -> l.length() <= Hints.WIDTH && l.startsWith("  word")),
                "a hint is wrapped at " + Hints.WIDTH + " columns under its indent: " + lines);
    }

    static void prose() {
        java.util.Map<String, java.util.Map<String, Integer>> numbers = java.util.Map.of(
                "ch09", java.util.Map.of("OneTest", 1, "TwoTest", 2, "SameTest", 3),
                "ch03", java.util.Map.of("SameTest", 7, "FarTest", 4));
        List<String> problems = new ArrayList<>();
        List<String> out = Prose.rewrite("ch09", List.of(
                "see task 1 (TwoTest) and Task 5 (OneTest), then chapter 3's task 1 (SameTest), task 2 (SameTest),",
                "**Task 2.** A head, and task 9 (FarTest); TODO ch09 task 2 is a TODO,",
                "```", "task 4 in a fenced block", "```",
                "but task 3 alone is bare, and so are tasks 1 to 2"), true, numbers, "g.md", problems);
        check(out.get(0).equals("see task 2 (TwoTest) and Task 1 (OneTest), then chapter 3's task 7 (SameTest), task 3 (SameTest),"),
                "references follow their class's number, in the chapter named before them or the file's own: " + out.get(0));
        check(out.get(1).contains("and task 4 (FarTest);"), "a class of one other chapter only is found there: " + out.get(1));
        check(problems.size() == 7 && problems.stream().filter(p -> p.contains("without its test class")).count() == 2
                && problems.stream().filter(p -> p.contains("g.md:6")).count() == 2,
                "stale numbers and the two bare references (not the head, the TODO, the fenced block) are problems: "
                        + problems);
        List<String> java = Prose.rewrite("ch09", List.of("/** Task 2: the head of a test class. */",
                "        // BEGIN-SOLUTION ch09 task 2: x (TwoTest)", "// Task 1, bare"), false, numbers, "T.java",
                problems = new ArrayList<>());
        check(problems.size() == 1 && problems.get(0).startsWith("T.java:3"), "in Java, the javadoc head and the marker"
                + " are the markers' own; a bare comment is a problem: " + problems);
    }

    static void chapters() {
        String pom = String.join("\n", "<modules>", "  <module>testkit</module>",
                "  <!-- BEGIN chapters, generated by ./workbook regen: modules -->", "  <module>ch01-old</module>",
                "  <!-- END chapters: modules -->", "</modules>", "<m>choose a chapter by its two digits (ch01): go</m>", "");
        List<String> problems = new ArrayList<>();
        List<String> chapters = List.of("ch01-a", "ch02-b");
        String out = Chapters.choose(Chapters.region(pom, "modules", Chapters.modules(chapters), Path.of("pom.xml"),
                problems), chapters, Path.of("pom.xml"), problems);
        check(problems.isEmpty() && out.contains("  <!-- BEGIN chapters, generated by ./workbook regen: modules -->\n"
                + "  <module>../ch01-a</module>\n  <module>../ch02-b</module>\n  <!-- END chapters: modules -->\n")
                && out.contains("<module>testkit</module>") && out.contains("two digits (ch01 ch02): go"),
                "a region is regenerated from the chapter list, indented as its BEGIN line: " + out);
        Chapters.region(pom, "profiles", List.of(), Path.of("pom.xml"), problems);
        check(problems.size() == 1 && problems.get(0).contains("no region \"profiles\""), "a missing region is a problem: "
                + problems);
        List<String> first = Chapters.laterProfiles("ch01-a", List.of("ch02-b", "ch03-c"));
        check(first.stream().filter(l -> l.contains("<id>")).toList().equals(List.of("  <id>ch02</id>", "  <id>ch03</id>",
                "  <id>reference.ch01</id>")), "an earlier chapter has a profile per later chapter and its -Dreference"
                + " switch: " + first);
        check(Chapters.laterProfiles("ch03-c", List.of()).isEmpty(), "the last chapter has none");
        List<String> parent = Chapters.parentProfiles(List.of("ch01-a", "ch02-b", "ch03-c"));
        int second = parent.indexOf("  <id>ch02</id>");
        check(parent.subList(second, second + 5).equals(List.of("  <id>ch02</id>",
                "  <modules>", "    <module>ch01-a</module>", "    <module>ch02-b</module>", "  </modules>")),
                "the parent's ch02 builds chapters 1 and 2 and never a later one: " + parent);
        check(Chapters.emptyProfiles(List.of("ch01-a")).equals(List.of("<profile>", "  <id>ch01</id>", "</profile>")),
                "all/pom.xml declares each chapter's id, so that -PchNN switches its every-module default off");
    }
}
