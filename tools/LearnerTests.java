import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A chapter's tests on the learner's code, as {@code mvn -PchNN test} runs them (the earlier
 * chapters the learner's or the reference's, as {@link StatusCache} chose), read back from
 * surefire's reports as the chapter's {@link Progress}. Maven's output goes to build/workbook/chNN.log.
 */
final class LearnerTests {
    private LearnerTests() {
    }

    /** Runs the chapter's tests on the learner's code, these earlier chapters on the reference. */
    static Progress.ChapterProgress measure(String chapter, List<String> referenceEarlier) throws Exception {
        String earlier = StatusCache.describeEarlier(chapter, referenceEarlier);
        System.err.println("workbook: testing " + chapter + (earlier.equals("-") ? "" : " (earlier chapters: " + earlier
                + ")") + " ...");
        List<Reports.Outcome> outcomes = run(chapter, referenceEarlier);
        return Progress.of(chapter, Markers.tasksOrStop(Workbook.ROOT, chapter), outcomes,
                outcomes == null ? firstCompileError(chapter) : null, Progress.editedTests(Workbook.ROOT, chapter));
    }

    /** Every test outcome of the chapter on the learner's code, or null when the build failed before the tests ran. */
    static List<Reports.Outcome> run(String chapter, List<String> referenceEarlier) throws Exception {
        Path reports = Reports.dir(Workbook.ROOT, chapter);
        Workbook.deleteTree(reports);
        Files.createDirectories(StatusCache.DIR);
        Process mvn = new ProcessBuilder(mavenTest(chapter, referenceEarlier)).directory(Workbook.ROOT.toFile())
                .redirectErrorStream(true).redirectOutput(log(chapter).toFile()).start();
        if (mvn.waitFor() != 0 || !Files.isDirectory(reports)) {
            return null;
        }
        return Reports.outcomes(reports);
    }

    /** mvn -PchNN test, failures kept to the reports, with -Dreference.chMM for each earlier chapter on the reference. */
    private static List<String> mavenTest(String chapter, List<String> referenceEarlier) {
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-P" + chapter.substring(0, 4), "test",
                "-Dmaven.test.failure.ignore=true"));
        for (String earlier : referenceEarlier) {
            command.add("-Dreference." + earlier.substring(0, 4));
        }
        return command;
    }

    private static Path log(String chapter) {
        return StatusCache.DIR.resolve(chapter + ".log");
    }

    /** The file and line of Maven's first compile error, or where its log is. */
    static String firstCompileError(String chapter) throws java.io.IOException {
        for (String line : Files.readAllLines(log(chapter), StandardCharsets.UTF_8)) {
            if (line.startsWith("[ERROR]") && line.contains(".java:[")) {
                return line.substring(line.lastIndexOf('/') + 1).strip();
            }
        }
        return "see " + Workbook.ROOT.relativize(log(chapter));
    }
}
