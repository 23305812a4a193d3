package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The golden gate: a chapter's demo, run with the exact arguments its pom gives exec:java
 * ({@code demo.args}), must print {@code expected/NN-name.txt} byte for byte, the same five runs in
 * a row, with exit status 0 and nothing on stderr. With {@code -Dgolden.write=true} on the
 * reference ({@code -Psolutions}) it writes the golden file instead, but only after all of that
 * held: a demo whose self-check fails cannot become the golden output. ./workbook regen runs that
 * (and refreshes the guides' excerpts of the golden files).
 */
public final class Golden {
    public static final int RUNS = 5;

    @FunctionalInterface
    public interface Demo {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    private Golden() {
    }

    public static void assertDemoMatchesGolden(Demo demo) throws IOException {
        String args = required("demo.args");
        Path golden = Path.of(required("golden.file"));
        String first = null;
        for (int run = 1; run <= RUNS; run++) {
            String output = runOnce(demo, args.split(" "));
            if (first == null) {
                first = output;
            }
            assertThat(output)
                    .as("run %d of `klog %s` printed something else than run 1: the demo is not deterministic"
                            + " (a clock, a temp path, hash order?)%n%s", run, args, TextDiff.firstDifference(first, output))
                    .isEqualTo(first);
        }
        if (Boolean.getBoolean("golden.write")) {
            if (!"reference".equals(System.getProperty("chapter.kind"))) {
                fail("golden files are written from the reference only: ./workbook regen");
            }
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, first, StandardCharsets.UTF_8);
            return;
        }
        assertThat(golden).as("golden file %s is missing: regenerate it from the reference"
                + " (./workbook regen)", golden).exists();
        String expected = Files.readString(golden, StandardCharsets.UTF_8);
        assertThat(first)
                .as("`klog %s` does not print %s:%n%s", args, golden.getFileName(), TextDiff.firstDifference(expected, first))
                .isEqualTo(expected);
    }

    private static String runOnce(Demo demo, String[] args) {
        CliRun run = CliRun.of(demo, args);
        assertThat(run.status()).as("`klog %s` exited %d: %s", String.join(" ", args), run.status(), run.err()).isZero();
        assertThat(run.err()).as("`klog %s` wrote to stderr", String.join(" ", args)).isEmpty();
        return run.out();
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            fail("system property " + property + " is not set: run the tests through Maven (the parent pom sets it)");
        }
        return value;
    }
}
