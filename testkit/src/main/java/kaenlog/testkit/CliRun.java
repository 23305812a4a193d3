package kaenlog.testkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** One run of {@code klog} in a test: its exit status and everything it printed. */
public record CliRun(int status, String out, String err) {
    /** Runs {@code klog} ({@code Klog::run}) with {@code args}, capturing stdout and stderr as UTF-8. */
    public static CliRun of(Golden.Demo klog, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = klog.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public List<String> lines() {
        return out.lines().toList();
    }
}
