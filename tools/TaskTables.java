import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.testkit.loop.Tasks;

/**
 * A task's identity is written once, in the solution's markers (number, test class, blocks); every
 * other place that shows it is derived from them here:
 *   - the guide's task table (chNN/README.md, "## The tasks, in order"): row N names task N's test
 *     class, and its "where" column names every class that holds one of the task's blocks;
 *   - the guide's hints ("## Hints"): one "**Task N.**" paragraph per task, in order;
 *   - the test class: {@code @Order(N)} (the order JUnit runs the classes in) and a javadoc that
 *     starts "Task N:"; a class that belongs to no task runs after every task's (@Order above N);
 *   - every class a marker names exists in the chapter's tests;
 *   - every "task N (TestClass)" of the chapter's prose (guide, tests, reference) has its class's
 *     number, and no prose names a task by a bare number (Prose).
 *
 *   ./workbook check      exit 1 naming both places of every mismatch (CI)
 *   ./workbook regen      (part of it) rewrites the numbers in all of these from the markers
 *
 * Renumbering a task: change N in its markers, run ./workbook regen. The table's rows and the hints
 * follow their test class to its new number (the old number -> test class mapping is read from the
 * table before it is rewritten).
 */
public final class TaskTables {
    static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| (.*) \\| (.*) \\| `(\\w+)` \\|\\s*$");
    static final Pattern HINT = Pattern.compile("^\\*\\*Task (\\d+)\\.\\*\\*");
    static final Pattern ORDER = Pattern.compile("(?m)^@Order\\((\\d+)\\)");
    static final Pattern JAVADOC_TASK = Pattern.compile("(?s)^(.*?/\\*\\*\\s*(?:\\*\\s*)?)Task (\\d+):");

    private TaskTables() {
    }

    record Row(int line, int number, String what, String where, String test) {
    }

