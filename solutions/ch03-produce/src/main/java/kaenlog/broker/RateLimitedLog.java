package kaenlog.broker;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;

/**
 * One line per kind of trouble per interval of the broker's time, with the count of the lines it
 * held back: a failure that repeats as fast as a loop can run (accept at the fd limit, a thread that
 * cannot start, a request a client sends in a loop) must not fill the disk with its log. What a
 * client sent goes into the line through {@link LogText}.
 */
public final class RateLimitedLog {
    private final PrintStream out;
    private final long intervalMs;
    private final Map<String, long[]> lastAndHeld = new HashMap<>();

    public RateLimitedLog(PrintStream out, long intervalMs) {
        this.out = out;
        this.intervalMs = intervalMs;
    }

    /** Prints {@code line} unless a line of this {@code kind} was printed less than an interval ago. */
    public synchronized void println(String kind, String line, long nowMs) {
        long[] state = lastAndHeld.get(kind);
        if (state != null && nowMs - state[0] < intervalMs) {
            state[1]++;
            return;
        }
        String held = state == null || state[1] == 0 ? "" : " (" + state[1] + " more like it since the last line)";
        out.println(line + held);
        lastAndHeld.put(kind, new long[] {nowMs, 0});
    }
}
