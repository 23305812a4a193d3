package kaenlog.broker;

/**
 * What a client sent, made fit for one line of the broker's log. A client id, a topic name, the
 * text of a parse error: any of it may hold a newline (a second, forged log line), an escape
 * sequence for the operator's terminal, or 30 KB of padding sent 2,000 times. So every string that
 * came off the wire reaches a log line through here: control characters (C0, DEL, C1, the Unicode
 * line and paragraph separators, bidirectional overrides) are shown as {@code \n}, {@code \r},
 * {@code \t} or {@code \u0001}, a backslash as {@code \\}, and the text is cut to a bounded length
 * with the count of what was left off. Lines a client can cause at will also go through a
 * {@link RateLimitedLog}: escaping bounds one line, the rate limit bounds how many.
 */
public final class LogText {
    /** At most this many characters of a client's string are shown (a Kafka client id is typically under 100). */
    public static final int MAX_QUOTED_CHARS = 120;
    /** At most this many characters of a whole reason (a parse error naming what it read) are shown. */
    public static final int MAX_LINE_CHARS = 500;

    private LogText() {
    }

    /** {@code 'text'} escaped and cut to {@link #MAX_QUOTED_CHARS}; {@code null} for null (Kafka's null client id). */
    public static String quote(String text) {
        if (text == null) {
            return "null";
        }
        return "'" + escape(text, MAX_QUOTED_CHARS).replace("'", "\\'") + "'";
    }

    /** A whole line's worth of text that may hold a client's strings, escaped and cut to {@link #MAX_LINE_CHARS}. */
    public static String clean(String text) {
        return text == null ? "null" : escape(text, MAX_LINE_CHARS);
    }

    private static String escape(String text, int maxChars) {
        int shown = Math.min(text.length(), maxChars);
        if (shown < text.length() && Character.isHighSurrogate(text.charAt(shown - 1))) {
            shown--; // never half a character
        }
        StringBuilder out = new StringBuilder(shown + 16);
        for (int i = 0; i < shown; i++) {
            appendEscaped(out, text.charAt(i));
        }
        if (shown < text.length()) {
            out.append("...(").append(text.length() - shown).append(" more chars)");
        }
        return out.toString();
    }

    private static void appendEscaped(StringBuilder out, char c) {
        switch (c) {
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            case '\\' -> out.append("\\\\");
            default -> {
                if (isUnsafe(c)) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
    }

    /** Characters that move the cursor, end a line or reorder what a terminal shows. */
    static boolean isUnsafe(char c) {
        return Character.isISOControl(c) // C0, DEL, C1 (0x85 is a line break to some readers)
                || c == '\u2028' || c == '\u2029' // line and paragraph separators
                || Character.getType(c) == Character.FORMAT; // bidi overrides (U+202E), zero-width characters
    }
}
