package kaenlog.testkit.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A chapter's tasks in order, read from the reference's markers
 * ({@code // BEGIN-SOLUTION chNN task N: what (TestClass)}): the same list {@code ./workbook status}
 * and the guides use, so every view of "which task am I on" agrees.
 */
public final class Tasks {
    static final Pattern MARKER = Pattern.compile("^\\s*// BEGIN-SOLUTION (ch\\d\\d) task (\\d+): (.+) \\((\\w+)\\)\\s*$");

    /** One exercise: its number, what it builds and the test class that checks it. */
    public record Task(int number, String what, String testClass) {
    }

    private Tasks() {
    }

    /** The tasks of {@code chapter} (a module directory name such as {@code ch03-produce}). */
    public static List<Task> of(Path root, String chapter) {
        Map<Integer, Task> tasks = new TreeMap<>();
        Path reference = root.resolve("solutions").resolve(chapter).resolve("src/main/java");
        if (!Files.isDirectory(reference)) {
            return List.of();
        }
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(tasks.values());
    }

    /** Source file (relative to src/main/java) -> the lowest task whose exercise body is in it. */
    public static Map<String, Task> byFile(Path root, String chapter) {
        Map<Integer, Task> byNumber = new TreeMap<>();
        of(root, chapter).forEach(t -> byNumber.put(t.number(), t));
        Map<String, Task> files = new TreeMap<>();
        Path reference = root.resolve("solutions").resolve(chapter).resolve("src/main/java");
        if (!Files.isDirectory(reference)) {
            return files;
        }
        try (Stream<Path> walk = Files.walk(reference)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    Matcher m = MARKER.matcher(line);
                    if (m.matches()) {
                        files.putIfAbsent(reference.relativize(file).toString(), byNumber.get(Integer.parseInt(m.group(2))));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
