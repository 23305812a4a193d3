import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import kaenlog.testkit.loop.Tasks;

/**
 * Where a learner stands in a chapter, told truthfully: the data behind ./workbook status (and its
 * --json), computed from the markers' tasks and surefire's outcomes.
 *
 *   - A task is done when at least one test of its class ran and every one passed. A skipped or
 *     disabled test is never a pass: it keeps its task open.
 *   - The next task is the first task that is not done (by number), whatever later tasks show.
 *   - Test files that differ from the workbook's own version are listed: the learner writes
 *     src/main/java only, and a green made by editing a test is no green.
 */
public final class Progress {
    private Progress() {
    }

    /** One task's tests on the learner's code. {@code problem} is empty when the task is done. */
    record TaskProgress(int number, String title, String testClass, int tests, int passed, int failed, int skipped,
            String problem) {
        boolean done() {
            return tests > 0 && passed == tests;
        }
    }

    /**
     * A chapter: its tasks in order, the next task (0 when all are done), the demo's verdict, and
     * the test files that differ from the workbook's. {@code compiled} is false when the build
     * stopped before any test ran (then {@code problem} says why).
     */
    record ChapterProgress(String chapter, boolean compiled, List<TaskProgress> tasks, String demo, String problem,
            List<String> editedTests) {
        int done() {
            return (int) tasks.stream().filter(TaskProgress::done).count();
        }

        TaskProgress next() {
            return tasks.stream().filter(t -> !t.done()).findFirst().orElse(null);
        }
    }

    /** The chapter's progress from the outcomes of one test run (null outcomes: it did not compile). */
    static ChapterProgress of(String chapter, List<Tasks.Task> tasks, List<Reports.Outcome> outcomes,
            String compileProblem, List<String> editedTests) {
        List<TaskProgress> progress = new ArrayList<>();
        for (Tasks.Task task : tasks) {
            progress.add(outcomes == null
                    ? new TaskProgress(task.number(), task.blocks().get(0).what(), task.testClass(), 0, 0, 0, 0,
                            "does not compile")
                    : taskProgress(chapter, task, outcomes.stream()
                            .filter(o -> o.simpleClass().equals(task.testClass())).toList()));
        }
        return new ChapterProgress(chapter, outcomes != null, progress, outcomes == null ? "-" : demo(outcomes),
                compileProblem == null ? "" : compileProblem, editedTests);
    }

    /** One task from the outcomes of its test class: counts, and the first failure (a skip only when nothing failed). */
    static TaskProgress taskProgress(String chapter, Tasks.Task task, List<Reports.Outcome> mine) {
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        String problem = "";
        for (Reports.Outcome o : mine) {
            switch (o.status()) {
                case PASSED -> passed++;
                case FAILED -> {
                    failed++;
                    if (problem.isEmpty() || problem.contains(" is skipped")) {
                        problem = task.testClass() + "." + o.name() + ": " + firstLine(o.failure());
                    }
                }
                case SKIPPED -> {
                    skipped++;
                    if (problem.isEmpty()) {
                        problem = task.testClass() + "." + o.name() + " is skipped (@Disabled or an assumption):"
                                + " a skipped test is not a pass";
                    }
                }
            }
        }
        if (mine.isEmpty()) {
            problem = "no test of " + task.testClass() + " ran";
        }
        int blocker = blocker(chapter, mine);
        if (blocker > 0) {
            problem = String.format("blocked by chapter %d (its tests stop in your chapter %d code; -Dreference.ch%02d runs"
                    + " this chapter on the reference's): %s", blocker, blocker, blocker, problem);
        }
        return new TaskProgress(task.number(), task.blocks().get(0).what(), task.testClass(), mine.size(), passed, failed,
                skipped, problem);
    }

    /** The demo's golden test: it matches expected/, reaches a TODO, differs, or was skipped ("-" when it did not run). */
    static String demo(List<Reports.Outcome> outcomes) {
        String demo = "-";
        for (Reports.Outcome o : outcomes) {
            if (o.simpleClass().endsWith("DemoGoldenTest")) {
                demo = switch (o.status()) {
                    case PASSED -> "matches expected/";
                    case SKIPPED -> "skipped";
                    case FAILED -> o.failure() != null && o.failure().contains("TODO ") ? "reaches a TODO" : "differs";
                };
            }
        }
        return demo;
    }

    private static final java.util.regex.Pattern EARLIER = java.util.regex.Pattern.compile(
            "this fails in your chapter (\\d+) code|TODO ch(\\d\\d) task \\d+");

