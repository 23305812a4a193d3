package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Static membership (KIP-345) in the given group coordinator ({@link ClassicGroups}), on a time the
 * test moves, answer by answer as Kafka 4.1.1's {@code GroupMetadataManager} gives them to a
 * JoinGroup before v9 ({@code updateStaticMemberThenRebalanceOrCompleteJoin},
 * {@code ClassicGroup.replaceStaticMember} and {@code validateMember}): a member with a
 * {@code group.instance.id} that comes back under a new member id takes its old place and
 * assignment, without a rebalance when the group is Stable; whoever still uses the old member id is
 * FENCED_INSTANCE_ID, on every request; only its session timeout removes a static member that never
 * comes back. Every change of state goes through task 7 (GroupStateTest). Runs after the tasks.
 */
@Order(13)
class StaticMembersTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 60_000;
    private static final long DELAY_MS = 3_000;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private long now = 1_000_000;
    private final ClassicGroups groups = new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, DELAY_MS, 1000,
            100, 1_000_000), now, new PrintStream(log, true, StandardCharsets.UTF_8));

    /** Protocols with the same metadata ({1, 2, 3}: the subscription), in the member's order of preference. */
    private static List<ClassicGroups.Protocol> protocols(String... names) {
        return java.util.Arrays.stream(names).map(n -> new ClassicGroups.Protocol(n, new byte[] {1, 2, 3})).toList();
    }

    private CompletableFuture<ClassicGroups.JoinResult> join(String memberId, String instanceId,
                                                             List<ClassicGroups.Protocol> protocols) {
        return groups.join(new ClassicGroups.JoinRequest("g", "client", memberId, instanceId, SESSION_MS, REBALANCE_MS,
                "consumer", protocols, true), now);
    }

    private CompletableFuture<ClassicGroups.JoinResult> join(String memberId, String instanceId) {
        return join(memberId, instanceId, protocols("range"));
    }

    private static <T> T done(CompletableFuture<T> answer) {
        assertThat(answer).as("answered by now (the coordinator answers a request, or parks it until a member or"
                + " the time completes it)").isDone();
        return answer.join();
    }

    private void advance(long ms) {
        now += ms;
        groups.tick(now);
    }

    /** Static members "a" and "b" of group g, Stable in generation 1, a leading; their member ids. */
    private record Pair(String a, String b) {
    }

    private Pair stablePair() {
        return stablePair(protocols("range"));
    }

    private Pair stablePair(List<ClassicGroups.Protocol> protocols) {
        CompletableFuture<ClassicGroups.JoinResult> ja = join("", "a", protocols);
        CompletableFuture<ClassicGroups.JoinResult> jb = join("", "b", protocols);
        advance(DELAY_MS);
        advance(DELAY_MS);
        String a = done(ja).memberId();
        String b = done(jb).memberId();
        assertThat(done(ja).leader()).as("the first member to join leads").isEqualTo(a);
        assertThat(done(groups.sync("g", 1, a, "a", Map.of(a, new byte[] {10}, b, new byte[] {20}), now)).error())
                .isEqualTo(KafkaErrors.NONE);
        assertThat(done(groups.sync("g", 1, b, "b", Map.of(), now)).assignment()).containsExactly(20);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.STABLE);
        return new Pair(a, b);
    }

    @Test
    void aStaticMemberJoinsWithoutMemberIdRequiredUnderAnIdMadeOfItsInstanceId() {
        CompletableFuture<ClassicGroups.JoinResult> joined = join("", "a");
        assertThat(joined).as("a JoinGroup (v5) with a group.instance.id is not answered MEMBER_ID_REQUIRED: the"
                + " instance id already tells a retry from a newcomer, so the member joins at once").isNotDone();
        advance(DELAY_MS);
        ClassicGroups.JoinResult result = done(joined);
        assertThat(result.error()).isEqualTo(KafkaErrors.NONE);
        assertThat(result.memberId()).as("Kafka names a static member by its instance id, a dash and a UUID")
                .matches("a-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(result.members()).as("the leader learns each member's instance id (the range assignor orders"
                + " static members by it)").extracting(ClassicGroups.JoinedMember::groupInstanceId).containsExactly("a");
        assertThat(groups.describe("g").members()).extracting(ClassicGroups.MemberView::groupInstanceId)
                .as("DescribeGroups shows it too").containsExactly("a");
    }

    @Test
    void aStaticMemberThatComesBackTakesItsPlaceAndAssignmentWithoutARebalance() {
        Pair pair = stablePair();
        ClassicGroups.JoinResult back = done(join("", "b"));
        assertThat(back.error()).as("b restarted and joins again with its instance id: answered at once").isEqualTo(
                KafkaErrors.NONE);
        assertThat(back.memberId()).as("under a new member id").isNotEqualTo(pair.b()).startsWith("b-");
        assertThat(back.generationId()).as("no rebalance: the generation stays 1").isEqualTo(1);
        assertThat(groups.describe("g").state()).as("a Stable group whose protocol the member does not change stays"
                + " Stable: no member is told to rejoin").isEqualTo(GroupState.STABLE);
        assertThat(groups.heartbeat("g", 1, pair.a(), "a", now)).as("a goes on as if nothing happened")
                .isEqualTo(KafkaErrors.NONE);
        assertThat(back.leader()).as("b is told the leader: a").isEqualTo(pair.a());
        ClassicGroups.SyncResult synced = done(groups.sync("g", 1, back.memberId(), "b", Map.of(), now));
        assertThat(synced.assignment()).as("b's SyncGroup gets the assignment its old id had").containsExactly(20);
        assertThat(groups.describe("g").members()).extracting(ClassicGroups.MemberView::memberId)
                .as("the group has a and the new b, not the old b").containsExactlyInAnyOrder(pair.a(), back.memberId());
    }

    @Test
    void aStaticLeaderThatComesBackIsToldTheLeaderAsItWasSoItSyncsAsAFollower() {
        Pair pair = stablePair();
        ClassicGroups.JoinResult back = done(join("", "a"));
        assertThat(back.generationId()).as("no rebalance for a returning leader either").isEqualTo(1);
        assertThat(back.leader()).as("before JoinGroup v9 a leader cannot be told to skip the assignment, so Kafka"
                + " names the leader as it was, the old id: the member does not see itself as the leader")
                .isEqualTo(pair.a()).isNotEqualTo(back.memberId());
        assertThat(back.members()).as("and gives it no members to assign to").isEmpty();
        assertThat(done(groups.sync("g", 1, back.memberId(), "a", Map.of(), now)).assignment())
                .as("its SyncGroup, a follower's, gets its old assignment").containsExactly(10);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.STABLE);
    }

    @Test
    void theOldMemberIdOfAReturnedStaticMemberIsFencedOnEveryRequest() {
        Pair pair = stablePair();
        String newB = done(join("", "b")).memberId();
        String old = pair.b();
        assertThat(groups.heartbeat("g", 1, old, "b", now)).as("the old process of b, still alive, heartbeats:"
                + " FENCED_INSTANCE_ID (82), fatal for its client").isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(done(groups.sync("g", 1, old, "b", Map.of(), now)).error()).as("its SyncGroup")
                .isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(groups.validateCommit("g", 1, old, "b", now)).as("its OffsetCommit: it may not overwrite the new"
                + " b's commits").isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(done(join(old, "b")).error()).as("its JoinGroup").isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(groups.leave("g", List.of(new ClassicGroups.Leaving(old, "b")), now).members())
                .as("its LeaveGroup (v3+ names the instance id): fenced, and the new b stays")
                .containsExactly(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(groups.heartbeat("g", 1, old, null, now)).as("without its instance id (Heartbeat before v3) the"
                + " old id is simply unknown").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.heartbeat("g", 1, newB, "b", now)).isEqualTo(KafkaErrors.NONE);
        assertThat(groups.heartbeat("g", 1, pair.a(), "b", now)).as("a member naming another's instance id is fenced")
                .isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(groups.heartbeat("g", 1, pair.a(), "nobody", now)).as("an instance id the group does not have")
                .isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.describe("g").state()).as("none of that moves the group").isEqualTo(GroupState.STABLE);
    }

    @Test
    void aStaticMemberThatComesBackWhileTheOldProcessWaitsFencesItsWaitingRequest() {
        Pair pair = stablePair();
        List<ClassicGroups.Protocol> newSubscription = List.of(new ClassicGroups.Protocol("range", new byte[] {4}));
        CompletableFuture<ClassicGroups.JoinResult> oldB = join(pair.b(), "b", newSubscription);
        assertThat(groups.describe("g").state()).as("b's subscription changed: a rebalance").isEqualTo(
                GroupState.PREPARING_REBALANCE);
        CompletableFuture<ClassicGroups.JoinResult> newB = join("", "b");
        assertThat(done(oldB).error()).as("the old b's JoinGroup, waiting for the join phase, is answered"
                + " FENCED_INSTANCE_ID at once when another process takes b's place").isEqualTo(
                KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(newB).as("during a rebalance the returning member joins it, and waits for a").isNotDone();
        ClassicGroups.JoinResult leader = done(join(pair.a(), "a"));
        assertThat(leader.generationId()).as("every member has rejoined: generation 2").isEqualTo(2);
        assertThat(leader.members()).as("the leader's members: a and the new b").extracting(
                ClassicGroups.JoinedMember::memberId).containsExactlyInAnyOrder(pair.a(), done(newB).memberId());
    }

    @Test
    void aStaticMemberThatComesBackAfterTheJoinPhaseStartsAnotherRebalance() {
        Pair pair = stablePair();
        CompletableFuture<ClassicGroups.JoinResult> aRejoins = join(pair.a(), "a");
        CompletableFuture<ClassicGroups.JoinResult> bRejoins = join(pair.b(), "b");
        assertThat(done(aRejoins).generationId()).isEqualTo(2);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        CompletableFuture<ClassicGroups.SyncResult> oldSync = groups.sync("g", 2, pair.b(), "b", Map.of(), now);
        assertThat(done(bRejoins).error()).isEqualTo(KafkaErrors.NONE);
        CompletableFuture<ClassicGroups.JoinResult> newB = join("", "b");
        assertThat(done(oldSync).error()).as("the old b's SyncGroup, waiting for the leader's, is fenced")
                .isEqualTo(KafkaErrors.FENCED_INSTANCE_ID);
        assertThat(groups.describe("g").state()).as("in CompletingRebalance the leader may be assigning to the old"
                + " member id: Kafka starts another rebalance").isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(newB).as("the new b waits for it").isNotDone();
    }

    @Test
    void aStaticMemberThatChangesTheGroupsProtocolStartsARebalance() {
        Pair pair = stablePair(protocols("range", "roundrobin"));
        CompletableFuture<ClassicGroups.JoinResult> back = join("", "a", protocols("roundrobin"));
        assertThat(back).as("a and b offered range and roundrobin, and chose range; the returning a offers only"
                + " roundrobin, which the vote would choose now: Kafka rebalances").isNotDone();
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(groups.heartbeat("g", 1, pair.b(), "b", now)).isEqualTo(KafkaErrors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void aStaticMemberThatNeverComesBackIsRemovedByItsSessionTimeoutNotByTheRebalanceTimeout() {
        Pair pair = stablePair();
        CompletableFuture<ClassicGroups.JoinResult> aRejoins = join(pair.a(), "a");
        for (int i = 0; i < 3; i++) {
            advance(3_000);
        }
        assertThat(aRejoins).as("b, stopped without a LeaveGroup (a static member sends none), has 9 s of its 10 s"
                + " session left: the join phase waits for it").isNotDone();
        advance(3_000);
        assertThat(done(aRejoins).members()).as("b sent no heartbeat for its session timeout: removed, and the"
                + " group goes on without it").extracting(ClassicGroups.JoinedMember::memberId)
                .containsExactly(pair.a());
        assertThat(join("", "b")).as("b's instance id is free again: b comes back as a new member, and waits for"
                + " a rebalance").isNotDone();
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.PREPARING_REBALANCE);
    }

    /** A JoinGroup with a 10-minute session and a 20-second rebalance timeout. */
    private CompletableFuture<ClassicGroups.JoinResult> joinLong(String memberId, String instanceId) {
        return groups.join(new ClassicGroups.JoinRequest("g", "client", memberId, instanceId, 600_000, 20_000,
                "consumer", protocols("range"), true), now);
    }

    @Test
    void aStaticMemberIsKeptAtTheRebalanceTimeoutButADynamicOneIsNot() {
        CompletableFuture<ClassicGroups.JoinResult> ja = joinLong("", "a");
        String c = done(joinLong("", null)).memberId();
        CompletableFuture<ClassicGroups.JoinResult> jc = joinLong(c, null);
        CompletableFuture<ClassicGroups.JoinResult> jb = joinLong("", "b");
        advance(DELAY_MS);
        advance(DELAY_MS);
        String a = done(ja).memberId();
        String b = done(jb).memberId();
        assertThat(done(jc).generationId()).isEqualTo(1);
        groups.sync("g", 1, a, "a", Map.of(), now);
        CompletableFuture<ClassicGroups.JoinResult> rejoin = joinLong(a, "a");
        advance(20_000);
        assertThat(done(rejoin).members()).as("the rebalance timeout (20 s) passed and only a rejoined: the dynamic"
                + " member c is out, the static member b stays in the next generation until its session timeout (10"
                + " minutes) says it is gone").extracting(ClassicGroups.JoinedMember::memberId).containsExactly(a, b);
    }

    @Test
    void anAdminRemovesAStaticMemberByItsInstanceIdAlone() {
        Pair pair = stablePair();
        ClassicGroups.LeaveResult left = groups.leave("g", List.of(new ClassicGroups.Leaving("", "b"),
                new ClassicGroups.Leaving("", "nobody")), now);
        assertThat(left.error()).isEqualTo(KafkaErrors.NONE);
        assertThat(left.members()).as("LeaveGroup v3 naming instance ids with the member id \"\" (AdminClient's"
                + " removeMembersFromConsumerGroup): b goes, an unknown instance id is UNKNOWN_MEMBER_ID")
                .containsExactly(KafkaErrors.NONE, KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.describe("g").members()).extracting(ClassicGroups.MemberView::memberId)
                .containsExactly(pair.a());
        assertThat(groups.describe("g").state()).as("a member left: the others rejoin").isEqualTo(
                GroupState.PREPARING_REBALANCE);
    }

    @Test
    void anInstanceIdCountsInWhatTheGroupsHold() {
        ClassicGroups small = new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, DELAY_MS, 1000, 100,
                200_000), now, new PrintStream(log, true, StandardCharsets.UTF_8));
        ClassicGroups.JoinResult refused = done(small.join(new ClassicGroups.JoinRequest("g", "client", "",
                "i".repeat(60_000), SESSION_MS, REBALANCE_MS, "consumer", protocols("range"), true), now));
        assertThat(refused.error()).as("a 60,000-character instance id is kept (in the member and in the group's"
                + " index of static members): it does not fit max.group.bytes (here 200,000)")
                .isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        small.join(new ClassicGroups.JoinRequest("g", "client", "", "i".repeat(20_000), SESSION_MS, REBALANCE_MS,
                "consumer", protocols("range"), true), now);
        assertThat(small.heldBytes()).as("a 20,000-character one fits, and is counted").isGreaterThan(4 * 20_000);
    }

    @Test
    @PassesOnSkeleton("given code: a request refused before it could change a group's state")
    void aPendingDynamicIdJoiningWithAnInstanceIdIsRefusedAsKafkaRefusesIt() {
        ClassicGroups.JoinResult first = done(join("", null));
        assertThat(first.error()).isEqualTo(KafkaErrors.MEMBER_ID_REQUIRED);
        assertThat(done(join(first.memberId(), "a")).error()).as("an id handed out to a dynamic member, used with an"
                + " instance id: Kafka's coordinator throws IllegalStateException, UNKNOWN_SERVER_ERROR for the"
                + " client").isEqualTo(KafkaErrors.UNKNOWN_SERVER_ERROR);
    }
}
