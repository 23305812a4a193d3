import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mistake file of the corpus ({@code chNN-x/mistakes/taskN-name.txt}): a realistic wrong body
 * of a task, written as an edit to the reference.
 * <pre>
 * # a title (comments start with #)
 * task: 4
 * kind: step left out
 * rule: the rule it breaks, in the guide's words
 * message: a fragment of the failure that names the rule
 * file: kaenlog/idem/Idempotence.java          (relative to solutions/chNN-x/src/main/java)
 * declared: why no test can catch it            (optional, rare)
 * &lt;&lt;&lt;&lt;&lt;&lt;&lt; reference
 * lines of the reference, exactly
 * =======
 * what the mistake writes instead (may be empty)
 * &gt;&gt;&gt;&gt;&gt;&gt;&gt; mistake
 * </pre>
 */
record Mistake(Path path, String name, Map<String, String> fields, List<Edit> edits) {
    /** One edit: text of the reference that occurs exactly once, and what the mistake writes instead. */
    record Edit(String reference, String mistake) {
    }

    int task() {
        return Integer.parseInt(fields.getOrDefault("task", "0").strip());
    }

    String field(String key) {
        return fields.getOrDefault(key, "").strip();
    }

    static Mistake parse(Path path) throws IOException {
        String name = path.getFileName().toString().replaceAll("\\.txt$", "");
        Map<String, String> fields = new LinkedHashMap<>();
        List<Edit> edits = new ArrayList<>();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.equals("<<<<<<< reference")) {
                int middle = find(lines, i + 1, "=======", path);
                int end = find(lines, middle + 1, ">>>>>>> mistake", path);
                edits.add(new Edit(joined(lines.subList(i + 1, middle)), joined(lines.subList(middle + 1, end))));
                i = end;
            } else if (!line.startsWith("#") && !line.isBlank()) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException(path + ":" + (i + 1) + ": expected 'key: value' or an edit block");
                }
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 1));
            }
        }
        return new Mistake(path, name, fields, edits);
    }

    private static int find(List<String> lines, int from, String marker, Path path) {
        for (int j = from; j < lines.size(); j++) {
            if (lines.get(j).equals(marker)) {
                return j;
            }
        }
        throw new IllegalArgumentException(path + ": no line '" + marker + "' after line " + from);
    }

    private static String joined(List<String> lines) {
        return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
    }

    /**
     * The reference file with the edits applied in order, each inside a block of {@code tag} ("ch07
     * task 4") or a reference-only helper: a mistake is a wrong body of its task. Null, with a
     * problem added, when an edit is stale, not unique, or outside those blocks.
     */
    String apply(String source, String tag, List<String> problems) {
        String result = source;
        for (Edit e : edits) {
            String refused = refusal(e, result, tag);
            if (refused != null) {
                problems.add(name + ": " + refused);
                return null;
            }
            int at = result.indexOf(e.reference());
            result = result.substring(0, at) + e.mistake() + result.substring(at + e.reference().length());
        }
        return result;
    }

    /** Why this edit cannot apply to the text as earlier edits left it, or null when it can. */
    private String refusal(Edit e, String text, String tag) {
        int at = text.indexOf(e.reference());
        if (e.reference().isEmpty() || at < 0) {
            return "its reference text is not in " + field("file") + " (stale? copy the lines exactly)";
        }
        if (text.indexOf(e.reference(), at + 1) >= 0) {
            return "its reference text occurs more than once in " + field("file") + " (quote more lines)";
        }
        // Where the task's blocks are now: an earlier edit may have added or removed lines.
        int first = lineOf(text, at);
        int last = lineOf(text, at + e.reference().length() - 1);
        if (regions(text, tag).stream().noneMatch(r -> r[0] < first && last < r[1])) {
            return "its edit (lines " + first + "-" + last + " of " + field("file") + ") is not inside a block of task "
                    + task() + " (a mistake is a wrong body of its task)";
        }
        return null;
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            line += text.charAt(i) == '\n' ? 1 : 0;
        }
        return line;
    }

    /** Line ranges (exclusive of the marker lines) of the task's blocks in a file, and of its reference-only helpers. */
    static List<int[]> regions(String source, String tag) {
        String[] lines = source.split("\n", -1);
        List<int[]> regions = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String s = lines[i].strip();
            boolean ours = s.startsWith("// BEGIN-SOLUTION " + tag + ":");
            boolean only = s.equals(Markers.BEGIN_ONLY);
            if (ours || only) {
                String end = ours ? Markers.END : Markers.END_ONLY;
                for (int j = i + 1; j < lines.length; j++) {
                    if (lines[j].strip().equals(end)) {
                        regions.add(new int[] {i + 1, j + 1});
                        break;
                    }
                }
            }
        }
        return regions;
    }
}