    /**
     * The earlier chapter every failure of these tests comes from (a TODO of it, or the line of
     * testkit's EarlierChapterFailures), as the task table's "blocked by chapter N"; -1 if any failure
     * is the chapter's own (or none failed).
     */
    static int blocker(String chapter, List<Reports.Outcome> outcomes) {
        int current = chapter.matches("ch\\d\\d.*") ? Integer.parseInt(chapter.substring(2, 4)) : 0;
        int blocker = -1;
        for (Reports.Outcome o : outcomes) {
            if (o.status() != Reports.Status.FAILED) {
                continue;
            }
            java.util.regex.Matcher m = EARLIER.matcher(String.valueOf(o.failure()));
            int n = m.find() ? Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)) : -1;
            if (n <= 0 || n >= current) {
                return -1;
            }
            blocker = blocker < 0 ? n : Math.min(blocker, n);
        }
        return blocker;
    }

    /**
     * The chapter's test files (added, changed, deleted or new) that differ from the workbook's own
     * version: the upstream the workbook was cloned from (origin/HEAD) when there is one, so that
     * committing an edited test does not hide it, else the last commit.
     */
    static List<String> editedTests(Path root, String chapter) {
        String tests = chapter + "/src/test";
        String base = null;
        for (String ref : List.of("origin/HEAD", "@{upstream}", "HEAD")) {
            if (git(root, "rev-parse", "--verify", "-q", ref + "^{commit}") != null) {
                base = ref;
                break;
            }
        }
        if (base == null) {
            return List.of("(cannot tell: not a git checkout, so test files cannot be compared with the workbook's)");
        }
        List<String> edited = new ArrayList<>();
        String diff = git(root, "diff", "--name-status", base, "--", tests);
        String untracked = git(root, "ls-files", "--others", "--exclude-standard", "--", tests);
        if (diff == null || untracked == null) {
            return List.of("(cannot tell: git diff failed)");
        }
        String against = " (against " + base + ")";
        diff.lines().filter(l -> !l.isBlank()).forEach(l -> edited.add(l.replace('\t', ' ') + against));
        untracked.lines().filter(l -> !l.isBlank()).forEach(l -> edited.add("? " + l + " (a file the workbook does not have)"));
        return edited;
    }

    static String git(Path root, String... args) {
        try {
            List<String> command = new ArrayList<>(List.of("git"));
            command.addAll(List.of(args));
            Process git = new ProcessBuilder(command).directory(root.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return git.waitFor() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    // ------------------------------------------------------------------ cache and JSON

    /** The test results of a chapter as properties (the status cache); edited tests are always checked live. */
    static Properties toProperties(ChapterProgress p) {
        Properties out = new Properties();
        out.setProperty("compiled", String.valueOf(p.compiled()));
        out.setProperty("demo", p.demo());
        out.setProperty("problem", p.problem());
        out.setProperty("tasks", String.valueOf(p.tasks().size()));
        for (int i = 0; i < p.tasks().size(); i++) {
            TaskProgress t = p.tasks().get(i);
            String k = "task." + i + ".";
            out.setProperty(k + "number", String.valueOf(t.number()));
            out.setProperty(k + "title", t.title());
            out.setProperty(k + "testClass", t.testClass());
            out.setProperty(k + "counts", t.tests() + "," + t.passed() + "," + t.failed() + "," + t.skipped());
            out.setProperty(k + "problem", t.problem());
        }
        return out;
    }

    static ChapterProgress fromProperties(String chapter, Properties in, List<String> editedTests) {
        List<TaskProgress> tasks = new ArrayList<>();
        int n = Integer.parseInt(in.getProperty("tasks", "0"));
        for (int i = 0; i < n; i++) {
            String k = "task." + i + ".";
            String[] c = in.getProperty(k + "counts").split(",");
            tasks.add(new TaskProgress(Integer.parseInt(in.getProperty(k + "number")), in.getProperty(k + "title"),
                    in.getProperty(k + "testClass"), Integer.parseInt(c[0]), Integer.parseInt(c[1]), Integer.parseInt(c[2]),
                    Integer.parseInt(c[3]), in.getProperty(k + "problem")));
        }
        return new ChapterProgress(chapter, Boolean.parseBoolean(in.getProperty("compiled")), tasks,
                in.getProperty("demo"), in.getProperty("problem"), editedTests);
    }

    /** The table of ./workbook status as JSON, for an instructor's grading script. */
    static String json(List<ChapterProgress> chapters) {
        StringBuilder out = new StringBuilder("{\"chapters\": [");
        for (int c = 0; c < chapters.size(); c++) {
            ChapterProgress p = chapters.get(c);
            TaskProgress next = p.next();
            out.append(c == 0 ? "\n" : ",\n").append("  {\"chapter\": ").append(str(p.chapter()))
                    .append(", \"compiles\": ").append(p.compiled())
                    .append(", \"done\": ").append(p.done()).append(", \"tasks\": ").append(p.tasks().size())
                    .append(", \"next\": ").append(next == null ? "null" : String.valueOf(next.number()))
                    .append(", \"demo\": ").append(str(p.demo()))
                    .append(", \"problem\": ").append(str(p.problem()))
                    .append(", \"editedTests\": [");
            for (int i = 0; i < p.editedTests().size(); i++) {
                out.append(i == 0 ? "" : ", ").append(str(p.editedTests().get(i)));
            }
            out.append("],\n   \"taskResults\": [");
            for (int i = 0; i < p.tasks().size(); i++) {
                TaskProgress t = p.tasks().get(i);
                out.append(i == 0 ? "\n" : ",\n").append("    {\"task\": ").append(t.number())
                        .append(", \"title\": ").append(str(t.title()))
                        .append(", \"testClass\": ").append(str(t.testClass()))
                        .append(", \"done\": ").append(t.done())
                        .append(", \"tests\": ").append(t.tests())
                        .append(", \"passed\": ").append(t.passed())
                        .append(", \"failed\": ").append(t.failed())
                        .append(", \"skipped\": ").append(t.skipped())
                        .append(", \"problem\": ").append(str(t.problem())).append('}');
            }
            out.append("]}");
        }
        return out.append("\n]}").toString();
    }

    static String str(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : (s == null ? "" : s).toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}
