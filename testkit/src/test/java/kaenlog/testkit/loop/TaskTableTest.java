package kaenlog.testkit.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TaskTableTest {
    private static final List<Tasks.Task> TASKS = List.of(task(1, "judge a batch", "JudgeTest"),
            task(2, "judge first, then write", "AppendTest"), task(3, "rebuild the state", "RebuildTest"));

    private static Tasks.Task task(int number, String what, String testClass) {
        return new Tasks.Task("ch07", number, testClass, List.of(new Tasks.Block("ch07", number, what, testClass,
                java.nio.file.Path.of("X.java"), 1)));
    }

    private static Throwable todo(String chapterAndTask) {
        return new IllegalStateException("TODO " + chapterAndTask + ": something (SomeTest)");
    }

    private static TaskTable table(Throwable append, Throwable rebuild) {
        TaskTable table = new TaskTable();
        table.record(new TaskTable.Outcome("JudgeTest", "a()", null, false));
        table.record(new TaskTable.Outcome("AppendTest", "b()", append, false));
        table.record(new TaskTable.Outcome("RebuildTest", "c()", rebuild, false));
        return table;
    }

    @Test
    void aTaskWhoseTestsReachAnEarlierChaptersTodoIsBlockedByThatChapterNeverNotStarted() {
        TaskTable table = table(todo("ch03 task 1"), todo("ch07 task 3"));

        assertThat(table.stateOf("AppendTest", Set.of(), 7)).as("its failure is chapter 3's TODO").isEqualTo(TaskTable.State.BLOCKED);
        assertThat(table.stateOf("RebuildTest", Set.of(), 7)).as("its own TODO").isEqualTo(TaskTable.State.NOT_STARTED);
        String screen = table.render("ch07-idem", TASKS, Set.of(), false, c -> false, List.of(), n -> "use -Dreference.ch0" + n);
        assertThat(screen).as("the row and the line under the table name chapter 3 and the flag")
                .contains("task 2  blocked by chapter 3", "task 3  not started", "use -Dreference.ch03")
                .doesNotContain("task 2  not started");
    }

    @Test
    void aStackThroughAnEarlierChaptersCodeBlocksTheTaskToo() {
        Throwable line = new AssertionError("this fails in your chapter 1 code, kaenlog.batch.RecordBatch.decode (ch01-batch): ...",
                new IllegalStateException("crc"));

        TaskTable table = table(line, null);

        assertThat(table.stateOf("AppendTest", Set.of(), 3)).isEqualTo(TaskTable.State.BLOCKED);
        assertThat(table.render("ch03-produce", TASKS, Set.of(), false, c -> false, List.of(), n -> "x"))
                .contains("task 2  blocked by chapter 1");
    }

    @Test
    void aFailureOfTheChaptersOwnCodeIsFailingEvenBesideABlockedTest() {
        TaskTable table = table(todo("ch03 task 1"), null);
        table.record(new TaskTable.Outcome("AppendTest", "d()", new AssertionError("expected 3 but was 4"), false));

        assertThat(table.stateOf("AppendTest", Set.of(), 7)).isEqualTo(TaskTable.State.FAILING);
    }

    @Test
    void theEarlierChaptersLinesComeFirst() {
        String screen = table(null, null).render("ch07-idem", TASKS, Set.of(), false, c -> false,
                List.of("your chapter 1 fails its own tests"), n -> "x");

        assertThat(screen.lines().findFirst()).hasValue("your chapter 1 fails its own tests");
    }
}
