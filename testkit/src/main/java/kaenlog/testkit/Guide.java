package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The workbook's rule for guides: every code or output block is a verbatim excerpt of a named file,
 * so a guide cannot teach code the workbook does not have. A block is introduced by
 * {@code <!-- excerpt: path/from/the/root -->} on the line before its fence, and its lines must
 * appear, consecutively and exactly, in that file. Fences marked {@code sh} hold commands to type,
 * not excerpts, and are exempt.
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
