package kaenlog.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for Kafka's znodes (given code): objects, arrays, strings, integers, booleans
 * and null. Kafka writes its znodes with Jackson ({@code kafka.utils.Json}); what matters to every
 * reader is the keys and the types of their values, not the order of the keys, so a writer here
 * keeps the order it is given ({@link LinkedHashMap}) and a reader looks keys up by name.
 *
 * <p>A znode's bytes are read like a request: anyone with access to ZooKeeper can write them. Every
 * way they can be wrong is a {@link ZNodeFormatException} naming what was wrong, never another
 * exception: nesting is bounded ({@value #MAX_DEPTH} levels, where a megabyte of brackets would
 * overflow the stack), a number outside the type asked for is refused, and the text quoted in a
 * message is cut and escaped (it goes to the broker's log).
 */
public final class Json {
    /** Kafka's znodes nest three levels at most; a parse deeper than this is refused. */
    public static final int MAX_DEPTH = 32;
    /** How much of a znode's text a message quotes. */
    private static final int QUOTED_CHARS = 120;

    private final String text;
    private int at;
    private int depth;

    private Json(String text) {
        this.text = text;
    }

    /** Writes a value: a {@code Map<String, ?>}, a {@code List<?>}, a String, a Number, a Boolean or null. */
    public static byte[] write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A map that keeps its keys in the order they are put, for {@link #write}. */
    public static Map<String, Object> object() {
        return new LinkedHashMap<>();
    }

    /** Parses JSON: objects are {@code Map<String, Object>}, arrays {@code List<Object>}, integers Long. */
    public static Object parse(byte[] bytes) {
        Json json = new Json(new String(bytes, StandardCharsets.UTF_8));
        Object value = json.value();
        json.space();
        if (json.at != json.text.length()) {
            throw json.error("text after the value");
        }
        return value;
    }

    /** Parses a JSON object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(byte[] bytes) {
        Object value = parse(bytes);
        if (!(value instanceof Map)) {
            throw new ZNodeFormatException("not a JSON object: " + quote(new String(bytes, StandardCharsets.UTF_8)));
        }
        return (Map<String, Object>) value;
    }

    /** The int under {@code key}: present and a number, or an exception naming the key. */
    public static int intField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof Long n) || n != n.intValue()) {
            throw new ZNodeFormatException("\"" + key + "\" is not a 32-bit number: " + quote(String.valueOf(value)));
        }
        return n.intValue();
    }

    /** The string under {@code key}, or an exception naming the key. */
    public static String stringField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof String s)) {
            throw new ZNodeFormatException("\"" + key + "\" is not a string: " + quote(String.valueOf(value)));
        }
        return s;
    }

    /** The list of ints under {@code key} (a JSON array of numbers). */
    public static List<Integer> intList(Object array, String what) {
        if (!(array instanceof List<?> list)) {
            throw new ZNodeFormatException(what + " is not an array: " + quote(String.valueOf(array)));
        }
        List<Integer> ints = new ArrayList<>();
        for (Object element : list) {
            if (!(element instanceof Long n) || n != n.intValue()) {
                throw new ZNodeFormatException(what + " holds something that is not a 32-bit number: "
                        + quote(String.valueOf(array)));
            }
            ints.add(n.intValue());
        }
        return List.copyOf(ints);
    }

    /** The list of strings in {@code array} (a JSON array of strings), or an exception naming {@code what}. */
    public static List<String> stringList(Object array, String what) {
        if (!(array instanceof List<?> list)) {
            throw new ZNodeFormatException(what + " is not an array: " + quote(String.valueOf(array)));
        }
        List<String> strings = new ArrayList<>();
        for (Object element : list) {
            if (!(element instanceof String s)) {
                throw new ZNodeFormatException(what + " holds something that is not a string: "
                        + quote(String.valueOf(array)));
            }
            strings.add(s);
        }
        return List.copyOf(strings);
    }

    /**
     * {@code text} as a message may quote it: at most {@value #QUOTED_CHARS} characters, every
     * control character (a newline, an ESC) and every character outside ASCII written as a
     * backslash-u escape (four hex digits), so that a forged znode cannot forge a line of the broker's
     * log.
     */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder("'");
        int end = Math.min(text.length(), QUOTED_CHARS);
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '\'') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('\'');
        if (text.length() > end) {
            out.append(" (").append(text.length()).append(" characters in all)");
        }
        return out.toString();
    }

    /** The JSON object under {@code key}. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> objectField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof Map)) {
            throw new ZNodeFormatException("\"" + key + "\" is not an object: " + quote(String.valueOf(value)));
        }
        return (Map<String, Object>) value;
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            writeString(s, out);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(String.valueOf(e.getKey()), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(list.get(i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no JSON for " + value.getClass().getName());
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("a value expected");
        }
        char c = text.charAt(at);
        if (c == '{') {
            return objectValue();
        } else if (c == '[') {
            return array();
        } else if (c == '"') {
            return string();
        } else if (text.startsWith("null", at)) {
            at += 4;
            return null;
        } else if (text.startsWith("true", at)) {
            at += 4;
            return Boolean.TRUE;
        } else if (text.startsWith("false", at)) {
            at += 5;
            return Boolean.FALSE;
        }
        return number();
    }

    private Map<String, Object> objectValue() {
        enter();
        at++;
        Map<String, Object> map = new LinkedHashMap<>();
        space();
        if (peek('}')) {
            at++;
            depth--;
            return map;
        }
        while (true) {
            space();
            String key = string();
            space();
            expect(':');
            map.put(key, value());
            space();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                depth--;
                return map;
            }
        }
    }

    private List<Object> array() {
        enter();
        at++;
        List<Object> list = new ArrayList<>();
        space();
        if (peek(']')) {
            at++;
            depth--;
            return list;
        }
        while (true) {
            list.add(value());
            space();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                depth--;
                return list;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder s = new StringBuilder();
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return s.toString();
            }
            if (c == '\\') {
                if (at >= text.length()) {
                    break;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> s.append('\n');
                    case 'r' -> s.append('\r');
                    case 't' -> s.append('\t');
                    case 'b' -> s.append('\b');
                    case 'f' -> s.append('\f');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("a cut \\u escape");
                        }
                        s.append((char) hex(text.substring(at, at + 4)));
                        at += 4;
                    }
                    default -> s.append(e);
                }
            } else {
                s.append(c);
            }
        }
        throw error("a string without its closing quote");
    }

    private Long number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (start == at || (at == start + 1 && text.charAt(start) == '-')) {
            throw error("a value expected");
        }
        if (at - start > 19) {
            throw error("a number of " + (at - start) + " characters");
        }
        try {
            return Long.parseLong(text.substring(start, at));
        } catch (NumberFormatException e) {
            throw error("a number outside 64 bits");
        }
    }

    private int hex(String digits) {
        try {
            return Integer.parseInt(digits, 16);
        } catch (NumberFormatException e) {
            throw error("a \\u escape that is not four hex digits");
        }
    }

    /** One level deeper into an object or an array: refused past {@value #MAX_DEPTH}. */
    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("more than " + MAX_DEPTH + " levels of nesting");
        }
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "' expected");
        }
        at++;
    }

    private ZNodeFormatException error(String what) {
        return new ZNodeFormatException("bad JSON at " + at + ": " + what + " in " + quote(text));
    }
}
