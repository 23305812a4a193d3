package kaenlog.kafkawire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.Wire;
import kaenlog.workbook.Todo;

/**
 * Reads Kafka's protocol types from a request's bytes. Every length comes from the other side of a
 * socket, so each is checked against what is left before anything is allocated; what does not fit
 * is a {@link MalformedMessageException} naming the field and the byte.
 *
 * <p>Two families of the same types: the classic ones (int16 string lengths, int32 array counts)
 * and, from a request's first flexible version on (KIP-482), the compact ones, whose lengths are
 * unsigned varints holding length + 1 (0 = null), followed by tagged fields at the end of every
 * structure.
 */
public final class KafkaReader {
    /** Kafka's fixed-width types are kaen-log's (chapter 3): its reader does those and the bounds checks. */
    private final Wire.Reader in;

    public KafkaReader(ByteBuffer bytes) {
        this.in = new Wire.Reader(bytes);
    }

    public KafkaReader(byte[] bytes) {
        this(ByteBuffer.wrap(bytes));
    }

    public byte int8(String field) {
        return in.int8(field);
    }

    public boolean bool(String field) {
        return int8(field) != 0;
    }

    public short int16(String field) {
        return in.int16(field);
    }

    public int int32(String field) {
        return in.int32(field);
    }

    public long int64(String field) {
        return in.int64(field);
    }

    /**
     * An unsigned varint: seven bits per byte, least significant group first, the high bit set on
     * every byte but the last. An int fits in five bytes; a sixth is an error, not a wrap-around.
     */
    public int unsignedVarint(String field) {
        throw new Todo("ch09 task 1: read an unsigned varint, at most five bytes (UnsignedVarintTest)");
    }

    /** A classic string: int16 length, then UTF-8; -1 is null. */
    public String nullableString(String field) {
        int length = int16(field + " length");
        if (length == -1) {
            return null;
        }
        return utf8(length, field);
    }

    public String string(String field) {
        String s = nullableString(field);
        if (s == null) {
            throw new MalformedMessageException(field + ": null where a string is required");
        }
        return s;
    }

    /** A compact string: unsigned varint length + 1, then UTF-8; 0 is null. */
    public String compactNullableString(String field) {
        throw new Todo("ch09 task 2: compact strings carry length + 1, 0 is null (CompactFieldsTest)");
    }

    public String compactString(String field) {
        String s = compactNullableString(field);
        if (s == null) {
            throw new MalformedMessageException(field + ": null where a compact string is required");
        }
        return s;
    }

    /** A classic array's element count: int32, -1 is null (returned as -1). */
    public int arrayLength(String field) {
        int count = int32(field + " count");
        if (count < -1) {
            throw new MalformedMessageException(field + ": negative array count " + count);
        }
        checkCount(count, field);
        return count;
    }

    /**
     * A classic array that may not be null: its count, and -1 refused (Kafka's generated readers refuse it too:
     * "non-nullable field ... was serialized as null").
     */
    public int requiredArrayLength(String field) {
        int count = arrayLength(field);
        if (count == -1) {
            throw new MalformedMessageException(field + ": null (count -1) where the request requires an array");
        }
        return count;
    }

    /** A compact array's element count: unsigned varint count + 1; 0 is null (returned as -1). */
    public int compactArrayLength(String field) {
        throw new Todo("ch09 task 2: compact arrays carry count + 1, 0 is null (CompactFieldsTest)");
    }

    /** Classic nullable bytes (a partition's records): int32 length, -1 is null. A view, not a copy. */
    public ByteBuffer nullableBytes(String field) {
        return in.bytes(field);
    }

    /**
     * Skips the tagged fields that end a flexible structure: a count, then per field a tag and a
     * size (unsigned varints) and that many bytes. A field this broker does not know is skipped by
     * its size: that is what lets a newer client add fields without a new version.
     */
    public void skipTaggedFields(String structure) {
        throw new Todo("ch09 task 2: skip tagged fields by their sizes (CompactFieldsTest)");
    }

    /** Nothing may follow the last field. */
    public void end(String message) {
        if (remaining() > 0) {
            throw new MalformedMessageException(message + ": " + remaining() + " unexpected byte(s) at byte "
                    + position());
        }
    }

    public int position() {
        return in.position();
    }

    public int remaining() {
        return in.remaining();
    }

    private String utf8(int length, String field) {
        return StandardCharsets.UTF_8.decode(in.view(length, field)).toString();
    }

    /** Every element takes at least one byte: a count above what is left is a lie, refused before any list grows. */
    private void checkCount(int count, String field) {
        if (count > remaining()) {
            throw new MalformedMessageException(field + ": " + count + " element(s) announced but only "
                    + remaining() + " byte(s) left at byte " + position());
        }
    }
}
