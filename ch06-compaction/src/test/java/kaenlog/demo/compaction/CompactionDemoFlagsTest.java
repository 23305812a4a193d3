package kaenlog.demo.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import kaenlog.cli.Klog;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The demo's flags are real: other values print another run whose claims still hold; bad ones exit 2. */
@Order(21)
class CompactionDemoFlagsTest {
    private static CliRun klog(String... args) {
        return CliRun.of(Klog::run, args);
    }

    @Test
    void otherFlagValuesRunAnotherDemoWhoseClaimsStillHold() {
        CliRun run = klog("compaction-demo", "--now-ms", "1800000000000", "--rounds", "2", "--delete-retention-ms", "1000");
        assertThat(run.status()).as("compaction-demo --rounds 2 --delete-retention-ms 1000 must exit 0 with every"
                + " self-check held; stderr: %s", run.err()).isZero();
        assertThat(run.out())
                .as("--rounds 2 commits two rounds")
                .contains("they commit 2 round(s)")
                .as("--delete-retention-ms 1000 puts the horizon 1 s after the first cleaning")
                .contains("delete.retention.ms 1000,")
                .as("and the run ends with its self-check count")
                .containsPattern("self-checks: \\d+ held");
    }

    @Test
    @PassesOnSkeleton("flag parsing is given code: a bad flag is refused before any exercise runs")
    void aBadFlagExitsTwoWithOneLineAndTheUsage() {
        for (String[] args : new String[][] {{"compaction-demo", "--rounds", "0"}, {"compaction-demo", "--rounds", "x"},
            {"compaction-demo", "--delete-retention-ms", "-1"}, {"compaction-demo", "--bogus"},
            {"compaction-demo", "extra"}}) {
            CliRun run = klog(args);
            assertThat(run.status()).as("klog %s: misuse exits 2", String.join(" ", args)).isEqualTo(2);
            List<String> lines = run.err().lines().toList();
            assertThat(lines)
                    .as("klog %s: one line saying what is wrong, then the usage; never a stack trace",
                            String.join(" ", args))
                    .hasSize(2);
            assertThat(lines.get(1)).as("klog %s: the second line is the usage", String.join(" ", args))
                    .startsWith("usage: klog compaction-demo");
            assertThat(run.out()).as("klog %s prints nothing on stdout", String.join(" ", args)).isEmpty();
        }
    }
}
