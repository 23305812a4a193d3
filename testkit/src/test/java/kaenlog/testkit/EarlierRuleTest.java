package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import kaenlog.testkit.EarlierChapterFailures.Origin;
import org.junit.jupiter.api.Test;

class EarlierRuleTest {
    private static final String RULE = "a follower silent for replica.lag.time.max.ms or less stays in the ISR";

    @Test
    void aWrongAnswerOfAnEarlierChaptersLearnerCodeNamesThatChapter() {
        AssertionError failure = EarlierRule.failure("kaenlog.replication.IsrState", "shrinkIsr", RULE,
                new Origin("ch08-replication", "learner"), "ch10-cluster");

        assertThat(failure).as("chapter 10's test, chapter 8's wrong answer: the line the task table reads as blocked")
                .isInstanceOf(EarlierChapterFailures.EarlierChapterFailure.class);
        assertThat(failure.getMessage()).startsWith("this fails in your chapter 8 code, kaenlog.replication.IsrState.shrinkIsr"
                + " (ch08-replication)").contains("mvn -Pch08 test", RULE);
    }

    @Test
    void theReferenceOrTheSameChapterIsAPlainFailure() {
        AssertionError onReference = EarlierRule.failure("kaenlog.replication.IsrState", "shrinkIsr", RULE,
                new Origin("ch08-replication", "reference"), "ch10-cluster");
        AssertionError sameChapter = EarlierRule.failure("kaenlog.replication.IsrState", "shrinkIsr", RULE,
                new Origin("ch08-replication", "learner"), "ch08-replication");

        assertThat(onReference).as("the reference is nobody's chapter").isNotInstanceOf(
                EarlierChapterFailures.EarlierChapterFailure.class);
        assertThat(onReference.getMessage()).isEqualTo("IsrState.shrinkIsr answers against its rule: " + RULE);
        assertThat(sameChapter).as("chapter 8's own rule in chapter 8 is no earlier chapter's")
                .isNotInstanceOf(EarlierChapterFailures.EarlierChapterFailure.class);
    }

    @Test
    void aRuleThatHoldsPassesAndOneThatDoesNotFailsOutsideAChapter() {
        EarlierRule.holds(true, Object.class, "equals", "nothing to say");
        assertThatThrownBy(() -> EarlierRule.holds(false, Object.class, "equals", "reflexive"))
                .as("testkit's own test is no chapter's: a plain failure").isExactlyInstanceOf(AssertionError.class)
                .hasMessage("Object.equals answers against its rule: reflexive");
    }
}
