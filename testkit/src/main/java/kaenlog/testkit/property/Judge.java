package kaenlog.testkit.property;

import java.util.Objects;
import org.opentest4j.AssertionFailedError;

/**
 * Kafka as the judge: the learner's answer and Kafka's, side by side, with the rule in the guide's
 * words. For example: {@code for the varint of -64 your bytes are c0 ff ff ff 0f, Kafka's
 * ByteUtils.writeVarint writes 7f: zig-zag first, so that small negative numbers take one byte}.
 */
public final class Judge {
    private Judge() {
    }

    /**
     * Fails unless {@code yours} equals {@code kafkas} (arrays by content).
     *
     * @param input  what was asked, as the guide would say it ("the varint of -64")
     * @param what   what is compared ("bytes", "last offset")
     * @param oracle Kafka's class and method, and its verb ("ByteUtils.writeVarint writes")
     * @param rule   the rule, in the guide's words
     */
    public static void agree(String input, String what, Object yours, String oracle, Object kafkas, String rule) {
        if (!Objects.deepEquals(yours, kafkas)) {
            throw new AssertionFailedError(disagreement(input, what, yours, oracle, kafkas, rule), kafkas, yours);
        }
    }

    /**
     * {@link #agree(String, String, Object, String, Object, String)} with your answer still to compute:
     * an exception your code throws is told as your answer ("a refusal (BufferOverflowException)")
     * beside Kafka's and the rule, never as a bare stack trace. A workbook TODO passes through as it is.
     */
    public static void agree(String input, String what, ThrowingSupplier<?> yours, String oracle, Object kafkas,
                             String rule) {
        Outcome mine = Outcome.of(yours);
        if (kafkas instanceof Outcome theirs) {
            agree(input, what, mine, oracle, theirs, rule);
        } else {
            agree(input, what, mine.refused() ? mine : mine.value(), oracle, kafkas, rule);
        }
    }

    /** The sentence a disagreement is told in. */
    public static String disagreement(String input, String what, Object yours, String oracle, Object kafkas, String rule) {
        return "for " + input + " your " + what + " " + (plural(what) ? "are " : "is ") + Property.show(yours) + ", Kafka's "
                + oracle + " " + Property.show(kafkas) + ": " + rule;
    }

    private static boolean plural(String what) {
        return what.endsWith("s") && !what.endsWith("ss");
    }

    /**
     * What a piece of code did with an input: its value, or the kind of refusal it threw. Kafka
     * and the learner agree when both return equal values or both refuse (the exception types
     * differ between the two code bases; that both refuse is the rule).
     */
    public record Outcome(Object value, Throwable refusal) {
        public static Outcome of(ThrowingSupplier<?> code) {
            try {
                return new Outcome(code.get(), null);
            } catch (Exception e) {
                if (Property.isTodo(e)) {
                    throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
                }
                return new Outcome(null, e);
            }
        }

        public boolean refused() {
            return refusal != null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Outcome other && (refused() ? other.refused()
                    : !other.refused() && Objects.deepEquals(value, other.value));
        }

        @Override
        public int hashCode() {
            return refused() ? 1 : Objects.hashCode(value);
        }

        @Override
        public String toString() {
            return refused() ? "a refusal (" + refusal.getClass().getSimpleName() + ": " + refusal.getMessage() + ")"
                    : Property.show(value);
        }
    }

    @FunctionalInterface
    public interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