    static int main(Path root, String[] args) throws IOException {
        List<String> problems = new ArrayList<>();
        Chapters.check(root, problems);
        for (String chapter : Markers.chapters(root)) {
            check(root, chapter, problems);
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.out.println("TASKS " + p));
            System.out.println("a task's number and test class are written once, in its solution markers, and the list of"
                    + " chapters once, as the chapter folders: after changing them run ./workbook regen");
            return 1;
        }
        System.out.println("the poms and the README list the chapter folders; task tables, hints, test classes and prose"
                + " references agree with the markers in every chapter");
        return 0;
    }

    static void check(Path root, String chapter, List<String> problems) throws IOException {
        List<Tasks.Task> tasks = Markers.tasks(root, chapter, problems);
        Path guide = root.resolve(chapter).resolve("README.md");
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        String g = root.relativize(guide).toString();
        checkTable(g, rows(lines), tasks, problems);
        checkHints(g, hints(lines), tasks, problems);
        Map<String, Path> testFiles = testFiles(root, chapter);
        for (Tasks.Task task : tasks) {
            Path file = testFiles.get(task.testClass());
            if (file == null) {
                problems.add(task.blocks().get(0).where() + ": names " + task.testClass() + ", but " + chapter
                        + "/src/test/java has no such class");
            } else {
                checkTestClass(root, file, task, problems);
            }
        }
        Prose.check(root, chapter, problems);
        checkClassesOfNoTask(root, testFiles, tasks, problems);
    }

    /** Row N of the guide's task table is task N: its number, its test class, and every class holding one of its blocks. */
    static void checkTable(String guide, List<Row> rows, List<Tasks.Task> tasks, List<String> problems) {
        if (rows.isEmpty()) {
            problems.add(guide + ": no task table (| task | what | where | test |) under \"## The tasks, in order\"");
        }
        for (int i = 0; i < Math.max(rows.size(), tasks.size()); i++) {
            Row row = i < rows.size() ? rows.get(i) : null;
            Tasks.Task task = i < tasks.size() ? tasks.get(i) : null;
            String marker = task == null ? "" : task.blocks().get(0).where();
            if (row == null) {
                problems.add(guide + ": the table has no row for task " + task.number() + " (" + task.testClass()
                        + "), which " + marker + " marks");
            } else if (task == null) {
                problems.add(guide + ":" + row.line() + ": row for task " + row.number() + " (" + row.test()
                        + "), but no solution marker has that task");
            } else if (row.number() != task.number() || !row.test().equals(task.testClass())) {
                problems.add(guide + ":" + row.line() + ": row " + (i + 1) + " says task " + row.number() + " is `"
                        + row.test() + "`, but " + marker + " says task " + task.number() + " is `" + task.testClass() + "`");
            } else {
                checkWhere(guide, row, task, problems);
            }
        }
    }

    /** The row's "where" names every class that holds a block of its task. */
    static void checkWhere(String guide, Row row, Tasks.Task task, List<String> problems) {
        for (Tasks.Block b : task.blocks()) {
            String cls = b.file().getFileName().toString().replace(".java", "");
            if (!row.where().contains("`" + cls + ".") && !row.where().contains("`" + cls + "`")) {
                problems.add(guide + ":" + row.line() + ": task " + task.number() + "'s \"where\" names no `" + cls
                        + "`, but " + b.where() + " is one of its blocks");
            }
        }
    }

    /** Hint N is headed "**Task N.**" of the markers' task N. */
    static void checkHints(String guide, List<int[]> hints, List<Tasks.Task> tasks, List<String> problems) {
        for (int i = 0; i < Math.max(hints.size(), tasks.size()); i++) {
            if (i >= hints.size()) {
                problems.add(guide + ": no hint \"**Task " + tasks.get(i).number() + ".**\" under \"## Hints\"");
            } else if (i >= tasks.size() || hints.get(i)[1] != tasks.get(i).number()) {
                problems.add(guide + ":" + hints.get(i)[0] + ": hint " + (i + 1) + " is headed task " + hints.get(i)[1]
                        + ", but the markers' task " + (i + 1) + " is "
                        + (i < tasks.size() ? "task " + tasks.get(i).number() : "missing"));
            }
        }
    }

    /** The task's test class runs as task N (@Order(N)) and its javadoc starts "Task N:". */
    static void checkTestClass(Path root, Path file, Tasks.Task task, List<String> problems) throws IOException {
        String source = Files.readString(file, StandardCharsets.UTF_8);
        Matcher order = ORDER.matcher(source);
        if (!order.find() || Integer.parseInt(order.group(1)) != task.number()) {
            problems.add(root.relativize(file) + ": @Order(" + (order.find(0) ? order.group(1) : "none") + "), but "
                    + task.blocks().get(0).where() + " makes it task " + task.number() + "'s class: @Order("
                    + task.number() + ")");
        }
        Matcher doc = JAVADOC_TASK.matcher(classJavadoc(source));
        if (!doc.find() || Integer.parseInt(doc.group(2)) != task.number()) {
            problems.add(root.relativize(file) + ": the class javadoc must start \"Task " + task.number() + ":\" ("
                    + task.blocks().get(0).where() + ")");
        }
    }

    /** A test class no marker names runs after every task's (its @Order above the last task's number). */
    static void checkClassesOfNoTask(Path root, Map<String, Path> testFiles, List<Tasks.Task> tasks, List<String> problems)
            throws IOException {
        Map<String, Integer> taskOf = new TreeMap<>();
        tasks.forEach(t -> taskOf.put(t.testClass(), t.number()));
        for (Map.Entry<String, Path> e : testFiles.entrySet()) {
            if (taskOf.containsKey(e.getKey())) {
                continue;
            }
            Matcher order = ORDER.matcher(Files.readString(e.getValue(), StandardCharsets.UTF_8));
            if (order.find() && Integer.parseInt(order.group(1)) <= tasks.size()) {
                problems.add(root.relativize(e.getValue()) + ": @Order(" + order.group(1) + ") runs it among the tasks'"
                        + " classes, but no marker names it: a whole-chapter class runs after task " + tasks.size()
                        + " (@Order above " + tasks.size() + ")");
            }
        }
    }

    /** The table under "## The tasks, in order". */
    static List<Row> rows(List<String> lines) {
        List<Row> rows = new ArrayList<>();
        boolean inSection = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("## ")) {
                inSection = line.strip().equals("## The tasks, in order");
            } else if (inSection) {
                Matcher m = ROW.matcher(line);
                if (m.matches()) {
                    rows.add(new Row(i + 1, Integer.parseInt(m.group(1)), m.group(2), m.group(3), m.group(4)));
                }
            }
        }
        return rows;
    }

    /** (line, number) of every "**Task N.**" under "## Hints". */
    static List<int[]> hints(List<String> lines) {
        List<int[]> hints = new ArrayList<>();
        boolean inHints = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("## ")) {
                inHints = line.strip().equalsIgnoreCase("## Hints");
            } else if (inHints) {
                Matcher m = HINT.matcher(line);
                if (m.find()) {
                    hints.add(new int[] {i + 1, Integer.parseInt(m.group(1))});
                }
            }
        }
        return hints;
    }

    /** Test classes of the chapter by simple name (files named *Test.java under src/test/java). */
    static Map<String, Path> testFiles(Path root, String chapter) throws IOException {
        Map<String, Path> files = new TreeMap<>();
        for (Path p : Markers.javaFiles(root.resolve(chapter).resolve("src/test/java"))) {
            String name = p.getFileName().toString().replace(".java", "");
            if (name.endsWith("Test")) {
                files.put(name, p);
            }
        }
        return files;
    }

    /** The source up to the class declaration (its javadoc is the last comment there). */
    static String classJavadoc(String source) {
        Matcher cls = Pattern.compile("(?m)^(@Order|(public |final |abstract )*class )").matcher(source);
        String head = cls.find() ? source.substring(0, cls.start()) : source;
        int doc = head.lastIndexOf("/**");
        return doc < 0 ? "" : head.substring(doc);
    }

    // ------------------------------------------------------------------ regenerate

    /**
     * Rewrites the numbers of every derived place from the markers: table rows (moved with their
     * test class), hints (moved with the row that had their old number), @Order and "Task N:" of
     * the task classes. Returns the files it changed.
     */
    static List<Path> write(Path root, String chapter) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Tasks.Task> tasks = Markers.tasks(root, chapter, problems);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("\n", problems));
        }
        List<Path> changed = new ArrayList<>();
        Path guide = root.resolve(chapter).resolve("README.md");
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        List<Row> rows = rows(lines);
        Map<Integer, String> oldClassOf = new TreeMap<>();
        rows.forEach(r -> oldClassOf.put(r.number(), r.test()));
        Map<String, Integer> newNumberOf = new TreeMap<>();
        tasks.forEach(t -> newNumberOf.put(t.testClass(), t.number()));
        List<String> out = renumberHints(rewriteTable(lines, rows, tasks), oldClassOf, newNumberOf);
        if (!out.equals(lines)) {
            Files.write(guide, (String.join("\n", out) + "\n").getBytes(StandardCharsets.UTF_8));
            changed.add(guide);
        }
        Map<String, Path> testFiles = testFiles(root, chapter);
        for (Tasks.Task t : tasks) {
            Path file = testFiles.get(t.testClass());
            if (file != null && renumberTestClass(file, t.number())) {
                changed.add(file);
            }
        }
        for (Path file : Prose.write(root, chapter)) {
            if (!changed.contains(file)) {
                changed.add(file);
            }
        }
        return changed;
    }

    /** The guide with its task table's rows in the markers' order, each keeping its text and following its test class. */
    static List<String> rewriteTable(List<String> lines, List<Row> rows, List<Tasks.Task> tasks) {
        List<String> out = new ArrayList<>(lines);
        if (rows.isEmpty()) {
            return out;
        }
        Map<String, Row> rowOf = new LinkedHashMap<>();
        rows.forEach(r -> rowOf.putIfAbsent(r.test(), r));
        List<String> table = new ArrayList<>();
        for (Tasks.Task t : tasks) {
            Row old = rowOf.get(t.testClass());
            String what = old != null ? old.what() : t.blocks().get(0).what();
            String where = old != null ? old.where() : "`" + t.blocks().get(0).file().getFileName().toString()
                    .replace(".java", "") + "`";
            table.add("| " + t.number() + " | " + what + " | " + where + " | `" + t.testClass() + "` |");
        }
        int first = rows.get(0).line() - 1;
        int last = rows.get(rows.size() - 1).line() - 1;
        out.subList(first, last + 1).clear();
        out.addAll(first, table);
        return out;
    }

    /** Gives the test class @Order(number) and a javadoc starting "Task number:"; true when the file changed. */
    static boolean renumberTestClass(Path file, int number) throws IOException {
        String source = Files.readString(file, StandardCharsets.UTF_8);
        String updated = ORDER.matcher(source).replaceFirst("@Order(" + number + ")");
        String doc = classJavadoc(updated);
        int at = updated.indexOf(doc);
        Matcher m = JAVADOC_TASK.matcher(doc);
        if (at >= 0 && m.find()) {
            updated = updated.substring(0, at) + m.group(1) + "Task " + number + ":"
                    + doc.substring(m.end()) + updated.substring(at + doc.length());
        }
        if (updated.equals(source)) {
            return false;
        }
        Files.writeString(file, updated, StandardCharsets.UTF_8);
        return true;
    }

    /** The hints section with each "**Task N.**" paragraph moved to its test class's new number. */
    static List<String> renumberHints(List<String> lines, Map<Integer, String> oldClassOf,
            Map<String, Integer> newNumberOf) {
        int start = -1;
        int end = lines.size();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equalsIgnoreCase("## Hints")) {
                start = i + 1;
            } else if (start >= 0 && i >= start && lines.get(i).startsWith("## ")) {
                end = i;
                break;
            }
        }
        if (start < 0) {
            return lines;
        }
        List<String> before = new ArrayList<>();
        Map<Integer, List<String>> paragraphs = new TreeMap<>();
        List<String> current = before;
        List<String> tail = new ArrayList<>();
        for (int i = start; i < end; i++) {
            Matcher m = HINT.matcher(lines.get(i));
            if (m.find()) {
                int old = Integer.parseInt(m.group(1));
                Integer now = newNumberOf.get(oldClassOf.get(old));
                int number = now == null ? old : now;
                current = new ArrayList<>();
                current.add(lines.get(i).replaceFirst("^\\*\\*Task \\d+\\.\\*\\*", "**Task " + number + ".**"));
                paragraphs.put(number, current);
            } else {
                current.add(lines.get(i));
            }
        }
        if (paragraphs.isEmpty()) {
            return lines;
        }
        // Every paragraph ends with its blank line; keep the section's layout.
        List<String> out = new ArrayList<>(lines.subList(0, start));
        out.addAll(before);
        paragraphs.values().forEach(out::addAll);
        out.addAll(tail);
        out.addAll(lines.subList(end, lines.size()));
        return out;
    }
}
