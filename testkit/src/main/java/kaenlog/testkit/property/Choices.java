package kaenlog.testkit.property;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The choices a generator makes, one number at a time: drawn from a seeded random stream while a
 * property looks for a failure, replayed from a recorded sequence while it shrinks one.
 *
 * <p>Every generator builds its value from these draws alone, and draw 0 always means "the simplest
 * choice" (the shortest list, the first alternative, the number nearest zero). So shrinking needs
 * no knowledge of the values: it deletes draws and lowers them, and replays the generator on what
 * is left (a missing draw is 0). This is Hypothesis's idea of shrinking the choice sequence.
 *
 * <p>The draws of one list element are recorded as a {@link Span}, so that shrinking can delete an
 * element whole: chunks of a fixed size cut elements in two and mostly make inputs that pass.
 */
public final class Choices {
    /** A generation that ran past this many draws is abandoned (a runaway recursion, a huge list). */
    static final int MAX_DRAWS = 100_000;

    private final SplittableRandom random;
    private final long[] replay;
    private long[] drawn = new long[16];
    private int count;
    private final List<Span> spans = new ArrayList<>();

    private Choices(SplittableRandom random, long[] replay) {
        this.random = random;
        this.replay = replay;
    }

    static Choices random(SplittableRandom random) {
        return new Choices(random, null);
    }

    static Choices replay(long[] draws) {
        return new Choices(null, draws);
    }

    /** A number in {@code [0, bound)}; 0 is the simplest choice. */
    public long below(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        long value = replay == null ? random.nextLong(bound) : atMost(replayed(), bound - 1);
        return record(value);
    }

    /** An int in {@code [0, bound)}. */
    public int belowInt(int bound) {
        return (int) below(bound);
    }

    /** Any 64 bits, zig-zag ordered: small draws are small magnitudes of either sign. */
    public long bits() {
        long raw = replay == null ? random.nextLong() : replayed();
        record(raw);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /**
     * A value the generator picks itself while generating ({@code pick} may draw from
     * {@link #random()}), recorded as it is, and replayed as recorded: shrinking then lowers the
     * value itself, whichever way it was picked (an edge case, a uniform draw).
     */
    public long picked(java.util.function.LongSupplier pick) {
        return record(replay == null ? pick.getAsLong() : replayed());
    }

    /** The random stream behind {@link #picked}; absent while replaying. */
    SplittableRandom random() {
        return random;
    }

    /** True with about one chance in {@code oneIn}; false is the simpler choice. */
    public boolean oneIn(int oneIn) {
        return below(oneIn) == oneIn - 1;
    }

    /**
     * A replayed draw made to fit: shrinking moves draws about, so a draw recorded as any 64 bits (a
     * zig-zag distance, {@link #bits}) may be replayed where a bounded one is asked for; as unsigned it
     * is at least the bound, so the bound's largest value it is, never a negative one.
     */
    private static long atMost(long draw, long max) {
        return Long.compareUnsigned(draw, max) <= 0 ? draw : max;
    }

    private long replayed() {
        return count < replay.length ? replay[count] : 0;
    }

    private long record(long value) {
        if (count == MAX_DRAWS) {
            throw new Overrun();
        }
        if (count == drawn.length) {
            drawn = Arrays.copyOf(drawn, count * 2);
        }
        drawn[count++] = value;
        return value;
    }

    long[] drawn() {
        return Arrays.copyOf(drawn, count);
    }

    /** Where the next draw goes: the start of a span. */
    int mark() {
        return count;
    }

    /**
     * The draws from {@code start} to here made one element of a list; {@code size} is the draw that
     * said how many elements the list has (deleting the element lowers it by one), or -1 when the
     * list's end is a draw of its own, deleted with the element.
     */
    void span(int start, int size) {
        if (count > start) {
            spans.add(new Span(start, count, size));
        }
    }

    List<Span> spans() {
        return List.copyOf(spans);
    }

    /** The draws [start, end) of one element; {@code size}: the list's size draw, or -1. */
    record Span(int start, int end, int size) {
    }

    /** A generation that made too many choices, or one a filter could not satisfy: not a test. */
    static final class Overrun extends RuntimeException {
        Overrun() {
            super(null, null, false, false);
        }
    }
}
