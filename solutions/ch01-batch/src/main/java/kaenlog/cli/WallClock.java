package kaenlog.cli;

import java.util.function.LongSupplier;

/**
 * The one place kaen-log reads the wall clock: the edge where a person runs it ({@code klog serve},
 * {@code produce}, {@code consume}, ...), as a running Kafka stamps records and ages segments with
 * real time. Everything behind the edge takes time as a {@code nowMs} parameter, so chapter code and
 * demos stay deterministic; the clock-ban test allows exactly this class and no other.
 */
public final class WallClock {
    private WallClock() {
    }

    /** Milliseconds since the epoch, from the system clock. */
    public static long nowMs() {
        return System.currentTimeMillis();
    }

    /**
     * Where a command's time comes from: {@code --now-ms} pins it (demos, tests, reproducible
     * runs); without it every call reads the wall clock.
     */
    public static LongSupplier of(Flags flags) throws UsageException {
        if (flags.has("now-ms")) {
            long pinned = flags.nowMs(0);
            return () -> pinned;
        }
        return WallClock::nowMs;
    }
}
