package kaenlog.testkit.loop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * The task table of {@code mvn -PchNN test}: registered for every JUnit Platform run through
 * META-INF/services, active only where the chapter profiles set {@code workbook.tasks=true} (not
 * under {@code -Psolutions}, whose output CI reads). It writes the table to
 * target/workbook-tasks.txt; {@link TaskReport} prints it after surefire's summary. Its first lines
 * say which earlier chapters of the learner's fail their own tests ({@link EarlierChapters}).
 * {@code -Dverbose} puts every failure in full into it.
 */
public final class TaskTableListener implements TestExecutionListener {
    private final boolean active = Boolean.getBoolean("workbook.tasks");
    private final TaskTable table = new TaskTable();

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (active) {
            table.executionFinished(id, result);
        }
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        if (active) {
            table.executionSkipped(id, reason);
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (!active || table.outcomes().isEmpty()) {
            return;
        }
        Path root = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
        String chapter = Tasks.chapterOfTestClass(root, table.outcomes().get(0).testClass());
        if (chapter == null) {
            return;
        }
        boolean verbose = Boolean.parseBoolean(System.getProperty("workbook.verbose", "false"));
        int n = TaskTable.number(chapter);
        EarlierChapters.Advice advice = EarlierChapters.Advice.maven(n);
        List<String> earlier = EarlierChapters.lines(n, EarlierChapters.fromClasspath(root, chapter,
                TaskTableListener.class.getClassLoader()), advice);
        String text = table.render(chapter, Tasks.of(root, chapter), Set.of(), verbose, learnerClasses(root, chapter), earlier,
                advice.useReference());
        try {
            Path file = tableFile(root.resolve(chapter));
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.out.println(text);
        }
    }

    /** Where the table waits for {@link TaskReport} to print it after surefire's summary. */
    static Path tableFile(Path module) {
        return module.resolve("target/workbook-tasks.txt");
    }

    /** Classes whose source is in the learner's tree: this chapter and the earlier ones (the loop is cumulative). */
    static Predicate<String> learnerClasses(Path root, String chapter) {
        List<Path> sources = new ArrayList<>();
        for (String module : chaptersUpTo(root, chapter)) {
            sources.add(root.resolve(module).resolve("src/main/java"));
        }
        return className -> {
            String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
            String file = outer.replace('.', '/') + ".java";
            return sources.stream().anyMatch(dir -> Files.exists(dir.resolve(file)));
        };
    }

    static List<String> chaptersUpTo(Path root, String chapter) {
        try (var modules = Files.list(root)) {
            return modules.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("ch\\d\\d-.*") && n.compareTo(chapter) <= 0).sorted().toList();
        } catch (java.io.IOException e) {
            return List.of(chapter);
        }
    }
}
