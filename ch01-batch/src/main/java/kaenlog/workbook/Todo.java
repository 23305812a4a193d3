package kaenlog.workbook;

/**
 * Thrown by every exercise body of a skeleton until the learner writes it.
 *
 * <p>The message names the chapter, the task and the test class that checks it, e.g.
 * {@code TODO ch01 task 3: the 61-byte batch header (BatchHeaderTest)}, so a red test tells the
 * learner exactly where to go next. The workbook's gates look for "TODO chNN" in failures.
 */
public final class Todo extends UnsupportedOperationException {
    public Todo(String task) {
        super("TODO " + task);
    }
}
