package kaenlog.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Declares a test that may pass before its task is written, on purpose: it checks the workbook, not
 * an exercise (the clock ban, the guide's excerpts), or given code (flag parsing, a scenario's
 * starting state). The progressive gate (./workbook gate) requires every other test of task N to
 * fail on task N's TODO until task N is written; a test declared here may pass earlier, but it may
 * still fail only on a TODO, and passes once its task is done.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(PassesOnSkeleton.TAG)
public @interface PassesOnSkeleton {
    String TAG = "passes-on-skeleton";

    /** Why it does not depend on any exercise. */
    String value();
}
