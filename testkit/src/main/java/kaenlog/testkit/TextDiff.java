package kaenlog.testkit;

/** The first line where two texts differ, both lines shown, a caret under the first differing character. */
public final class TextDiff {
    private TextDiff() {
    }

    /** Null when equal. */
    public static String firstDifference(String expected, String actual) {
        if (expected.equals(actual)) {
            return null;
        }
        String[] e = expected.split("\n", -1);
        String[] a = actual.split("\n", -1);
        for (int i = 0; i < Math.max(e.length, a.length); i++) {
            String want = i < e.length ? e[i] : "<no more lines>";
            String got = i < a.length ? a[i] : "<no more lines>";
            if (!want.equals(got)) {
                int col = 0;
                while (col < Math.min(want.length(), got.length()) && want.charAt(col) == got.charAt(col)) {
                    col++;
                }
                return "first difference at line " + (i + 1) + ", column " + (col + 1) + ":\n"
                        + "  expected: " + want + "\n"
                        + "  actual:   " + got + "\n"
                        + "            " + " ".repeat(col) + "^";
            }
        }
        return "the texts differ only in line endings";
    }
}
