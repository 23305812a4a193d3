package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./workbook quiz}: tools/Workbook.java is a single-file program, so this test compiles it
 * once (one javac run, about a second) and calls its {@code Quiz.run} on the real guides.
 */
class QuizTest {
    /** Every guide's answers, in order: a guide whose answers change must change this too. */
    private static final Map<String, List<String>> KEYS = new TreeMap<>(Map.of(
            "ch01-batch", List.of("b", "c", "a", "c"),
            "ch03-produce", List.of("c", "a", "b", "a"),
            "ch06-compaction", List.of("a", "c", "b", "a"),
            "ch07-idem", List.of("b", "c", "a"),
            "ch08-replication", List.of("b", "a", "c"),
            "ch09-kafka-wire", List.of("b", "a", "c", "a"),
            "ch11-transactions", List.of("b", "b", "a", "b")));

    @TempDir
    static Path classes;
    private static Method run;

    record Outcome(int status, String out, String err) {
    }

    @BeforeAll
    static void compileTheWorkbook() throws Exception {
        // The tools are compiled together, as ./workbook compiles them (Workbook.java uses its neighbours).
        List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
        try (Stream<Path> tools = Files.list(Guide.root().resolve("tools"))) {
            tools.filter(p -> p.toString().endsWith(".java")).sorted().forEach(p -> args.add(p.toString()));
        }
        // ... and with the one parser of the solution markers, which lives in the testkit.
        args.add(Guide.root().resolve("testkit/src/main/java/kaenlog/testkit/loop/Tasks.java").toString());
        int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(String[]::new));
        assertThat(javac).as("tools/*.java compile").isZero();
        ClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, QuizTest.class.getClassLoader());
        run = Class.forName("Quiz", true, loader).getDeclaredMethod("run", String.class, List.class, List.class,
                BufferedReader.class, PrintStream.class, PrintStream.class);
        run.setAccessible(true);
    }

    private static Outcome quiz(String chapter, List<String> answers, String typed) throws Exception {
        List<String> guide = Files.readAllLines(Guide.root().resolve(chapter).resolve("README.md"),
                StandardCharsets.UTF_8);
        return quiz(chapter, guide, answers, typed);
    }

    private static Outcome quiz(String chapter, List<String> guide, List<String> answers, String typed)
            throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = (int) run.invoke(null, chapter, guide, answers, new BufferedReader(new StringReader(typed)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyGuideAsksItsQuestionsAndAcceptsItsRightAnswers() throws Exception {
        for (Map.Entry<String, List<String>> key : KEYS.entrySet()) {
            Outcome o = quiz(key.getKey(), key.getValue(), "");
            int n = key.getValue().size();
            assertThat(o.status()).as("%s answered %s: exit 0%n%s%s", key.getKey(), key.getValue(), o.err(), o.out())
                    .isZero();
            assertThat(o.out()).as("%s: every question is asked and explained", key.getKey())
                    .contains("Question " + n + " of " + n).contains(n + " of " + n + " right.")
                    .doesNotContain("Not quite").doesNotContain("**").doesNotContain("`");
        }
    }

    @Test
    void aWrongAnswerIsNamedAndExplained() throws Exception {
        Outcome o = quiz("ch08-replication", List.of("b", "b", "c"), "");
        assertThat(o.status()).as("one wrong answer: exit 1").isEqualTo(1);
        assertThat(o.out())
                .as("the wrong answer is named, the right one given, and the reasoning printed")
                .contains("your answer: b\nNot quite: the answer is a.")
                .contains("The min-ISR refusal applies to acks=all only")
                .contains("2 of 3 right.");
    }

    @Test
    void askedInTheTerminalItRepeatsABadAnswerAndStopsOnQ() throws Exception {
        Outcome o = quiz("ch07-idem", List.of(), "x\nb\nq\n");
        assertThat(o.out()).as("an answer that is no option is asked again, then q stops")
                .contains("one letter from a to c, please")
                .contains("Right: b.")
                .contains("1 of 1 right (stopped early).");
        assertThat(o.status()).as("stopping early is not all right: exit 1").isEqualTo(1);
    }

    @Test
    void answersThatDoNotFitTheQuestionsAreAUsageError() throws Exception {
        Outcome tooFew = quiz("ch08-replication", List.of("b"), "");
        assertThat(tooFew.status()).as("one answer for three questions: exit 2").isEqualTo(2);
        assertThat(tooFew.err()).contains("has 3 questions");
        Outcome notALetter = quiz("ch08-replication", List.of("b", "z", "c"), "");
        assertThat(notALetter.status()).as("z is no option: exit 2").isEqualTo(2);
        assertThat(notALetter.err()).contains("answer 2 is 'z'");
    }

    @Test
    void aQuestionWithoutItsAnswerIsReportedWithItsLine() throws Exception {
        List<String> guide = List.of("# Guide", "", "## Check your understanding", "", "**1. Why?**", "",
                "- a) one", "- b) two", "", "## Hints");
        Outcome o = quiz("ch99-test", guide, List.of(), "");
        assertThat(o.status()).isEqualTo(2);
        assertThat(o.err()).as("the guide's line of the broken question is named")
                .contains("line 5: question 1 has no <details> answer");
    }
}
