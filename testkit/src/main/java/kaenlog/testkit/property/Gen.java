package kaenlog.testkit.property;

import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Makes a value from {@link Choices}. Generators compose: {@link #map}, {@link #flatMap},
 * {@link #filter}, {@link #zip}; the common ones are in {@link Gens}.
 */
@FunctionalInterface
public interface Gen<T> {
    T generate(Choices choices);

    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return c -> f.apply(generate(c));
    }

    default <R> Gen<R> flatMap(Function<? super T, Gen<R>> f) {
        return c -> f.apply(generate(c)).generate(c);
    }

    /** Values that satisfy {@code keep}; a generation that finds none in 100 attempts is abandoned. */
    default Gen<T> filter(Predicate<? super T> keep) {
        return c -> {
            for (int attempt = 0; attempt < 100; attempt++) {
                T value = generate(c);
                if (keep.test(value)) {
                    return value;
                }
            }
            throw new Choices.Overrun();
        };
    }

    default <U, R> Gen<R> zip(Gen<U> other, BiFunction<? super T, ? super U, ? extends R> f) {
        return c -> {
            T first = generate(c);
            return f.apply(first, other.generate(c));
        };
    }
}
