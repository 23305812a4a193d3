package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One thread that runs events one at a time, in the order they came (given code; Kafka's
 * {@code ControllerEventManager}, whose single {@code controller-event-thread} takes the events its
 * ZooKeeper handlers put on a queue). It is the watcher of every znode its owner watches: a watch
 * that fires puts its {@link ZNodeChange} on the queue, never runs it on ZooKeeper's own event
 * thread, which must not wait on anything.
 *
 * <p>An event reads only what it is about, so one that fails must not be lost: a lost connection
 * (ZooKeeper moves the session to another server of the ensemble) runs it again after a pause, as
 * Kafka's ZooKeeper client retries until connected; an expired session waits for the member to join
 * again, which reads everything anew; any other ZooKeeper error reads everything again at once (the
 * owner's {@code resync}), setting every watch again.
 */
final class EventQueue implements Watcher {
    /** One event's work, on the queue's thread. */
    @FunctionalInterface
    interface Event {
        void run() throws KeeperException, InterruptedException, IOException;
    }

    /** How long a connection lost to ZooKeeper is given before the event runs again. */
    static final long RETRY_MS = 200;

    private final ExecutorService thread;
    private final String owner;
    private final PrintStream log;
    private final BiConsumer<String, Throwable> failed;
    private final Function<ZNodeChange, Event> onChange;
    private final Event resync;
    private volatile boolean closed;

    /**
     * @param owner    who runs the events, for the log ("the controller", "broker 2's metadata")
     * @param failed   hears of what failed that is no ZooKeeper weather (a bug, a learner's TODO)
     * @param onChange the event the owner makes of each change a watch reports
     * @param resync   reads everything again, every watch set again
     */
    EventQueue(String threadName, String owner, PrintStream log, BiConsumer<String, Throwable> failed,
               Function<ZNodeChange, Event> onChange, Event resync) {
        this.owner = owner;
        this.log = log;
        this.failed = failed;
        this.onChange = onChange;
        this.resync = resync;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** A queue that watches nothing: its owner only puts events on it. */
    EventQueue(String threadName, String owner, PrintStream log, BiConsumer<String, Throwable> failed) {
        this(threadName, owner, log, failed, change -> () -> { }, () -> { });
    }

    @Override
    public void process(WatchedEvent event) {
        ZNodeChange.of(event).ifPresent(change -> put(onChange.apply(change)));
    }

    /** Runs {@code event} after every event put before it; nothing once the queue is closed. */
    void put(Event event) {
        execute(() -> run(event, true));
    }

    private void run(Event event, boolean first) {
        if (closed) {
            return;
        }
        try {
            event.run();
        } catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException lost) {
            if (first) {
                log.println("cluster: " + owner + ": " + lost.getMessage() + " (again in " + RETRY_MS + " ms)");
            }
            pause();
            execute(() -> run(event, false));
        } catch (KeeperException.SessionExpiredException expired) {
            log.println("cluster: " + owner + ": " + expired.getMessage() + " (read again once joined again)");
        } catch (KeeperException e) {
            log.println("cluster: " + owner + ": " + e.getMessage() + " (everything read again)");
            execute(() -> run(resync, false));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            failed.accept(owner, e);
        }
        log.flush();
    }

    private void pause() {
        try {
            Thread.sleep(RETRY_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void execute(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException closing) {
            // closed: no more events
        }
    }

    /**
     * Lets the event running now finish, then stops, waiting at most {@code waitMs}. Not by an
     * interrupt first: one would close a log's FileChannel under the event running now.
     */
    void close(long waitMs) {
        closed = true;
        thread.shutdown();
        try {
            if (!thread.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
