package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A group's metadata record (given code, {@link GroupMetadataValue}) judged by Kafka 4.1.1's own
 * classes: its generated {@code GroupMetadataValue} and the group coordinator's record serde. Kafka's
 * classic coordinator builds the record in {@code GroupCoordinatorRecordHelpers.newGroupMetadataRecord}
 * at version 3, and {@code CoordinatorRecordSerde.serializeValue} writes it as
 * {@code MessageUtil.toVersionPrefixedBytes}: the version as an int16, then the fields of that version.
 * kaen-log writes and reads version 3 alone; Kafka's versions 0 to 2 (older brokers' records) and 4
 * (the first flexible one) it refuses by name, since only kaen-log's own log is ever read back.
 */
@Order(14)
@PassesOnSkeleton("GroupMetadataValue, KafkaWriter's and KafkaReader's classic types are given code: no exercise"
        + " of chapter 9 is on their path")
class GroupMetadataValueTest {
    private static final short KAFKA_VERSION = 3;
    private static final GroupCoordinatorRecordSerde SERDE = new GroupCoordinatorRecordSerde();
    private static final byte[] KEY = MessageUtil.toCoordinatorTypePrefixedBytes(new GroupMetadataKey().setGroup("g"));

    @Test
    void aGroupsMetadataIsWrittenByteForByteAsKafkaWritesVersion3() {
        Property.forAll(groups()).tries(200).show(GroupMetadataValueTest::show).check(group ->
                Judge.agree("the group " + show(group), "bytes", group::encode,
                        "GroupCoordinatorRecordSerde.serializeValue writes", kafkaBytes(group, KAFKA_VERSION),
                        "a group's metadata is the version (int16 3), protocolType, generation, protocol and leader"
                                + " (nullable), currentStateTimestamp, then each member's memberId, groupInstanceId"
                                + " (nullable), clientId, clientHost, rebalanceTimeout, sessionTimeout, subscription"
                                + " and assignment, in that order, strings with int16 lengths and bytes with int32"));
    }

    @Test
    void kafkasBytesOfAGroupsMetadataAreReadBackToTheSameGroup() {
        Property.forAll(groups()).tries(200).show(GroupMetadataValueTest::show).check(group -> {
            byte[] bytes = kafkaBytes(group, KAFKA_VERSION);
            Judge.agree("Kafka's version 3 bytes of the group " + show(group), "group",
                    () -> show(GroupMetadataValue.decode(bytes)), "GroupCoordinatorRecordSerde.serializeValue wrote", show(group),
                    "kaen-log reads back every field Kafka wrote, null where Kafka wrote null (-1), the empty"
                            + " string where it wrote length 0, and every member in order");
        });
    }

    @Test
    void kafkasOtherVersionsAreRefusedByTheirNumber() {
        Property.forAll(groups().zip(Gens.elements((short) 0, (short) 1, (short) 2, (short) 4), Versioned::new))
                .tries(50).show(v -> "version " + v.version() + " of " + show(v.group())).check(v -> {
                    byte[] bytes = kafkaBytes(v.group(), v.version());
                    assertThat(SERDE.deserialize(ByteBuffer.wrap(KEY), ByteBuffer.wrap(bytes)).value().version())
                            .as("Kafka itself reads version %d of a group's metadata", v.version())
                            .isEqualTo(v.version());
                    assertThatThrownBy(() -> GroupMetadataValue.decode(bytes))
                            .as("kaen-log reads version 3 alone: Kafka's version %d is refused, naming it", v.version())
                            .isInstanceOf(MalformedMessageException.class)
                            .hasMessageContaining("version " + v.version());
                });
    }

