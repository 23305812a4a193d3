package kaenlog.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import kaenlog.workbook.Todo;

/**
 * What failed in a cluster member's threads (its reactions, its fetchers), kept for whoever drives
 * the members and waits on them (the demo, the tests): a wait that rethrows it fails at once, naming
 * the cause, instead of running out of time. A learner's TODO comes first (the other failures may be
 * its consequences); an I/O error is a failover's weather (a leader gone, a refusal), never thrown.
 */
public final class ThreadFailures implements Consumer<Throwable> {
    private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void accept(Throwable failure) {
        failures.add(failure);
    }

    /** Throws the first failure kept that is not an I/O error, a TODO before any other. */
    public void rethrowFirst() {
        synchronized (failures) {
            for (Throwable failure : failures) {
                if (failure instanceof Todo todo) {
                    throw todo;
                }
            }
            for (Throwable failure : failures) {
                if (failure instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (failure instanceof Error error) {
                    throw error;
                }
                if (!(failure instanceof IOException)) {
                    throw new IllegalStateException(failure);
                }
            }
        }
    }
}
