package kaenlog.reliability;

import java.util.function.BooleanSupplier;

/**
 * A wall-clock bound on a wait. This module drives real processes and sockets, so unlike chapter
 * code it needs real time, but only for this: every loop that waits for another thread or process
 * is bounded by a deadline and fails loudly when it passes. No time is ever printed.
 */
public final class Deadline {
    private final long endNanos;

    private Deadline(long endNanos) {
        this.endNanos = endNanos;
    }

    public static Deadline in(long ms) {
        return new Deadline(System.nanoTime() + ms * 1_000_000L);
    }

    public boolean passed() {
        return System.nanoTime() - endNanos >= 0;
    }

    public long remainingMs() {
        return Math.max(0, (endNanos - System.nanoTime()) / 1_000_000L);
    }

    /** Polls {@code condition} every few milliseconds; true when it held before the deadline. */
    public boolean await(BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            if (passed()) {
                return false;
            }
            pause(2);
        }
        return true;
    }

    public static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
