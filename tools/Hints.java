import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import kaenlog.testkit.loop.Tasks;

/**
 * {@code ./workbook hint chNN N [--more | --all]}: a task's hint in steps, as plain text.
 *
 * The guide is the one store of the hints ("## Hints", a "**Task N.**" paragraph per task, which
 * regen keeps numbered). Its sentences are the steps: the first call prints the first, a direction;
 * each {@code --more} prints the next one; {@code --all} prints them all. The whole answer stays
 * with {@code ./workbook solution chNN N}. How far a learner has read is kept in
 * build/workbook/hints.properties.
 */
final class Hints {
    static final int WIDTH = 80;
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+(?=[A-Z\"(])");

    private Hints() {
    }

    static int command(Path root, String chapter, Tasks.Task task, String[] options) throws IOException {
        String mode = options.length == 0 ? "" : options[0];
        if (!mode.isEmpty() && !mode.equals("--more") && !mode.equals("--all")) {
            throw new Workbook.Stop(2, "workbook: hint takes --more (the next step) or --all, not " + mode);
        }
        Path guide = root.resolve(chapter).resolve("README.md");
        List<String> steps = steps(Files.readAllLines(guide, StandardCharsets.UTF_8), task.number());
        String id = chapter.substring(0, 4);
        System.out.println(id + " task " + task.number() + ": " + task.what() + " (" + task.testClass() + ")");
        if (steps.isEmpty()) {
            System.out.println("The guide has no hint for this task: read its section in " + root.relativize(guide) + ".");
            return 0;
        }
        Path state = root.resolve("build/workbook/hints.properties");
        Properties shown = load(state);
        String key = chapter + "." + task.number();
        int last = Integer.parseInt(shown.getProperty(key, "0"));
        int from = mode.equals("--more") ? Math.min(last + 1, steps.size()) : 1;
        int to = mode.equals("--all") ? steps.size() : from;
        for (int step = from; step <= to; step++) {
            System.out.println();
            System.out.println("Hint " + step + " of " + steps.size() + ":");
            wrap(steps.get(step - 1), "  ", System.out);
        }
        System.out.println();
        String command = " " + id + " " + task.number();
        System.out.println(to < steps.size() ? "The next step: ./workbook hint" + command + " --more"
                + "  The whole answer: ./workbook solution" + command
                : "That was the last step. The whole answer: ./workbook solution" + command);
        shown.setProperty(key, String.valueOf(to));
        Files.createDirectories(state.getParent());
        try (var out = Files.newBufferedWriter(state, StandardCharsets.UTF_8)) {
            shown.store(out, "./workbook hint: the last step shown per task");
        }
        return 0;
    }

    static Properties load(Path state) throws IOException {
        Properties p = new Properties();
        if (Files.exists(state)) {
            try (var in = Files.newBufferedReader(state, StandardCharsets.UTF_8)) {
                p.load(in);
            }
        }
        return p;
    }

    /** The task's hint as plain-text steps: one sentence each, in the guide's order (none when it has no hint). */
    static List<String> steps(List<String> guide, int number) {
        StringBuilder hint = new StringBuilder();
        boolean inHints = false;
        boolean inTask = false;
        for (String line : guide) {
            if (line.startsWith("## ")) {
                inHints = line.strip().equalsIgnoreCase("## Hints");
                inTask = false;
            } else if (inHints && line.startsWith("**Task ")) {
                inTask = line.startsWith("**Task " + number + ".**");
                line = inTask ? line.substring(("**Task " + number + ".**").length()) : line;
            }
            if (inHints && inTask) {
                hint.append(line).append('\n');
            }
        }
        List<String> steps = new ArrayList<>();
        for (String sentence : SENTENCE_END.split(plain(hint.toString()))) {
            if (!sentence.isBlank()) {
                steps.add(sentence.strip());
            }
        }
        return steps;
    }

    /** Markdown made plain text: no emphasis, code quotes or link targets, one line. */
    static String plain(String markdown) {
        return markdown.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("**", "").replace("`", "")
                .replaceAll("(?<![\\w*])\\*(\\S[^*]*\\S|\\S)\\*(?![\\w*])", "$1").replaceAll("\\s+", " ").strip();
    }

    /** Prints the text wrapped at {@value #WIDTH} columns, every line under {@code indent}. */
    static void wrap(String text, String indent, PrintStream out) {
        Text.wrap(text, indent, WIDTH, out);
    }
}
