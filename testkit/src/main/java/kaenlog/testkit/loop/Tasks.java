package kaenlog.testkit.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.stream.Stream;

/**
 * The one parser of the reference's exercise markers, where a task's number, its blocks' titles and
 * its test class are written once:
 * <pre>
 *     // BEGIN-SOLUTION ch01 task 3: write the 61-byte header (BatchHeaderTest)
 *     // END-SOLUTION
 * </pre>
 * The test-time loop (the task table under Maven, {@code ./workbook watch}) reads it here, and the
 * tools ({@code ./workbook}: tools/Markers.java and the rest) are compiled with this file, so every
 * view of "which task am I on" comes from the same code. Plain JDK only, for that reason.
 */
public final class Tasks {
    /** Groups: 1 indentation, 2 the TODO text (chNN task N: what (TestClass)), 3 chapter, 4 number, 5 what, 6 test class. */
    public static final Pattern BEGIN = Pattern.compile(
            "^(\\s*)// BEGIN-SOLUTION ((ch\\d\\d) task (\\d+): (.+) \\((\\w+)\\))\\s*$");

    /** One marked exercise body; {@code file} is relative to the workbook's root. */
    public record Block(String chapter, int task, String what, String testClass, Path file, int line) {
        public String where() {
            return file + ":" + line;
        }
    }

    /** A task: its number, its blocks (in file order) and the one test class that checks it. */
    public record Task(String chapter, int number, String testClass, List<Block> blocks) {
        /** What the task builds: its first block's title. */
        public String what() {
            return blocks.get(0).what();
        }

        /** "ch03 task 2": the prefix of every TODO of this task. */
        public String tag() {
            return chapter + " task " + number;
        }
    }

    private Tasks() {
    }

    /** The chapter folders that have a reference (solutions/chNN-*), sorted. */
    public static List<String> chapters(Path root) {
        Path solutions = root.resolve("solutions");
        if (!Files.isDirectory(solutions)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(solutions)) {
            return dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reference sources of a chapter: solutions/chNN-x/src/main/java. */
    public static Path reference(Path root, String chapter) {
        return root.resolve("solutions").resolve(chapter).resolve("src/main/java");
    }

    /** Every .java file under the folder, sorted (none when it does not exist). */
    public static List<Path> javaFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every block of the chapter's reference, in file order. */
    public static List<Block> blocks(Path root, String chapter) {
        List<Block> blocks = new ArrayList<>();
        for (Path file : javaFiles(reference(root, chapter))) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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
     * The chapter's tasks in number order, one per number. Problems (a block of another chapter,
     * two test classes for one task, one test class for two tasks, a gap in the numbers) are added
     * to {@code problems}, each naming the places that disagree.
     */
    public static List<Task> tasks(Path root, String chapter, List<String> problems) {
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

    /** The tasks of {@code chapter} (a module directory name such as {@code ch03-produce}); problems ignored. */
    public static List<Task> of(Path root, String chapter) {
        return tasks(root, chapter, new ArrayList<>());
    }

    /** Source file (relative to src/main/java) -> the lowest task whose exercise body is in it. */
    public static Map<String, Task> byFile(Path root, String chapter) {
        Map<String, Task> files = new TreeMap<>();
        Path reference = root.relativize(reference(root, chapter));
        for (Task task : of(root, chapter)) {
            for (Block b : task.blocks()) {
                files.putIfAbsent(reference.relativize(b.file()).toString(), task);
            }
        }
        return files;
    }

    /** The chapter module whose tests include {@code testClassSimpleName}, found from the test sources. */
    public static String chapterOfTestClass(Path root, String testClassSimpleName) {
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(p -> p.getFileName().toString().matches("ch\\d\\d-.*")).sorted().toList()) {
                Path tests = module.resolve("src/test/java");
                if (Files.isDirectory(tests)) {
                    try (Stream<Path> walk = Files.walk(tests)) {
                        if (walk.anyMatch(p -> p.getFileName().toString().equals(testClassSimpleName + ".java"))) {
                            return module.getFileName().toString();
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return null;
    }
}
