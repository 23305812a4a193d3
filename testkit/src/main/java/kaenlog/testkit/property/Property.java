package kaenlog.testkit.property;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import kaenlog.testkit.EarlierChapterFailures;
import kaenlog.testkit.Hex;
import org.opentest4j.AssertionFailedError;

/**
 * A property: a check that must hold for every input a generator makes. It tries {@link #tries}
 * inputs from a fixed seed (the same inputs on every run: a red test stays red until the code
 * changes), and when one fails it shrinks it to the smallest input that still fails the same way,
 * then fails with that input and the check's own message (which says what the learner answered,
 * what Kafka answers, and the rule).
 *
 * <pre>
 * Property.forAll(Gens.ints()).check(value -&gt; Judge.agree(...));
 * </pre>
 *
 * <p>A workbook TODO is never shrunk: it fails the property at once, unchanged, so the task table and
 * the gate see the task it names. {@code -Dkaenlog.property.tries=N} runs every property with N
 * tries, {@code -Dkaenlog.property.seed=S} with another seed (to look further; the failure names
 * the seed that found it).
 */
public final class Property<T> {
    /** The default seed: the same inputs every run, on every machine. */
    public static final long SEED = 0x6B61656E6C6F67L; // "kaenlog"
    static final int DEFAULT_TRIES = 200;
    /** Replays of the failing input allowed while shrinking: bounds its time, deterministically. */
    static final int SHRINK_BUDGET = 5_000;

    private final Gen<T> gen;
    private int tries = DEFAULT_TRIES;
    private int shrinkBudget = SHRINK_BUDGET;
    private long seed = SEED;
    private Function<? super T, String> show = Property::show;

    private Property(Gen<T> gen) {
        this.gen = gen;
    }

    public static <T> Property<T> forAll(Gen<T> gen) {
        return new Property<>(gen);
    }

    /** How many inputs to try (a property of a cheap rule: hundreds; of a broker: tens). */
    public Property<T> tries(int tries) {
        this.tries = tries;
        return this;
    }

