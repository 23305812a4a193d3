import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * is done when every test of its test class passes on your code (mvn -PchNN test). The earlier
 * chapters are yours when every task of theirs passes on your code, else the reference's
 * (-Dreference.chNN), and status says which it used. Results are cached per chapter and reused
 * while nothing it depends on has changed.
 */
public class Workbook {
    static final Path ROOT = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
    static final Path CACHE = ROOT.resolve("build/workbook");

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

    record Result(String chapter, int passed, int total, String next, String failure, String demo, String earlier) {
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
            case "status" -> status(java.util.Arrays.copyOfRange(args, 1, args.length));
            case "watch" -> watch(chapter(args, 1), java.util.Arrays.copyOfRange(args, Math.min(2, args.length), args.length));
            case "hint" -> Hints.command(ROOT, chapter(args, 1), task(chapter(args, 1), taskNumber(args, 2)),
                    java.util.Arrays.copyOfRange(args, Math.min(3, args.length), args.length));
            case "solution" -> solution(chapter(args, 1), taskNumber(args, 2));
            case "restart" -> restart(chapter(args, 1), args.length > 2 && args[2].equals("--force"));
            case "quiz" -> Quiz.command(chapter(args, 1), java.util.Arrays.copyOfRange(args, 2, args.length));
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
        return java.util.Arrays.copyOfRange(args, 1, args.length);
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

    // ---------------------------------------------------------------- status

    static int status(String[] only) throws Exception {
        boolean json = false;
        List<String> chapters = new ArrayList<>();
        for (String wanted : only) {
            if (wanted.equals("--json")) {
                json = true;
            } else {
                chapters.add(chapter(new String[] {wanted}, 0));
            }
        }
        if (chapters.isEmpty()) {
            chapters = chapters();
        }
        List<Progress.ChapterProgress> progress = new ArrayList<>();
        for (String chapter : chapters) {
            progress.add(progressOf(chapter));
        }
        if (json) {
            System.out.println(Progress.json(progress));
            return 0;
        }
        List<Result> results = new ArrayList<>();
        for (Progress.ChapterProgress p : progress) {
            results.add(toResult(p, describeEarlier(p.chapter(), referenceEarlier(p.chapter()))));
        }
        System.out.printf("%-18s %7s  %-68s %-18s %s%n", "chapter", "tasks", "next", "demo", "earlier chapters");
        for (Result r : results) {
            System.out.printf("%-18s %3d/%-3d  %-68s %-18s %s%n", r.chapter(), r.passed(), r.total(), clip(r.next(), 68),
                    r.demo(), r.earlier());
        }
        if (results.stream().anyMatch(r -> r.earlier().contains("reference"))) {
            System.out.println();
            System.out.println("earlier chapters: yours when all their tasks pass on your code, else the reference's"
                    + " (mvn -PchNN test always uses yours; add -Dearlier=reference for the reference's)");
        }
        for (Result r : results) {
            if (!r.failure().isEmpty()) {
                System.out.println();
                System.out.println(r.chapter() + ": " + r.failure());
                System.out.println("  (./workbook hint " + r.chapter().substring(0, 4) + " N for a hint, ./workbook solution "
                        + r.chapter().substring(0, 4) + " N for the reference's code)");
            }
        }
        for (Progress.ChapterProgress p : progress) {
            if (!p.editedTests().isEmpty()) {
                System.out.println();
                System.out.println(p.chapter() + ": these test files differ from the workbook's (you write src/main/java;"
                        + " a test made green by editing it does not count):");
                p.editedTests().forEach(e -> System.out.println("  " + e));
            }
        }
        return 0;
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

    static final Map<String, Progress.ChapterProgress> PROGRESS = new LinkedHashMap<>();

    /**
     * The earlier chapters to take from the reference for a run of this chapter: those whose tasks
     * are not all done on the learner's code. The others are the learner's own (mvn -PchNN test's
     * default).
     */
    static List<String> referenceEarlier(String chapter) throws Exception {
        List<String> reference = new ArrayList<>();
        for (String earlier : chapters()) {
            if (earlier.compareTo(chapter) >= 0) {
                break;
            }
            Progress.ChapterProgress p = progressOf(earlier);
            if (!p.compiled() || p.next() != null) {
                reference.add(earlier);
            }
        }
        return reference;
    }

    /** "ch01 yours, ch03 reference" for a run of this chapter with those earlier chapters on the reference. */
    static String describeEarlier(String chapter, List<String> reference) throws IOException {
        List<String> parts = new ArrayList<>();
        for (String earlier : chapters()) {
            if (earlier.compareTo(chapter) >= 0) {
                break;
            }
            parts.add(earlier.substring(0, 4) + (reference.contains(earlier) ? " reference" : " yours"));
        }
        return parts.isEmpty() ? "-" : String.join(", ", parts);
    }

    /** The chapter's progress, from the cache when nothing it depends on changed since it was computed. */
    static Progress.ChapterProgress progressOf(String chapter) throws Exception {
        Progress.ChapterProgress known = PROGRESS.get(chapter);
        if (known != null) {
            return known;
        }
        List<String> reference = referenceEarlier(chapter);
        Progress.ChapterProgress progress = cachedOrMeasured(chapter, reference);
        PROGRESS.put(chapter, progress);
        return progress;
    }

    static Progress.ChapterProgress cachedOrMeasured(String chapter, List<String> reference) throws Exception {
        String fingerprint = fingerprint(chapter, reference);
        Path cached = CACHE.resolve(chapter + ".properties");
        if (Files.exists(cached)) {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(cached, StandardCharsets.UTF_8)) {
                p.load(in);
            }
            // A cache written before the per-task results were kept has no "tasks": measure again.
            if (fingerprint.equals(p.getProperty("fingerprint")) && p.getProperty("tasks") != null) {
                return Progress.fromProperties(chapter, p, Progress.editedTests(ROOT, chapter));
            }
        }
        Progress.ChapterProgress progress = measure(chapter, reference);
        Properties p = Progress.toProperties(progress);
        p.setProperty("fingerprint", fingerprint);
        Files.createDirectories(CACHE);
        try (var out = Files.newBufferedWriter(cached, StandardCharsets.UTF_8)) {
            p.store(out, "./workbook status cache");
        }
        return progress;
    }

