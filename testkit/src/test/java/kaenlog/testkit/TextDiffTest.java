package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextDiffTest {
    @Test
    void aCaretPointsAtTheFirstDifferingCharacter() {
        assertThat(TextDiff.firstDifference("a\nlog end offset 10\n", "a\nlog end offset 13\n"))
                .isEqualTo("first difference at line 2, column 17:\n"
                        + "  expected: log end offset 10\n"
                        + "  actual:   log end offset 13\n"
                        + "                            ^");
    }

    @Test
    void equalTextsHaveNoDifference() {
        assertThat(TextDiff.firstDifference("same\n", "same\n")).isNull();
    }
}
