package kaenlog.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * The broker's time. No clock is read here: a ticker thread sleeps {@code tickMs} and moves the time
 * forward ({@link Ticks}: by {@code tickMs}, or to what the clock {@code klog serve} passed in
 * says), and a test with {@code tickMs} 0 moves it itself. The time never goes back, not even across
 * a restart: it starts at the last one written to the data directory ({@link TimeCheckpoint}),
 * which is rewritten at most once a second of broker time, and at close.
 */
final class BrokerClock {
    /** One move of the broker's time, and what the broker does at it. */
    @FunctionalInterface
    interface Ticks {
        void tick() throws IOException;
    }

    private final Path dataDir;
    private volatile long nowMs;
    private long checkpointedMs;
    private Thread ticker;

    private BrokerClock(Path dataDir, long startMs) {
        this.dataDir = dataDir;
        this.nowMs = startMs;
        this.checkpointedMs = startMs;
    }

    /** Starts at {@code startNowMs}, or later: not below its last time before a restart. */
    static BrokerClock start(Path dataDir, long startNowMs) throws IOException {
        return new BrokerClock(dataDir, Math.max(startNowMs, TimeCheckpoint.read(dataDir)));
    }

    long nowMs() {
        return nowMs;
    }

    /** Moves the time forward by {@code ms} and returns the new time. */
    synchronized long advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("time only moves forward, not by " + ms + " ms");
        }
        nowMs += ms;
        return nowMs;
    }

    /**
     * Starts the ticker: every {@code tickMs}, one tick, then the checkpoint if a second has passed;
     * until {@code closed}, after which a failed tick is not worth a line.
     */
    void startTicker(String threadName, long tickMs, Ticks ticks, PrintStream log, BooleanSupplier closed) {
        ticker = new Thread(() -> tickLoop(tickMs, ticks, log, closed), threadName);
        ticker.setDaemon(true);
        ticker.start();
    }

    private void tickLoop(long tickMs, Ticks ticks, PrintStream log, BooleanSupplier closed) {
        try {
            while (!closed.getAsBoolean()) {
                Thread.sleep(tickMs);
                ticks.tick();
                checkpoint(false);
            }
        } catch (InterruptedException stop) {
            // stopTicker() interrupts the ticker
        } catch (IOException | RuntimeException e) {
            if (!closed.getAsBoolean()) {
                log.println("ticker stopped: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    /** Stops the ticker and waits for it. */
    void stopTicker() {
        if (ticker != null) {
            ticker.interrupt();
            SocketServer.joinUninterruptibly(ticker);
        }
    }

    /** Writes the time to the data directory at most once a second of broker time, or {@code always}. */
    synchronized void checkpoint(boolean always) throws IOException {
        long now = nowMs;
        if (always || now - checkpointedMs >= 1000) {
            TimeCheckpoint.write(dataDir, now);
            checkpointedMs = now;
        }
    }
}
