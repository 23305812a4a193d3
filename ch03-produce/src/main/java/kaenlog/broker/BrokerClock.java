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

    /** The longest pause after failed ticks in a row. */
    static final long MAX_BACKOFF_MS = 1000;
    /** At most one line about failed ticks per this many ms of the ticker's pauses. */
    static final long TROUBLE_INTERVAL_MS = 10_000;

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

    /**
     * Ticks until closed. A failed tick (no file descriptor left for the checkpoint, say) never ends
     * the ticker: parked fetches, idle connections and the time itself depend on it. It is logged, at
     * most once per {@link #TROUBLE_INTERVAL_MS} of real pauses, and the ticker pauses longer each time
     * in a row (up to {@link #MAX_BACKOFF_MS}), then goes on.
     */
    private void tickLoop(long tickMs, Ticks ticks, PrintStream log, BooleanSupplier closed) {
        RateLimitedLog troubles = new RateLimitedLog(log, TROUBLE_INTERVAL_MS);
        long backoffMs = 0;
        long pausedMs = 0;
        try {
            while (!closed.getAsBoolean()) {
                Thread.sleep(tickMs + backoffMs);
                pausedMs += tickMs + backoffMs;
                try {
                    ticks.tick();
                    checkpoint(false);
                    backoffMs = 0;
                } catch (IOException | RuntimeException e) {
                    if (closed.getAsBoolean()) {
                        return;
                    }
                    backoffMs = backoffMs == 0 ? tickMs : Math.min(MAX_BACKOFF_MS, 2 * backoffMs);
                    troubles.println("tick", "ticker: a tick failed, retrying (backing off, at most " + MAX_BACKOFF_MS
                            + " ms): " + e.getClass().getSimpleName() + ": " + e.getMessage(), pausedMs);
                }
            }
        } catch (InterruptedException stop) {
            // stopTicker() interrupts the ticker
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