    /**
     * Bytes that are not a group's metadata: cut short, a length made negative, another version, a
     * length or count of 2^31-1 (0x7fff for a string's int16), or a disk's random faults. kaen-log
     * refuses them with {@link MalformedMessageException}, as {@link GroupMetadataValue#decode}
     * documents, and never with another exception or an {@link OutOfMemoryError}; what it reads,
     * Kafka's serde reads to the same group (kaen-log is the stricter: it refuses trailing bytes, a
     * string length below -1 and any version but 3, which Kafka's generated reader takes).
     */
    @Test
    void bytesThatAreNotAGroupsMetadataAreRefusedAsMalformedNeverWithAnotherErrorNorOutOfMemory() {
        Property.forAll(damagedGroups()).tries(300).show(d -> Property.show(d.bytes()) + "\n  (" + d.damage()
                + " of the group " + show(d.group()) + ")").check(d -> {
                    String yours;
                    try {
                        yours = show(GroupMetadataValue.decode(d.bytes()));
                    } catch (MalformedMessageException refused) {
                        assertThat(refused.getMessage()).as("a refusal says what was wrong").isNotBlank();
                        return;
                    } catch (Throwable other) { // an OutOfMemoryError too: a length believed before it was checked
                        throw new AssertionError("bytes with " + d.damage() + " made GroupMetadataValue.decode throw "
                                + other + ", not the MalformedMessageException it documents: every length is"
                                + " checked against the bytes left before anything is allocated or read", other);
                    }
                    Judge.agree("bytes with " + d.damage(), "group", new Judge.Outcome(yours, null),
                            "GroupCoordinatorRecordSerde.deserialize reads",
                            kafkaReads(d.bytes()), "what kaen-log reads from damaged bytes, Kafka reads too, to the"
                                    + " same group");
                });
    }

