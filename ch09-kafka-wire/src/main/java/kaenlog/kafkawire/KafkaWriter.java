package kaenlog.kafkawire;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import kaenlog.workbook.Todo;

/** Writes Kafka's protocol types, classic and compact ({@link KafkaReader} reads them back). */
public final class KafkaWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public KafkaWriter int8(int v) {
        out.write(v);
        return this;
    }

    public KafkaWriter bool(boolean v) {
        return int8(v ? 1 : 0);
    }

    public KafkaWriter int16(int v) {
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    public KafkaWriter int32(int v) {
        return int16(v >>> 16).int16(v);
    }

    public KafkaWriter int64(long v) {
        return int32((int) (v >>> 32)).int32((int) v);
    }

    /** Seven bits per byte, least significant first, the high bit on every byte but the last. */
    public KafkaWriter unsignedVarint(int v) {
        throw new Todo("ch09 task 1: write an unsigned varint (UnsignedVarintTest)");
    }

    public KafkaWriter nullableString(String s) {
        if (s == null) {
            return int16(-1);
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("a string of " + utf8.length + " bytes does not fit an int16 length");
        }
        int16(utf8.length);
        out.writeBytes(utf8);
        return this;
    }

    public KafkaWriter compactNullableString(String s) {
        throw new Todo("ch09 task 2: write a compact string: length + 1, 0 for null (CompactFieldsTest)");
    }

    public KafkaWriter arrayLength(int count) {
        return int32(count);
    }

    public KafkaWriter compactArrayLength(int count) {
        throw new Todo("ch09 task 2: write a compact array's count + 1 (CompactFieldsTest)");
    }

    /** Classic nullable bytes: int32 length (-1 for null), then the bytes. */
    public KafkaWriter nullableBytes(ByteBuffer bytes) {
        if (bytes == null) {
            return int32(-1);
        }
        int32(bytes.remaining());
        byte[] copy = new byte[bytes.remaining()];
        bytes.duplicate().get(copy);
        out.writeBytes(copy);
        return this;
    }

    /** The end of a flexible structure when this broker has no tagged field to send: a count of 0. */
    public KafkaWriter noTaggedFields() {
        return unsignedVarint(0);
    }

    public int size() {
        return out.size();
    }

    public byte[] toByteArray() {
        return out.toByteArray();
    }
}
