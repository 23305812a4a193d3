package kaenlog.testkit.property;

import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * The smaller draw sequences shrinking tries, most promising first, made one at a time (a long
 * sequence has many): list elements cut out whole, chunks cut out, runs set to zero, single draws
 * lowered.
 */
final class Candidates {
    private Candidates() {
    }

    /** Offers each candidate to {@code accept} until it returns true; true when one was accepted. */
    static boolean offer(long[] d, List<Choices.Span> spans, Predicate<long[]> accept) {
        return truncations(d, accept) || elementDeletions(d, spans, accept) || deletions(d, accept)
                || zeroings(d, accept) || lowerings(d, accept);
    }

    /**
     * One list element deleted whole, the last first: its span of draws cut out and, for a list
     * whose size was drawn first, that size draw lowered by one, so the elements after it keep
     * their values (a fixed chunk would cut an element in two and shift every later draw).
     */
    static boolean elementDeletions(long[] d, List<Choices.Span> spans, Predicate<long[]> accept) {
        for (int i = spans.size() - 1; i >= 0; i--) {
            Choices.Span span = spans.get(i);
            if (span.end() > d.length || span.size() >= 0 && d[span.size()] == 0) {
                continue;
            }
            long[] c = new long[d.length - (span.end() - span.start())];
            System.arraycopy(d, 0, c, 0, span.start());
            System.arraycopy(d, span.end(), c, span.start(), d.length - span.end());
            if (span.size() >= 0) {
                c[span.size()]--;
            }
            if (accept.test(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first eighth, quarter, half and three quarters of the draws, the rest missing (0: lists end,
     * the simplest choices): a long input (a batch of seventy records) loses its bulk in a few
     * replays instead of one chunk of eight at a time.
     */
    static boolean truncations(long[] d, Predicate<long[]> accept) {
        if (d.length < 16) {
            return false;
        }
        for (int eighths = 1; eighths < 8; eighths *= 2) {
            if (accept.test(Arrays.copyOf(d, d.length * eighths / 8))) {
                return true;
            }
        }
        return accept.test(Arrays.copyOf(d, d.length * 3 / 4));
    }

    /** Chunks of 8, 4, 2 and 1 draws cut out: shorter lists, fewer records, fewer steps. */
    static boolean deletions(long[] d, Predicate<long[]> accept) {
        for (int size = Math.min(8, d.length); size >= 1; size /= 2) {
            for (int at = d.length - size; at >= 0; at--) {
                long[] c = new long[d.length - size];
                System.arraycopy(d, 0, c, 0, at);
                System.arraycopy(d, at + size, c, at, d.length - at - size);
                if (accept.test(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Runs of draws set to 0, the simplest choice. */
    static boolean zeroings(long[] d, Predicate<long[]> accept) {
        for (int size = Math.min(8, d.length); size >= 1; size /= 2) {
            for (int at = 0; at + size <= d.length; at++) {
                boolean zero = true;
                for (int i = at; i < at + size; i++) {
                    zero &= d[i] == 0;
                }
                if (!zero) {
                    long[] c = d.clone();
                    Arrays.fill(c, at, at + size, 0);
                    if (accept.test(c)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * One draw made smaller (as unsigned numbers): halved, halved keeping its last bit (a zig-zag
     * draw keeps its sign), a quarter off, minus two, minus one.
     */
    static boolean lowerings(long[] d, Predicate<long[]> accept) {
        for (int i = 0; i < d.length; i++) {
            if (d[i] == 0) {
                continue;
            }
            long v = d[i];
            for (long lower : new long[] {v >>> 1, (v >>> 1) & ~1L | v & 1, v - (v >>> 2) - 1, v - 2, v - 1}) {
                if (Long.compareUnsigned(lower, v) < 0) {
                    long[] c = d.clone();
                    c[i] = lower;
                    if (accept.test(c)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Shorter is smaller; of two as long, the first to have a smaller draw. */
    static boolean smaller(long[] a, long[] b) {
        if (a.length != b.length) {
            return a.length < b.length;
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) {
                return Long.compareUnsigned(a[i], b[i]) < 0;
            }
        }
        return false;
    }
}
