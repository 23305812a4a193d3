package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GuideTest {
    @Test
    void aBlockTakesItsSourceFromTheExcerptLineJustAboveIt() {
        List<Guide.Block> blocks = Guide.blocks(List.of(
                "Some prose.",
                "<!-- excerpt: expected/01-batch.txt -->",
                "```text",
                "self-checks: 8 held",
                "```",
                "```sh",
                "mvn -Pch01 test",
                "```"));
        assertThat(blocks).containsExactly(
                new Guide.Block(3, "text", "expected/01-batch.txt", List.of("self-checks: 8 held")),
                new Guide.Block(6, "sh", null, List.of("mvn -Pch01 test")));
    }

    @Test
    void anExcerptMustBeConsecutiveLinesOfItsSource() {
        List<String> source = List.of("a", "b", "c");
        assertThat(Guide.indexOf(source, List.of("b", "c"))).isEqualTo(1);
        assertThat(Guide.indexOf(source, List.of("a", "c"))).isEqualTo(-1);
    }
}
