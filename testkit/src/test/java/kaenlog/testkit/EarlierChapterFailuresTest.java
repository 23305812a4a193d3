package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import kaenlog.testkit.EarlierChapterFailures.Origin;
import org.junit.jupiter.api.Test;

class EarlierChapterFailuresTest {
    /** Where each made-up class "was loaded from"; anything else is a library or the JDK. */
    private static final Function<String, Origin> ORIGINS = name -> Map.of(
            "kaenlog.batch.RecordBatch", new Origin("ch01-batch", "learner"),
            "kaenlog.log.Log", new Origin("ch03-produce", "learner"),
            "kaenlog.log.LogTest", new Origin("ch03-produce", "test"),
            "kaenlog.idem.ProducerState", new Origin("ch07-idem", "reference")).getOrDefault(name, Origin.OTHER);

    private static Throwable thrownAt(Throwable t, String... classes) {
        StackTraceElement[] frames = new StackTraceElement[classes.length];
        for (int i = 0; i < classes.length; i++) {
            frames[i] = new StackTraceElement(classes[i], "method" + i, classes[i] + ".java", 10 + i);
        }
        t.setStackTrace(frames);
        return t;
    }

    @Test
    void aFailureThrownInAnEarlierChaptersLearnerCodeNamesThatChapterItsClassAndItsTestCommand() {
        Throwable t = thrownAt(new IllegalStateException("crc mismatch"),
                "java.nio.ByteBuffer", "kaenlog.batch.RecordBatch", "kaenlog.log.Log", "kaenlog.log.LogTest");

        Optional<String> line = EarlierChapterFailures.blame(t, "ch03-produce", ORIGINS);

        assertThat(line).as("a ch03 test that dies inside the learner's ch01 RecordBatch must say so").hasValueSatisfying(l -> assertThat(l)
                .contains("chapter 1", "kaenlog.batch.RecordBatch.method1", "ch01-batch", "mvn -Pch01 test", "-Dearlier=reference")
                .doesNotContain("\n"));
    }

    @Test
    void theInnermostCauseDecidesWhereAWrappedFailureStarted() {
        Throwable cause = thrownAt(new IllegalStateException("crc mismatch"), "kaenlog.batch.RecordBatch", "kaenlog.log.Log");
        Throwable wrapper = thrownAt(new RuntimeException("recovery failed", cause), "kaenlog.log.Log", "kaenlog.log.LogTest");

        assertThat(EarlierChapterFailures.blame(wrapper, "ch03-produce", ORIGINS)).as("the cause was thrown in ch01").isPresent();
    }

    @Test
    void aFailureOfTheTestItselfOrOfTheCurrentChapterBlamesNoEarlierChapter() {
        Throwable assertion = thrownAt(new AssertionError("expected 3"), "org.assertj.core.Assert", "kaenlog.log.LogTest",
                "kaenlog.batch.RecordBatch");
        Throwable own = thrownAt(new IllegalStateException(), "kaenlog.log.Log", "kaenlog.batch.RecordBatch");

        assertThat(EarlierChapterFailures.blame(assertion, "ch03-produce", ORIGINS)).as("an assertion of the test").isEmpty();
        assertThat(EarlierChapterFailures.blame(own, "ch03-produce", ORIGINS)).as("thrown in chapter 3's own code").isEmpty();
    }

    @Test
    void referenceCodeAndLaterChaptersAreNeverBlamed() {
        Throwable inReference = thrownAt(new IllegalStateException(), "kaenlog.idem.ProducerState", "kaenlog.log.LogTest");
        Throwable inLaterLearner = thrownAt(new IllegalStateException(), "kaenlog.log.Log");

        assertThat(EarlierChapterFailures.blame(inReference, "ch08-replication", ORIGINS)).as("the reference is not the learner's").isEmpty();
        assertThat(EarlierChapterFailures.blame(inLaterLearner, "ch01-batch", ORIGINS)).as("chapter 3 is not earlier than 1").isEmpty();
    }
}
