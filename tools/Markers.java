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
import kaenlog.testkit.loop.Tasks;

/**
 * The solutions' exercise markers and what the tools make of them. The marker itself is parsed in
 * one place, testkit's {@code kaenlog.testkit.loop.Tasks} (compiled with the tools by ./workbook):
 * tasks, blocks and chapters are read there; this class turns a file into its variants.
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
    /** The marker's pattern: testkit's Tasks.BEGIN, the one parser (see there for its groups). */
    static final Pattern BEGIN = Tasks.BEGIN;
    static final String END = "// END-SOLUTION";
    static final String BEGIN_ONLY = "// BEGIN-SOLUTION-ONLY";
    static final String END_ONLY = "// END-SOLUTION-ONLY";
    static final String TODO_IMPORT = "import kaenlog.workbook.Todo;";

    private Markers() {
    }

    /** The chapter folders that have a reference (solutions/chNN-*), sorted. */
    static List<String> chapters(Path root) throws IOException {
        return Tasks.chapters(root);
    }

    /** The chapter a command line names, by its folder or its two digits ("ch03"); a {@link Workbook.Stop} (status 2) for none. */
    static String chapter(Path root, String wanted, String usage) throws IOException {
        List<String> chapters = chapters(root);
        return chapters.stream().filter(c -> c.equals(wanted) || c.startsWith(wanted + "-")).findFirst()
                .orElseThrow(() -> new Workbook.Stop(2, usage + ": no chapter '" + wanted + "' (there are "
                        + String.join(", ", chapters) + ")"));
    }

    static Path reference(Path root, String chapter) {
        return Tasks.reference(root, chapter);
    }

    static List<Path> javaFiles(Path dir) throws IOException {
        return Tasks.javaFiles(dir);
    }

    /** Every block of the chapter's reference, in file order. */
    static List<Tasks.Block> blocks(Path root, String chapter) throws IOException {
        return Tasks.blocks(root, chapter);
    }

    /**
     * The chapter's tasks in number order. Problems (a block of another chapter, two test classes for
     * one task, one test class for two tasks, a gap in the numbers) are added to {@code problems},
     * each naming the places that disagree.
     */
    static List<Tasks.Task> tasks(Path root, String chapter, List<String> problems) throws IOException {
        return Tasks.tasks(root, chapter, problems);
    }

    /** The tasks, or a {@link Workbook.Stop} (status 1) naming every problem with the markers. */
    static List<Tasks.Task> tasksOrStop(Path root, String chapter) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Tasks.Task> tasks = tasks(root, chapter, problems);
        if (!problems.isEmpty()) {
            throw new Workbook.Stop(1, "MARKERS " + String.join("\nMARKERS ", problems));
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
