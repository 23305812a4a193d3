package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** What a client sent, fit for one line of the broker's log (given code: every port's log lines use it). */
@Order(20)
@PassesOnSkeleton("LogText is given code, not an exercise")
class LogTextTest {
    @Test
    void controlCharactersAreShownNeverWritten() {
        assertThat(LogText.quote("a\nb\r\tc\u0001\u001b[2J\u007f\u0085\u2028\u202e\\'"))
                .as("newline, return, tab, C0, ESC, DEL, C1, line separator, a bidi override, backslash and quote"
                        + " are shown escaped: nothing a client sends can end the line or move a terminal's cursor")
                .isEqualTo("'a\\nb\\r\\tc\\u0001\\u001b[2J\\u007f\\u0085\\u2028\\u202e\\\\\\''");
        assertThat(LogText.quote(null)).as("Kafka's client_id is nullable").isEqualTo("null");
        assertThat(LogText.quote("producer-1")).as("an ordinary id is shown as it is").isEqualTo("'producer-1'");
    }

    @Test
    void aLongStringIsCutAndSaysHowMuchWasLeftOff() {
        String quoted = LogText.quote("A".repeat(30 * 1024));
        assertThat(quoted).as("at most %d characters of a client's string, then the count left off",
                LogText.MAX_QUOTED_CHARS)
                .startsWith("'" + "A".repeat(LogText.MAX_QUOTED_CHARS) + "...(")
                .endsWith("(" + (30 * 1024 - LogText.MAX_QUOTED_CHARS) + " more chars)'");
        assertThat(LogText.clean("x".repeat(10_000)).length()).as("a whole reason is cut too")
                .isLessThan(LogText.MAX_LINE_CHARS + 40);
        String emoji = "a".repeat(LogText.MAX_QUOTED_CHARS - 1) + "\uD83D\uDE00";
        assertThat(LogText.quote(emoji)).as("a cut never splits a surrogate pair").doesNotContain("\uD83D...");
    }
}
