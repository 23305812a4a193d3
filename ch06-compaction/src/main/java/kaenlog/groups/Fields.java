package kaenlog.groups;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The field types of the offsets log's keys and values, as Kafka's non-flexible message versions
 * write them: int16, int32, int64 big-endian, and a string as an int16 length then UTF-8 bytes.
 * Reading checks every length against what is left, so untrusted bytes give a
 * {@link CorruptOffsetRecordException}, never an index exception.
 */
final class Fields {
    private Fields() {
    }

    static int sizeOf(String s) {
        return Short.BYTES + s.getBytes(StandardCharsets.UTF_8).length;
    }

    static void putString(ByteBuffer out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.putShort((short) bytes.length);
        out.put(bytes);
    }

    static String getString(ByteBuffer in, String field) {
        int at = in.position();
        need(in, Short.BYTES, field + " length");
        int length = in.getShort();
        if (length < 0) {
            throw new CorruptOffsetRecordException(field, at, "length " + length + " (a null string is not allowed)");
        }
        need(in, length, field);
        byte[] bytes = new byte[length];
        in.get(bytes);
        try {
            // Strict: bytes that are not UTF-8 are damage, not text to patch up with U+FFFD (each of which
            // takes three bytes and could push the string past what its int16 length can say).
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new CorruptOffsetRecordException(field, at, "not UTF-8");
        }
    }

    static short getShort(ByteBuffer in, String field) {
        need(in, Short.BYTES, field);
        return in.getShort();
    }

    static int getInt(ByteBuffer in, String field) {
        need(in, Integer.BYTES, field);
        return in.getInt();
    }

    static long getLong(ByteBuffer in, String field) {
        need(in, Long.BYTES, field);
        return in.getLong();
    }

    static void end(ByteBuffer in, String what) {
        if (in.hasRemaining()) {
            throw new CorruptOffsetRecordException(what, in.position(), in.remaining() + " byte(s) after the last field");
        }
    }

    private static void need(ByteBuffer in, int bytes, String field) {
        if (in.remaining() < bytes) {
            throw new CorruptOffsetRecordException(field, in.position(),
                    "needs " + bytes + " byte(s), " + in.remaining() + " left");
        }
    }

    static void checkLength(String s, String field) {
        if (s.getBytes(StandardCharsets.UTF_8).length > Short.MAX_VALUE) {
            throw new IllegalArgumentException(field + " is longer than " + Short.MAX_VALUE + " bytes");
        }
    }
}
