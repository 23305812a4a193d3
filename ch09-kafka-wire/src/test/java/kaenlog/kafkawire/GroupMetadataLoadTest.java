package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The group's metadata record (given code) in the given coordinator ({@link ClassicGroups}), with an
 * offsets log that is a map of each group's last record: what is written when (Kafka's
 * {@code storeGroup}: after the leader's SyncGroup, the members answered only once it is written, and
 * when the group becomes Empty), what another coordinator finds from it ({@code loadGroup},
 * {@code onGroupLoaded}), and the bounds. Runs after the tasks.
 */
@Order(14)
class GroupMetadataLoadTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 60_000;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private long now = 1_000_000;
    /** The offsets log: each group's last metadata record (a tombstone removes it). */
    private final Map<String, byte[]> records = new TreeMap<>();
    /** What the next append answers. */
    private short nextAnswer = KafkaErrors.NONE;

    private ClassicGroups coordinator(long maxHeldBytes) {
        return new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, 0, 1000, 100, maxHeldBytes), now,
                new PrintStream(log, true, StandardCharsets.UTF_8), new ClassicGroups.Offsets() {
                    @Override
                    public boolean has(String group) {
                        return true; // the group committed: an Empty one stays
                    }

                    @Override
                    public CompletableFuture<Short> storeGroup(String group, byte[] value) {
                        short answer = nextAnswer;
                        if (answer == KafkaErrors.NONE) {
                            if (value == null) {
                                records.remove(group);
                            } else {
                                records.put(group, value);
                            }
                        }
                        return CompletableFuture.completedFuture(answer);
                    }
                });
    }

    private CompletableFuture<ClassicGroups.JoinResult> join(ClassicGroups groups, String memberId, String instanceId) {
        return groups.join(new ClassicGroups.JoinRequest("g", "client", memberId, instanceId, SESSION_MS, REBALANCE_MS,
                "consumer", List.of(new ClassicGroups.Protocol("range", new byte[] {1, 2, 3})), false), now);
    }

    /** Member "a" (static when {@code instanceId} is set) alone in g, Stable in generation 1; its member id. */
    private String stableAlone(ClassicGroups groups, String instanceId) {
        ClassicGroups.JoinResult joined = join(groups, "", instanceId).join();
        assertThat(joined.error()).isEqualTo(KafkaErrors.NONE);
        String a = joined.memberId();
        ClassicGroups.SyncResult synced = groups.sync("g", joined.generationId(), a, instanceId,
                Map.of(a, new byte[] {7}), now).join();
        assertThat(synced.error()).isEqualTo(KafkaErrors.NONE);
        return a;
    }

    @Test
    void theNextCoordinatorFindsTheLastStoredGenerationNotARebalanceInProgress() {
        ClassicGroups first = coordinator(1_000_000);
        String a = stableAlone(first, null);
        assertThat(records).as("the leader's SyncGroup stored generation 1").containsKey("g");
        CompletableFuture<ClassicGroups.JoinResult> newcomer = join(first, "", null); // a rebalance starts
        CompletableFuture<ClassicGroups.JoinResult> rejoined = join(first, a, null);
        assertThat(rejoined.join().generationId()).as("generation 2's join phase ended").isEqualTo(2);
        assertThat(newcomer.join().error()).isEqualTo(KafkaErrors.NONE);
        // the coordinator goes before generation 2's leader syncs: generation 2 is in no record

        ClassicGroups next = coordinator(1_000_000);
        next.load(records, now);
        assertThat(next.describe("g").state()).as("the next coordinator finds the last stored generation, Stable")
                .isEqualTo(GroupState.STABLE);
        assertThat(next.heartbeat("g", 1, a, now)).as("a member of generation 1 goes on in it").isEqualTo(KafkaErrors.NONE);
        assertThat(next.heartbeat("g", 2, a, now)).as("generation 2 was never stored: its members rejoin")
                .isEqualTo(KafkaErrors.ILLEGAL_GENERATION);
        assertThat(next.heartbeat("g", 2, newcomer.join().memberId(), now))
                .as("the member that joined in generation 2 is not in the record").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aSyncIsAnsweredOnlyOnceItsGenerationIsStoredAndAFailedStoreRebalances() {
        ClassicGroups groups = coordinator(1_000_000);
        ClassicGroups.JoinResult joined = join(groups, "", null).join();
        nextAnswer = KafkaErrors.NOT_COORDINATOR;
        ClassicGroups.SyncResult synced = groups.sync("g", joined.generationId(), joined.memberId(), null,
                Map.of(joined.memberId(), new byte[] {7}), now).join();
        assertThat(synced.error()).as("the group's metadata could not be written: the SyncGroup says why, as Kafka's"
                + " storeGroup callback does, and hands out no assignment").isEqualTo(KafkaErrors.NOT_COORDINATOR);
        assertThat(synced.assignment()).isEmpty();
        assertThat(groups.describe("g").state()).as("and the group rebalances")
                .isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(records).as("nothing was written").isEmpty();
    }

    @Test
    void aStaticMembersInstanceIdAndAnEmptyGroupsProtocolTypeSurviveTheLoad() {
        ClassicGroups first = coordinator(1_000_000);
        String a = stableAlone(first, "instance-a");
        ClassicGroups next = coordinator(1_000_000);
        next.load(records, now);
        assertThat(next.heartbeat("g", 1, "an-older-process", "instance-a", now))
                .as("instance-a's member id came back with it: another member id is fenced")
                .isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(next.describe("g").members()).singleElement().satisfies(m -> {
            assertThat(m.memberId()).isEqualTo(a);
            assertThat(m.groupInstanceId()).isEqualTo("instance-a");
            assertThat(m.assignment()).as("its assignment").containsExactly(7);
        });
        ClassicGroups.JoinResult back = join(next, "", "instance-a").join();
        assertThat(back.generationId()).as("the static member back under a new id takes its place: no rebalance")
                .isEqualTo(1);
        ClassicGroups after = coordinator(1_000_000);
        after.load(records, now);
        assertThat(after.heartbeat("g", 1, back.memberId(), "instance-a", now))
                .as("its new member id was stored when it took its place (Kafka's updateStaticMemberAndRebalance"
                        + " stores the group): the next coordinator does not fence it as an older process of itself")
                .isEqualTo(KafkaErrors.NONE);

        assertThat(next.leave("g", List.of(new ClassicGroups.Leaving(back.memberId(), "instance-a")), now).error())
                .isEqualTo(KafkaErrors.NONE);
        ClassicGroups third = coordinator(1_000_000);
        third.load(records, now);
        assertThat(third.describe("g").state()).as("the group became Empty: its last record says so").isEqualTo(GroupState.EMPTY);
        assertThat(third.list()).singleElement().satisfies(listing -> assertThat(listing.protocolType())
                .as("an Empty group that had members keeps its protocol type").isEqualTo("consumer"));
    }

    /**
     * A coordinator whose appends wait until the test answers them: each record's answer is the next
     * future of {@code appends}, completed by hand.
     */
    private ClassicGroups handAnswered(List<CompletableFuture<Short>> appends) {
        return new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, 0, 1000, 100, 1_000_000), now,
                new PrintStream(log, true, StandardCharsets.UTF_8), new ClassicGroups.Offsets() {
                    @Override
                    public boolean has(String group) {
                        return true;
                    }

                    @Override
                    public CompletableFuture<Short> storeGroup(String group, byte[] value) {
                        CompletableFuture<Short> answer = new CompletableFuture<>();
                        appends.add(answer);
                        return answer;
                    }
                });
    }

    private CompletableFuture<ClassicGroups.JoinResult> joinStatic(ClassicGroups groups, byte[] subscription) {
        return groups.join(new ClassicGroups.JoinRequest("g", "client", "", "instance-a", SESSION_MS, REBALANCE_MS,
                "consumer", List.of(new ClassicGroups.Protocol("range", subscription)), false), now);
    }

    /** Static member instance-a alone in g, Stable in generation 1, its record written; its member id. */
    private String stableStatic(ClassicGroups groups, List<CompletableFuture<Short>> appends) {
        ClassicGroups.JoinResult joined = joinStatic(groups, new byte[] {1, 2, 3}).join();
        CompletableFuture<ClassicGroups.SyncResult> synced = groups.sync("g", joined.generationId(),
                joined.memberId(), "instance-a", Map.of(joined.memberId(), new byte[] {7}), now);
        appends.get(0).complete(KafkaErrors.NONE);
        assertThat(synced.join().error()).isEqualTo(KafkaErrors.NONE);
        return joined.memberId();
    }

    @Test
    void aStaticRejoinIsAnsweredOnlyOnceItsRecordIsStored() {
        List<CompletableFuture<Short>> appends = new ArrayList<>();
        ClassicGroups groups = handAnswered(appends);
        String a = stableStatic(groups, appends);

        CompletableFuture<ClassicGroups.JoinResult> back = joinStatic(groups, new byte[] {1, 2, 3});
        assertThat(appends).as("a static member back under a new id in a Stable group: the group's record, naming"
                + " the new id, is on its way to the offsets log").hasSize(2);
        assertThat(back).as("and its JoinGroup waits for it, as Kafka's updateStaticMemberAndRebalance answers only"
                + " in storeGroup's callback: answered at once, a client rejoining again and again would queue"
                + " records faster than a slow log takes them").isNotDone();

        appends.get(1).complete(KafkaErrors.NONE);
        assertThat(back).as("the record is written: the JoinGroup is answered").isDone();
        ClassicGroups.JoinResult joined = back.join();
        assertThat(joined.error()).isEqualTo(KafkaErrors.NONE);
        assertThat(joined.generationId()).as("in the current generation: no rebalance").isEqualTo(1);
        assertThat(joined.memberId()).as("under its new member id").isNotEqualTo(a);
        assertThat(groups.heartbeat("g", 1, joined.memberId(), "instance-a", now)).isEqualTo(KafkaErrors.NONE);
    }

    @Test
    void aStaticRejoinWhoseRecordIsNotStoredIsRevertedAndAnsweredTheError() {
        List<CompletableFuture<Short>> appends = new ArrayList<>();
        ClassicGroups groups = handAnswered(appends);
        String a = stableStatic(groups, appends);

        CompletableFuture<ClassicGroups.JoinResult> back = joinStatic(groups, new byte[] {9});
        appends.get(1).complete(KafkaErrors.NOT_COORDINATOR);
        assertThat(back).as("the record's answer came: so does the JoinGroup's").isDone();
        ClassicGroups.JoinResult refused = back.join();
        assertThat(refused.error()).as("the record naming the new member id was not written: the JoinGroup says"
                + " why, as Kafka's storeGroup callback answers it").isEqualTo(KafkaErrors.NOT_COORDINATOR);
        assertThat(refused.memberId()).as("with no member id (Kafka's UNKNOWN_MEMBER_ID, \"\"): the new id was"
                + " taken back").isEmpty();
        assertThat(groups.heartbeat("g", 1, a, "instance-a", now)).as("the replacement is reverted: the old"
                + " member id is instance-a's again, as the offsets log still says, and its session goes on")
                .isEqualTo(KafkaErrors.NONE);
        assertThat(groups.describe("g").members()).singleElement().satisfies(m -> {
            assertThat(m.memberId()).isEqualTo(a);
            assertThat(m.metadata()).as("with its old subscription, not the one of the JoinGroup refused")
                    .containsExactly(1, 2, 3);
            assertThat(m.assignment()).as("and its assignment").containsExactly(7);
        });
        assertThat(log.toString(StandardCharsets.UTF_8)).as("with a line naming the group").contains("group 'g'");
    }

    @Test
    void aStaticRejoinFencedWhileItsRecordIsOnItsWayIsAnsweredAtOnceAndItsLateRecordChangesNothing() {
        List<CompletableFuture<Short>> appends = new ArrayList<>();
        ClassicGroups groups = handAnswered(appends);
        String a = stableStatic(groups, appends);

        CompletableFuture<ClassicGroups.JoinResult> first = joinStatic(groups, new byte[] {1, 2, 3});
        CompletableFuture<ClassicGroups.JoinResult> second = joinStatic(groups, new byte[] {1, 2, 3});
        assertThat(first).as("a second process of instance-a took its place before its record was written: the"
                + " first is fenced at once, as Kafka's replaceStaticMember fences a member awaiting its JoinGroup")
                .isCompletedWithValueMatching(r -> r.error() == KafkaErrors.FENCED_INSTANCE_ID);
        appends.get(2).complete(KafkaErrors.NONE);
        assertThat(second.join().error()).isEqualTo(KafkaErrors.NONE);
        appends.get(1).complete(KafkaErrors.NOT_COORDINATOR);
        assertThat(groups.heartbeat("g", 1, second.join().memberId(), "instance-a", now))
                .as("the fenced process's record failing late reverts nothing: instance-a is the second process")
                .isEqualTo(KafkaErrors.NONE);
        assertThat(groups.heartbeat("g", 1, a, "instance-a", now)).isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
    }

    @Test
    void aGroupThereIsNoRoomForIsNotLoaded() {
        ClassicGroups first = coordinator(1_000_000);
        stableAlone(first, null);
        ClassicGroups small = coordinator(300);
        small.load(records, now);
        assertThat(small.groupCount()).as("a loaded group counts against max.group.bytes like any: one that"
                + " does not fit is left out, its members rejoin").isZero();
        assertThat(small.heldBytes()).isZero();
        assertThat(log.toString(StandardCharsets.UTF_8)).as("with a line that says why").contains("is not loaded: no room");
    }

    /** A member of a loaded record: session {@code sessionMs}, no instance id unless given. */
    private static GroupMetadataValue.Member member(String id, String instanceId, int sessionMs) {
        return new GroupMetadataValue.Member(id, instanceId, "client", "", REBALANCE_MS, sessionMs, new byte[] {1},
                new byte[] {7});
    }

    @Test
    void aRecordNoCoordinatorWritesIsNotLoadedAndTheOthersAre() {
        GroupMetadataValue.Member a = member("a", null, SESSION_MS);
        GroupMetadataValue good = new GroupMetadataValue("consumer", 3, "range", "a", now, List.of(a));
        Map<String, GroupMetadataValue> bad = new TreeMap<>(Map.of(
                "session of 2147483647 ms is outside 6000..1800000 ms", new GroupMetadataValue("consumer", 3, "range",
                        "a", now, List.of(member("a", null, Integer.MAX_VALUE))),
                "generation -2", new GroupMetadataValue("consumer", -2, "range", "a", now, List.of(a)),
                "member 'a' twice", new GroupMetadataValue("consumer", 3, "range", "a", now, List.of(a, a)),
                "instance 'i' twice", new GroupMetadataValue("consumer", 3, "range", "a", now,
                        List.of(member("a", "i", SESSION_MS), member("b", "i", SESSION_MS))),
                "leader 'z' is not a member", new GroupMetadataValue("consumer", 3, "range", "z", now, List.of(a)),
                "members but no protocol", new GroupMetadataValue("consumer", 3, null, "a", now, List.of(a))));
        bad.forEach((why, value) -> {
            log.reset();
            ClassicGroups groups = coordinator(1_000_000);
            groups.load(new TreeMap<>(Map.of("bad", value.encode(), "good", good.encode())), now);
            assertThat(groups.groupCount()).as("the records come from a replica's log: one no coordinator writes (%s)"
                    + " is not loaded, the good one beside it is; a member with a session past"
                    + " group.max.session.timeout.ms would hold its partitions for ever, a leader who is no member"
                    + " would sync no one", why).isEqualTo(1);
            assertThat(groups.describe("good").state()).isEqualTo(GroupState.STABLE);
            assertThat(log.toString(StandardCharsets.UTF_8)).as("the record left out says why, so its members rejoin")
                    .contains("group 'bad'", why);
        });
    }

    @Test
    @PassesOnSkeleton("given code: a record that does not read brings no group back, and changes no state")
    void aRecordThatDoesNotReadIsLeftOutWithALine() {
        ClassicGroups groups = coordinator(1_000_000);
        groups.load(Map.of("g", new byte[] {0, 3, 0, 8}), now);
        assertThat(groups.groupCount()).as("a record that does not read brings no group back").isZero();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("metadata record does not read");
    }
}
