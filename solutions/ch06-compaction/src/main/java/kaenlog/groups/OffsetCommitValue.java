package kaenlog.groups;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The value of a committed offset: the next offset the group will read in that partition, the
 * consumer's free-form metadata, and when it was committed. Three of the fields of Kafka's
 * {@code OffsetCommitValue} (offset, metadata, commitTimestamp); the bytes are kaen-log's own:
 * offset int64, metadata as an int16-length string, commitTimestamp int64. A null value (a
 * tombstone) instead of this says the offset was deleted.
 */
public record OffsetCommitValue(long offset, String metadata, long commitTimestamp) {
    public OffsetCommitValue {
        Objects.requireNonNull(metadata, "metadata");
        Fields.checkLength(metadata, "metadata");
    }

    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(Long.BYTES + Fields.sizeOf(metadata) + Long.BYTES);
        out.putLong(offset);
        Fields.putString(out, metadata);
        out.putLong(commitTimestamp);
        return out.array();
    }

    public static OffsetCommitValue decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        long offset = Fields.getLong(in, "value.offset");
        String metadata = Fields.getString(in, "value.metadata");
        long commitTimestamp = Fields.getLong(in, "value.commitTimestamp");
        Fields.end(in, "value");
        return new OffsetCommitValue(offset, metadata, commitTimestamp);
    }
}
