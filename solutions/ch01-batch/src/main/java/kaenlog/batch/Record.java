package kaenlog.batch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record of a batch, as a reader sees it: its absolute offset and timestamp, key, value and
 * headers. On disk a record stores only deltas from the batch header (offsetDelta,
 * timestampDelta), which is why a broker can move a whole batch to new offsets by rewriting one
 * header field.
 *
 * <p>Layout (Kafka's DefaultRecord): length varint · attributes int8 · timestampDelta varlong ·
 * offsetDelta varint · key length varint (-1 = null) · key · value length varint (-1 = null: a
 * tombstone) · value · header count varint · headers (key length varint, key UTF-8, value length
 * varint (-1 = null), value).
 */
public record Record(long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
    public Record {
        headers = List.copyOf(headers);
    }

    public static Record of(long offset, long timestamp, String key, String value) {
        return new Record(offset, timestamp, bytes(key), bytes(value), List.of());
    }

    /** A null value deletes the key under compaction (chapter 6). */
    public boolean isTombstone() {
        return value == null;
    }

    /** The bytes after the length prefix: what the length varint counts. */
    public static int bodySize(int offsetDelta, long timestampDelta, byte[] key, byte[] value,
                               List<RecordHeader> headers) {
        // BEGIN-SOLUTION ch01 task 2: size a record's body (RecordTest)
        int size = 1; // attributes: unused by v2 records, always 0
        size += Varint.sizeOfVarlong(timestampDelta);
        size += Varint.sizeOfVarint(offsetDelta);
        size += sizeOfBytes(key);
        size += sizeOfBytes(value);
        size += Varint.sizeOfVarint(headers.size());
        for (RecordHeader header : headers) {
            size += sizeOfBytes(header.key().getBytes(StandardCharsets.UTF_8));
            size += sizeOfBytes(header.value());
        }
        return size;
        // END-SOLUTION
    }

    /** The whole record on disk: the length varint plus the body. */
    public static int sizeInBytes(int offsetDelta, long timestampDelta, byte[] key, byte[] value,
                                  List<RecordHeader> headers) {
        int body = bodySize(offsetDelta, timestampDelta, key, value, headers);
        return Varint.sizeOfVarint(body) + body;
    }

    /** Writes this record relative to a batch's base offset and base timestamp. */
    public void writeTo(ByteBuffer out, long baseOffset, long baseTimestamp) {
        // BEGIN-SOLUTION ch01 task 2: write a record (RecordTest)
        int offsetDelta = Math.toIntExact(offset - baseOffset);
        long timestampDelta = timestamp - baseTimestamp;
        Varint.writeVarint(bodySize(offsetDelta, timestampDelta, key, value, headers), out);
        out.put((byte) 0);
        Varint.writeVarlong(timestampDelta, out);
        Varint.writeVarint(offsetDelta, out);
        writeBytes(key, out);
        writeBytes(value, out);
        Varint.writeVarint(headers.size(), out);
        for (RecordHeader header : headers) {
            writeBytes(header.key().getBytes(StandardCharsets.UTF_8), out);
            writeBytes(header.value(), out);
        }
        // END-SOLUTION
    }

    /**
     * Reads record number {@code index} at the buffer's position. The bytes are untrusted: every
     * length is checked against what the record's own length prefix allows before anything is
     * allocated, and a record whose fields do not use exactly its length is corrupt.
     */
    public static Record readFrom(ByteBuffer in, long baseOffset, long baseTimestamp, int index) {
        return read(in, baseOffset, baseTimestamp, index, true);
    }

    /**
     * {@link #readFrom} when {@code keep}. When not, the same checks, but the key, value and headers
     * stay in the batch, uncopied ({@link #SKIPPED}): a broker that only stores a batch needs no
     * copies to validate it (Kafka's LogValidator reads records as views of the request buffer).
     */
    static Record read(ByteBuffer in, long baseOffset, long baseTimestamp, int index, boolean keep) {
        try {
            return readFields(in, baseOffset, baseTimestamp, keep);
        } catch (CorruptBatchException bad) {
            // Only a bad record is named: a "record[" + index + "]" built for each good one was most of a
            // broker's produce time for small records.
            throw bad.within("record[" + index + "]");
        }
    }

    /**
     * {@link #read} without the record's number: every field is named relative to the record
     * ({@code "length"}, {@code "key"}, {@code "header[0].key"}) and {@link #read} adds which record.
     */
    private static Record readFields(ByteBuffer in, long baseOffset, long baseTimestamp, boolean keep) {
        // BEGIN-SOLUTION ch01 task 2: read a record from untrusted bytes (RecordTest)
        int start = in.position();
        int length = Varint.readVarint(in, "length");
        if (length < 0 || length > in.remaining()) {
            throw new CorruptBatchException("length", start,
                    "length " + length + " but " + in.remaining() + " byte(s) remain");
        }
        ByteBuffer body = in.slice(in.position(), length);
        int bodyStart = in.position();
        in.position(bodyStart + length);
        if (!body.hasRemaining()) {
            throw new CorruptBatchException("attributes", bodyStart, "record is empty");
        }
        body.get(); // attributes: unused in v2
        long timestampDelta = Varint.readVarlong(body, "timestampDelta");
        int offsetDelta = Varint.readVarint(body, "offsetDelta");
        byte[] key = readBytes(body, bodyStart, "key", keep);
        byte[] value = readBytes(body, bodyStart, "value", keep);
        int countAt = bodyStart + body.position();
        int headerCount = Varint.readVarint(body, "headerCount");
        if (headerCount < 0 || headerCount > body.remaining() / 2) {
            throw new CorruptBatchException("headerCount", countAt,
                    "header count " + headerCount + " cannot fit in " + body.remaining() + " byte(s)");
        }
        List<RecordHeader> headers = new ArrayList<>(headerCount);
        for (int h = 0; h < headerCount; h++) {
            int keyAt = bodyStart + body.position();
            byte[] headerKey = readHeaderBytes(body, bodyStart, h, "key", keep);
            if (headerKey == null) {
                throw new CorruptBatchException(header(h, "key"), keyAt, "header key is null");
            }
            byte[] headerValue = readHeaderBytes(body, bodyStart, h, "value", keep);
            if (keep) {
                headers.add(new RecordHeader(new String(headerKey, StandardCharsets.UTF_8), headerValue));
            }
        }
        if (body.hasRemaining()) {
            throw new CorruptBatchException("length", start,
                    "length " + length + " but the fields end " + body.remaining() + " byte(s) early");
        }
        return new Record(baseOffset + offsetDelta, baseTimestamp + timestampDelta, key, value, headers);
        // END-SOLUTION
    }

    private static int sizeOfBytes(byte[] bytes) {
        return bytes == null ? Varint.sizeOfVarint(-1) : Varint.sizeOfVarint(bytes.length) + bytes.length;
    }

    private static void writeBytes(byte[] bytes, ByteBuffer out) {
        if (bytes == null) {
            Varint.writeVarint(-1, out);
        } else {
            Varint.writeVarint(bytes.length, out);
            out.put(bytes);
        }
    }

    /** The name of a header's field, {@code "header[0].key"}: built only for an error. */
    private static String header(int index, String part) {
        return "header[" + index + "]." + part;
    }

    /** {@link #readBytes} for a header's key or value; the header's number is added only when it is bad. */
    private static byte[] readHeaderBytes(ByteBuffer body, int bodyStart, int index, String part, boolean keep) {
        try {
            return readBytes(body, bodyStart, part, keep);
        } catch (CorruptBatchException bad) {
            throw bad.within("header[" + index + "]");
        }
    }

    /** What a skipped (not null) key, value or header holds: the bytes stayed in the batch. */
    static final byte[] SKIPPED = new byte[0];

    /**
     * A length-prefixed byte field: -1 is null, anything else must fit in what remains. Copied
     * when {@code keep}, else stepped over ({@link #SKIPPED}).
     */
    private static byte[] readBytes(ByteBuffer body, int bodyStart, String field, boolean keep) {
        int at = bodyStart + body.position();
        int length = Varint.readVarint(body, field);
        if (length == -1) {
            return null;
        }
        if (length < -1 || length > body.remaining()) {
            throw new CorruptBatchException(field, at,
                    "length " + length + " but the record has " + body.remaining() + " byte(s) left");
        }
        if (!keep) {
            body.position(body.position() + length);
            return SKIPPED;
        }
        byte[] bytes = new byte[length];
        body.get(bytes);
        return bytes;
    }

    static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes as text for people: UTF-8 when printable, "null" for a null field. */
    public static String show(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && offset == r.offset && timestamp == r.timestamp
                && Arrays.equals(key, r.key) && Arrays.equals(value, r.value) && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(offset, timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
    }

    @Override
    public String toString() {
        return "Record{offset=" + offset + ", timestamp=" + timestamp + ", key=" + show(key)
                + ", value=" + show(value) + ", headers=" + headers + "}";
    }
}
