package kaenlog.demo.txn;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.cli.Klog;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The demo's misuse: a bad flag exits 2 with the usage and runs nothing. */
@Order(26)
class TxnDemoFlagsTest {
    @Test
    @PassesOnSkeleton("flags are parsed before any exercise runs")
    void badFlagsExitTwoWithTheUsage() {
        String[][] bad = {
            {"txn-demo", "--bogus"},
            {"txn-demo", "--now-ms"},
            {"txn-demo", "--now-ms", "soon"},
            {"txn-demo", "extra"},
        };
        for (String[] args : bad) {
            CliRun result = CliRun.of(Klog::run, args);
            assertThat(result.status())
                    .as("`klog %s` is a misuse: exit 2, not %d (stderr: %s)", String.join(" ", args), result.status(),
                            result.err())
                    .isEqualTo(Klog.USAGE);
            assertThat(result.err())
                    .as("`klog %s` prints a one-line reason and the usage, never a stack trace", String.join(" ", args))
                    .contains("usage: klog txn-demo")
                    .doesNotContain("Exception")
                    .doesNotContain("\tat ");
            assertThat(result.out()).as("`klog %s` runs nothing", String.join(" ", args)).isEmpty();
        }
    }
}