    /** Runs the chapter's tests on the learner's code, the earlier chapters chosen as status does. */
    static Result run(String chapter) throws Exception {
        List<String> reference = referenceEarlier(chapter);
        return toResult(measure(chapter, reference), describeEarlier(chapter, reference));
    }

    /** Runs the chapter's tests on the learner's code, these earlier chapters on the reference. */
    static Progress.ChapterProgress measure(String chapter, List<String> referenceEarlier) throws Exception {
        String earlier = describeEarlier(chapter, referenceEarlier);
        System.err.println("workbook: testing " + chapter + (earlier.equals("-") ? "" : " (earlier chapters: " + earlier
                + ")") + " ...");
        List<Reports.Outcome> outcomes = runTests(chapter, referenceEarlier);
        return Progress.of(chapter, Markers.tasksOrStop(ROOT, chapter), outcomes,
                outcomes == null ? firstCompileError(chapter) : null, Progress.editedTests(ROOT, chapter));
    }

    /** Every test outcome of the chapter on the learner's code, or null when the build failed before the tests ran. */
    static List<Reports.Outcome> runTests(String chapter, List<String> referenceEarlier) throws Exception {
        Path reports = Reports.dir(ROOT, chapter);
        deleteTree(reports);
        Files.createDirectories(CACHE);
        Path log = CACHE.resolve(chapter + ".log");
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-P" + chapter.substring(0, 4), "test",
                "-Dmaven.test.failure.ignore=true"));
        for (String earlier : referenceEarlier) {
            command.add("-Dreference." + earlier.substring(0, 4));
        }
        Process mvn = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (mvn.waitFor() != 0 || !Files.isDirectory(reports)) {
            return null;
        }
        return Reports.outcomes(reports);
    }

    static String firstCompileError(String chapter) throws IOException {
        for (String line : Files.readAllLines(CACHE.resolve(chapter + ".log"), StandardCharsets.UTF_8)) {
            if (line.startsWith("[ERROR]") && line.contains(".java:[")) {
                return line.substring(line.lastIndexOf('/') + 1).strip();
            }
        }
        return "see " + ROOT.relativize(CACHE.resolve(chapter + ".log"));
    }

    /**
     * What the chapter's result depends on: the learner's chapter and the earlier chapters of theirs
     * it runs on, the reference, the poms.
     */
    static String fingerprint(String chapter, List<String> referenceEarlier) throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(describeEarlier(chapter, referenceEarlier).getBytes(StandardCharsets.UTF_8));
        List<Path> dirs = new ArrayList<>(List.of(ROOT.resolve(chapter).resolve("src"), ROOT.resolve("solutions"),
                ROOT.resolve("testkit/src"), ROOT.resolve("expected")));
        for (String earlier : chapters()) {
            if (earlier.compareTo(chapter) < 0 && !referenceEarlier.contains(earlier)) {
                dirs.add(ROOT.resolve(earlier).resolve("src/main"));
                dirs.add(ROOT.resolve(earlier).resolve("pom.xml"));
            }
        }
        List<Path> inputs = new ArrayList<>();
        for (Path dir : dirs) {
            if (Files.isRegularFile(dir)) {
                inputs.add(dir);
            }
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.filter(Files::isRegularFile).sorted().forEach(inputs::add);
                }
            }
        }
        inputs.add(ROOT.resolve("pom.xml"));
        inputs.add(ROOT.resolve(chapter).resolve("pom.xml"));
        for (Path p : inputs) {
            sha.update(ROOT.relativize(p).toString().getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(p));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    // ---------------------------------------------------------------- watch

    /** The warm loop lives in tools/Watch.java (and the testkit); this only starts it in its own JVM. */
    static int watch(String chapter, String[] options) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dworkbook.root=" + ROOT, "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-XX:+UseSerialGC",
                ROOT.resolve("tools/Watch.java").toString(), chapter));
        command.addAll(List.of(options));
        return new ProcessBuilder(command).directory(ROOT.toFile()).inheritIO().start().waitFor();
    }

    // ---------------------------------------------------------------- hint, solution, restart

    /**
     * Every reference block of the task, printed as it can be pasted (in place of the TODO line),
     * then the learner's current body of the same method, for comparison.
     */
    static int solution(String chapter, int number) throws IOException {
        Tasks.Task task = task(chapter, number);
        System.out.println("task " + number + ": " + task.what() + " (" + task.testClass() + ")");
        Path reference = ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        try (Stream<Path> walk = Files.walk(reference)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = Markers.BEGIN.matcher(lines.get(i));
                    if (m.matches() && Integer.parseInt(m.group(4)) == number) {
                        printBlock(chapter, reference, file, lines, i);
                    }
                }
            }
        }
        return 0;
    }

    static void printBlock(String chapter, Path reference, Path file, List<String> lines, int marker) throws IOException {
        // The block is the rest of a body (a method's, a lambda's, a try's): one level inside "outer".
        String body = lines.get(marker).substring(0, lines.get(marker).indexOf('/'));
        String outer = body.substring(Math.min(4, body.length()));
        int start = above(lines, marker, outer);
        int end = start;
        while (end >= 0 && end < marker && !lines.get(end).strip().endsWith("{")) {
            end++; // a header wrapped over several lines
        }
        int member = above(lines, marker, "    ");
        Path yours = ROOT.resolve(chapter).resolve("src/main/java").resolve(reference.relativize(file));
        String method = member < 0 ? "" : lines.get(member).strip() + (lines.get(member).strip().endsWith("{") ? "" : " ...");
        System.out.println();
        System.out.println("== " + ROOT.relativize(yours) + (method.isEmpty() ? "" : ", in " + method));
        System.out.println("-- the reference (" + ROOT.relativize(file) + ":" + (marker + 2) + "), to paste in place of the TODO line:");
        for (int j = marker + 1; j < lines.size() && !lines.get(j).strip().equals("// END-SOLUTION"); j++) {
            System.out.println(lines.get(j));
        }
        System.out.println("-- yours now:");
        List<String> mine = Files.exists(yours) ? Files.readAllLines(yours, StandardCharsets.UTF_8) : List.of();
        int from = member < 0 ? -1 : mine.indexOf(lines.get(member));
        int at = from < 0 || start < 0 || end >= marker ? -1 : indexOf(mine, lines.subList(start, end + 1), from);
        if (at < 0) {
            System.out.println("   (" + ROOT.relativize(yours) + " has no " + method + ")");
            return;
        }
        for (int j = at + end - start + 1; j < mine.size() && !mine.get(j).startsWith(outer + "}"); j++) {
            System.out.println(mine.get(j));
        }
    }

    /** The nearest line above this one that starts exactly at this indentation, or -1. */
    static int above(List<String> lines, int at, String indent) {
        for (int j = at - 1; j >= 0; j--) {
            String line = lines.get(j);
            if (line.length() > indent.length() && line.startsWith(indent) && !Character.isWhitespace(line.charAt(indent.length()))) {
                return j;
            }
        }
        return -1;
    }

    /** Where these consecutive lines start in a file, from line "from" on, or -1. */
    static int indexOf(List<String> file, List<String> wanted, int from) {
        for (int i = from; i + wanted.size() <= file.size(); i++) {
            if (file.subList(i, i + wanted.size()).equals(wanted)) {
                return i;
            }
        }
        return -1;
    }

    static int restart(String chapter, boolean force) throws Exception {
        Path sources = ROOT.resolve(chapter).resolve("src/main/java");
        if (!force) {
            Process git = new ProcessBuilder("git", "status", "--porcelain", "--", ROOT.relativize(sources).toString())
                    .directory(ROOT.toFile()).redirectErrorStream(true).start();
            String changes = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (git.waitFor() != 0) {
                throw new Stop(1, "workbook: cannot ask git about uncommitted work (" + changes
                        + "); run with --force to regenerate anyway");
            }
            if (!changes.isEmpty()) {
                throw new Stop(1, "workbook: " + chapter + " has uncommitted work:\n" + changes
                        + "\ncommit it first (git commit -am ...), or run: ./workbook restart " + chapter + " --force");
            }
        }
        // Regenerating deletes every .java file the skeleton does not have: say which, before.
        Path reference = ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        List<Path> added = new ArrayList<>();
        if (Files.isDirectory(sources)) {
            try (Stream<Path> walk = Files.walk(sources)) {
                for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (!Files.exists(reference.resolve(sources.relativize(file)))) {
                        added.add(file);
                    }
                }
            }
        }
        for (Path file : added) {
            System.out.println("workbook: deleting " + ROOT.relativize(file) + ", a file you added (git keeps what you committed)");
        }
        return Skeletons.main(ROOT, new String[] {"--write", chapter});
    }

    // ---------------------------------------------------------------- chapters and tasks

    static List<String> chapters() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            return dirs.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("ch\\d\\d-.*") && Files.exists(ROOT.resolve(n).resolve("pom.xml"))
                            && Files.isDirectory(ROOT.resolve("solutions").resolve(n)))
                    .sorted().toList();
        }
    }

    /** The chapter's tasks in order, from the reference's markers (testkit's Tasks: the one parser). */
    static List<Tasks.Task> tasks(String chapter) throws IOException {
        return Markers.tasksOrStop(ROOT, chapter);
    }

    static Tasks.Task task(String chapter, int number) throws IOException {
        return tasks(chapter).stream().filter(t -> t.number() == number).findFirst()
                .orElseThrow(() -> new Stop(2, "workbook: " + chapter + " has no task " + number));
    }

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

    static String firstLine(String text) {
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
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

/**
 * {@code ./workbook quiz chNN [ANSWER...]}: the questions of a guide's "## Check your understanding"
 * section, asked one at a time, each answer explained. With answers as arguments it runs without
 * asking ({@code ./workbook quiz ch08 b a c}) and exits 0 when all are right, 1 when one is not.
 *
 * <p>The guide is the one store of the questions; this class only reads its form:
 * <pre>
 * **1. The question, on one line?**
 *
 * - a) an option, one line each
 * - b) ...
 *
 * &lt;details&gt;&lt;summary&gt;Answer&lt;/summary&gt;
 *
 * **b)** Why b, and why the others are traps (any number of lines and paragraphs).
 *
 * &lt;/details&gt;
 * </pre>
 */
final class Quiz {
    static final String SECTION = "## Check your understanding";
    private static final Pattern QUESTION = Pattern.compile("^\\*\\*(\\d+)\\. (.+)\\*\\*$");
    private static final Pattern OPTION = Pattern.compile("^- ([a-e])\\) (.+)$");
    private static final Pattern ANSWER = Pattern.compile("^\\*\\*([a-e])\\)\\*\\* ?(.*)$");
    private static final int WIDTH = 96;

    record Question(int number, String text, List<String> options, char answer, String explanation) {
        char lastLetter() {
            return (char) ('a' + options.size() - 1);
        }
    }

    private Quiz() {
    }

    /** The command: exits with {@link #run}'s status. */
    static int command(String chapter, String[] answers) throws IOException {
        Path guide = Workbook.ROOT.resolve(chapter).resolve("README.md");
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        return run(chapter, Files.readAllLines(guide, StandardCharsets.UTF_8), List.of(answers), in, System.out,
                System.err);
    }

    /**
     * Asks every question of {@code guide}, taking the answers from {@code given} when there are any
     * (one per question) and from {@code in} otherwise. Returns 0 when every answer was right, 1 when
     * one was not, 2 for a guide without questions or answers that do not fit them.
     */
    static int run(String chapter, List<String> guide, List<String> given, java.io.BufferedReader in,
            java.io.PrintStream out, java.io.PrintStream err) throws IOException {
        List<Question> questions;
        try {
            questions = parse(guide);
        } catch (IllegalArgumentException e) {
            err.println("workbook: " + chapter + "/README.md: " + e.getMessage());
            return 2;
        }
        if (questions.isEmpty()) {
            err.println("workbook: " + chapter + "/README.md has no '" + SECTION + "' section with questions");
            return 2;
        }
        if (!given.isEmpty() && given.size() != questions.size()) {
            err.println("workbook: " + chapter + " has " + questions.size() + " questions; give one answer each"
                    + " (e.g. ./workbook quiz " + chapter.substring(0, 4) + " " + "a ".repeat(questions.size()).strip()
                    + ") or none to be asked");
            return 2;
        }
        for (int i = 0; i < given.size(); i++) {
            if (!fits(given.get(i), questions.get(i))) {
                err.println("workbook: answer " + (i + 1) + " is '" + given.get(i) + "': question " + (i + 1)
                        + " takes a letter from a to " + questions.get(i).lastLetter());
                return 2;
            }
        }
        out.println(chapter + " · check your understanding · " + questions.size() + " questions");
        int right = 0;
        int asked = 0;
        for (int i = 0; i < questions.size(); i++) {
            Question q = questions.get(i);
            out.println();
            out.println("Question " + (i + 1) + " of " + questions.size());
            wrap(q.text(), "", out);
            for (int k = 0; k < q.options().size(); k++) {
                wrap(q.options().get(k), "  " + (char) ('a' + k) + ") ", out);
            }
            String answer;
            if (given.isEmpty()) {
                answer = ask(q, in, out);
                if (answer == null) {
                    break;
                }
            } else {
                answer = given.get(i);
                out.println("your answer: " + answer);
            }
            asked++;
            boolean correct = answer.charAt(0) == q.answer();
            right += correct ? 1 : 0;
            out.println(correct ? "Right: " + q.answer() + "." : "Not quite: the answer is " + q.answer() + ".");
            String[] paragraphs = q.explanation().split("\n\n");
            for (int p = 0; p < paragraphs.length; p++) {
                if (p > 0) {
                    out.println();
                }
                wrap(paragraphs[p], "", out);
            }
        }
        out.println();
        out.println(right + " of " + asked + " right" + (asked < questions.size() ? " (stopped early)" : "") + ".");
        return right == questions.size() ? 0 : 1;
    }

    private static String ask(Question q, java.io.BufferedReader in, java.io.PrintStream out) throws IOException {
        while (true) {
            out.print("your answer (a-" + q.lastLetter() + ", q to stop): ");
            out.flush();
            String line = in.readLine();
            if (line == null || line.strip().equalsIgnoreCase("q")) {
                out.println();
                return null;
            }
            String answer = line.strip().toLowerCase(java.util.Locale.ROOT);
            if (fits(answer, q)) {
                return answer;
            }
            out.println("one letter from a to " + q.lastLetter() + ", please");
        }
    }

    private static boolean fits(String answer, Question q) {
        return answer.length() == 1 && answer.charAt(0) >= 'a' && answer.charAt(0) <= q.lastLetter();
    }

    /** The questions of the guide's section, in order; a malformed question is an error naming its line. */
    static List<Question> parse(List<String> guide) {
        List<Question> questions = new ArrayList<>();
        int start = guide.indexOf(SECTION);
        if (start < 0) {
            return questions;
        }
        Integer number = null;
        String text = null;
        List<String> options = new ArrayList<>();
        Character answer = null;
        StringBuilder explanation = null;
        int opened = 0;
        for (int i = start + 1; i < guide.size(); i++) {
            String line = guide.get(i);
            if (line.startsWith("## ")) {
                break;
            }
            Matcher m;
            if (explanation != null) {
                if (line.strip().equals("</details>")) {
                    if (answer == null) {
                        throw new IllegalArgumentException("line " + (i + 1) + ": the answer of question " + number
                                + " must start with **x)**");
                    }
                    questions.add(new Question(number, text, List.copyOf(options), answer,
                            explanation.toString().strip().replaceAll("\n{3,}", "\n\n")));
                    number = null;
                    options.clear();
                    answer = null;
                    explanation = null;
                } else if (answer == null && (m = ANSWER.matcher(line)).matches()) {
                    answer = m.group(1).charAt(0);
                    explanation.append(m.group(2)).append('\n');
                } else if (answer != null) {
                    explanation.append(line.isBlank() ? "\n" : line + "\n");
                }
            } else if ((m = QUESTION.matcher(line)).matches()) {
                number = Integer.parseInt(m.group(1));
                text = m.group(2);
                opened = i + 1;
            } else if (number != null && (m = OPTION.matcher(line)).matches()) {
                if (m.group(1).charAt(0) != 'a' + options.size()) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": option " + m.group(1) + ") of question "
                            + number + " is out of order");
                }
                options.add(m.group(2));
            } else if (number != null && line.startsWith("<details>")) {
                if (options.size() < 2) {
                    throw new IllegalArgumentException("line " + opened + ": question " + number + " needs two options or more");
                }
                explanation = new StringBuilder();
            }
        }
        if (number != null) {
            throw new IllegalArgumentException("line " + opened + ": question " + number + " has no <details> answer");
        }
        for (Question q : questions) {
            if (q.answer() > q.lastLetter()) {
                throw new IllegalArgumentException("question " + q.number() + " answers " + q.answer()
                        + ", which is not one of its options");
            }
        }
        return questions;
    }

    /** Prints a paragraph without its markdown (emphasis, code quotes), wrapped at {@value #WIDTH} columns under {@code prefix}. */
    private static void wrap(String markdown, String prefix, java.io.PrintStream out) {
        String text = markdown.replace("*", "").replace("`", "").replaceAll("\\s+", " ").strip();
        String indent = " ".repeat(prefix.length());
        StringBuilder line = new StringBuilder(prefix);
        boolean empty = true;
        for (String word : text.split(" ")) {
            if (!empty && line.length() + 1 + word.length() > WIDTH) {
                out.println(line);
                line = new StringBuilder(indent);
                empty = true;
            }
            line.append(empty ? "" : " ").append(word);
            empty = false;
        }
        out.println(line);
    }
}
