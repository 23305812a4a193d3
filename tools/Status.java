import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./workbook status [chNN...] [--json]}: every chapter's line (tasks passed, the next task,
 * does the demo match, which earlier chapters it ran on), then the first failure of each, then the
 * test files a learner edited. The progress itself comes from {@link StatusCache}, which runs a
 * chapter's tests again only when something it depends on changed.
 */
final class Status {
    /** The columns of the table: its header and every chapter's line. */
    private static final String HEADER = "%-18s %7s  %-68s %-18s %s%n";
    private static final String LINE = "%-18s %3d/%-3d  %-68s %-18s %s%n";

    /** A chapter's line of the table, and its first failure (empty when there is none). */
    record Result(String chapter, int passed, int total, String next, String failure, String demo, String earlier) {
    }

    private Status() {
    }

    static int command(String[] args) throws Exception {
        boolean json = List.of(args).contains("--json");
        List<Progress.ChapterProgress> progress = new ArrayList<>();
        for (String chapter : chapters(args)) {
            progress.add(StatusCache.progressOf(chapter));
        }
        if (json) {
            System.out.println(Progress.json(progress));
            return 0;
        }
        List<Result> results = new ArrayList<>();
        for (Progress.ChapterProgress p : progress) {
            List<String> reference = StatusCache.referenceEarlier(p.chapter());
            results.add(blockedOnYours(toResult(p, StatusCache.describeEarlier(p.chapter(), reference)), reference));
        }
        printTable(results);
        printFailures(results);
        printEditedTests(progress);
        return 0;
    }

    /** The chapters named on the command line, every chapter when none is. */
    private static List<String> chapters(String[] args) throws Exception {
        List<String> chapters = new ArrayList<>();
        for (String wanted : args) {
            if (!wanted.equals("--json")) {
                chapters.add(Workbook.chapter(new String[] {wanted}, 0));
            }
        }
        return chapters.isEmpty() ? Workbook.chapters() : chapters;
    }

    /** The status line of a chapter: tasks done, the first task not done and why, the demo. */
    static Result toResult(Progress.ChapterProgress p, String earlier) {
        Progress.TaskProgress next = p.next();
        if (!p.compiled()) {
            return new Result(p.chapter(), 0, p.tasks().size(), "does not compile", p.problem(), "-", earlier);
        }
        return new Result(p.chapter(), p.done(), p.tasks().size(),
                next == null ? "all tasks done" : "task " + next.number() + ": " + next.title() + " (" + next.testClass() + ")",
                next == null ? "" : next.problem(), p.demo(), earlier);
    }

    /**
     * A chapter whose tasks all pass on the reference's earlier chapter N (yours failing its own
     * tasks) is not done on your code: {@code mvn -PchNN test} runs it on yours, and its table says
     * "blocked by chapter N". The status says the same, naming N's first task not done.
     */
    static Result blockedOnYours(Result r, List<String> reference) throws Exception {
        if (reference.isEmpty() || r.passed() < r.total()) {
            return r;
        }
        String earlier = reference.get(0);
        int n = Integer.parseInt(earlier.substring(2, 4));
        Progress.ChapterProgress yours = StatusCache.progressOf(earlier);
        Progress.TaskProgress task = yours.next();
        String why = !yours.compiled() || task == null ? "does not compile"
                : "fails task " + task.number() + " (" + task.testClass() + ")";
        return new Result(r.chapter(), r.passed(), r.total(),
                String.format("all done on the reference's ch%02d; blocked by chapter %d on yours", n, n),
                String.format("blocked by chapter %d on your code: your chapter %d %s, so these tasks passed on the"
                        + " reference's chapter %d; mvn -P%s test runs them on yours, mvn -P%s test shows chapter %d's own",
                        n, n, why, n, r.chapter().substring(0, 4), earlier.substring(0, 4), n),
                r.demo(), r.earlier());
    }

    private static void printTable(List<Result> results) {
        System.out.printf(HEADER, "chapter", "tasks", "next", "demo", "earlier chapters");
        for (Result r : results) {
            System.out.printf(LINE, r.chapter(), r.passed(), r.total(), clip(r.next(), 68), r.demo(), r.earlier());
        }
        if (results.stream().anyMatch(r -> r.earlier().contains("reference"))) {
            System.out.println();
            System.out.println("earlier chapters: yours when all their tasks pass on your code, else the reference's"
                    + " (mvn -PchNN test always uses yours; add -Dearlier=reference for the reference's)");
        }
    }

    private static void printFailures(List<Result> results) {
        for (Result r : results) {
            if (!r.failure().isEmpty()) {
                String id = r.chapter().substring(0, 4);
                System.out.println();
                System.out.println(r.chapter() + ": " + r.failure());
                if (r.failure().startsWith("blocked by chapter")) {
                    continue; // the hint is the earlier chapter's, named in the line
                }
                System.out.println("  (./workbook hint " + id + " N for a hint, ./workbook solution " + id
                        + " N for the reference's code)");
            }
        }
    }

    /** A test made green by editing it is no green: say which test files differ from the workbook's. */
    private static void printEditedTests(List<Progress.ChapterProgress> progress) {
        for (Progress.ChapterProgress p : progress) {
            if (!p.editedTests().isEmpty()) {
                System.out.println();
                System.out.println(p.chapter() + ": these test files differ from the workbook's (you write src/main/java;"
                        + " a test made green by editing it does not count):");
                p.editedTests().forEach(e -> System.out.println("  " + e));
            }
        }
    }

    static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }
}
