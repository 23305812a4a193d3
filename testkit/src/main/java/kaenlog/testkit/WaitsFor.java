package kaenlog.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a test waits for (a reply from the broker, a parked fetch, a follower's round) and which
 * task's rule usually makes it wait for ever, for the line {@link Timeouts} prints when the test
 * runs out of time, e.g.
 * {@code @WaitsFor("the broker's reply to a produce request; a frame written without a flush (task 9)")}.
 * On a test method or its class; the method's wins.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface WaitsFor {
    String value();
}
