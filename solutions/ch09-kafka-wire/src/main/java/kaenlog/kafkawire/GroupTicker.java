package kaenlog.kafkawire;

import java.io.PrintStream;
import kaenlog.broker.Broker;
import kaenlog.broker.LogText;
import kaenlog.broker.RateLimitedLog;
import kaenlog.broker.SocketServer;

/**
 * Moves the group coordinator along the broker's time: every {@code tickMs} of the broker's ticker
 * it hands {@link ClassicGroups#tick} the broker's {@code nowMs}, so that a member whose session
 * timeout passed is removed and a join phase whose deadline came ends even when no request arrives
 * (every member may be waiting for its JoinGroup answer). With {@code tickMs} 0 there is no thread:
 * a test moves the broker's time and calls {@code tick} itself. A later chapter's work rides along
 * ({@link KafkaApis#tickExtensions}: chapter 11's transaction timeouts), after the groups'. A tick that throws is logged (rate
 * limited) and the ticker goes on; an Error ends the thread, and {@code klog serve} with it.
 */
final class GroupTicker implements AutoCloseable {
    private final Thread thread;
    private volatile boolean closed;

    private GroupTicker(Broker broker, ClassicGroups groups, KafkaApis apis, PrintStream log) {
        long tickMs = broker.config().tickMs();
        if (tickMs <= 0) {
            thread = null;
            return;
        }
        RateLimitedLog troubles = new RateLimitedLog(log, SocketServer.TROUBLE_LOG_INTERVAL_MS);
        thread = new Thread(() -> {
            while (!closed) {
                try {
                    Thread.sleep(tickMs);
                    groups.tick(broker.nowMs());
                    apis.tickExtensions(broker.nowMs());
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException | java.io.IOException e) {
                    // a tick that failed is one line, and the next tick comes: a coordinator whose time
                    // stopped would never end a join phase nor expire a member again
                    troubles.println("group-ticker", "kafka: a tick of the group coordinator (or a later chapter's) failed: "
                            + LogText.clean(e.toString()), broker.nowMs());
                }
            }
        }, "klog-kafka-groups-" + broker.port());
        thread.setDaemon(true);
        thread.start();
    }

    static GroupTicker start(Broker broker, KafkaApis apis, PrintStream log) {
        return new GroupTicker(broker, apis.groups(), apis, log);
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
