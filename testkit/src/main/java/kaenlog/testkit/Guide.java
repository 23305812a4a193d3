package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The workbook's rule for guides: every code or output block is a verbatim excerpt of a named file,
 * so a guide cannot teach code the workbook does not have. A block is introduced by
 * {@code <!-- excerpt: path/from/the/root -->} on the line before its fence, and its lines must
 * appear, consecutively and exactly, in that file. Fences marked {@code sh} hold commands to type,
 * not excerpts, and are exempt.
 *
 * <p>Fences marked {@code mermaid} are diagrams, not excerpts, and are checked by
 * {@link #diagramProblems}: every name in a diagram that looks like code, and every number, must
 * be one the chapter's code or golden output uses, so a picture cannot drift from the code either.
 *
 * <p>Checked when the chapter runs on the reference (CI's -Psolutions): a guide quotes the
 * skeleton as generated, and on a learner's run those files are the learner's to change.
 */
public final class Guide {
    private static final Pattern EXCERPT = Pattern.compile("^<!-- excerpt: (\\S+) -->$");

    private Guide() {
    }

    /** A fenced block of the guide: the line its fence opens on, its language, its source, its text. */
    public record Block(int line, String language, String source, List<String> lines) {
    }

    public static void assertExcerptsMatch(String guide) throws IOException {
        assumeTrue("reference".equals(System.getProperty("chapter.kind")),
                "guides are checked on the reference (-Psolutions); on your code the quoted skeletons are yours");
        Path root = root();
        Path file = root.resolve(guide);
        assertThat(file).as("the chapter guide %s must exist", guide).exists();
        List<Block> blocks = blocks(Files.readAllLines(file, StandardCharsets.UTF_8));
        assertThat(blocks).as("%s has no excerpts: a guide shows the code and output it teaches", guide).isNotEmpty();
        for (Block block : blocks) {
            if (block.language().equals("sh")) {
                continue;
            }
            if (block.language().equals(MERMAID)) {
                assertThat(diagramProblems(guide, block, root))
                        .as("%s:%d: a diagram may only use the names and numbers of the chapter's code and golden output",
                                guide, block.line())
                        .isEmpty();
                continue;
            }
            assertThat(block.source())
                    .as("%s:%d: a ``` block must be introduced by <!-- excerpt: path --> naming the file it is cut from",
                            guide, block.line())
                    .isNotNull();
            Path source = root.resolve(block.source());
            assertThat(source).as("%s:%d: excerpt source %s", guide, block.line(), block.source()).exists();
            List<String> sourceLines = Files.readAllLines(source, StandardCharsets.UTF_8);
            assertThat(indexOf(sourceLines, block.lines()))
                    .as("%s:%d: this block is no longer a verbatim excerpt of %s (the file changed, or the guide did):"
                            + " copy the lines again from the file", guide, block.line(), block.source())
                    .isNotNegative();
        }
    }

    public static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        String source = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher excerpt = EXCERPT.matcher(line.strip());
            if (excerpt.matches()) {
                source = excerpt.group(1);
            } else if (line.startsWith("```")) {
                int open = i;
                List<String> body = new ArrayList<>();
                for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                    body.add(lines.get(i));
                }
                blocks.add(new Block(open + 1, line.substring(3).strip(), source, body));
                source = null;
            } else if (!line.isBlank()) {
                source = null;
            }
        }
        return blocks;
    }

    private static final String MERMAID = "mermaid";

    /** Mermaid's own words that look like code names (camel case): they are syntax, not names. */
    private static final Set<String> MERMAID_WORDS = Set.of("sequenceDiagram", "stateDiagram", "classDiagram",
            "erDiagram", "classDef", "linkStyle", "autonumber");

    /** A word, with what may follow it; the rules below decide whether it looks like code. */
    private static final Pattern WORD = Pattern.compile("(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(\\()?");
    /** A configuration name: lower-case words joined by dots ({@code segment.bytes}). */
    private static final Pattern CONFIG = Pattern.compile("(?<![A-Za-z0-9_.])[a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)+(?![A-Za-z0-9_])");
    /** Mermaid's arrows ({@code ->>}, {@code --x}, {@code -.->}, ...): the x of {@code B--xP} is no part of a name. */
    private static final Pattern ARROW = Pattern.compile("<?(?:-{1,3}|-\\.+-|={2,3})(?:>>|>|x|o|\\))");
    private static final Pattern CAMEL = Pattern.compile("[a-z][a-z0-9]*[A-Z]|[A-Z][a-z0-9]+[A-Z]");
    private static final Pattern NUMBER = Pattern.compile("(?<![A-Za-z0-9_])[0-9]+(?![A-Za-z0-9_])");

    /**
     * The problems of one diagram of a chapter guide, empty when there are none. The rule, token by
     * token over the whole diagram text (labels included):
     * <ul>
     * <li>a word <em>looks like code</em> when it is camel case ({@code fetchOnce}, {@code RecordBatch}:
     * a lower-case letter followed by a capital, or two capitalised humps), contains an underscore
     * ({@code INIT_PRODUCER_ID}, {@code __producer_ids}), or is directly followed by {@code (}
     * ({@code shrinkIsr(}; in {@code OffsetIndex.lookup(} both words are checked). Mermaid's own
     * camel-case keywords ({@code sequenceDiagram}, ...) are syntax and exempt. Such a word must
     * occur as a whole word in the chapter's reference sources: {@code solutions/chNN-*} of this
     * chapter and of every earlier chapter it builds on;</li>
     * <li>a configuration name, lower-case words joined by dots ({@code min.insync.replicas}), must
     * occur in those sources or in the chapter's golden output;</li>
     * <li>every number (a run of digits not touching a letter or an underscore: {@code 30000},
     * {@code 61} in {@code 61-byte}, but not the {@code 0} of a node id {@code S0}) must occur, with
     * the same boundaries, in the chapter's golden output {@code expected/NN-*.txt} or those sources.</li>
     * </ul>
     * Plain words ({@code leader}, {@code HW}, {@code LEO}) are prose and free.
     */
    static List<String> diagramProblems(String guide, Block block, Path root) throws IOException {
        String chapter = Path.of(guide).getName(0).toString();
        return diagramProblems(block.lines(), referenceSources(root, chapter), golden(root, chapter));
    }

    static List<String> diagramProblems(List<String> diagram, String sources, String golden) {
        Set<String> problems = new LinkedHashSet<>();
        for (String text : diagram) {
            String line = ARROW.matcher(text).replaceAll(" ");
            Matcher word = WORD.matcher(line);
            while (word.find()) {
                String name = word.group(1);
                boolean code = word.group(2) != null || name.contains("_") || CAMEL.matcher(name).find();
                if (code && !MERMAID_WORDS.contains(name) && !containsToken(sources, name)) {
                    problems.add("the name " + name + " is not in the chapter's reference sources (renamed? mistyped?)");
                }
            }
            Matcher config = CONFIG.matcher(line);
            while (config.find()) {
                if (!containsToken(sources, config.group()) && !containsToken(golden, config.group())) {
                    problems.add("the name " + config.group() + " is not in the chapter's reference sources or golden"
                            + " output (renamed? mistyped?)");
                }
            }
            Matcher number = NUMBER.matcher(line);
            while (number.find()) {
                if (!containsToken(golden, number.group()) && !containsToken(sources, number.group())) {
                    problems.add("the number " + number.group() + " is not in the chapter's golden output or sources");
                }
            }
        }
        return List.copyOf(problems);
    }

    private static boolean containsToken(String text, String token) {
        return Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(token) + "(?![A-Za-z0-9_])").matcher(text).find();
    }

    /** All reference sources of this chapter and the chapters before it, as one text. */
    static String referenceSources(Path root, String chapter) throws IOException {
        StringBuilder text = new StringBuilder();
        List<Path> modules;
        try (var dirs = Files.list(root.resolve("solutions"))) {
            modules = dirs.filter(d -> d.getFileName().toString().matches("ch[0-9]{2}-.*"))
                    .filter(d -> d.getFileName().toString().compareTo(chapter) <= 0)
                    .sorted()
                    .toList();
        }
        assertThat(modules).as("reference sources of %s under solutions/", chapter).isNotEmpty();
        for (Path module : modules) {
            try (var files = Files.walk(module.resolve("src/main/java"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    text.append(Files.readString(file, StandardCharsets.UTF_8)).append('\n');
                }
            }
        }
        return text.toString();
    }

    /** The chapter's golden output: {@code expected/NN-*.txt} for chapter {@code chNN-*}. */
    static String golden(Path root, String chapter) throws IOException {
        String prefix = chapter.substring(2, 4) + "-";
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(root.resolve("expected"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList()) {
                text.append(Files.readString(file, StandardCharsets.UTF_8)).append('\n');
            }
        }
        return text.toString();
    }

    static int indexOf(List<String> haystack, List<String> needle) {
        for (int start = 0; start + needle.size() <= haystack.size(); start++) {
            if (haystack.subList(start, start + needle.size()).equals(needle)) {
                return start;
            }
        }
        return -1;
    }

    /** The workbook's root folder, which the parent pom passes to every test. */
    public static Path root() {
        String root = System.getProperty("workbook.root");
        assertThat(root).as("system property workbook.root: run the tests through Maven").isNotNull();
        return Path.of(root);
    }
}
