package kaenlog.testkit;

import java.util.function.IntFunction;

/** Byte dumps for assertion messages: a learner sees where their bytes differ, not just that they do. */
public final class Hex {
    private Hex() {
    }

    /** Rows of 16 bytes: {@code 0000  00 00 00 00 ...}. */
    public static String dump(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (int row = 0; row < bytes.length; row += 16) {
            s.append(String.format("  %04d ", row));
            for (int i = row; i < Math.min(row + 16, bytes.length); i++) {
                s.append(String.format(" %02x", bytes[i]));
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * Where two byte arrays first differ, with the name of the field there (e.g. "crc") and both
     * dumps; null when they are equal.
     */
    public static String firstDifference(byte[] expected, byte[] actual, IntFunction<String> fieldAt) {
        int n = Math.min(expected.length, actual.length);
        for (int i = 0; i < n; i++) {
            if (expected[i] != actual[i]) {
                return String.format("first difference at byte %d (%s): expected 0x%02x but was 0x%02x%n"
                        + "expected:%n%sactual:%n%s", i, fieldAt.apply(i), expected[i], actual[i],
                        dump(expected), dump(actual));
            }
        }
        if (expected.length != actual.length) {
            return String.format("expected %d bytes but was %d (the first %d agree)%nexpected:%n%sactual:%n%s",
                    expected.length, actual.length, n, dump(expected), dump(actual));
        }
        return null;
    }
}
