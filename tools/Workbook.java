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
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

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
 * is done when every test of its test class passes on your code, with the earlier chapters on the
 * reference (mvn -PchNN test). Results are cached per chapter and reused while nothing it depends
 * on has changed.
 */
public class Workbook {
    static final Pattern MARKER = Pattern.compile("^\\s*// BEGIN-SOLUTION (ch\\d\\d) task (\\d+): (.+) \\((\\w+)\\)\\s*$");
    static final Path ROOT = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
    static final Path CACHE = ROOT.resolve("build/workbook");

    record Task(int number, String what, String testClass) {
    }

    record Result(String chapter, int passed, int total, String next, String failure, String demo) {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
            usage(args.length == 0 ? 2 : 0);
        }
        switch (args[0]) {
            case "status" -> status(java.util.Arrays.copyOfRange(args, 1, args.length));
            case "watch" -> watch(chapter(args, 1), java.util.Arrays.copyOfRange(args, Math.min(2, args.length), args.length));
            case "hint" -> hint(chapter(args, 1), taskNumber(args, 2));
            case "solution" -> solution(chapter(args, 1), taskNumber(args, 2));
            case "restart" -> restart(chapter(args, 1), args.length > 2 && args[2].equals("--force"));
            default -> {
                System.err.println("workbook: unknown command '" + args[0] + "'");
                usage(2);
            }
        }
    }

    static void usage(int status) {
        (status == 0 ? System.out : System.err).println("""
                usage: ./workbook status [chNN...]  tasks passed, next task and demo per chapter
                       ./workbook watch chNN        rerun a chapter's tests whenever a file in it changes
                       ./workbook hint chNN N       the hint for task N
                       ./workbook solution chNN N   the reference's code for task N, beside yours
                       ./workbook restart chNN [--force]   regenerate the chapter's skeleton""");
        System.exit(status);
    }

    // ---------------------------------------------------------------- status

    static void status(String[] only) throws Exception {
        List<String> chapters = new ArrayList<>();
        for (String wanted : only) {
            chapters.add(chapter(new String[] {wanted}, 0));
        }
        if (chapters.isEmpty()) {
            chapters = chapters();
        }
        List<Result> results = new ArrayList<>();
        for (String chapter : chapters) {
            results.add(resultOf(chapter));
        }
        System.out.printf("%-18s %7s  %-68s %s%n", "chapter", "tasks", "next", "demo");
        for (Result r : results) {
            System.out.printf("%-18s %3d/%-3d  %-68s %s%n", r.chapter(), r.passed(), r.total(), clip(r.next(), 68), r.demo());
        }
        for (Result r : results) {
            if (!r.failure().isEmpty()) {
                System.out.println();
                System.out.println(r.chapter() + ": " + r.failure());
                System.out.println("  (./workbook hint " + r.chapter().substring(0, 4) + " N for a hint, ./workbook solution "
                        + r.chapter().substring(0, 4) + " N for the reference's code)");
            }
        }
    }

    /** The chapter's result, from the cache when nothing it depends on changed since it was computed. */
    static Result resultOf(String chapter) throws Exception {
        String fingerprint = fingerprint(chapter);
        Path cached = CACHE.resolve(chapter + ".properties");
        if (Files.exists(cached)) {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(cached, StandardCharsets.UTF_8)) {
                p.load(in);
            }
            if (fingerprint.equals(p.getProperty("fingerprint"))) {
                return new Result(chapter, Integer.parseInt(p.getProperty("passed")), Integer.parseInt(p.getProperty("total")),
                        p.getProperty("next"), p.getProperty("failure"), p.getProperty("demo"));
            }
        }
        Result result = run(chapter);
        Properties p = new Properties();
        p.setProperty("fingerprint", fingerprint);
        p.setProperty("passed", String.valueOf(result.passed()));
        p.setProperty("total", String.valueOf(result.total()));
        p.setProperty("next", result.next());
        p.setProperty("failure", result.failure());
        p.setProperty("demo", result.demo());
        Files.createDirectories(CACHE);
        try (var out = Files.newBufferedWriter(cached, StandardCharsets.UTF_8)) {
            p.store(out, "./workbook status cache");
        }
        return result;
    }

    /** Runs the chapter's tests on the learner's code and reads the reports. */
    static Result run(String chapter) throws Exception {
        System.err.println("workbook: testing " + chapter + " ...");
        Map<String, List<Outcome>> outcomes = runTests(chapter);
        List<Task> tasks = tasks(chapter);
        if (outcomes == null) {
            return new Result(chapter, 0, tasks.size(), "does not compile", firstCompileError(chapter), "-");
        }
        int passed = 0;
        String next = "all tasks done";
        String firstFailure = "";
        for (Task task : tasks) {
            List<Outcome> cases = outcomes.getOrDefault(task.testClass(), List.of());
            Outcome failing = cases.stream().filter(o -> o.failure() != null).findFirst().orElse(null);
            if (!cases.isEmpty() && failing == null) {
                passed++;
            } else if (next.equals("all tasks done")) {
                next = "task " + task.number() + ": " + task.what() + " (" + task.testClass() + ")";
                firstFailure = failing == null ? "no test of " + task.testClass() + " ran"
                        : task.testClass() + "." + failing.test() + ": " + firstLine(failing.failure());
            }
        }
        String demo = "-";
        for (Map.Entry<String, List<Outcome>> e : outcomes.entrySet()) {
            if (e.getKey().endsWith("DemoGoldenTest")) {
                Outcome o = e.getValue().get(0);
                demo = o.failure() == null ? "matches expected/" : o.failure().contains("TODO ") ? "reaches a TODO" : "differs";
            }
        }
        return new Result(chapter, passed, tasks.size(), next, firstFailure, demo);
    }

    record Outcome(String test, String failure) {
    }

    /** Test class simple name -> outcomes, or null when the build failed before the tests ran. */
    static Map<String, List<Outcome>> runTests(String chapter) throws Exception {
        Path reports = ROOT.resolve(chapter).resolve("target/surefire-reports");
        deleteTree(reports);
        Files.createDirectories(CACHE);
        Path log = CACHE.resolve(chapter + ".log");
        Process mvn = new ProcessBuilder("mvn", "-B", "-P" + chapter.substring(0, 4), "test",
                "-Dmaven.test.failure.ignore=true").directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (mvn.waitFor() != 0 || !Files.isDirectory(reports)) {
            return null;
        }
        Map<String, List<Outcome>> outcomes = new TreeMap<>();
        try (Stream<Path> files = Files.list(reports)) {
            for (Path report : files.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList()) {
                Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile());
                NodeList cases = doc.getElementsByTagName("testcase");
                for (int i = 0; i < cases.getLength(); i++) {
                    Element c = (Element) cases.item(i);
                    String cls = c.getAttribute("classname");
                    String simple = cls.substring(cls.lastIndexOf('.') + 1);
                    outcomes.computeIfAbsent(simple, k -> new ArrayList<>()).add(new Outcome(c.getAttribute("name"), failure(c)));
                }
            }
        }
        return outcomes;
    }

    static String failure(Element testcase) {
        for (String tag : List.of("failure", "error")) {
            NodeList nodes = testcase.getElementsByTagName(tag);
            if (nodes.getLength() > 0) {
                Element e = (Element) nodes.item(0);
                String message = e.getAttribute("message");
                return message.isBlank() ? e.getTextContent().strip() : message;
            }
        }
        return null;
    }

    static String firstCompileError(String chapter) throws IOException {
        for (String line : Files.readAllLines(CACHE.resolve(chapter + ".log"), StandardCharsets.UTF_8)) {
            if (line.startsWith("[ERROR]") && line.contains(".java:[")) {
                return line.substring(line.lastIndexOf('/') + 1).strip();
            }
        }
        return "see " + ROOT.relativize(CACHE.resolve(chapter + ".log"));
    }

    /** What the chapter's result depends on: the learner's chapter, the reference, the poms. */
    static String fingerprint(String chapter) throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        List<Path> inputs = new ArrayList<>();
        for (Path dir : List.of(ROOT.resolve(chapter).resolve("src"), ROOT.resolve("solutions"), ROOT.resolve("testkit/src"),
                ROOT.resolve("expected"))) {
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
    static void watch(String chapter, String[] options) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dworkbook.root=" + ROOT, "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-XX:+UseSerialGC",
                ROOT.resolve("tools/Watch.java").toString(), chapter));
        command.addAll(List.of(options));
        System.exit(new ProcessBuilder(command).directory(ROOT.toFile()).inheritIO().start().waitFor());
    }

    // ---------------------------------------------------------------- hint, solution, restart

    /** A guide's hints sit under "## Hints" as "**Task N.** text" paragraphs. */
    static void hint(String chapter, int number) throws IOException {
        Task task = task(chapter, number);
        Path guide = ROOT.resolve(chapter).resolve("README.md");
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        StringBuilder hint = new StringBuilder();
        boolean inHints = false;
        boolean inTask = false;
        for (String line : lines) {
            if (line.startsWith("## ")) {
                inHints = line.strip().equalsIgnoreCase("## Hints");
                inTask = false;
            } else if (inHints && line.startsWith("**Task ")) {
                inTask = line.startsWith("**Task " + number + ".**");
            }
            if (inHints && inTask) {
                hint.append(line).append('\n');
            }
        }
        System.out.println("task " + number + ": " + task.what() + " (" + task.testClass() + ")");
        System.out.println(hint.length() == 0 ? "(the guide has no hint for this task: read its section in "
                + ROOT.relativize(guide) + ")" : hint.toString().strip());
    }

    /** Every reference block of the task, with the learner's current method body for comparison. */
    static void solution(String chapter, int number) throws IOException {
        task(chapter, number);
        Path reference = ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        try (Stream<Path> walk = Files.walk(reference)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = MARKER.matcher(lines.get(i));
                    if (m.matches() && Integer.parseInt(m.group(2)) == number) {
                        System.out.println("== " + ROOT.relativize(file) + ":" + (i + 1) + "  " + m.group(3));
                        for (int j = i + 1; j < lines.size() && !lines.get(j).strip().equals("// END-SOLUTION"); j++) {
                            System.out.println("+ " + lines.get(j));
                        }
                        Path yours = ROOT.resolve(chapter).resolve("src/main/java").resolve(reference.relativize(file));
                        System.out.println("   (yours: " + ROOT.relativize(yours) + ")");
                        System.out.println();
                    }
                }
            }
        }
    }

    static void restart(String chapter, boolean force) throws Exception {
        Path sources = ROOT.resolve(chapter).resolve("src/main/java");
        if (!force) {
            Process git = new ProcessBuilder("git", "status", "--porcelain", "--", ROOT.relativize(sources).toString())
                    .directory(ROOT.toFile()).redirectErrorStream(true).start();
            String changes = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (git.waitFor() != 0) {
                System.err.println("workbook: cannot ask git about uncommitted work (" + changes
                        + "); run with --force to regenerate anyway");
                System.exit(1);
            }
            if (!changes.isEmpty()) {
                System.err.println("workbook: " + chapter + " has uncommitted work:\n" + changes
                        + "\ncommit it first (git commit -am ...), or run: ./workbook restart " + chapter + " --force");
                System.exit(1);
            }
        }
        Process write = new ProcessBuilder("java", ROOT.resolve("solutions/tools/Skeletons.java").toString(), "--write", chapter)
                .directory(ROOT.toFile()).inheritIO().start();
        System.exit(write.waitFor());
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

    /** The chapter's tasks in order, from the reference's markers (one entry per task). */
    static List<Task> tasks(String chapter) throws IOException {
        Map<Integer, Task> tasks = new TreeMap<>();
        Path reference = ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        try (Stream<Path> walk = Files.walk(reference)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    Matcher m = MARKER.matcher(line);
                    if (m.matches()) {
                        int n = Integer.parseInt(m.group(2));
                        tasks.putIfAbsent(n, new Task(n, m.group(3), m.group(4)));
                    }
                }
            }
        }
        return List.copyOf(tasks.values());
    }

    static Task task(String chapter, int number) throws IOException {
        return tasks(chapter).stream().filter(t -> t.number() == number).findFirst().orElseGet(() -> {
            System.err.println("workbook: " + chapter + " has no task " + number);
            System.exit(2);
            return null;
        });
    }

    static String chapter(String[] args, int at) throws IOException {
        if (args.length <= at) {
            usage(2);
        }
        String wanted = args[at];
        for (String chapter : chapters()) {
            if (chapter.equals(wanted) || chapter.startsWith(wanted + "-")) {
                return chapter;
            }
        }
        System.err.println("workbook: no chapter '" + wanted + "' (chapters: " + String.join(", ", chapters()) + ")");
        System.exit(2);
        return null;
    }

    static int taskNumber(String[] args, int at) {
        try {
            return Integer.parseInt(args[at]);
        } catch (RuntimeException e) {
            System.err.println("workbook: which task? give its number, e.g. ./workbook hint ch01 3");
            System.exit(2);
            return 0;
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