    public Property<T> seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * How many replays of a failing input shrinking may spend (default {@value #SHRINK_BUDGET}): a
     * property whose every input opens files (a broker's logs, say) replays for tens of
     * milliseconds each and takes fewer, so that a learner's red run does not wait minutes.
     */
    public Property<T> shrinkBudget(int replays) {
        if (replays < 0) {
            throw new IllegalArgumentException("shrinkBudget must be >= 0, got " + replays);
        }
        this.shrinkBudget = replays;
        return this;
    }

    /** How an input is written in a failure (default: hex for bytes, toString otherwise). */
    public Property<T> show(Function<? super T, String> show) {
        this.show = show;
        return this;
    }

    /** What the property checks of one input; throws (an AssertionError, usually) when it does not hold. */
    @FunctionalInterface
    public interface Check<T> {
        void check(T input) throws Exception;
    }

    public void check(Check<? super T> check) {
        int n = Integer.getInteger("kaenlog.property.tries", tries);
        long s = Long.getLong("kaenlog.property.seed", seed);
        SplittableRandom random = new SplittableRandom(s);
        int discarded = 0;
        for (int attempt = 1; attempt <= n; attempt++) {
            Choices choices = Choices.random(random.split());
            T input;
            try {
                input = gen.generate(choices);
            } catch (Choices.Overrun overrun) {
                if (++discarded > n * 5) {
                    throw new AssertionFailedError("the generator of this property gave up on " + discarded
                            + " inputs (a filter too strict?): a test that tries nothing proves nothing");
                }
                attempt--;
                continue;
            }
            Throwable failure = run(check, input);
            if (failure != null) {
                throw report(check, choices, input, failure, attempt, n, s);
            }
        }
    }

    private static <T> Throwable run(Check<? super T> check, T input) {
        try {
            check.check(input);
            return null;
        } catch (Throwable t) {
            if (isTodo(t) || t instanceof EarlierChapterFailures.EarlierChapterFailure) {
                // a skeleton's TODO, or an earlier chapter's rule answering wrong, is not a disagreement of
                // this chapter's code: it names the task to do, or the chapter to fix first, unshrunk
                throw sneaky(t);
            }
            if (t instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            return t;
        }
    }

    static boolean isTodo(Throwable t) {
        return t instanceof UnsupportedOperationException && t.getMessage() != null && t.getMessage().startsWith("TODO ch");
    }

    private AssertionFailedError report(Check<? super T> check, Choices choices, T input, Throwable failure,
                                        int attempt, int n, long s) {
        Shrunk<T> smallest = shrink(check, choices, input, failure);
        String message = String.valueOf(smallest.failure().getMessage()).strip();
        String why = smallest.failure() instanceof AssertionError ? "" : smallest.failure().getClass().getName() + ": ";
        return new AssertionFailedError(why + message + "\n  the smallest input found: "
                + show.apply(smallest.input()) + "\n  (input " + attempt + " of " + n + " failed, seed " + s
                + "; shrunk in " + smallest.steps() + " steps; -Dkaenlog.property.seed=N tries other inputs)",
                smallest.failure());
    }

    record Shrunk<T>(T input, Throwable failure, int steps) {
    }

    /**
     * Deletes and lowers draws while the input they make still fails with the same kind of
     * throwable: shorter sequences first, then smaller draws, each step strictly smaller (so it
     * ends), within {@link #shrinkBudget} runs of the check (a candidate that makes no smaller
     * input, or draws already tried, costs none).
     */
    private Shrunk<T> shrink(Check<? super T> check, Choices choices, T input, Throwable failure) {
        Shrinking<T> s = new Shrinking<>(choices.drawn(), choices.spans(), input, failure, shrinkBudget);
        while (s.budget > 0 && Candidates.offer(s.draws, s.spans, candidate -> s.budget > 0
                && tryCandidate(check, s, candidate))) {
            s.steps++;
        }
        return new Shrunk<>(s.input, s.failure, s.steps);
    }

    /** The smallest failing input so far. */
    private static final class Shrinking<T> {
        long[] draws;
        List<Choices.Span> spans;
        T input;
        Throwable failure;
        int steps;
        int budget;
        /** Draw sequences whose input was checked and passed (or failed otherwise): never checked twice. */
        final Set<List<Long>> tried = new HashSet<>();

        Shrinking(long[] draws, List<Choices.Span> spans, T input, Throwable failure, int budget) {
            this.draws = draws;
            this.spans = spans;
            this.input = input;
            this.failure = failure;
            this.budget = budget;
        }
    }

    private boolean tryCandidate(Check<? super T> check, Shrinking<T> s, long[] candidate) {
        Choices replay = Choices.replay(candidate);
        T value;
        try {
            value = gen.generate(replay);
        } catch (RuntimeException notAnInput) {
            // A draw moved by shrinking that this generator cannot take (an overrun, a draw its own code
            // refuses): not a smaller input, and never the failure to report.
            return false;
        }
        long[] used = replay.drawn();
        if (!Candidates.smaller(used, s.draws) || !s.tried.add(Arrays.stream(used).boxed().toList())) {
            return false;
        }
        s.budget--;
        Throwable t = run(check, value);
        if (t == null || t.getClass() != s.failure.getClass()) {
            return false;
        }
        s.draws = used;
        s.spans = replay.spans();
        s.input = value;
        s.failure = t;
        return true;
    }

    /** An input as a failure shows it: bytes in hex, collections and arrays element by element. */
    public static String show(Object value) {
        if (value instanceof byte[] bytes) {
            if (bytes.length == 0) {
                return "(no bytes)";
            }
            if (bytes.length <= 32) {
                StringBuilder hex = new StringBuilder();
                for (byte b : bytes) {
                    hex.append(hex.length() == 0 ? "" : " ").append(String.format("%02x", b));
                }
                return hex.toString();
            }
            return bytes.length + " bytes:\n" + Hex.dump(bytes);
        }
        if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return show(bytes);
        }
        if (value instanceof String s) {
            return "\"" + s.codePoints().mapToObj(cp -> cp >= 0x20 && cp < 0x7f ? Character.toString(cp)
                    : String.format("\\u{%x}", cp)).collect(Collectors.joining()) + "\"";
        }
        if (value instanceof Collection<?> c) {
            return c.stream().map(Property::show).collect(Collectors.joining(", ", "[", "]"));
        }
        if (value instanceof Object[] array) {
            return show(Arrays.asList(array));
        }
        if (value instanceof int[] ints) {
            return Arrays.toString(ints);
        }
        if (value instanceof long[] longs) {
            return Arrays.toString(longs);
        }
        return String.valueOf(value);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
