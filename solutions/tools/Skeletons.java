import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Makes the learner's skeletons from the reference solution: the one source of truth.
 *
 *   java solutions/tools/Skeletons.java                 check every chapter; exit 1 on drift
 *   java solutions/tools/Skeletons.java --write         regenerate every chapter's skeleton
 *   java solutions/tools/Skeletons.java --write ch07-idem   regenerate one chapter (starting it over)
 *
 * In solutions/<chapter>/src/main/java, an exercise body sits between
 *     // BEGIN-SOLUTION ch01 task 3: the 61-byte header (BatchHeaderTest)
 *     // END-SOLUTION
 * and becomes, in <chapter>/src/main/java,
 *     throw new Todo("ch01 task 3: the 61-byte header (BatchHeaderTest)");
 * The block must run to the end of its method (the next line closes it). Lines between
 * // BEGIN-SOLUTION-ONLY and // END-SOLUTION-ONLY (whole helper members) are dropped.
 * Files without markers are copied unchanged.
 */
public class Skeletons {
    static final Pattern BEGIN = Pattern.compile("^(\\s*)// BEGIN-SOLUTION (ch\\d\\d task \\d+: .+\\(\\w+\\))\\s*$");
    static final String END = "// END-SOLUTION";
    static final String BEGIN_ONLY = "// BEGIN-SOLUTION-ONLY";
    static final String END_ONLY = "// END-SOLUTION-ONLY";
    static final String TODO_IMPORT = "import kaenlog.workbook.Todo;";

    public static void main(String[] args) throws IOException {
        boolean write = args.length > 0 && args[0].equals("--write");
        Path root = Path.of(System.getProperty("workbook.root", "."));
        List<String> chapters = new ArrayList<>();
        for (int i = write ? 1 : 0; i < args.length; i++) {
            chapters.add(args[i]);
        }
        if (chapters.isEmpty()) {
            try (Stream<Path> dirs = Files.list(root.resolve("solutions"))) {
                dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted()
                        .forEach(chapters::add);
            }
        }
        List<String> problems = new ArrayList<>();
        int files = 0;
        for (String chapter : chapters) {
            Path from = root.resolve("solutions").resolve(chapter).resolve("src/main/java");
            Path to = root.resolve(chapter).resolve("src/main/java");
            if (!Files.isDirectory(from)) {
                problems.add("no reference sources at " + from);
                continue;
            }
            files += sync(from, to, write, problems);
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.out.println((write ? "" : "DRIFT ") + p));
            if (!write) {
                System.out.println("skeletons drifted from solutions/: a skeleton is generated, never edited by hand."
                        + " Edit the solution, then run: java solutions/tools/Skeletons.java --write");
            }
            System.exit(1);
        }
        System.out.println((write ? "wrote " : "skeletons match the solutions: ") + files + " file(s) in "
                + String.join(", ", chapters));
    }

    static int sync(Path from, Path to, boolean write, List<String> problems) throws IOException {
        TreeSet<Path> expected = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path source : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                Path relative = from.relativize(source);
                expected.add(relative);
                Path target = to.resolve(relative);
                String skeleton;
                try {
                    skeleton = strip(Files.readString(source, StandardCharsets.UTF_8));
                } catch (IllegalStateException e) {
                    problems.add(source + ": " + e.getMessage());
                    continue;
                }
                if (write) {
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, skeleton, StandardCharsets.UTF_8);
                } else if (!Files.exists(target)) {
                    problems.add(target + ": missing (generated from " + source + ")");
                } else {
                    String actual = Files.readString(target, StandardCharsets.UTF_8);
                    if (!actual.equals(skeleton)) {
                        problems.add(firstDifference(target, actual, skeleton));
                    }
                }
            }
        }
        if (Files.isDirectory(to)) {
            try (Stream<Path> walk = Files.walk(to)) {
                for (Path extra : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (!expected.contains(to.relativize(extra))) {
                        if (write) {
                            Files.delete(extra);
                        } else {
                            problems.add(extra + ": not generated from any solution file");
                        }
                    }
                }
            }
        }
        return expected.size();
    }

    static String firstDifference(Path target, String actual, String expected) {
        String[] a = actual.split("\n", -1);
        String[] e = expected.split("\n", -1);
        for (int i = 0; i < Math.max(a.length, e.length); i++) {
            String got = i < a.length ? a[i] : "<end of file>";
            String want = i < e.length ? e[i] : "<end of file>";
            if (!got.equals(want)) {
                return target + ":" + (i + 1) + ": expected \"" + want.strip() + "\" but found \"" + got.strip() + "\"";
            }
        }
        return target + ": differs";
    }

    /** The skeleton of one solution file. */
    static String strip(String source) {
        String[] lines = source.split("\n", -1);
        List<String> out = new ArrayList<>();
        boolean todos = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher begin = BEGIN.matcher(line);
            if (line.strip().equals(BEGIN_ONLY)) {
                i = skipTo(lines, i, END_ONLY);
            } else if (begin.matches()) {
                int end = skipTo(lines, i, END);
                String next = end + 1 < lines.length ? lines[end + 1].strip() : "";
                if (!next.startsWith("}")) {
                    throw new IllegalStateException("line " + (end + 1)
                            + ": an exercise block must run to the end of its method (next line: " + next + ")");
                }
                out.add(begin.group(1) + "throw new Todo(\"" + begin.group(2).replace("\"", "\\\"") + "\");");
                todos = true;
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
