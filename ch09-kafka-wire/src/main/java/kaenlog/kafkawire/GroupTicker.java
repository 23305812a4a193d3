package kaenlog.kafkawire;

import java.io.PrintStream;
import kaenlog.broker.Broker;

/**
 * Moves the group coordinator along the broker's time: every {@code tickMs} of the broker's ticker
 * it hands {@link ClassicGroups#tick} the broker's {@code nowMs}, so that a member whose session
 * timeout passed is removed and a join phase whose deadline came ends even when no request arrives
 * (every member may be waiting for its JoinGroup answer). With {@code tickMs} 0 there is no thread:
 * a test moves the broker's time and calls {@code tick} itself.
 */
final class GroupTicker implements AutoCloseable {
    private final Thread thread;
    private volatile boolean closed;

    private GroupTicker(Broker broker, ClassicGroups groups, PrintStream log) {
        long tickMs = broker.config().tickMs();
        if (tickMs <= 0) {
            thread = null;
            return;
        }
        thread = new Thread(() -> {
            try {
                while (!closed) {
                    Thread.sleep(tickMs);
                    groups.tick(broker.nowMs());
                }
            } catch (InterruptedException stop) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.println("kafka: the group ticker stopped: " + e);
            }
        }, "klog-kafka-groups-" + broker.port());
        thread.setDaemon(true);
        thread.start();
    }

    static GroupTicker start(Broker broker, ClassicGroups groups, PrintStream log) {
        return new GroupTicker(broker, groups, log);
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
