package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import kaenlog.groups.GroupActivity;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The given group coordinator ({@link ClassicGroups}) on a time the test moves, answer by answer as
 * Kafka's {@code GroupMetadataManager} gives them: KIP-394's MEMBER_ID_REQUIRED, the session
 * timeout bounds, generations, REBALANCE_IN_PROGRESS to heartbeats, a silent member removed after
 * its session timeout, ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID, and the bounds on members and
 * groups. Every change of state goes through task 7 (GroupStateTest). Runs after the tasks.
 */
@Order(13)
class ClassicGroupsTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 60_000;
    private static final long DELAY_MS = 3_000;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private long now = 1_000_000;

    private ClassicGroups coordinator(int maxSize, int maxGroups) {
        return new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, DELAY_MS, maxSize, maxGroups, 1_000_000), now,
                new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    private static List<ClassicGroups.Protocol> range() {
        return List.of(new ClassicGroups.Protocol("range", new byte[] {1, 2, 3}));
    }

    private CompletableFuture<ClassicGroups.JoinResult> join(ClassicGroups groups, String group, String memberId) {
        return groups.join(group, "client", memberId, SESSION_MS, REBALANCE_MS, "consumer", range(), true, now);
    }

    /** KIP-394's two steps: a member id first, then the join with it (parked until the join phase ends). */
    private String newMember(ClassicGroups groups, String group) {
        ClassicGroups.JoinResult first = done(join(groups, group, ""));
        assertThat(first.error()).as("a first JoinGroup (v4+) without a member id is answered MEMBER_ID_REQUIRED (79)"
                + " with the id to join with (KIP-394)").isEqualTo(KafkaErrors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).as("Kafka's member id: the client id, a dash, a UUID").matches(
                "client-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        return first.memberId();
    }

    /** The answer, which must be there already: the coordinator never blocks, a test's time decides. */
    private static <T> T done(CompletableFuture<T> answer) {
        assertThat(answer).as("answered by now (the coordinator answers a request, or parks it until a member or"
                + " the time completes it)").isDone();
        return answer.join();
    }

    private void advance(ClassicGroups groups, long ms) {
        now += ms;
        groups.tick(now);
    }

    @Test
    void aFirstJoinWaitsTheInitialRebalanceDelayThenTheLeaderGetsEveryMember() {
        ClassicGroups groups = coordinator(1000, 100);
        String a = newMember(groups, "g");
        assertThat(newMember(groups, "g")).as("two members never get the same id").isNotEqualTo(a);
        CompletableFuture<ClassicGroups.JoinResult> joined = join(groups, "g", a);
        assertThat(groups.describe("g").state()).as("a member joins an Empty group").isEqualTo(GroupState.PREPARING_REBALANCE);
        advance(groups, DELAY_MS - 1);
        assertThat(joined).as("an Empty group's first rebalance waits group.initial.rebalance.delay.ms (%d) for more"
                + " members", DELAY_MS).isNotDone();
        advance(groups, 10_000);
        ClassicGroups.JoinResult result = done(joined);
        assertThat(result.error()).isEqualTo(KafkaErrors.NONE);
        assertThat(result.generationId()).as("the first generation is 1").isEqualTo(1);
        assertThat(result.leader()).as("the only member leads").isEqualTo(a);
        assertThat(result.members()).as("the leader gets every member's metadata for the chosen protocol")
                .extracting(ClassicGroups.JoinedMember::memberId).containsExactly(a);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        CompletableFuture<ClassicGroups.SyncResult> sync = groups.sync("g", 1, a, Map.of(a, new byte[] {7}), now);
        assertThat(done(sync).assignment()).as("the leader's assignment comes back through SyncGroup")
                .containsExactly(7);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.STABLE);
    }

    @Test
    @PassesOnSkeleton("given code: requests the coordinator refuses or answers MEMBER_ID_REQUIRED, which change no state")
    void aSessionTimeoutOutsideTheBrokersBoundsIsRefused() {
        ClassicGroups groups = coordinator(1000, 100);
        for (int session : new int[] {5_999, 1_800_001}) {
            assertThat(done(groups.join("g", "c", "", session, REBALANCE_MS, "consumer", range(), true, now)).error())
                    .as("session.timeout.ms %d outside group.min.session.timeout.ms (6000) and"
                            + " group.max.session.timeout.ms (1800000): INVALID_SESSION_TIMEOUT (26)", session)
                    .isEqualTo(KafkaErrors.INVALID_SESSION_TIMEOUT);
        }
    }

    @Test
    void aSilentMemberIsRemovedAfterItsSessionTimeoutAndTheOthersAreToldToRejoin() {
        ClassicGroups groups = coordinator(1000, 100);
        String a = newMember(groups, "g");
        String b = newMember(groups, "g");
        CompletableFuture<ClassicGroups.JoinResult> ja = join(groups, "g", a);
        CompletableFuture<ClassicGroups.JoinResult> jb = join(groups, "g", b);
        advance(groups, DELAY_MS);
        assertThat(ja).as("b joined during the initial delay: the coordinator waits another"
                + " group.initial.rebalance.delay.ms (up to the rebalance timeout) for more").isNotDone();
        advance(groups, DELAY_MS);
        int generation = done(ja).generationId();
        assertThat(done(jb).generationId()).isEqualTo(generation);
        String leader = done(ja).leader();
        groups.sync("g", generation, b, Map.of(), now);
        groups.sync("g", generation, a, Map.of(), now);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.STABLE);
        for (int i = 0; i < 3; i++) {
            advance(groups, 3_000);
            assertThat(groups.heartbeat("g", generation, a, now)).as("a heartbeats every 3 s: NONE").isEqualTo(KafkaErrors.NONE);
        }
        assertThat(groups.describe("g").members()).as("9 s without b's heartbeat: within its session timeout").hasSize(2);
        advance(groups, 3_000);
        assertThat(groups.describe("g").members()).as("b sent no heartbeat for 12 s, more than its session timeout"
                + " of %d ms: removed", SESSION_MS).extracting(ClassicGroups.MemberView::memberId).containsExactly(a);
        assertThat(groups.describe("g").state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(groups.heartbeat("g", generation, a, now)).as("during PreparingRebalance a heartbeat is answered"
                + " REBALANCE_IN_PROGRESS (27): that is how a member learns to rejoin").isEqualTo(KafkaErrors.REBALANCE_IN_PROGRESS);
        assertThat(groups.heartbeat("g", generation, b, now)).as("the removed member's heartbeat: UNKNOWN_MEMBER_ID (25)")
                .isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        ClassicGroups.JoinResult rejoined = done(join(groups, "g", a));
        assertThat(rejoined.generationId()).as("every remaining member rejoined: the next generation at once")
                .isEqualTo(generation + 1);
        assertThat(rejoined.leader()).as("the leader stays the leader while it is a member, else another leads")
                .isEqualTo(a);
        assertThat(leader).isNotNull();
        assertThat(groups.heartbeat("g", generation, a, now)).as("a heartbeat of the old generation: ILLEGAL_GENERATION (22)")
                .isEqualTo(KafkaErrors.ILLEGAL_GENERATION);
        assertThat(done(groups.sync("g", generation, a, Map.of(), now)).error())
                .as("a SyncGroup of the old generation: ILLEGAL_GENERATION").isEqualTo(KafkaErrors.ILLEGAL_GENERATION);
    }

    @Test
    void commitsAreJudgedByGenerationAndMembership() {
        ClassicGroups groups = coordinator(1000, 100);
        assertThat(groups.validateCommit("nobody", -1, "", now)).as("a commit without a generation to a group with no"
                + " members (kcat's, an admin's, klog consume --group's) is written").isEqualTo(KafkaErrors.NONE);
        String a = newMember(groups, "g");
        CompletableFuture<ClassicGroups.JoinResult> ja = join(groups, "g", a);
        advance(groups, DELAY_MS);
        int generation = done(ja).generationId();
        assertThat(groups.validateCommit("g", generation, a, now)).as("a commit between the JoinGroup answer and the"
                + " SyncGroup answer (CompletingRebalance): REBALANCE_IN_PROGRESS").isEqualTo(KafkaErrors.REBALANCE_IN_PROGRESS);
        groups.sync("g", generation, a, Map.of(), now);
        assertThat(groups.validateCommit("g", generation, a, now)).as("the member's commit in its generation")
                .isEqualTo(KafkaErrors.NONE);
        assertThat(groups.validateCommit("g", generation - 1, a, now)).as("another generation: ILLEGAL_GENERATION")
                .isEqualTo(KafkaErrors.ILLEGAL_GENERATION);
        assertThat(groups.validateCommit("g", generation, "stranger", now)).as("not a member: UNKNOWN_MEMBER_ID")
                .isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.validateCommit("g", -1, "", now)).as("no generation while the group has members:"
                + " UNKNOWN_MEMBER_ID (a commit from outside would overwrite the members')").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
    }

    @Test
    @PassesOnSkeleton("given code: requests the coordinator refuses or answers MEMBER_ID_REQUIRED, which change no state")
    void membersPerGroupAndGroupsAreBounded() {
        ClassicGroups groups = coordinator(2, 3);
        newMember(groups, "g");
        newMember(groups, "g");
        assertThat(done(join(groups, "g", "")).error()).as("group.max.size 2: a third member (pending ids count):"
                + " GROUP_MAX_SIZE_REACHED (81)").isEqualTo(KafkaErrors.GROUP_MAX_SIZE_REACHED);
        newMember(groups, "h");
        newMember(groups, "i");
        assertThat(done(join(groups, "j", "")).error()).as("max.groups 3: a fourth group is refused,"
                + " COORDINATOR_NOT_AVAILABLE, so that a client naming a new group per request cannot fill the heap")
                .isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        assertThat(groups.groupCount()).isEqualTo(3);
    }

    @Test
    @PassesOnSkeleton("given code: requests the coordinator refuses or answers MEMBER_ID_REQUIRED, which change no state")
    void aPendingMemberIdThatIsNeverUsedExpires() {
        ClassicGroups groups = coordinator(1, 100);
        String a = newMember(groups, "g");
        advance(groups, SESSION_MS);
        assertThat(done(join(groups, "g", a)).error()).as("an id handed out with MEMBER_ID_REQUIRED must be used"
                + " within the session timeout; after it, UNKNOWN_MEMBER_ID").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(done(join(groups, "g", "")).error()).as("and its place in group.max.size is free again")
                .isEqualTo(KafkaErrors.MEMBER_ID_REQUIRED);
    }

    @Test
    void aLeavingMemberIsGoneAtOnceAndTheLastOneLeavesTheGroupEmptyThenGone() {
        ClassicGroups groups = coordinator(1000, 100);
        String a = newMember(groups, "g");
        CompletableFuture<ClassicGroups.JoinResult> ja = join(groups, "g", a);
        advance(groups, DELAY_MS);
        groups.sync("g", done(ja).generationId(), a, Map.of(), now);
        assertThat(groups.leave("g", a, now)).isEqualTo(KafkaErrors.NONE);
        assertThat(groups.describe("g").state()).as("the last member left: a rebalance of nobody ends at once, Empty,"
                + " and a group with no committed offset goes at once (GroupTransitions.removable): Dead, unknown")
                .isEqualTo(GroupState.DEAD);
        assertThat(groups.groupCount()).as("it holds no place under max.groups").isZero();
        assertThat(groups.heldBytes()).as("nor any byte under max.group.bytes").isZero();
        assertThat(groups.leave("g", a, now)).as("leaving twice: UNKNOWN_MEMBER_ID").isEqualTo(KafkaErrors.UNKNOWN_MEMBER_ID);
        assertThat(groups.describe("nobody").state()).as("DescribeGroups of an unknown group: Dead, Kafka's answer"
                + " before v6").isEqualTo(GroupState.DEAD);
    }

    @Test
    void aGroupWithCommittedOffsetsStaysEmptyItsOffsetsAgingFromThenAndGoesWhenTheyExpire() {
        AtomicBoolean hasOffsets = new AtomicBoolean(true);
        ClassicGroups groups = new ClassicGroups(new ClassicGroups.Limits(6_000, 1_800_000, DELAY_MS, 1000, 100,
                1_000_000), now, new PrintStream(log, true, StandardCharsets.UTF_8), group -> hasOffsets.get());
        assertThat(groups.activity("g")).as("a group the coordinator does not have: its offsets age by their commits")
                .isEqualTo(GroupActivity.STANDALONE);
        String a = newMember(groups, "g");
        CompletableFuture<ClassicGroups.JoinResult> ja = join(groups, "g", a);
        advance(groups, DELAY_MS);
        groups.sync("g", done(ja).generationId(), a, Map.of(), now);
        assertThat(groups.activity("g")).as("a group with members: its offsets do not expire")
                .isEqualTo(GroupActivity.ACTIVE);
        groups.leave("g", a, now);
        assertThat(groups.describe("g").state()).as("with committed offsets the emptied group stays, Empty")
                .isEqualTo(GroupState.EMPTY);
        assertThat(groups.describe("g").protocolType()).as("and keeps its protocol type, as Kafka does")
                .isEqualTo("consumer");
        assertThat(groups.activity("g")).as("its offsets age from the moment it became Empty (Kafka's"
                + " currentStateTimestamp)").isEqualTo(new GroupActivity.EmptySince(now));
        hasOffsets.set(false);
        groups.offsetsExpired("g", now);
        assertThat(groups.describe("g").state()).as("its last offset expired: an Empty group with nothing left goes")
                .isEqualTo(GroupState.DEAD);
    }

    @Test
    void aGroupThatHandedOutAMemberIdWaitsForItThenGoesWhenItExpires() {
        ClassicGroups groups = coordinator(1000, 100);
        newMember(groups, "g");
        assertThat(groups.describe("g").state()).as("a group that answered MEMBER_ID_REQUIRED waits for that member")
                .isEqualTo(GroupState.EMPTY);
        advance(groups, SESSION_MS);
        assertThat(groups.groupCount()).as("the id was not used within its session timeout: the group, Empty with"
                + " no one to come and no offsets, is gone (10,000 one-shot groups no longer fill max.groups)")
                .isZero();
    }

    @Test
    void aGroupIdCountsInWhatTheGroupsHold() {
        ClassicGroups groups = coordinator(1000, 100);
        assertThat(done(groups.join("g".repeat(600_000), "client", "", SESSION_MS, REBALANCE_MS, "consumer", range(),
                true, now)).error())
                .as("a 600,000-character group id is held in memory (two bytes a character, at most): it does not"
                        + " fit max.group.bytes (here 1,000,000), COORDINATOR_NOT_AVAILABLE")
                .isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        assertThat(groups.groupCount()).as("and no group was made of it").isZero();
        assertThat(done(join(groups, "g".repeat(1_000), "")).error()).isEqualTo(KafkaErrors.MEMBER_ID_REQUIRED);
        assertThat(groups.heldBytes()).as("a group's id and its member's id are counted")
                .isGreaterThan(2 * 1_000 + 2 * "client".length());
    }

    @Test
    void groupAndMemberIdsReachTheLogEscapedAndRefusalsRateLimited() {
        ClassicGroups groups = coordinator(1000, 1);
        newMember(groups, "first");
        for (int i = 0; i < 50; i++) {
            assertThat(done(join(groups, "g" + i + "\nFORGED\u001b[2J", "")).error())
                    .isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines.lines()).as("max.groups (1) refuses 50 new groups: one line per interval of broker time,"
                + " not 50, each group id quoted with its newline and ESC escaped").hasSize(1)
                .allMatch(l -> l.contains("'g0\\nFORGED\\u001b[2J'"));
    }

    @Test
    void theBytesAllGroupsHoldTogetherAreBounded() {
        ClassicGroups groups = coordinator(1000, 100);
        List<ClassicGroups.Protocol> huge = List.of(new ClassicGroups.Protocol("range", new byte[600_000]));
        String a = done(groups.join("g", "client", "", SESSION_MS, REBALANCE_MS, "consumer", huge, true, now)).memberId();
        groups.join("g", "client", a, SESSION_MS, REBALANCE_MS, "consumer", huge, true, now);
        assertThat(groups.heldBytes()).as("a member's subscription is held in memory").isGreaterThanOrEqualTo(600_000);
        assertThat(done(groups.join("h", "client", "", SESSION_MS, REBALANCE_MS, "consumer", huge, true, now)).error())
                .as("max.group.bytes (here 1,000,000): another 600,000 bytes of metadata do not fit,"
                        + " COORDINATOR_NOT_AVAILABLE").isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        assertThat(groups.leave("g", a, now)).isEqualTo(KafkaErrors.NONE);
        assertThat(groups.heldBytes()).as("a member that left holds nothing").isLessThan(600_000);
        assertThat(done(groups.join("h", "client", "", SESSION_MS, REBALANCE_MS, "consumer", huge, true, now)).error())
                .as("with the room freed, the join goes on").isEqualTo(KafkaErrors.MEMBER_ID_REQUIRED);
    }
}