    @Test
    void theFourNamedDamagesAreEachRefusedAsMalformed() {
        GroupMetadataValue group = new GroupMetadataValue("consumer", 7, "range", "m-1", 1_700_000_000_000L,
                List.of(new GroupMetadataValue.Member("m-1", null, "client", "/127.0.0.1", 300_000, 45_000,
                        new byte[] {1, 2}, new byte[] {3})));
        byte[] bytes = kafkaBytes(group, KAFKA_VERSION);
        List<int[]> counts = lengthFields(group).stream().filter(field -> field[1] == 4).toList();
        int members = counts.get(0)[0]; // the members' count, after the timestamp
        int subscription = counts.get(1)[0]; // the first member's subscription length
        assertThat(new int[] {ByteBuffer.wrap(bytes).getInt(members), ByteBuffer.wrap(bytes).getInt(subscription)})
                .as("the damage lands where Kafka wrote the member count (1) and the subscription's length (2)")
                .containsExactly(1, 2);
        List<Damaged> damages = List.of(
                new Damaged(group, Arrays.copyOf(bytes, bytes.length - 1), "the last byte cut off"),
                new Damaged(group, putInt(bytes, subscription, -2), "a subscription length of -2"),
                new Damaged(group, putShort(bytes, 0, 5), "version 5"),
                new Damaged(group, putInt(bytes, members, Integer.MAX_VALUE), "a member count of 2^31-1"),
                new Damaged(group, putInt(bytes, subscription, Integer.MAX_VALUE), "a subscription length of 2^31-1"));
        for (Damaged d : damages) {
            assertThatThrownBy(() -> GroupMetadataValue.decode(d.bytes()))
                    .as("%s is refused as malformed, before anything is allocated", d.damage())
                    .isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void aNullWhereKafkasSchemaHasNoneIsRefusedWhenTheRecordIsMade() {
        byte[] some = {1};
        assertThatThrownBy(() -> new GroupMetadataValue(null, 1, "range", "m-1", 0, List.of()))
                .as("a group without a protocol type is written \"\" (Kafka's getOrElse(\"\")): a null would be"
                        + " written as -1, a record neither kaen-log nor Kafka reads back")
                .isInstanceOf(NullPointerException.class).hasMessageContaining("protocolType");
        for (String field : List.of("memberId", "clientId", "clientHost", "subscription", "assignment")) {
            assertThatThrownBy(() -> new GroupMetadataValue.Member(field.equals("memberId") ? null : "m-1", null,
                    field.equals("clientId") ? null : "c", field.equals("clientHost") ? null : "/h", 1, 1,
                    field.equals("subscription") ? null : some, field.equals("assignment") ? null : some))
                    .as("a member's %s is never null in Kafka's schema: refused when the record is made, naming it",
                            field)
                    .isInstanceOf(NullPointerException.class).hasMessageContaining(field);
        }
    }

    // --- the groups and their damage ----------------------------------------------------------------

    record Versioned(GroupMetadataValue group, short version) {
    }

    record Damaged(GroupMetadataValue group, byte[] bytes, String damage) {
    }

    private static Gen<String> texts() {
        return Gens.strings(0, 8); // the empty string, ASCII and the rest of Unicode
    }

    private static Gen<GroupMetadataValue.Member> members() {
        return c -> new GroupMetadataValue.Member(texts().generate(c), Gens.nullOr(texts(), 3).generate(c),
                texts().generate(c), texts().generate(c), Gens.ints().generate(c), Gens.ints().generate(c),
                Gens.bytes(0, 12).generate(c), Gens.bytes(0, 12).generate(c));
    }

    /** Groups as Kafka's schema allows them: protocol, leader and a member's instance id may be null. */
    static Gen<GroupMetadataValue> groups() {
        return c -> new GroupMetadataValue(texts().generate(c), Gens.ints().generate(c),
                Gens.nullOr(texts(), 3).generate(c), Gens.nullOr(texts(), 3).generate(c), Gens.longs().generate(c),
                Gens.lists(members(), 0, 4).generate(c));
    }

    /** A group's bytes as Kafka writes them, damaged in one of the ways named, or by a disk's faults. */
    private static Gen<Damaged> damagedGroups() {
        return c -> {
            GroupMetadataValue group = groups().generate(c);
            byte[] bytes = kafkaBytes(group, KAFKA_VERSION);
            List<int[]> lengths = lengthFields(group);
            int[] field = lengths.get(c.belowInt(lengths.size()));
            return switch (c.belowInt(5)) {
                case 0 -> {
                    int cut = Gens.ints(0, bytes.length - 1).generate(c);
                    yield new Damaged(group, Arrays.copyOf(bytes, cut), "the bytes cut at " + cut);
                }
                case 1 -> {
                    int negative = field[1] == 2 ? Gens.elements(-2, -3, (int) Short.MIN_VALUE, -1).generate(c)
                            : Gens.elements(-2, Integer.MIN_VALUE, -1).generate(c);
                    yield new Damaged(group, put(bytes, field, negative), "a length of " + negative + " at byte " + field[0]);
                }
                case 2 -> {
                    int version = Gens.ints(Short.MIN_VALUE, Short.MAX_VALUE).filter(v -> v != KAFKA_VERSION).generate(c);
                    yield new Damaged(group, putShort(bytes, 0, version), "version " + version);
                }
                case 3 -> {
                    int largest = field[1] == 2 ? Short.MAX_VALUE : Integer.MAX_VALUE;
                    yield new Damaged(group, put(bytes, field, largest), "a length of " + largest + " at byte " + field[0]);
                }
                default -> {
                    Gens.Faults faults = Gens.faults().generate(c);
                    yield new Damaged(group, faults.apply(bytes), faults.toString());
                }
            };
        };
    }

    /** Where the group's bytes hold a length or a count: {position, width}, the version's int16 first. */
    private static List<int[]> lengthFields(GroupMetadataValue group) {
        List<int[]> fields = new ArrayList<>();
        fields.add(new int[] {0, 2});
        int at = 2;
        at = string(fields, at, group.protocolType()) + 4;
        at = string(fields, at, group.protocol());
        at = string(fields, at, group.leader()) + 8;
        fields.add(new int[] {at, 4});
        at += 4;
        for (GroupMetadataValue.Member m : group.members()) {
            at = string(fields, at, m.memberId());
            at = string(fields, at, m.groupInstanceId());
            at = string(fields, at, m.clientId());
            at = string(fields, at, m.clientHost()) + 8;
            fields.add(new int[] {at, 4});
            at += 4 + m.subscription().length;
            fields.add(new int[] {at, 4});
            at += 4 + m.assignment().length;
        }
        return fields;
    }

    private static int string(List<int[]> fields, int at, String s) {
        fields.add(new int[] {at, 2});
        return at + 2 + (s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length);
    }

    private static byte[] put(byte[] bytes, int[] field, int value) {
        return field[1] == 2 ? putShort(bytes, field[0], value) : putInt(bytes, field[0], value);
    }

    private static byte[] putShort(byte[] bytes, int at, int value) {
        byte[] copy = bytes.clone();
        ByteBuffer.wrap(copy).putShort(at, (short) value);
        return copy;
    }

    private static byte[] putInt(byte[] bytes, int at, int value) {
        byte[] copy = bytes.clone();
        ByteBuffer.wrap(copy).putInt(at, value);
        return copy;
    }

    // --- Kafka's side ---------------------------------------------------------------------------------

    private static org.apache.kafka.coordinator.group.generated.GroupMetadataValue kafkas(GroupMetadataValue group) {
        List<org.apache.kafka.coordinator.group.generated.GroupMetadataValue.MemberMetadata> members = new ArrayList<>();
        for (GroupMetadataValue.Member m : group.members()) {
            members.add(new org.apache.kafka.coordinator.group.generated.GroupMetadataValue.MemberMetadata()
                    .setMemberId(m.memberId()).setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId())
                    .setClientHost(m.clientHost()).setRebalanceTimeout(m.rebalanceTimeoutMs())
                    .setSessionTimeout(m.sessionTimeoutMs()).setSubscription(m.subscription())
                    .setAssignment(m.assignment()));
        }
        return new org.apache.kafka.coordinator.group.generated.GroupMetadataValue()
                .setProtocolType(group.protocolType()).setGeneration(group.generation()).setProtocol(group.protocol())
                .setLeader(group.leader()).setCurrentStateTimestamp(group.currentStateTimestamp()).setMembers(members);
    }

    /** The value of the record Kafka's coordinator appends for this group, at this version. */
    private static byte[] kafkaBytes(GroupMetadataValue group, short version) {
        return SERDE.serializeValue(CoordinatorRecord.record(new GroupMetadataKey().setGroup("g"),
                new ApiMessageAndVersion(kafkas(group), version)));
    }

    /** What Kafka's serde reads from a value (its group, shown as kaen-log's), or its refusal. */
    private static Object kafkaReads(byte[] value) {
        return Judge.Outcome.of(() -> {
            var read = (org.apache.kafka.coordinator.group.generated.GroupMetadataValue)
                    SERDE.deserialize(ByteBuffer.wrap(KEY), ByteBuffer.wrap(value)).value().message();
            List<GroupMetadataValue.Member> members = new ArrayList<>();
            for (var m : read.members()) {
                members.add(new GroupMetadataValue.Member(m.memberId(), m.groupInstanceId(), m.clientId(),
                        m.clientHost(), m.rebalanceTimeout(), m.sessionTimeout(), m.subscription(), m.assignment()));
            }
            return show(new GroupMetadataValue(read.protocolType(), read.generation(), read.protocol(), read.leader(),
                    read.currentStateTimestamp(), members));
        });
    }

    /** A group as the failures show it: its strings quoted with their code points, its bytes in hex. */
    static String show(GroupMetadataValue g) {
        StringBuilder s = new StringBuilder("{protocolType=").append(text(g.protocolType()))
                .append(", generation=").append(g.generation()).append(", protocol=").append(text(g.protocol()))
                .append(", leader=").append(text(g.leader())).append(", currentStateTimestamp=")
                .append(g.currentStateTimestamp()).append(", members=[");
        for (GroupMetadataValue.Member m : g.members()) {
            s.append("{memberId=").append(text(m.memberId())).append(", groupInstanceId=")
                    .append(text(m.groupInstanceId())).append(", clientId=").append(text(m.clientId()))
                    .append(", clientHost=").append(text(m.clientHost())).append(", rebalanceTimeout=")
                    .append(m.rebalanceTimeoutMs()).append(", sessionTimeout=").append(m.sessionTimeoutMs())
                    .append(", subscription=[").append(Property.show(m.subscription())).append("], assignment=[")
                    .append(Property.show(m.assignment())).append("]}");
        }
        return s.append("]}").toString();
    }

    private static String text(String s) {
        return s == null ? "null" : Property.show(s);
    }
}
