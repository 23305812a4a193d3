package kaenlog.kafkawire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A classic group's metadata as the coordinator writes it to the group's offsets partition (given
 * code): Kafka's {@code GroupMetadataValue}, version 3, the last one before flexible versions. Kafka's
 * coordinator appends one after each generation's SyncGroup (the leader's assignment) and when a group
 * becomes Empty ({@code GroupMetadataManager.storeGroup}); a broker that becomes the partition's leader
 * reads the last one of each group back ({@code loadGroupsAndOffsets}, {@code readGroupMessageValue}),
 * so that the members go on in their generation. Chapter 6's offsets log carries it under a
 * {@code GroupMetadataKey}; its replay of offsets skips it.
 *
 * <p>The bytes: version int16 (3), protocolType string, generation int32, protocol and leader nullable
 * strings, currentStateTimestamp int64, then the members: memberId, groupInstanceId (nullable), clientId,
 * clientHost strings, rebalanceTimeout and sessionTimeout int32, subscription and assignment bytes.
 */
record GroupMetadataValue(String protocolType, int generation, String protocol, String leader,
                          long currentStateTimestamp, List<Member> members) {
    /** The version written, and the only one read. */
    static final short VERSION = 3;

    /**
     * Kafka's schema has no null for the protocol type (a group without one writes ""), nor for a
     * member's ids, host and bytes: a record with one would be written, then read back by neither
     * kaen-log nor Kafka, so it is refused when it is made.
     */
    GroupMetadataValue {
        Objects.requireNonNull(protocolType, "protocolType: a string in Kafka's schema (\"\" for none), never null");
        members = List.copyOf(members);
    }

    /** One member: its subscription is its metadata for the group's protocol. */
    record Member(String memberId, String groupInstanceId, String clientId, String clientHost, int rebalanceTimeoutMs,
                  int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
        Member {
            Objects.requireNonNull(memberId, "memberId: a string in Kafka's schema, never null");
            Objects.requireNonNull(clientId, "clientId: a string in Kafka's schema, never null");
            Objects.requireNonNull(clientHost, "clientHost: a string in Kafka's schema, never null");
            Objects.requireNonNull(subscription, "subscription: bytes in Kafka's schema, never null");
            Objects.requireNonNull(assignment, "assignment: bytes in Kafka's schema, never null");
        }
    }

    byte[] encode() {
        KafkaWriter out = new KafkaWriter().int16(VERSION).nullableString(protocolType).int32(generation)
                .nullableString(protocol).nullableString(leader).int64(currentStateTimestamp)
                .arrayLength(members.size());
        for (Member m : members) {
            out.nullableString(m.memberId()).nullableString(m.groupInstanceId()).nullableString(m.clientId())
                    .nullableString(m.clientHost()).int32(m.rebalanceTimeoutMs()).int32(m.sessionTimeoutMs())
                    .nullableBytes(ByteBuffer.wrap(m.subscription())).nullableBytes(ByteBuffer.wrap(m.assignment()));
        }
        return out.toByteArray();
    }

    /** Reads a value back; bytes that do not read are a {@link kaenlog.wire.MalformedMessageException}. */
    static GroupMetadataValue decode(byte[] bytes) {
        KafkaReader in = new KafkaReader(bytes);
        short version = in.int16("version");
        if (version != VERSION) {
            throw new kaenlog.wire.MalformedMessageException("a group's metadata of version " + version
                    + ": this broker reads version " + VERSION);
        }
        String protocolType = in.string("protocolType");
        int generation = in.int32("generation");
        String protocol = in.nullableString("protocol");
        String leader = in.nullableString("leader");
        long timestamp = in.int64("currentStateTimestamp");
        int count = in.requiredArrayLength("members");
        List<Member> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(new Member(in.string("memberId"), in.nullableString("groupInstanceId"), in.string("clientId"),
                    in.string("clientHost"), in.int32("rebalanceTimeout"), in.int32("sessionTimeout"),
                    bytes(in, "subscription"), bytes(in, "assignment")));
        }
        in.end("a group's metadata");
        return new GroupMetadataValue(protocolType, generation, protocol, leader, timestamp, members);
    }

    private static byte[] bytes(KafkaReader in, String field) {
        ByteBuffer view = in.nullableBytes(field);
        if (view == null) {
            throw new kaenlog.wire.MalformedMessageException(field + ": null where bytes are required");
        }
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        return copy;
    }
}
