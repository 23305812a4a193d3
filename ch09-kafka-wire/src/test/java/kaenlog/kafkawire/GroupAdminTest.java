package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * What an admin does to groups, in the given group coordinator ({@link ClassicGroups}), answer by
 * answer as Kafka 4.1.1's group coordinator gives them: a group that only committed offsets is
 * Empty (Kafka's "simple" group), not Dead, and listed; DeleteGroups takes an Empty group with its
 * offsets ({@code ClassicGroup.validateDeleteGroup}); OffsetDelete takes a group's offsets of the
 * topics its members do not subscribe to ({@code OffsetMetadataManager.deleteOffsets},
 * {@code ClassicGroup.isSubscribedToTopic}), the subscriptions read from kafka-clients' own
 * {@code ConsumerProtocol} bytes. Chapter 6's offsets are a map here. Every change of state goes
 * through task 7 (GroupStateTest). Runs after the tasks.
 */
@Order(13)
class GroupAdminTest {
    private static final int SESSION_MS = 10_000;
    private static final long DELAY_MS = 3_000;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private long now = 1_000_000;
    /** Chapter 6's committed offsets, as a map: group, topic, partitions. */
    private final Map<String, Map<String, Set<Integer>>> committed = new TreeMap<>();
    private final ClassicGroups groups = new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, DELAY_MS, 1000,
            100, 1_000_000), now, new PrintStream(log, true, StandardCharsets.UTF_8), new ClassicGroups.Offsets() {
                @Override
                public boolean has(String group) {
                    return committed.containsKey(group);
                }

                @Override
                public Set<String> groups() {
                    return committed.keySet();
                }

                @Override
                public boolean delete(String group, Map<String, Set<Integer>> partitions) {
                    Map<String, Set<Integer>> offsets = committed.getOrDefault(group, new HashMap<>());
                    if (partitions == null) {
                        offsets.clear();
                    }
                    for (Map.Entry<String, Set<Integer>> topic : partitions == null ? Set.<Map.Entry<String,
                            Set<Integer>>>of() : partitions.entrySet()) {
                        offsets.getOrDefault(topic.getKey(), new TreeSet<>()).removeAll(topic.getValue());
                        offsets.remove(topic.getKey(), Set.of());
                    }
                    if (offsets.isEmpty()) {
                        committed.remove(group);
                    }
                    return true;
                }
            });

    private void commit(String group, String topic, Integer... partitions) {
        committed.computeIfAbsent(group, g -> new TreeMap<>()).computeIfAbsent(topic, t -> new TreeSet<>())
                .addAll(List.of(partitions));
    }

    /** A consumer's subscription, as kafka-clients 4.1.1 writes it into its JoinGroup. */
    private static byte[] subscription(String... topics) {
        ByteBuffer bytes = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(
                List.of(topics)));
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        return copy;
    }

    private static <T> T done(CompletableFuture<T> answer) {
        assertThat(answer).as("answered by now").isDone();
        return answer.join();
    }

    /** One dynamic member of {@code group}, Stable, with {@code metadata} for protocol range of {@code type}. */
    private String stableMember(String group, String type, byte[] metadata) {
        ClassicGroups.JoinRequest request = new ClassicGroups.JoinRequest(group, "client", "", null, SESSION_MS,
                60_000, type, List.of(new ClassicGroups.Protocol("range", metadata)), true);
        String id = done(groups.join(request, now)).memberId();
        CompletableFuture<ClassicGroups.JoinResult> joined = groups.join(new ClassicGroups.JoinRequest(group, "client",
                id, null, SESSION_MS, 60_000, type, request.protocols(), true), now);
        now += DELAY_MS;
        groups.tick(now);
        groups.sync(group, done(joined).generationId(), id, Map.of(), now);
        assertThat(groups.describe(group).state()).isEqualTo(GroupState.STABLE);
        return id;
    }

    @Test
    @PassesOnSkeleton("given code: a group that only committed offsets changes no state")
    void aGroupThatOnlyCommittedOffsetsIsEmptyNotDead() {
        commit("simple", "orders", 0);
        ClassicGroups.GroupView described = groups.describe("simple");
        assertThat(described.state()).as("a group that only committed offsets (kcat, assign(), an admin, klog"
                + " consume --group) is Empty, as"
                + " Kafka's simple group is: kafka-consumer-groups --describe shows its offsets instead of 'does not"
                + " exist'").isEqualTo(GroupState.EMPTY);
        assertThat(described.protocolType()).as("with no protocol type").isEmpty();
        assertThat(groups.list()).as("ListGroups lists it").containsExactly(new ClassicGroups.GroupListing("simple", "",
                GroupState.EMPTY));
        assertThat(groups.describe("nobody").state()).as("a group with neither members nor offsets is Dead")
                .isEqualTo(GroupState.DEAD);
        assertThat(groups.groupCount()).as("and the coordinator keeps nothing for it (chapter 6 has the offsets)")
                .isZero();
        assertThat(groups.validateCommit("simple", 3, "someone", now)).as("a commit with a generation to it:"
                + " UNKNOWN_MEMBER_ID (Kafka's Empty group has no such member), where a group with nothing at all"
                + " answers ILLEGAL_GENERATION").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.validateCommit("nobody", 3, "someone", now)).isEqualTo(KafkaErrors.ILLEGAL_GENERATION);
        assertThat(groups.leave("simple", List.of(new ClassicGroups.Leaving("someone", null)), now))
                .as("a LeaveGroup v3 to it: each member unknown, the request itself fine").isEqualTo(
                        new ClassicGroups.LeaveResult(KafkaErrors.NONE, List.of(KafkaErrors.UNKNOWN_MEMBER_ID)));
        assertThat(groups.leave("nobody", List.of(new ClassicGroups.Leaving("someone", null)), now).error())
                .as("to a group there is not: UNKNOWN_MEMBER_ID for the request").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
    }

    @Test
    @PassesOnSkeleton("given code: a group that only committed offsets changes no state")
    void deleteGroupsTakesAGroupThatOnlyCommittedWithItsOffsets() {
        commit("simple", "orders", 0, 1);
        assertThat(groups.deleteGroup("simple", now)).isEqualTo(KafkaErrors.NONE);
        assertThat(committed).as("every offset of the group is deleted (a tombstone each, in chapter 6)").isEmpty();
        assertThat(groups.describe("simple").state()).isEqualTo(GroupState.DEAD);
        assertThat(groups.deleteGroup("simple", now)).as("a group there is not: GROUP_ID_NOT_FOUND (69)")
                .isEqualTo(KafkaErrors.GROUP_ID_NOT_FOUND);
    }

    @Test
    void deleteGroupsRefusesAGroupWithMembersAndTakesOneThatEmptied() {
        String member = stableMember("g", "consumer", subscription("orders"));
        commit("g", "orders", 0);
        assertThat(groups.deleteGroup("g", now)).as("a group with members: NON_EMPTY_GROUP (68)")
                .isEqualTo(KafkaErrors.NON_EMPTY_GROUP);
        assertThat(committed).as("and its offsets stay").containsKey("g");
        groups.leave("g", member, now);
        assertThat(groups.describe("g").state()).as("its member left; its offsets keep it, Empty").isEqualTo(
                GroupState.EMPTY);
        assertThat(groups.deleteGroup("g", now)).isEqualTo(KafkaErrors.NONE);
        assertThat(committed).isEmpty();
        assertThat(groups.groupCount()).as("gone with all it held").isZero();
        assertThat(groups.heldBytes()).isZero();
    }

    @Test
    void offsetDeleteTakesTheOffsetsOfTopicsTheMembersDoNotSubscribeTo() {
        stableMember("g", "consumer", subscription("orders", "payments"));
        commit("g", "orders", 0, 1);
        commit("g", "old-topic", 0, 1);
        ClassicGroups.OffsetDeleteResult result = groups.deleteOffsets("g", Map.of("orders", Set.of(0),
                "old-topic", Set.of(1)), now);
        assertThat(result.error()).isEqualTo(KafkaErrors.NONE);
        assertThat(result.topics()).as("its member subscribes to orders (read from its ConsumerProtocol"
                + " subscription): GROUP_SUBSCRIBED_TO_TOPIC (86); old-topic it does not: deleted").containsEntry(
                "orders", KafkaErrors.GROUP_SUBSCRIBED_TO_TOPIC).containsEntry("old-topic", KafkaErrors.NONE);
        assertThat(committed.get("g")).as("only old-topic-1 went").containsEntry("orders", Set.of(0, 1))
                .containsEntry("old-topic", Set.of(0));
    }

    @Test
    void offsetDeleteTakesEveryOffsetOfAnEmptyGroupAndThenTheGroup() {
        String member = stableMember("g", "consumer", subscription("orders"));
        commit("g", "orders", 0);
        groups.leave("g", member, now);
        assertThat(groups.deleteOffsets("g", Map.of("orders", Set.of(0)), now).topics()).as("an Empty group"
                + " subscribes to nothing").containsEntry("orders", KafkaErrors.NONE);
        assertThat(groups.describe("g").state()).as("its last offset went: an Empty group with nothing left goes"
                + " (GroupTransitions.removable)").isEqualTo(GroupState.DEAD);
        assertThat(groups.deleteOffsets("g", Map.of("orders", Set.of(0)), now).error())
                .as("a group there is not: GROUP_ID_NOT_FOUND for the request").isEqualTo(KafkaErrors.GROUP_ID_NOT_FOUND);
    }

    @Test
    void offsetDeleteRefusesAGroupWithMembersOfAnotherProtocolOrWhoseSubscriptionsItCannotRead() {
        stableMember("connect", "connect", new byte[] {1, 2, 3});
        commit("connect", "orders", 0);
        assertThat(groups.deleteOffsets("connect", Map.of("orders", Set.of(0)), now).error()).as("a group with"
                + " members that are not consumers (Kafka Connect's): NON_EMPTY_GROUP").isEqualTo(
                KafkaErrors.NON_EMPTY_GROUP);
        stableMember("garbled", "consumer", new byte[] {0, 0, 0, 0, 0, 9});
        commit("garbled", "orders", 0);
        assertThat(groups.deleteOffsets("garbled", Map.of("orders", Set.of(0)), now).topics())
                .as("consumers whose subscription does not read: every topic counts as subscribed")
                .containsEntry("orders", KafkaErrors.GROUP_SUBSCRIBED_TO_TOPIC);
        assertThat(committed).containsKeys("connect", "garbled");
    }
}
