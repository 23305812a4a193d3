package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Kafka's {@code kafka.tools.DumpLogSegments} in its own JVM (it prints with Scala's Console), on the
 * test's classpath: Maven's ({@code java.class.path}), or under {@code ./workbook watch}, whose tests
 * run in a class loader of their own, the libraries it names in {@code watch.classpath}.
 */
public final class DumpLogSegments {
    private DumpLogSegments() {
    }

    /** Its output for {@code file}, with {@code options} before {@code --files}. */
    public static String run(Path file, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("watch.classpath", System.getProperty("java.class.path")),
                "kafka.tools.DumpLogSegments"));
        command.addAll(List.of(options));
        command.addAll(List.of("--files", file.toString()));
        Process dump = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = dump.getInputStream().readAllBytes();
        assertThat(dump.waitFor(120, TimeUnit.SECONDS)).as("DumpLogSegments finished").isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }
}
