package kaenlog.batch;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** A record header: a string key and a byte value (null allowed), as in Kafka. */
public record RecordHeader(String key, byte[] value) {
    public RecordHeader {
        Objects.requireNonNull(key, "a header key is never null");
    }

    public static RecordHeader of(String key, String value) {
        return new RecordHeader(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordHeader h && key.equals(h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return key + "=" + Record.show(value);
    }
}
