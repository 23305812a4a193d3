import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.testkit.loop.Tasks;

/**
 * Prose that names a task by its number cannot go stale: it names the task's test class beside the
 * number, "task 10 (IsrGateTest)", and the number follows the class's marker.
 *
 *   - where: a chapter's guide (chNN-x/README.md, hints and quiz included, fenced blocks left out:
 *     they are verbatim excerpts, kept by regen), its test sources (javadoc, comments, descriptions)
 *     and its reference sources (javadoc, demo lines);
 *   - a reference is "task N (TestClass)"; "chapter 3's task 7 (ProduceTest)" names another
 *     chapter's task (needed only when the class name is not unique); without it the class is
 *     looked up in the file's own chapter, then in the only chapter that has it;
 *   - ./workbook regen rewrites N to the number the class's marker gives; ./workbook check fails on
 *     a reference whose number is not that, names no task's class, or on a bare "task N" / "tasks
 *     N to M" (rephrase: "the cleaner's tasks", or name each task with its class);
 *   - left alone, because the markers already make them: the markers and TODO texts ("ch03 task
 *     4: ..."), a test class's "Task N:" javadoc head, the guide's "**Task N.**" hint heads and its
 *     task table.
 */
final class Prose {
    static final Pattern REFERENCE = Pattern.compile("\\b([Tt]ask) (\\d+) \\((\\w+)\\)");
    static final Pattern ANY = Pattern.compile("(?<!ch\\d\\d )\\b[Tt]asks? \\d+");
    static final Pattern OTHER_CHAPTER = Pattern.compile("chapter (\\d+)'s $");
    static final Pattern HINT_HEAD = Pattern.compile("^\\*\\*Task \\d+\\.\\*\\*");
    static final Pattern JAVADOC_HEAD = Pattern.compile("\\bTask \\d+:");

    private Prose() {
    }

    /** test class -> task number, per chapter id (ch08), from the markers. */
    static Map<String, Map<String, Integer>> numbers(Path root) throws IOException {
        Map<String, Map<String, Integer>> numbers = new LinkedHashMap<>();
        for (String chapter : Markers.chapters(root)) {
            Map<String, Integer> mine = new LinkedHashMap<>();
            Tasks.tasks(root, chapter, new ArrayList<>()).forEach(t -> mine.put(t.testClass(), t.number()));
            numbers.put(chapter.substring(0, 4), mine);
        }
        return numbers;
    }

    /** The files whose prose is kept: the guide, the test sources and the reference sources of a chapter. */
    static List<Path> files(Path root, String chapter) throws IOException {
        List<Path> files = new ArrayList<>();
        Path guide = root.resolve(chapter).resolve("README.md");
        if (Files.exists(guide)) {
            files.add(guide);
        }
        files.addAll(Markers.javaFiles(root.resolve(chapter).resolve("src/test/java")));
        files.addAll(Markers.javaFiles(Markers.reference(root, chapter)));
        return files;
    }

    /** Adds a problem for every reference in the chapter's prose that is stale, unknown or bare. */
    static void check(Path root, String chapter, List<String> problems) throws IOException {
        Map<String, Map<String, Integer>> numbers = numbers(root);
        for (Path file : files(root, chapter)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            rewrite(chapter.substring(0, 4), lines, file.toString().endsWith(".md"), numbers,
                    root.relativize(file).toString(), problems);
        }
    }

    /** Rewrites every reference's number to its class's; returns the files that changed. */
    static List<Path> write(Path root, String chapter) throws IOException {
        Map<String, Map<String, Integer>> numbers = numbers(root);
        List<Path> changed = new ArrayList<>();
        for (Path file : files(root, chapter)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            List<String> out = rewrite(chapter.substring(0, 4), lines, file.toString().endsWith(".md"), numbers,
                    root.relativize(file).toString(), new ArrayList<>());
            if (!out.equals(lines)) {
                String text = Files.readString(file, StandardCharsets.UTF_8);
                Files.writeString(file, String.join("\n", out) + (text.endsWith("\n") ? "\n" : ""),
                        StandardCharsets.UTF_8);
                changed.add(file);
            }
        }
        return changed;
    }

