package kaenlog.testkit.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import kaenlog.testkit.loop.EarlierChapters.Advice;
import kaenlog.testkit.loop.EarlierChapters.Earlier;
import org.junit.jupiter.api.Test;

class EarlierChaptersTest {
    @Test
    void anEarlierChapterOfYoursThatFailsItsOwnTestsIsTheFirstLineWithTheFlagThatTakesTheReference() {
        List<String> lines = EarlierChapters.lines(3, List.of(new Earlier("ch01-batch", true, 3, 8, 0, "its last mvn -Pch01 test, 21:10")),
                Advice.maven(3));

        assertThat(lines).singleElement().asString()
                .contains("your chapter 1 fails its own tests: 3 of 8 tasks pass", "21:10", "-Dreference.ch01", "chapter 3");
    }

    @Test
    void untestedButWithTodosLeftSaysHowManyAndAllPassingSaysNothing() {
        List<String> lines = EarlierChapters.lines(7, List.of(new Earlier("ch03-produce", true, -1, 12, 12, ""),
                new Earlier("ch06-compaction", true, 9, 9, 0, "its task tests, just now")), Advice.maven(7));

        assertThat(lines).singleElement().asString().contains("chapter 3 still throws the TODO of 12 of its 12 tasks", "-Dreference.ch03");
    }

    @Test
    void watchSaysWhenItTookTheReferenceInsteadOfYours() {
        List<String> lines = EarlierChapters.lines(7, List.of(new Earlier("ch03-produce", false, 0, 12, 12, "its task tests, just now")),
                new Advice(n -> "--earlier=reference", n -> "./workbook watch ch0" + n));

        assertThat(lines).singleElement().asString()
                .contains("your chapter 3 fails its own tests: 0 of 12 tasks pass", "runs on the reference's chapter 3", "./workbook watch ch03");
    }
}
