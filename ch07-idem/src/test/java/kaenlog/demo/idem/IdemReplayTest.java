package kaenlog.demo.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import kaenlog.cli.Klog;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.Guide;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.TextDiff;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `klog idem-replay`: a learner's own scenario, one verdict line per batch. */
@Order(22)
class IdemReplayTest {
    @TempDir
    Path dir;

    CliRun replay(String script, String... flags) throws IOException {
        Path file = dir.resolve("script.txt");
        Files.writeString(file, script, StandardCharsets.UTF_8);
        String[] args = new String[flags.length + 2];
        args[0] = "idem-replay";
        System.arraycopy(flags, 0, args, 1, flags.length);
        args[args.length - 1] = file.toString();
        return IdemDemoFlagsTest.klog(args);
    }

    @Test
    void theDemosWalkReplaysToTheChaptersNumbers() throws IOException {
        String script = String.join("\n",
                "# the demo's walk",
                "1000 0 0 1", "1000 0 2 3", "1000 0 4 5", "1000 0 6 6", "1000 0 7 9",
                "",
                "1000 0 7 9     # the ack was lost: resend",
                "1000 0 13 13   # a gap",
                "1000 0 10 10", "1000 0 11 11", "1000 0 12 12", "1000 0 13 13", "1000 0 14 14",
                "1000 0 7 9     # out of the window by now",
                "restart",
                "show 1000",
                "1000 0 14 14",
                "1001 0 0 2", "");

        CliRun result = replay(script);

        assertThat(result.status()).as("the script is well formed: exit 0 (stderr: %s)", result.err()).isZero();
        assertThat(result.out().lines().toList())
                .as("one line per batch with its verdict: APPEND at 0, 2, 4, 6, 7; the resend DUPLICATE 7..9;"
                        + " the gap expected 10 got 13; five singles at 10..14; 7..9 now expected 15 got 7; the restart"
                        + " rebuilds the window; 14..14 still a DUPLICATE; pid 1001 appended at 15")
                .containsExactly(
                        "APPEND base=0", "APPEND base=2", "APPEND base=4", "APPEND base=6", "APPEND base=7",
                        "DUPLICATE 7..9",
                        "OUT_OF_ORDER expected=10 got=13",
                        "APPEND base=10", "APPEND base=11", "APPEND base=12", "APPEND base=13", "APPEND base=14",
                        "OUT_OF_ORDER expected=15 got=7",
                        "restart: producers [1000] · log end offset 15 · segments 1",
                        "window 1000 epoch 0 [10..10 11..11 12..12 13..13 14..14] expected 15",
                        "DUPLICATE 14..14",
                        "APPEND base=15");
    }

    @Test
    void theGuidesScenariosReplayToTheirExpectedOutput() throws IOException {
        Path scenarios = Guide.root().resolve("ch07-idem/scenarios");
        for (String name : List.of("walk", "epochs")) {
            Path script = scenarios.resolve(name + ".txt");
            String expected = Files.readString(scenarios.resolve(name + ".expected"), StandardCharsets.UTF_8);

            CliRun result = IdemDemoFlagsTest.klog("idem-replay", script.toString());
            assertThat(result.status()).as("scenario %s runs: exit 0 (stderr: %s)", name, result.err()).isZero();

            assertThat(result.out())
                    .as("`klog idem-replay ch07-idem/scenarios/%s.txt` must print %s.expected (the guide quotes both):%n%s",
                            name, name, TextDiff.firstDifference(expected, result.out()))
                    .isEqualTo(expected);
        }
    }

    @Test
    void smallSegmentsShowTheWindowShrinkingAtRestart() throws IOException {
        StringBuilder script = new StringBuilder();
        for (int seq = 0; seq < 8; seq++) {
            script.append("1000 0 ").append(seq).append(' ').append(seq).append('\n');
        }
        script.append("show 1000\nrestart\nshow 1000\n1000 0 3 3\n");

        CliRun result = replay(script.toString(), "--segment-bytes", "128");
        assertThat(result.status()).as("the script is well formed: exit 0 (stderr: %s)", result.err()).isZero();

        assertThat(result.out().lines().skip(8).toList())
                .as("segment.bytes 128: each single-record batch (about 80 bytes) rolls its own segment, eight "
                        + "segments; the window shrinks from five to one at the restart, so 3..3, a duplicate before, is now OUT_OF_ORDER expected 8 got 3")
                .containsExactly(
                        "window 1000 epoch 0 [3..3 4..4 5..5 6..6 7..7] expected 8",
                        "restart: producers [1000] · log end offset 8 · segments 8",
                        "window 1000 epoch 0 [7..7] expected 8",
                        "OUT_OF_ORDER expected=8 got=3");
    }

    @Test
    void theScriptCanComeFromStandardInput() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new IdemReplay().run(List.of("-"),
                new ByteArrayInputStream("5 0 0 0\n5 0 0 0\nshow 6\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).as("'-' reads the script from standard input (stderr: %s)", err).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .as("a batch, its resend, and a producer that never wrote")
                .containsExactly("APPEND base=0", "DUPLICATE 0..0", "window 6 [] expected 0 (no state)");
    }

    @Test
    @PassesOnSkeleton("the script is parsed before any exercise runs")
    void aMalformedLineIsReportedWithItsNumberAndExitStatusTwo() throws IOException {
        String[] bad = {"1000 0 0", "1000 zero 0 0", "1000 0 9 7", "-1 0 0 0", "1000 40000 0 0", "show", "restart now"};
        for (String line : bad) {
            CliRun result = replay("# fine\n1000 0 0 0\n" + line + "\n");

            assertThat(result.status())
                    .as("'%s' is malformed: exit 2 (stderr: %s)", line, result.err())
                    .isEqualTo(Klog.USAGE);
            assertThat(result.err())
                    .as("the error names line 3, where '%s' is", line)
                    .contains("klog idem-replay: line 3: ");
            assertThat(result.out())
                    .as("the whole script is checked before anything runs: no verdict is printed")
                    .isEmpty();
        }
    }
}
