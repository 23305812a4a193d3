package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
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

    private static final String SOURCES = "public FetchRound fetchOnce(long nowMs) { ... } // INIT_PRODUCER_ID min.insync.replicas";
    private static final String GOLDEN = "round 1: LEO 1 · HW 0 · past the 30000 ms limit";

    @Test
    void aDiagramMayUseTheChaptersNamesAndNumbers() {
        List<String> diagram = List.of(
                "sequenceDiagram",
                "    participant L as leader id 1",
                "    L->>F: fetchOnce(nowMs) · INIT_PRODUCER_ID",
                "    F--xL: lost on the way",
                "    Note over L: LEO 1 · HW 0 · min.insync.replicas · 30000 ms");
        assertThat(Guide.diagramProblems(diagram, SOURCES, GOLDEN))
                .as("every code-like name is in the sources and every number in the golden output")
                .isEmpty();
    }

    @Test
    void aDiagramFailsWhenANameInItIsChanged() {
        List<String> diagram = List.of("sequenceDiagram", "    L->>F: fetchTwice(nowMs) · INIT_PRODUCER_IDS",
                "    Note over L: min.insync.replica");
        assertThat(Guide.diagramProblems(diagram, SOURCES, GOLDEN))
                .as("a renamed method, call, constant or configuration name is caught, each by name")
                .containsExactly(
                        "the name fetchTwice is not in the chapter's reference sources (renamed? mistyped?)",
                        "the name INIT_PRODUCER_IDS is not in the chapter's reference sources (renamed? mistyped?)",
                        "the name min.insync.replica is not in the chapter's reference sources or golden output"
                                + " (renamed? mistyped?)");
    }

    @Test
    void aDiagramFailsWhenANumberInItIsChanged() {
        List<String> diagram = List.of("flowchart LR", "    S0[\"past the 30001 ms limit\"]");
        assertThat(Guide.diagramProblems(diagram, SOURCES, GOLDEN))
                .as("a number the code and the golden output never print is caught; the 0 of node id S0 is not a number")
                .containsExactly("the number 30001 is not in the chapter's golden output or sources");
    }

    @Test
    void theReplicationGuidesDiagramsFailWhenANameInThemIsChanged() throws IOException {
        String guide = "ch08-replication/README.md";
        List<String> lines = Files.readAllLines(Guide.root().resolve(guide), StandardCharsets.UTF_8);
        List<Guide.Block> diagrams = Guide.blocks(lines).stream().filter(b -> b.language().equals("mermaid")).toList();
        assertThat(diagrams).as("%s draws its rounds as mermaid diagrams", guide).isNotEmpty();
        for (Guide.Block diagram : diagrams) {
            assertThat(Guide.diagramProblems(guide, diagram, Guide.root())).as("%s:%d as written", guide, diagram.line())
                    .isEmpty();
        }
        Guide.Block rounds = diagrams.stream().filter(b -> String.join("\n", b.lines()).contains("fetchOnce"))
                .findFirst().orElseThrow(() -> new AssertionError(guide + " has no diagram naming fetchOnce"));
        List<String> renamed = new ArrayList<>();
        rounds.lines().forEach(l -> renamed.add(l.replace("fetchOnce", "fetchTwice")));
        assertThat(Guide.diagramProblems(guide, new Guide.Block(rounds.line(), "mermaid", null, renamed), Guide.root()))
                .as("the same diagram with fetchOnce renamed to fetchTwice must fail the check")
                .contains("the name fetchTwice is not in the chapter's reference sources (renamed? mistyped?)");
    }
}
