import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log of a {@code mvn -B verify} still running, read by the gate and the mistakes corpus under
 * {@code --after-maven LOG} (CI's step 2): a chapter can be checked as soon as Maven has moved on to
 * the next module, since its surefire reports are then complete and its classes final, instead of
 * when Maven reaches the modules after the last chapter. Its gate and mistakes then run beside the
 * later chapters' tests, which mostly wait.
 */
final class MavenLog {
    /** A module's first line: "[INFO] Building ch10-cluster: bonus: ... 1.0.0-SNAPSHOT [9/13]" (not "Building jar: ..."). */
    static final Pattern MODULE = Pattern.compile("^\\[INFO\\] Building (\\S+?):? .*\\[(\\d+)/\\d+\\]$", Pattern.MULTILINE);
    static final long POLL_MS = 1_000;

    private MavenLog() {
    }

    /**
     * True when the log says Maven is done with {@code module}: a later module started, or the build
     * ended (BUILD SUCCESS or FAILURE, or {@code LOG.done}, which CI writes when Maven exits, however it
     * exits: a build that died wrote neither, and the check then says what is missing).
     */
    static boolean done(Path log, String module) throws IOException {
        if (Files.exists(Path.of(log + ".done"))) {
            return true;
        }
        if (!Files.exists(log)) {
            return false;
        }
        String text = Files.readString(log, StandardCharsets.ISO_8859_1);
        return done(text, module);
    }

    /** The rule on the log's text; pure, for SelfTest. */
    static boolean done(String text, String module) {
        if (text.contains("[INFO] BUILD SUCCESS") || text.contains("[INFO] BUILD FAILURE")) {
            return true;
        }
        int index = -1;
        int last = -1;
        Matcher m = MODULE.matcher(text);
        while (m.find()) {
            int at = Integer.parseInt(m.group(2));
            if (m.group(1).equals(module)) {
                index = at;
            }
            last = Math.max(last, at);
        }
        return index >= 0 && last > index;
    }

    /** Waits until {@link #done(Path, String)}; null log: nothing to wait for. */
    static void await(Path log, String module) throws IOException, InterruptedException {
        while (log != null && !done(log, module)) {
            Thread.sleep(POLL_MS);
        }
    }

    /** The value of {@code --after-maven LOG} among the arguments, or null; {@code rest} gets the others. */
    static Path option(String[] args, List<String> rest) {
        Path log = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--after-maven") && i + 1 < args.length) {
                log = Path.of(args[++i]).toAbsolutePath();
            } else {
                rest.add(args[i]);
            }
        }
        return log;
    }
}
