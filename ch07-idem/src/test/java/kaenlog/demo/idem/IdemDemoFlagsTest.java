package kaenlog.demo.idem;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.cli.Klog;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The demo's flags are real: other values change the run, bad ones exit 2 with the usage. */
@Order(21)
class IdemDemoFlagsTest {
    static CliRun klog(String... args) {
        return CliRun.of(Klog::run, args);
    }

    static CliRun ok(String... args) {
        CliRun result = klog(args);
        assertThat(result.status())
                .as("`klog %s` should succeed; it exited %d with: %s", String.join(" ", args), result.status(),
                        result.err())
                .isZero();
        return result;
    }

    @Test
    void anotherSequenceRangeMovesEveryNumberThatDependsOnIt() {
        String out = ok("idem-demo", "--pid", "1000", "--seq", "3..4", "--resend", "--now-ms", "1700000000000").out();

        assertThat(out)
                .as("--seq 3..4: the window fills with 0..1, 2..2, then 3..4 at base offset 3, LEO 5")
                .contains("       2..2   APPEND")
                .contains("       3..4   APPEND                                            3   [0..1 2..2 3..4]")
                .contains("log end offset 5\n")
                .as("the resend of 3..4 is a duplicate at its original offsets")
                .contains("DUPLICATE · original offsets 3..4")
                .as("the gap jumps three past the expected 5")
                .contains("OUT_OF_ORDER_SEQUENCE_NUMBER · expected 5 got 8")
                .as("after five singles 5..9 the window is full of them and 3..4 is out of order, expected 10")
                .contains("window now [5..5 6..6 7..7 8..8 9..9]")
                .contains("OUT_OF_ORDER_SEQUENCE_NUMBER · expected 10 got 3")
                .as("the restart finds the same window and recognises 9..9")
                .contains("resend seq 9..9 after the restart → DUPLICATE · original offsets 9..9")
                .as("the new producer id lands at the log end, 10")
                .contains("base_offset 10 ·");
    }

    @Test
    void withoutResendNothingIsResentAndThePidFlagIsUsedEverywhere() {
        String out = ok("idem-demo", "--pid", "7", "--seq", "7..9").out();

        assertThat(out)
                .as("no --resend: the ack section says nothing was resent, and prints no DUPLICATE for 7..9")
                .contains("the producer does not resend seq 7..9")
                .doesNotContain("DUPLICATE · original offsets 7..9")
                .as("--pid 7: the demo's producer is 7 and the restarted process gets 8")
                .contains("producer id 7 · producer epoch 0")
                .contains("producer ids found by the scan [7]")
                .contains("the same payload sent with pid 8 seq 0 → APPEND")
                .as("the window overflow is then a late retry, judged the same way")
                .contains("a late retry of seq 7..9 → OUT_OF_ORDER_SEQUENCE_NUMBER · expected 15 got 7");
    }

    @Test
    void theDemoCountsItsSelfChecksAndTheyAllHold() {
        String out = ok("idem-demo", "--seq", "0..0", "--resend").out();

        assertThat(out)
                .as("--seq 0..0: a single first batch; its resend is a duplicate of offset 0")
                .contains("DUPLICATE · original offsets 0..0")
                .as("every run ends with its self-check count")
                .containsPattern("\nself-checks: \\d+ held\n$");
    }

    @Test
    void nowMsIsTheTimeOfTheWritesAndADuplicateAnswersWithIt() {
        String out = ok("idem-demo", "--resend", "--now-ms", "1234").out();

        assertThat(out)
                .as("--now-ms 1234: every batch is written at 1234, and the resent 7..9 is answered with the time of "
                        + "its first write, kept in the window")
                .contains("timestamp     1234 (the first write's, from the window)");
    }

    @Test
    @PassesOnSkeleton("flags are parsed before any exercise runs")
    void aSequenceTooLargeIsNamedAsTooLarge() {
        for (String seq : new String[] {"2147483647..2147483647", "99999999999999999999..99999999999999999999"}) {
            CliRun result = klog("idem-demo", "--seq", seq);
            assertThat(result.status()).as("--seq %s: exit 2", seq).isEqualTo(Klog.USAGE);
            assertThat(result.err())
                    .as("--seq %s is two whole numbers: the error must say FIRST is too large, not ask for numbers", seq)
                    .contains("FIRST must be at most 50")
                    .doesNotContain("two whole numbers");
        }
    }

    @Test
    @PassesOnSkeleton("flags are parsed before any exercise runs")
    void badFlagsExitTwoWithTheUsage() {
        String[][] bad = {
            {"idem-demo", "--seq", "9..7"},
            {"idem-demo", "--pid", "-1"},
            {"idem-demo", "--bogus"},
            {"idem-demo", "--seq", "7"},
            {"idem-demo", "--seq", "7..x"},
            {"idem-demo", "--pid"},
            {"idem-demo", "extra"},
        };
        for (String[] args : bad) {
            CliRun result = klog(args);
            assertThat(result.status())
                    .as("`klog %s` is a misuse: exit 2, not %d (stderr: %s)", String.join(" ", args), result.status(),
                            result.err())
                    .isEqualTo(Klog.USAGE);
            assertThat(result.err())
                    .as("`klog %s` prints a one-line reason and the usage, never a stack trace", String.join(" ", args))
                    .contains("usage: klog idem-demo")
                    .doesNotContain("Exception")
                    .doesNotContain("\tat ");
            assertThat(result.out())
                    .as("`klog %s` runs nothing", String.join(" ", args))
                    .isEmpty();
        }
    }
}
