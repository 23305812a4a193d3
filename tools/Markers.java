import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one parser of the solutions' exercise markers: where a task's number, its blocks' titles and
 * its test class are written, once.
 *
 * In solutions/<chapter>/src/main/java an exercise body sits between
 *     // BEGIN-SOLUTION ch01 task 3: write the 61-byte header (BatchHeaderTest)
 *     // END-SOLUTION
 * and must run to the end of its method. Lines between // BEGIN-SOLUTION-ONLY and
 * // END-SOLUTION-ONLY (whole helper members) exist only in the reference.
 *
 * {@link #variant} turns a solution file into what a learner has after tasks 1..keepBelow-1: those
 * tasks' bodies kept, every later block replaced by {@code throw new Todo("chNN task N: ...")}.
 * keepBelow = 1 is the skeleton; the progressive gate builds every other state.
 */
public final class Markers {
    static final Pattern BEGIN = Pattern.compile(
            "^(\\s*)// BEGIN-SOLUTION ((ch\\d\\d) task (\\d+): (.+) \\((\\w+)\\))\\s*$");
    static final String END = "// END-SOLUTION";
    static final String BEGIN_ONLY = "// BEGIN-SOLUTION-ONLY";
    static final String END_ONLY = "// END-SOLUTION-ONLY";
    static final String TODO_IMPORT = "import kaenlog.workbook.Todo;";

    private Markers() {
    }

    /** One marked exercise body. */
    record Block(String chapter, int task, String what, String testClass, Path file, int line) {
        String where() {
            return file + ":" + line;
        }
    }

    /** A task: its number, its blocks (in file order) and the one test class that checks it. */
    record Task(String chapter, int number, String testClass, List<Block> blocks) {
        /** "ch03 task 2" — the prefix of every TODO of this task. */
        String tag() {
            return chapter + " task " + number;
        }
    }

    /** The chapter folders that have a reference (solutions/chNN-*), sorted. */
    static List<String> chapters(Path root) throws IOException {
        try (Stream<Path> dirs = Files.list(root.resolve("solutions"))) {
            return dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted().toList();
        }
    }

    static Path reference(Path root, String chapter) {
        return root.resolve("solutions").resolve(chapter).resolve("src/main/java");
    }

    static List<Path> javaFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    /** Every block of the chapter's reference, in file order. */
    static List<Block> blocks(Path root, String chapter) throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path file : javaFiles(reference(root, chapter))) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = BEGIN.matcher(lines.get(i));
                if (m.matches()) {
                    blocks.add(new Block(m.group(3), Integer.parseInt(m.group(4)), m.group(5), m.group(6),
                            root.relativize(file), i + 1));
                }
            }
        }
        return blocks;
    }

    /**
     * The chapter's tasks in number order. Problems (a block of another chapter, two test classes for
     * one task, one test class for two tasks, a gap in the numbers) are added to {@code problems},
     * each naming the places that disagree.
     */
    static List<Task> tasks(Path root, String chapter, List<String> problems) throws IOException {
        String id = chapter.substring(0, 4);
        Map<Integer, List<Block>> byNumber = new TreeMap<>();
        for (Block b : blocks(root, chapter)) {
            if (!b.chapter().equals(id)) {
                problems.add(b.where() + ": marker says " + b.chapter() + " in chapter " + chapter);
            }
            byNumber.computeIfAbsent(b.task(), k -> new ArrayList<>()).add(b);
        }
        List<Task> tasks = new ArrayList<>();
        Map<String, Task> byClass = new LinkedHashMap<>();
        int expected = 1;
        for (Map.Entry<Integer, List<Block>> e : byNumber.entrySet()) {
            List<Block> blocks = e.getValue();
            Block first = blocks.get(0);
            for (Block b : blocks) {
                if (!b.testClass().equals(first.testClass())) {
                    problems.add(b.where() + ": task " + b.task() + " names " + b.testClass() + " but " + first.where()
                            + " names " + first.testClass() + " (a task has one test class)");
                }
            }
            if (e.getKey() != expected) {
                problems.add(first.where() + ": " + id + " task " + e.getKey() + " follows task " + (expected - 1)
                        + " (tasks are numbered 1, 2, 3, ... without gaps)");
            }
            expected = e.getKey() + 1;
            Task task = new Task(id, e.getKey(), first.testClass(), List.copyOf(blocks));
            Task other = byClass.putIfAbsent(first.testClass(), task);
            if (other != null) {
                problems.add(first.where() + ": task " + task.number() + " names " + first.testClass() + ", which "
                        + other.blocks().get(0).where() + " already gives to task " + other.number()
                        + " (a test class belongs to exactly one task)");
            }
            tasks.add(task);
        }
        return tasks;
    }

    /** The tasks, or exit 1 naming every problem with the markers. */
    static List<Task> tasksOrExit(Path root, String chapter) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Task> tasks = tasks(root, chapter, problems);
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.err.println("MARKERS " + p));
            System.exit(1);
        }
        return tasks;
    }

    /**
     * The file as a learner has it after tasks 1..keepBelow-1: those tasks' bodies, TODOs for the
     * rest. Throws IllegalStateException on a malformed marker.
     */
    static String variant(String source, int keepBelow) {
        String[] lines = source.split("\n", -1);
        List<String> out = new ArrayList<>();
        boolean todos = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher begin = BEGIN.matcher(line);
            if (line.strip().equals(BEGIN_ONLY)) {
                int end = skipTo(lines, i, END_ONLY);
                if (keepBelow > 1) {
                    // Helpers the kept bodies may call; a TODO body calls none of them.
                    out.addAll(Arrays.asList(lines).subList(i + 1, end));
                }
                i = end;
            } else if (begin.matches()) {
                int end = skipTo(lines, i, END);
                String next = end + 1 < lines.length ? lines[end + 1].strip() : "";
                if (!next.startsWith("}")) {
                    throw new IllegalStateException("line " + (end + 1)
                            + ": an exercise block must run to the end of its method (next line: " + next + ")");
                }
                if (Integer.parseInt(begin.group(4)) < keepBelow) {
                    out.addAll(Arrays.asList(lines).subList(i + 1, end));
                } else {
                    out.add(begin.group(1) + "throw new Todo(\"" + begin.group(2).replace("\"", "\\\"") + "\");");
                    todos = true;
                }
                i = end;
            } else if (line.strip().startsWith("// BEGIN-SOLUTION") || line.strip().startsWith("// END-SOLUTION")) {
                throw new IllegalStateException("line " + (i + 1) + ": malformed marker: " + line.strip()
                        + " (expected // BEGIN-SOLUTION chNN task N: what (TestClass))");
            } else {
                out.add(line);
            }
        }
        if (todos && !source.contains(TODO_IMPORT) && !source.contains("package kaenlog.workbook;")) {
            addImport(out);
        }
        return String.join("\n", out);
    }

    /** The skeleton: every exercise body a TODO. */
    static String skeleton(String source) {
        return variant(source, 1);
    }

    static int skipTo(String[] lines, int from, String marker) {
        for (int j = from + 1; j < lines.length; j++) {
            if (lines[j].strip().equals(marker)) {
                return j;
            }
            if (lines[j].strip().startsWith("// BEGIN-SOLUTION")) {
                throw new IllegalStateException("line " + (j + 1) + ": a block opens before line " + (from + 1)
                        + "'s block closed");
            }
        }
        throw new IllegalStateException("line " + (from + 1) + ": no " + marker + " after it");
    }

    /** Adds the Todo import in order among the file's imports (after the package line if it has none). */
    static void addImport(List<String> out) {
        int at = -1;
        int firstImport = -1;
        for (int i = 0; i < out.size(); i++) {
            String line = out.get(i);
            if (line.startsWith("import ") && !line.startsWith("import static ")) {
                firstImport = firstImport < 0 ? i : firstImport;
                if (line.compareTo(TODO_IMPORT) < 0) {
                    at = i + 1;
                }
            }
        }
        if (firstImport >= 0) {
            out.add(at < 0 ? firstImport : at, TODO_IMPORT);
            return;
        }
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i).startsWith("package ")) {
                out.add(i + 1, "");
                out.add(i + 2, TODO_IMPORT);
                return;
            }
        }
        out.add(0, TODO_IMPORT);
    }
}
