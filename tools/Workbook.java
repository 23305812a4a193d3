import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.testkit.loop.Tasks;

/**
 * The learner's companion: where am I, what next, a hint, the solution of one task, start over.
 *
 *   ./workbook status              every chapter: tasks passed, the next task, does the demo match
 *   ./workbook watch ch03          rerun chapter 3's tests on every save; show the first failing task
 *   ./workbook hint ch03 4         the guide's hint for task 4 of chapter 3 (no spoiler)
 *   ./workbook solution ch03 4     the reference's code for task 4, next to yours
 *   ./workbook restart ch03        regenerate chapter 3's skeleton (refuses to overwrite uncommitted work)
 *
 * Tasks come from the reference's markers (// BEGIN-SOLUTION chNN task N: what (TestClass)); a task
 * is done when every test of its test class passes on your code (mvn -PchNN test). This class reads
 * the command line and hands each command to the class of its name (Status, Hints, Solution,
 * Restart, Quiz; the maintainer's Regen, TaskTables, Skeletons, Gate, Mistakes, SelfTest).
 */
public class Workbook {
    static final Path ROOT = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();

    /**
     * Ends a command with an exit status (and a message for stderr): only {@link #main} calls
     * System.exit, so every helper can be called from another tool or a test.
     */
    static final class Stop extends RuntimeException {
        final int status;

        Stop(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    public static void main(String[] args) throws Exception {
        int status;
        try {
            status = run(args);
        } catch (Stop stop) {
            if (stop.getMessage() != null && !stop.getMessage().isEmpty()) {
                (stop.status == 0 ? System.out : System.err).println(stop.getMessage());
            }
            status = stop.status;
        }
        System.exit(status);
    }

    /** Runs one command and returns its exit status. */
    static int run(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
            return usage(args.length == 0 ? 2 : 0);
        }
        return switch (args[0]) {
            case "status" -> Status.command(rest(args));
            case "watch" -> watch(chapter(args, 1), from(args, 2));
            case "hint" -> Hints.command(ROOT, chapter(args, 1), task(chapter(args, 1), taskNumber(args, 2)), from(args, 3));
            case "solution" -> Solution.command(chapter(args, 1), taskNumber(args, 2));
            case "restart" -> Restart.command(chapter(args, 1), args.length > 2 && args[2].equals("--force"));
            case "quiz" -> Quiz.command(chapter(args, 1), from(args, 2));
            // The maintainer's commands (README, "The maintainer's loop").
            case "regen" -> Regen.main(ROOT, rest(args));
            case "check" -> TaskTables.main(ROOT, rest(args));
            case "skeletons" -> Skeletons.main(ROOT, rest(args));
            case "gate" -> Gate.main(ROOT, rest(args));
            case "mistakes" -> Mistakes.main(ROOT, rest(args));
            case "selftest" -> SelfTest.main(ROOT, rest(args));
            default -> {
                System.err.println("workbook: unknown command '" + args[0] + "'");
                yield usage(2);
            }
        };
    }

    static String[] rest(String[] args) {
        return from(args, 1);
    }

    /** The arguments from {@code at} on (none when there are fewer). */
    static String[] from(String[] args, int at) {
        return Arrays.copyOfRange(args, Math.min(at, args.length), args.length);
    }

    static int usage(int status) {
        (status == 0 ? System.out : System.err).println("""
                usage: ./workbook status [chNN...]  tasks passed, next task and demo per chapter (--json: as JSON)
                       ./workbook watch chNN        rerun a chapter's tests whenever a file in it changes
                       ./workbook hint chNN N [--more]   a direction for task N; --more: the next step
                       ./workbook solution chNN N   the reference's code for task N, beside yours
                       ./workbook restart chNN [--force]   regenerate the chapter's skeleton
                       ./workbook quiz chNN [ANSWER...]     the guide's questions, one at a time, each answer explained
                maintainer:
                       ./workbook regen             skeletons, golden files, guides' task tables and excerpts from solutions/
                       ./workbook check             guides' task tables, hints and test classes agree with the markers
                       ./workbook selftest          the tools' own tests
                       ./workbook gate [chNN...]    every task solvable in order (after mvn -Psolutions verify)
                       ./workbook mistakes [chNN...] [-v]   every learner mistake of the corpus caught by its task's tests
                                    --from DIR [--any-message]: mistakes kept outside the corpus (DIR/chNN-x/)
                       ./workbook skeletons [--write]   check (or write) the skeletons only""");
        return status;
    }

    /**
     * The warm loop lives in tools/Watch.java (and the testkit); this only starts it in its own JVM:
     * its class as ./workbook compiled it (the source launcher would compile it again, 0.9 s of CPU),
     * and C1 only, as surefire runs the tests. A watch round is short and each one loads the
     * learner's classes afresh: C2's compiler threads cost more CPU than they win back (chapter 1's
     * round took 0.7-1.1 s of CPU with C2, 0.3-0.5 s without; chapter 6's green round 4.7-6.0 s
     * against 4.4-4.5 s).
     */
    static int watch(String chapter, String[] options) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dworkbook.root=" + ROOT, "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "Watch", chapter));
        command.addAll(List.of(options));
        return new ProcessBuilder(command).directory(ROOT.toFile()).inheritIO().start().waitFor();
    }

    // ---------------------------------------------------------------- chapters and tasks

    /** The chapter folders that have a reference (Chapters' one list, less a folder without solutions/). */
    static List<String> chapters() throws IOException {
        return Chapters.list(ROOT).stream().filter(c -> Files.isDirectory(ROOT.resolve("solutions").resolve(c))).toList();
    }

    /** The chapter's tasks in order, from the reference's markers (testkit's Tasks: the one parser). */
    static List<Tasks.Task> tasks(String chapter) throws IOException {
        return Markers.tasksOrStop(ROOT, chapter);
    }

    static Tasks.Task task(String chapter, int number) throws IOException {
        return tasks(chapter).stream().filter(t -> t.number() == number).findFirst()
                .orElseThrow(() -> new Stop(2, "workbook: " + chapter + " has no task " + number));
    }

    /** The chapter named at {@code args[at]}, by its folder or its two digits ("ch03"). */
    static String chapter(String[] args, int at) throws IOException {
        if (args.length <= at) {
            throw new Stop(usage(2), "");
        }
        String wanted = args[at];
        for (String chapter : chapters()) {
            if (chapter.equals(wanted) || chapter.startsWith(wanted + "-")) {
                return chapter;
            }
        }
        throw new Stop(2, "workbook: no chapter '" + wanted + "' (chapters: " + String.join(", ", chapters()) + ")");
    }

    static int taskNumber(String[] args, int at) {
        try {
            return Integer.parseInt(args[at]);
        } catch (RuntimeException e) {
            throw new Stop(2, "workbook: which task? give its number, e.g. ./workbook hint ch01 3");
        }
    }

    static void deleteTree(Path dir) throws IOException {
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