    /**
     * The lines with every reference's number set from {@code numbers}; a problem for every
     * reference whose number was wrong, whose class is no task's, and for every bare "task N".
     */
    static List<String> rewrite(String id, List<String> lines, boolean markdown, Map<String, Map<String, Integer>> numbers,
            String name, List<String> problems) {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (markdown && line.startsWith("```")) {
                fenced = !fenced;
            }
            if (fenced || line.startsWith("```") || skipped(line, markdown)) {
                out.add(line);
                continue;
            }
            out.add(rewriteLine(id, line, markdown, numbers, name + ":" + (i + 1), problems));
        }
        return out;
    }

    /** Lines the markers write: the markers themselves and the TODO texts made from them. */
    static boolean skipped(String line, boolean markdown) {
        return !markdown && (line.contains("BEGIN-SOLUTION") || line.contains("new Todo(\""));
    }

    static String rewriteLine(String id, String line, boolean markdown, Map<String, Map<String, Integer>> numbers,
            String where, List<String> problems) {
        StringBuilder out = new StringBuilder();
        int from = 0;
        Matcher m = REFERENCE.matcher(line);
        List<int[]> references = new ArrayList<>();
        while (m.find()) {
            references.add(new int[] {m.start(), m.end()});
            String chapter = chapterOf(id, line.substring(0, m.start()), m.group(3), numbers);
            Integer number = chapter == null ? null : numbers.get(chapter).get(m.group(3));
            out.append(line, from, m.start());
            if (number == null) {
                problems.add(where + ": \"" + m.group() + "\" names " + m.group(3) + ", which is no task's test class"
                        + " (a reference is task N (TestClass); another chapter's: chapter 3's task N (TestClass))");
                out.append(m.group());
            } else {
                if (number != Integer.parseInt(m.group(2))) {
                    problems.add(where + ": \"" + m.group() + "\", but the markers make " + m.group(3) + " "
                            + chapter + " task " + number + " (./workbook regen rewrites it)");
                }
                out.append(m.group(1)).append(' ').append(number).append(" (").append(m.group(3)).append(')');
            }
            from = m.end();
        }
        out.append(line.substring(from));
        String scanned = line;
        Matcher head = HINT_HEAD.matcher(line);
        if (markdown && head.find()) {
            scanned = " ".repeat(head.end()) + line.substring(head.end());
        }
        Matcher any = ANY.matcher(scanned);
        while (any.find()) {
            int at = any.start();
            boolean inReference = references.stream().anyMatch(r -> at >= r[0] && at < r[1]);
            boolean javadocHead = !markdown && JAVADOC_HEAD.matcher(line).region(at, line.length()).lookingAt();
            if (!inReference && !javadocHead) {
                problems.add(where + ": \"" + any.group() + "\" without its test class: write task N (TestClass), which"
                        + " ./workbook regen keeps numbered (or name the tasks without numbers)");
            }
        }
        return out.toString();
    }

    /** The chapter id whose task the class is: named before it, the file's own, or the only one that has it. */
    static String chapterOf(String id, String before, String testClass, Map<String, Map<String, Integer>> numbers) {
        Matcher other = OTHER_CHAPTER.matcher(before);
        if (other.find()) {
            String named = String.format("ch%02d", Integer.parseInt(other.group(1)));
            return numbers.containsKey(named) ? named : null;
        }
        if (numbers.containsKey(id) && numbers.get(id).containsKey(testClass)) {
            return id;
        }
        List<String> having = numbers.entrySet().stream().filter(e -> e.getValue().containsKey(testClass))
                .map(Map.Entry::getKey).toList();
        return having.size() == 1 ? having.get(0) : null;
    }
}
