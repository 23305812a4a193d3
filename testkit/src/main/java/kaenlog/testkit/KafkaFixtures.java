package kaenlog.testkit;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/**
 * What a test needs to run Kafka's own storage or coordinator classes in its JVM as an oracle: Kafka's
 * clock, set by the test, and a scheduler that runs nothing, so that no background flush, expiry or
 * deletion decides anything.
 *
 * <p>kafka-clients (for {@code Time}) is a provided dependency of testkit, and the only one: every
 * chapter's tests have it already (chapter 10 at 3.9.1, whose {@code Time} has the same methods), and a
 * learner's first build of chapter 1 downloads nothing more for testkit. That is why the scheduler is a
 * proxy of the interface the test names rather than a class implementing kafka-server-common's.
 */
public final class KafkaFixtures {
    private KafkaFixtures() {
    }

    /** Kafka's clock, moved only by the test ({@link #set}) or by Kafka's own {@code sleep}: no wall clock. */
    public static final class ManualTime implements Time {
        private long ms;

        public ManualTime(long ms) {
            this.ms = ms;
        }

        public void set(long ms) {
            this.ms = ms;
        }

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000;
        }

        @Override
        public void sleep(long sleepMs) {
            ms += sleepMs;
        }

        @Override
        public void waitObject(Object lock, Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException("Kafka's oracle never waits in a test");
        }
    }

    /**
     * Kafka's {@code org.apache.kafka.server.util.Scheduler} (pass {@code Scheduler.class}) that runs
     * nothing: no background flush, producer expiry, checkpoint or file deletion. Every task scheduled
     * is handed back cancelled, before it ran; startup, shutdown and resizing do nothing.
     */
    public static <S> S schedulerThatRunsNothing(Class<S> scheduler) {
        return scheduler.cast(Proxy.newProxyInstance(scheduler.getClassLoader(), new Class<?>[] {scheduler},
                (proxy, method, args) -> runNothing(proxy, scheduler, method, args)));
    }

    private static Object runNothing(Object proxy, Class<?> scheduler, Method method, Object[] args) {
        if (method.getReturnType() == void.class) {
            return null;
        }
        if (method.getReturnType() == ScheduledFuture.class) {
            return new NotRun();
        }
        return switch (method.getName()) {
            case "toString" -> "a " + scheduler.getSimpleName() + " that runs nothing";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> throw new UnsupportedOperationException("a scheduler that runs nothing has no " + method.getName());
        };
    }

    /** What the scheduler hands back: a task cancelled before it ran. */
    private static final class NotRun implements ScheduledFuture<Object> {
        @Override
        public long getDelay(TimeUnit unit) {
            return Long.MAX_VALUE;
        }

        @Override
        public int compareTo(Delayed other) {
            return 0;
        }

        @Override
        public boolean cancel(boolean interrupt) {
            return true;
        }

        @Override
        public boolean isCancelled() {
            return true;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}
