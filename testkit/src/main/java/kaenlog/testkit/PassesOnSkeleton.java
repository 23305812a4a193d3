package kaenlog.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Declares a test that passes on the generated skeleton on purpose (it checks the workbook, not an
 * exercise: the clock ban, the guide's excerpts). The red-on-skeleton gate requires every other
 * test to fail on the skeleton because of a TODO; these few are excluded by their tag and counted.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(PassesOnSkeleton.TAG)
public @interface PassesOnSkeleton {
    String TAG = "passes-on-skeleton";

    /** Why it does not depend on any exercise. */
    String value();
}
