package kaenlog.groups;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The key of a group's metadata record, the other kind of record in the offsets log: which group.
 * Kafka's {@code __consumer_offsets} holds two kinds, told apart by the version its keys start with
 * (0 and 1 an {@code OffsetCommitKey}, 2 a {@code GroupMetadataKey}, whose one field is the group).
 * kaen-log's offset keys start with their group's int16 length, which is never negative; a group's
 * metadata key starts with {@value #KIND} instead, then the group. So the two kinds never collide
 * (compaction keeps the last record of each), and a replay of offsets can tell which records are not
 * offsets ({@link #isGroupMetadata}). The value (members, generation, assignments) is chapter 9's,
 * which keeps the classic groups; chapter 6 only carries it.
 */
public record GroupMetadataKey(String group) {
    /** The int16 a group's metadata key starts with: no offset key starts with a negative length. */
    public static final short KIND = -1;

    public GroupMetadataKey {
        Objects.requireNonNull(group, "group");
        Fields.checkLength(group, "group");
    }

    /** True when {@code key} is a group's metadata key, false for an offset commit's (or any other). */
    public static boolean isGroupMetadata(byte[] key) {
        return key.length >= Short.BYTES && ByteBuffer.wrap(key).getShort() == KIND;
    }

    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(Short.BYTES + Fields.sizeOf(group));
        out.putShort(KIND);
        Fields.putString(out, group);
        return out.array();
    }

    public static GroupMetadataKey decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        short kind = Fields.getShort(in, "key.kind");
        if (kind != KIND) {
            throw new CorruptOffsetRecordException("key.kind", 0, "kind " + kind + " is not a group's metadata (" + KIND + ")");
        }
        String group = Fields.getString(in, "key.group");
        Fields.end(in, "key");
        return new GroupMetadataKey(group);
    }
}
