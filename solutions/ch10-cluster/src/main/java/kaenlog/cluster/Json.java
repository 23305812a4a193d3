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
 */
public final class Json {
    private final String text;
    private int at;

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
            throw new IllegalArgumentException("not a JSON object: " + new String(bytes, StandardCharsets.UTF_8));
        }
        return (Map<String, Object>) value;
    }

    /** The int under {@code key}: present and a number, or an exception naming the key. */
    public static int intField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof Long n)) {
            throw new IllegalArgumentException("\"" + key + "\" is not a number in " + object);
        }
        return Math.toIntExact(n);
    }

    /** The string under {@code key}, or an exception naming the key. */
    public static String stringField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof String s)) {
            throw new IllegalArgumentException("\"" + key + "\" is not a string in " + object);
        }
        return s;
    }

    /** The list of ints under {@code key} (a JSON array of numbers). */
    public static List<Integer> intList(Object array, String what) {
        if (!(array instanceof List<?> list)) {
            throw new IllegalArgumentException(what + " is not an array: " + array);
        }
        List<Integer> ints = new ArrayList<>();
        for (Object element : list) {
            if (!(element instanceof Long n)) {
                throw new IllegalArgumentException(what + " holds a non-number: " + array);
            }
            ints.add(Math.toIntExact(n));
        }
        return List.copyOf(ints);
    }

    /** The JSON object under {@code key}. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> objectField(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("\"" + key + "\" is not an object in " + object);
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
        at++;
        Map<String, Object> map = new LinkedHashMap<>();
        space();
        if (peek('}')) {
            at++;
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
                return map;
            }
        }
    }

    private List<Object> array() {
        at++;
        List<Object> list = new ArrayList<>();
        space();
        if (peek(']')) {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            space();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
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
                        s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
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
        return Long.parseLong(text.substring(start, at));
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

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at " + at + ": " + what + " in " + text);
    }
}
