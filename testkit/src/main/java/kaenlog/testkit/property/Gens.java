package kaenlog.testkit.property;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * The generators every chapter needs. Each one favours the edges where implementations go wrong
 * (0, -1, the largest and smallest values, a power of two and its neighbours, the empty list, text
 * outside ASCII) and still covers its whole range, and each one shrinks towards its simplest value.
 */
public final class Gens {
    private Gens() {
    }

    public static <T> Gen<T> constant(T value) {
        return c -> value;
    }

    public static Gen<Boolean> booleans() {
        return c -> c.below(2) == 1;
    }

    /** One of the values; the first is the simplest. */
    @SafeVarargs
    public static <T> Gen<T> elements(T... values) {
        List<T> list = List.of(values);
        return c -> list.get(c.belowInt(list.size()));
    }

    /** One of the generators; the first is the simplest. */
    @SafeVarargs
    public static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        List<Gen<? extends T>> list = List.of(gens);
        return c -> list.get(c.belowInt(list.size())).generate(c);
    }

    /** Ints in [min, max]. */
    public static Gen<Integer> ints(int min, int max) {
        return longs(min, max).map(Long::intValue);
    }

    /** Every int. */
    public static Gen<Integer> ints() {
        return ints(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** Every long. */
    public static Gen<Long> longs() {
        return longs(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Longs in [min, max]: a quarter near the origin (0, or the bound nearest it), an eighth the
     * range's ends and the limits of byte, short, int and long, an eighth the powers of two and their
     * neighbours, half anywhere in the range. However it was picked, the value is recorded as its
     * distance from the origin (zig-zag), so it shrinks towards the origin from any of them.
     */
    public static Gen<Long> longs(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        long origin = Math.max(min, Math.min(max, 0));
        List<Long> limits = inside(min, max, limits(min, max));
        List<Long> powers = inside(min, max, powersOfTwo());
        return c -> {
            long raw = c.picked(() -> {
                SplittableRandom r = c.random();
                long v = switch (r.nextInt(8)) {
                    case 0, 1 -> near(r, origin, min, max);
                    case 2 -> limits.get(r.nextInt(limits.size()));
                    case 3 -> powers.isEmpty() ? origin : powers.get(r.nextInt(powers.size()));
                    default -> anywhere(r, min, max);
                };
                return encode(v - origin, origin, min, max);
            });
            long offset = decode(raw, origin, min, max);
            long v = origin + offset;
            boolean inRange = offset >= 0 ? v >= origin && v <= max : v < origin && v >= min;
            return inRange ? v : origin; // a lowered draw that left the range is the simplest value
        };
    }

    /** A distance from the origin as a draw: plain when the range lies on one side of it, zig-zag when on both. */
    private static long encode(long offset, long origin, long min, long max) {
        if (origin == min) {
            return offset;
        }
        return origin == max ? -offset : (offset << 1) ^ (offset >> 63);
    }

    private static long decode(long raw, long origin, long min, long max) {
        if (origin == min) {
            return raw;
        }
        return origin == max ? -raw : (raw >>> 1) ^ -(raw & 1);
    }

    private static long near(SplittableRandom r, long origin, long min, long max) {
        long step = r.nextLong(64);
        long down = origin - step;
        long up = origin + step;
        if (r.nextBoolean() && down >= min && down <= origin) {
            return down;
        }
        return up <= max && up >= origin ? up : origin;
    }

    private static long anywhere(SplittableRandom r, long min, long max) {
        long span = max - min; // overflows when the range is more than half of all longs
        if (span >= 0 && span < Long.MAX_VALUE) {
            return min + r.nextLong(span + 1);
        }
        while (true) {
            long v = r.nextLong();
            if (v >= min && v <= max) {
                return v;
            }
        }
    }

    private static List<Long> limits(long min, long max) {
        return List.of(min, max, 0L, 1L, -1L, min + 1, max - 1, (long) Byte.MIN_VALUE, (long) Byte.MAX_VALUE,
                (long) Short.MIN_VALUE, (long) Short.MAX_VALUE, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE,
                Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** Built once: a generator is often built inside another's draw, once per value. */
    private static final List<Long> POWERS_OF_TWO = powersOfTwo();

    private static List<Long> powersOfTwo() {
        if (POWERS_OF_TWO != null) {
            return POWERS_OF_TWO;
        }
        List<Long> powers = new ArrayList<>();
        for (int bit = 0; bit < 63; bit++) {
            long p = 1L << bit;
            powers.addAll(List.of(p - 1, p, -p, -p - 1));
        }
        return List.copyOf(powers);
    }

    private static List<Long> inside(long min, long max, List<Long> values) {
        return values.stream().filter(v -> v >= min && v <= max).distinct().toList();
    }

    /** Lists of [min, max] elements, shorter ones more often; shrinks towards the shortest. */
    public static <T> Gen<List<T>> lists(Gen<T> element, int min, int max) {
        return c -> {
            List<T> list = new ArrayList<>();
            while (list.size() < min) {
                list.add(element.generate(c));
            }
            // Each further element is one "more?" draw: zeroed or deleted, the list ends there; its span
            // holds the "more?" draw too, so that deleting it leaves the next element's in its place.
            while (list.size() < max) {
                int start = c.mark();
                if (c.below(8) == 0) {
                    break;
                }
                list.add(element.generate(c));
                c.span(start, -1);
            }
            return list;
        };
    }

    /** Byte arrays of [min, max] bytes, each byte any of 256, edges often. */
    public static Gen<byte[]> bytes(int min, int max) {
        Gen<Integer> b = oneOf(ints(0, 255), elements(0x00, 0x01, 0x7f, 0x80, 0xff));
        return lists(b, min, max).map(list -> {
            byte[] out = new byte[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (int) list.get(i);
            }
            return out;
        });
    }

    /**
     * Unicode code points, valid in UTF-8 (no lone surrogates): ASCII, the two-, three- and
     * four-byte ranges, and the boundaries between them.
     */
    public static Gen<Integer> codePoints() {
        Gen<Integer> bmp = ints(0x80, 0xFFFD).filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE);
        return oneOf(ints(0x20, 0x7e), elements(0, 0x7f, 0x80, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x10ffff, 0x1f600),
                bmp, ints(0x10000, 0x10FFFF));
    }

    /** Strings of [min, max] code points over the whole of Unicode. */
    public static Gen<String> strings(int min, int max) {
        return lists(codePoints(), min, max).map(cps -> {
            StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
    }

    /** UTF-8 bytes of a string over the whole of Unicode. */
    public static Gen<byte[]> utf8(int minCodePoints, int maxCodePoints) {
        return strings(minCodePoints, maxCodePoints).map(s -> s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Bytes as they arrive damaged: {@code original} with a few of the faults a disk or a network
     * makes ({@link #faults()}). Undamaged is the simplest choice, so a failure shrinks towards the
     * original bytes and the fewest, simplest faults.
     */
    public static Gen<byte[]> damaged(byte[] original) {
        return faults().map(f -> f.apply(original));
    }

    /**
     * {@link #damaged(byte[])} with every changed, dropped or inserted byte inside {@code [from, to)}
     * (a cut may still shorten the end): to aim at the bytes a reader checks, not at what it hands on.
     */
    public static Gen<byte[]> damaged(byte[] original, int from, int to) {
        return faults().map(f -> f.apply(original, from, to));
    }

    /**
     * The faults of a disk or a network, drawn before the bytes they damage exist: a byte set to any
     * value or to an edge value, four bytes set to an edge int, a byte dropped, a byte inserted, the
     * end cut off. A generator that draws its faults first and its bulk (the records of a batch) after
     * them shrinks the bulk without moving the faults. None is the simplest choice.
     */
    public static Gen<Faults> faults() {
        return c -> {
            List<Fault> faults = new ArrayList<>();
            // Each further fault is one "more?" draw: zeroed or deleted, the damage ends there.
            while (faults.size() < MAX_FAULTS && c.below(3) != 0) {
                faults.add(new Fault(c.belowInt(6), c.below(1L << 32), c.below(1L << 32)));
            }
            return new Faults(List.copyOf(faults));
        };
    }

    /** Faults to apply to bytes: {@link #apply(byte[])} makes the damaged copy, the original untouched. */
    public record Faults(List<Fault> faults) {
        public boolean none() {
            return faults.isEmpty();
        }

        public byte[] apply(byte[] original) {
            return apply(original, 0, original.length);
        }

        /** The damaged copy, every fault but a cut inside {@code [from, to)}. */
        public byte[] apply(byte[] original, int from, int to) {
            if (from < 0 || from > to || to > original.length) {
                throw new IllegalArgumentException("range " + from + ".." + to + " of " + original.length + " bytes");
            }
            byte[] bytes = original.clone();
            for (Fault fault : faults) {
                bytes = fault.apply(bytes, from, Math.min(to, bytes.length));
            }
            return bytes;
        }
    }

    /** One fault: its kind, where (a draw taken modulo the bytes in range), and the value it writes. */
    public record Fault(int kind, long where, long value) {
        byte[] apply(byte[] bytes, int from, int to) {
            if (kind == 4 && bytes.length > 0) { // the end cut off
                return Arrays.copyOf(bytes, (int) (where % bytes.length));
            }
            int span = to - from;
            if (span <= 0) {
                return bytes;
            }
            int at = from + (int) (where % span);
            byte[] out = bytes.clone();
            switch (kind) {
                case 0 -> out[at] = (byte) value;
                case 1 -> out[at] = (byte) EDGE_BYTES[(int) (value % EDGE_BYTES.length)];
                case 2 -> {
                    int edge = EDGE_INTS[(int) (value % EDGE_INTS.length)];
                    for (int i = 0; i < 4 && at + i < to; i++) {
                        out[at + i] = (byte) (edge >>> (24 - 8 * i));
                    }
                }
                case 3 -> { // a byte dropped
                    out = new byte[bytes.length - 1];
                    System.arraycopy(bytes, 0, out, 0, at);
                    System.arraycopy(bytes, at + 1, out, at, bytes.length - at - 1);
                }
                default -> { // a byte inserted
                    out = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, out, 0, at);
                    out[at] = (byte) value;
                    System.arraycopy(bytes, at, out, at + 1, bytes.length - at);
                }
            }
            return out;
        }
    }

    private static final int MAX_FAULTS = 4;
    private static final int[] EDGE_BYTES = {0x00, 0x01, 0x7f, 0x80, 0xff};
    private static final int[] EDGE_INTS = {0, 1, -1, 2, 0x7f, 0x80, 0xff, Short.MAX_VALUE, Integer.MAX_VALUE,
        Integer.MIN_VALUE, Integer.MAX_VALUE - 1, 1 << 20};

    /** A value, or null one time in {@code oneIn} (null is the simpler choice only when drawn). */
    public static <T> Gen<T> nullOr(Gen<T> gen, int oneIn) {
        return c -> c.oneIn(oneIn) ? null : gen.generate(c);
    }

    /** A list of {@code size} elements, the size itself drawn from {@code sizes}. */
    public static <T> Gen<List<T>> listOf(Gen<Integer> sizes, IntFunction<Gen<T>> element) {
        return c -> {
            int before = c.mark();
            int n = sizes.generate(c);
            int size = c.mark() == before + 1 ? before : -1; // one draw made the size: it can be lowered
            List<T> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int start = c.mark();
                list.add(element.apply(i).generate(c));
                c.span(start, size);
            }
            return list;
        };
    }
}
