package kaenlog.testkit;

import java.lang.reflect.AnnotatedElement;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Turns JUnit's timeout into a line that says what to look at. Every chapter test has a bound
 * (testkit's {@code junit-platform.properties}: {@code junit.jupiter.execution.timeout.default}, run
 * in a separate thread so that a test stuck on a socket read is left behind rather than waited
 * for), so a wrong body that never returns (a frame written without a flush, an expiry that never
 * comes) fails the test instead of hanging the run. JUnit's own failure only says
 * "timed out after 120 seconds"; this says what the test waits for, from {@link WaitsFor} when the
 * test or its class carries it, else where to read.
 *
 * <p>Registered for every test by {@code META-INF/services}, like {@link EarlierChapterFailures}.
 */
public final class Timeouts implements TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explained(context, failure);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explained(context, failure);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explained(context, failure);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explained(context, failure);
    }

    @Override
    public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explained(context, failure);
    }

    static Throwable explained(ExtensionContext context, Throwable failure) {
        if (!(failure instanceof TimeoutException) || !String.valueOf(failure.getMessage()).contains("timed out after")) {
            return failure;
        }
        Optional<String> waitsFor = waitsFor(context.getElement().orElse(null))
                .or(() -> context.getTestClass().flatMap(c -> waitsFor(c)));
        return new TimedOut(line(failure.getMessage(), waitsFor), failure);
    }

    private static Optional<String> waitsFor(AnnotatedElement element) {
        return element == null ? Optional.empty() : Optional.ofNullable(element.getAnnotation(WaitsFor.class)).map(WaitsFor::value);
    }

    /** "this test waits on ... and did not finish in 60 s: ..." from JUnit's "m() timed out after 60 seconds". */
    static String line(String junitMessage, Optional<String> waitsFor) {
        String bound = junitMessage.replaceAll("(?s).*timed out after (\\S+) (\\w+).*", "$1 $2")
                .replace(" seconds", " s").replace(" second", " s").replace(" milliseconds", " ms");
        return waitsFor.map(w -> "this test did not finish in " + bound + ": it waits for " + w)
                .orElse("this test waits on the broker or a thread and did not finish in " + bound
                        + ": something it waits for never happens (a reply, a flush, an expiry); see the task's guide")
                + " (" + junitMessage.strip() + ")";
    }

    /** The timeout, with the line in front; its stack is where the test was when its time ran out. */
    public static final class TimedOut extends AssertionError {
        private static final long serialVersionUID = 1L;

        TimedOut(String line, Throwable timeout) {
            super(line, timeout);
            setStackTrace(timeout.getStackTrace());
        }
    }
}
