package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kaenlog.wire.Frames;

/**
 * Every wait of chapter 3's broker tests has an end: a wrong body must fail a test, never hang the
 * build. A failure says what was awaited and which task's rule usually causes it, because a test
 * that waits sees only the symptom (no answer), never the line of code behind it.
 */
final class Waits {
    /** How long a test waits for another thread or the other end of a socket. */
    static final int SECONDS = 10;

    /** Why an answer over a socket never comes, most often. */
    static final String NO_FLUSH = "a frame written without a flush (task 6) is the usual cause: the request or its"
            + " answer stays in a BufferedOutputStream and never reaches the other side";

    /** Why a parked fetch is not answered at its deadline, most often. */
    static final String NOT_EXPIRED = "a parked fetch is answered once the broker's time reaches its deadline"
            + " (deadline <= now, task 8); compared with < it waits one tick more, and in these tests time moves only"
            + " when the test moves it";

    private Waits() {
    }

    /**
     * Runs {@code call} on a daemon thread and waits at most {@link #SECONDS} for it, for calls that
     * have no timeout of their own (klog produce and consume read their socket without one). A call
     * that does not end is left blocked until the test closes the broker, which closes its socket.
     */
    static <T> T within(String waitingFor, String usualCause, Callable<T> call) throws Exception {
        FutureTask<T> task = new FutureTask<>(call);
        Thread thread = new Thread(task, "test call: " + waitingFor);
        thread.setDaemon(true);
        thread.start();
        return get(task, waitingFor, usualCause);
    }

    /** {@code future.get} for at most {@link #SECONDS}; its failure names what was awaited and why it usually is not. */
    static <T> T get(Future<T> future, String waitingFor, String usualCause) throws Exception {
        try {
            return future.get(SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new AssertionError("no end within " + SECONDS + " s waiting for " + waitingFor + ": " + usualCause, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * The value of a future that must be complete already: a {@link Partition} completes its
     * futures on the caller's thread, under its lock, so one that is not done now never will be
     * (time only moves when a test calls tick). Never {@code join()} on one: that would wait forever.
     */
    static <T> T now(CompletableFuture<T> future, String description, Object... args) {
        assertThat(future).as(description, args).isDone();
        return future.join();
    }

    /**
     * Fails at once when {@link Frames#writeFrame} leaves its frame in a buffered stream: every test
     * over a socket would otherwise wait for its read timeout, one after the other.
     */
    static void requireFramesFlushed() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        Frames.writeFrame(new BufferedOutputStream(wire), new byte[] {1});
        assertThat(wire.size())
                .as("Frames.writeFrame must flush its stream: over a socket (a BufferedOutputStream, in the broker and"
                        + " in the client) an unflushed frame is never sent, and this test would wait %d s for an"
                        + " answer that cannot come; %s", SECONDS, NO_FLUSH)
                .isEqualTo(5);
    }
}
