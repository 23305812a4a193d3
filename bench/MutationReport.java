import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Maps PIT's mutants of the reference onto the task blocks of solutions/ and prints, per chapter
 * and per task: mutants, killed, survived, no coverage. Run by bench/mutation after PIT.
 *
 *   java bench/MutationReport.java ch01-batch ch07-idem ...
 *
 * Reads chNN-* /target/pit-reports/mutations.xml and bench/mutation-equivalent.txt, and names any
 * declaration of a mutated class that no surviving mutant matches any more (code moved on). A mutant lies in
 * a task when its line is between "// BEGIN-SOLUTION chNN task N: ..." and "// END-SOLUTION" of
 * the source file PIT names. Exit 1 when a mutant inside a task block survives (or is not covered)
 * and is not declared equivalent.
 *
 * A declaration is one line: class :: trimmed source line :: PIT's description :: why it is equivalent
 * (lines starting with # are comments). Matching on the source text, not the line number, keeps a
 * declaration valid when code above it moves.
 */
public class MutationReport {
    static final Pattern BEGIN = Pattern.compile("//\\s*BEGIN-SOLUTION (ch\\d\\d) task (\\d+): (.+)\\((\\w+)\\)\\s*$");
    static final String END = "// END-SOLUTION";

    record Task(String chapter, int number, String what, String testClass) {
        String key() {
            return chapter + " task " + number;
        }
    }

    record Mutant(String clazz, String file, int line, String method, String description, String status, boolean detected) {}

    static final class Tally {
        int mutants, killed, survived, noCoverage, equivalent;

        void add(Mutant m, boolean declared) {
            mutants++;
            if (m.detected()) {
                killed++;
            } else if (declared) {
                equivalent++;
            } else if (m.status().equals("NO_COVERAGE")) {
                noCoverage++;
            } else {
                survived++;
            }
        }

        void add(Tally t) {
            mutants += t.mutants;
            killed += t.killed;
            survived += t.survived;
            noCoverage += t.noCoverage;
            equivalent += t.equivalent;
        }

        String row(String name) {
            int judged = mutants - equivalent;
            String pct = judged == 0 ? "-" : String.format("%d%%", Math.round(100.0 * killed / judged));
            return String.format("| %s | %d | %d (%s) | %d | %d | %d |", name, mutants, killed, pct, survived, noCoverage, equivalent);
        }
    }

    record Declaration(String clazz, String source, String description) {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("workbook.root", "."));
        List<Declaration> declarations = readDeclarations(root.resolve("bench/mutation-equivalent.txt"));
        List<String> undeclared = new ArrayList<>();
        Tally all = new Tally();
        Set<String> mutatedClasses = new HashSet<>();
        Set<Declaration> used = new HashSet<>();
        for (String chapter : args) {
            Path xml = root.resolve(chapter).resolve("target/pit-reports/mutations.xml");
            if (!Files.exists(xml)) {
                System.out.println(chapter + ": no PIT report at " + xml);
                undeclared.add(chapter + ": no report");
                continue;
            }
            Path sources = root.resolve("solutions").resolve(chapter).resolve("src/main/java");
            Map<String, Tally> perTask = new TreeMap<>(MutationReport::byTaskNumber);
            Map<String, Task> tasks = new HashMap<>();
            Tally outside = new Tally();
            Tally inside = new Tally();
            Map<String, Map<Integer, Task>> blocks = new HashMap<>();
            Map<String, List<String>> lines = new HashMap<>();
            for (Mutant m : readMutants(xml)) {
                String path = m.clazz().substring(0, Math.max(0, m.clazz().lastIndexOf('.'))).replace('.', '/') + "/" + m.file();
                Map<Integer, Task> fileBlocks = blocks.computeIfAbsent(path, p -> taskLines(sources.resolve(p), lines, p));
                Task task = fileBlocks.get(m.line());
                String text = lineText(lines.get(path), m.line());
                mutatedClasses.add(outerClass(m.clazz()));
                List<Declaration> matching = declarations.stream().filter(d -> d.clazz().equals(outerClass(m.clazz()))
                        && d.source().equals(text) && d.description().equals(m.description())).toList();
                boolean declared = !matching.isEmpty();
                if (!m.detected()) {
                    used.addAll(matching);
                }
                if (task == null) {
                    outside.add(m, declared);
                    continue;
                }
                tasks.putIfAbsent(task.key(), task);
                perTask.computeIfAbsent(task.key(), k -> new Tally()).add(m, declared);
                inside.add(m, declared);
                if (!m.detected() && !declared) {
                    undeclared.add(String.format("%s %s:%d %s.%s: %s [%s] -> kill it in %s, or declare it:%n      %s :: %s :: %s :: <why>",
                            task.key(), m.file(), m.line(), outerClass(m.clazz()), m.method(), m.description(), m.status(),
                            task.testClass(), outerClass(m.clazz()), text, m.description()));
                }
            }
            System.out.println();
            System.out.println("| " + chapter + " | mutants | killed | survived | no coverage | equivalent |");
            System.out.println("|---|---|---|---|---|---|");
            for (var e : perTask.entrySet()) {
                Task t = tasks.get(e.getKey());
                System.out.println(e.getValue().row(t.key() + " (" + t.testClass() + ")"));
            }
            System.out.println(inside.row("**task blocks**"));
            System.out.println(outside.row("outside task blocks"));
            all.add(inside);
        }
        System.out.println();
        System.out.println(all.row("**all chapters, task blocks**").replace("| **", "mutation: | **"));
        declarations.stream().filter(d -> mutatedClasses.contains(d.clazz()) && !used.contains(d)).forEach(d -> System.out.println(
                "stale declaration (no surviving mutant matches it any more; remove it): " + d.clazz() + " :: " + d.source()));
        if (!undeclared.isEmpty()) {
            System.out.println();
            System.out.println(undeclared.size() + " mutant(s) inside task blocks survive undeclared:");
            undeclared.forEach(u -> System.out.println("  " + u));
            System.exit(1);
        }
        System.out.println("0 undeclared survivors inside task blocks");
    }

    static int byTaskNumber(String a, String b) {
        int c = a.substring(0, 4).compareTo(b.substring(0, 4));
        return c != 0 ? c : Integer.compare(Integer.parseInt(a.substring(10)), Integer.parseInt(b.substring(10)));
    }

    static String outerClass(String clazz) {
        int dollar = clazz.indexOf('$');
        return dollar < 0 ? clazz : clazz.substring(0, dollar);
    }

    static String lineText(List<String> lines, int line) {
        return lines == null || line < 1 || line > lines.size() ? "" : lines.get(line - 1).strip();
    }

    /** Line number -> the task whose block contains it. */
    static Map<Integer, Task> taskLines(Path file, Map<String, List<String>> cache, String key) {
        Map<Integer, Task> result = new HashMap<>();
        if (!Files.exists(file)) {
            return result;
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            cache.put(key, lines);
            Task open = null;
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = BEGIN.matcher(lines.get(i).strip());
                if (m.matches()) {
                    open = new Task(m.group(1), Integer.parseInt(m.group(2)), m.group(3), m.group(4));
                } else if (lines.get(i).strip().equals(END)) {
                    open = null;
                } else if (open != null) {
                    result.put(i + 1, open);
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return result;
    }

    static List<Mutant> readMutants(Path xml) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        var doc = factory.newDocumentBuilder().parse(xml.toFile());
        NodeList nodes = doc.getElementsByTagName("mutation");
        List<Mutant> result = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            result.add(new Mutant(text(e, "mutatedClass"), text(e, "sourceFile"), Integer.parseInt(text(e, "lineNumber")),
                    text(e, "mutatedMethod"), text(e, "description"), e.getAttribute("status"),
                    Boolean.parseBoolean(e.getAttribute("detected"))));
        }
        return result;
    }

    static String text(Element e, String tag) {
        return e.getElementsByTagName(tag).item(0).getTextContent();
    }

    static List<Declaration> readDeclarations(Path file) throws IOException {
        List<Declaration> result = new ArrayList<>();
        if (!Files.exists(file)) {
            return result;
        }
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split(" :: ", 4);
                if (parts.length < 4 || parts[3].isBlank()) {
                    throw new IllegalArgumentException(file + ": expected 'class :: source line :: description :: why', got: " + line);
                }
                result.add(new Declaration(parts[0].strip(), parts[1].strip(), parts[2].strip()));
            }
        }
        return result;
    }
}
