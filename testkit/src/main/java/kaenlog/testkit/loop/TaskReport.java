package kaenlog.testkit.loop;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;

/**
 * The last step of {@code mvn -PchNN test} (exec:java in the test phase, chapter profiles only):
 * prints the task table {@link TaskTableListener} wrote, below surefire's summary, and fails the
 * build when this run's surefire reports hold a failure. Under the chapter profiles surefire itself
 * does not fail the build, so that this screen is the last thing the learner reads before Maven's
 * BUILD FAILURE; the verdict still comes from surefire's own reports, never from the table.
 *
 * <p>System properties (exec.args is the demo's, so not arguments): {@code workbook.module} the
 * module's directory, {@code workbook.build.start} the build's start ({@code maven.build.timestamp},
 * ISO-8601), {@code workbook.failure.ignore} ({@code maven.test.failure.ignore}: report, do not fail).
 */
public final class TaskReport {
    private TaskReport() {
    }

    public static void main(String[] args) throws Exception {
        Path module = Path.of(System.getProperty("workbook.module"));
        // Reports older than this build belong to an earlier run (second resolution: one second of slack).
        Instant buildStart = OffsetDateTime.parse(System.getProperty("workbook.build.start")).toInstant().minusSeconds(1);
        boolean ignore = Boolean.parseBoolean(System.getProperty("workbook.failure.ignore"));
        Path table = TaskTableListener.tableFile(module);
        Path reports = module.resolve("target/surefire-reports");
        int failed = 0;
        int ran = 0;
        boolean crashed = false;
        if (Files.isDirectory(reports)) {
            try (Stream<Path> files = Files.list(reports)) {
                for (Path p : files.filter(f -> !modified(f).isBefore(buildStart)).toList()) {
                    String name = p.getFileName().toString();
                    crashed |= name.endsWith(".dump") || name.endsWith(".dumpstream");
                    if (name.matches("TEST-.*\\.xml")) {
                        Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(p.toFile()).getDocumentElement();
                        ran += Integer.parseInt(suite.getAttribute("tests"));
                        failed += Integer.parseInt(suite.getAttribute("failures")) + Integer.parseInt(suite.getAttribute("errors"));
                    }
                }
            }
        }
        if (Files.exists(table) && !modified(table).isBefore(buildStart)) {
            List<String> lines = Files.readAllLines(table, StandardCharsets.UTF_8);
            System.out.println();
            lines.forEach(System.out::println);
        }
        if (crashed) {
            System.out.println("the test JVM crashed or was killed: see the .dump files in " + reports);
        }
        if ((failed > 0 || crashed) && !ignore) {
            System.out.println();
            System.out.printf("BUILD FAILURE: %d of %d tests failed (the table above says which task and why)%n", failed, ran);
            System.out.flush();
            if (!mavenAskedForDetail()) {
                // Everything Maven prints after a failed step is about Maven, not the learner's code: exec's
                // SystemExitException with its stack, the reactor summary, "re-run with -e / -X", "-rf :chNN".
                // Maven logs through System.out read at every line (.mvn/jvm.config turns slf4j-simple's
                // cacheOutputStream off), so from here on its lines go nowhere and the verdict stays the last
                // screen. Maven still exits 1 (the build did fail).
                System.setOut(new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8));
            }
            System.exit(1);
        }
    }

    /** -e, -X (and their long names) ask Maven for its own report: then it is left as it is. */
    static boolean mavenAskedForDetail() {
        for (String arg : System.getProperty("sun.java.command", "").split(" ")) {
            if (arg.equals("-e") || arg.equals("-X") || arg.equals("--errors") || arg.equals("--debug")) {
                return true;
            }
        }
        return false;
    }

    private static Instant modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toInstant();
        } catch (java.io.IOException e) {
            return Instant.EPOCH;
        }
    }
}
