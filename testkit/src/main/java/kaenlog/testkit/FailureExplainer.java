package kaenlog.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * An extension that rewrites a failure into one that says more, wherever it happens: in a test or
 * in any of its lifecycle methods (JUnit has a handler for each). {@link EarlierChapterFailures}
 * and {@link Timeouts} only say how.
 */
interface FailureExplainer extends TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {
    /** The failure to report instead of {@code failure} (itself when there is nothing to add). */
    Throwable explain(ExtensionContext context, Throwable failure);

    @Override
    default void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explain(context, failure);
    }

    @Override
    default void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explain(context, failure);
    }

    @Override
    default void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explain(context, failure);
    }

    @Override
    default void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explain(context, failure);
    }

    @Override
    default void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw explain(context, failure);
    }
}
