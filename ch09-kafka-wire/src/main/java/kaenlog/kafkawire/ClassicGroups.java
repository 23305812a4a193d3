package kaenlog.kafkawire;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import kaenlog.broker.LogText;
import kaenlog.broker.RateLimitedLog;
import kaenlog.broker.SocketServer;
import kaenlog.coordinator.GroupMembership;
import kaenlog.groups.GroupActivity;
import kaenlog.wire.MalformedMessageException;

/**
 * Kafka's classic group coordinator, in memory, on the broker's time: members join (JoinGroup),
 * the coordinator waits until every known member has rejoined or the rebalance timeout has passed,
 * bumps the generation, picks a leader and a protocol, hands the leader every member's metadata,
 * and the leader's SyncGroup brings the assignment back for everyone. A member that sends no
 * heartbeat for its session timeout is removed and the group rebalances. Every state change goes
 * through {@link GroupTransitions#next}. The rules and answers are Kafka's
 * ({@code GroupMetadataManager}'s classic part, {@code ClassicGroup}), static membership (KIP-345)
 * included: a member with a {@code group.instance.id} that comes back under a new member id takes
 * its old place and assignment, and a second one with the same instance id is fenced. What kaen-log
 * leaves out is in the chapter's guide (the sync timeout). Each generation's metadata is written to
 * the group's offsets partition as Kafka's {@code storeGroup} writes it ({@link Offsets#storeGroup},
 * {@link GroupMetadataValue}), and a coordinator that takes the partition over loads the groups back
 * ({@link #load}).
 *
 * <p>A group that only committed offsets (chapter 6's coordinator has them, {@link Offsets}) is
 * Empty, as Kafka's "simple" group is: it is listed, described, and may be deleted, though this
 * coordinator keeps nothing for it. What a client makes it keep is counted ({@link #heldBytes},
 * bounded by {@code max.group.bytes}): group ids, member, instance and client ids, protocol names
 * and metadata, assignments, the topics a generation subscribes to, the ids handed out with
 * MEMBER_ID_REQUIRED. A group that is Empty, with no id handed out still to come and no committed
 * offset, is removed at once ({@link GroupTransitions#removable}); chapter 6's coordinator asks it
 * how each group's offsets age ({@link GroupMembership}). Its log lines quote a client's strings
 * through {@link LogText} and are rate limited: a client can cause them at will.
 *
 * <p>No method blocks: a JoinGroup or SyncGroup that must wait is answered by a future, completed
 * by another member's request or by {@link #tick} when a deadline passes. Time is {@code nowMs},
 * the broker's.
 */
public final class ClassicGroups {
    /** The bounds, from the broker's configs ({@link GroupConfigKeys}). */
    public record Limits(long minSessionMs, long maxSessionMs, long initialRebalanceDelayMs, int maxSize,
                         int maxGroups, long maxHeldBytes) {
        static Limits of(Backend backend) {
            return new Limits(backend.brokerLong(GroupConfigKeys.MIN_SESSION_TIMEOUT_MS),
                    backend.brokerLong(GroupConfigKeys.MAX_SESSION_TIMEOUT_MS),
                    backend.brokerLong(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS),
                    (int) backend.brokerLong(GroupConfigKeys.MAX_SIZE),
                    (int) backend.brokerLong(GroupConfigKeys.MAX_GROUPS),
                    backend.brokerLong(GroupConfigKeys.MAX_HELD_BYTES));
        }
    }

    /** One protocol a member offers (for consumers: an assignor, "range" or "cooperative-sticky"). */
    public record Protocol(String name, byte[] metadata) {
    }

    /**
     * A JoinGroup request: {@code groupInstanceId} is null for a dynamic member (and before v5);
     * {@code requireKnownMemberId} from v4 (KIP-394).
     */
    public record JoinRequest(String groupId, String clientId, String memberId, String groupInstanceId, int sessionMs,
                              int rebalanceMs, String protocolType, List<Protocol> protocols,
                              boolean requireKnownMemberId) {
    }

    /** A member as the leader sees it in its JoinGroup answer (its instance id null for a dynamic one). */
    public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
    }

    /** A JoinGroup answer; {@code members} is filled for the leader only. */
    public record JoinResult(short error, int generationId, String protocolName, String leader, String memberId,
                             List<JoinedMember> members) {
        static JoinResult error(short error, String memberId) {
            return new JoinResult(error, -1, "", "", memberId, List.of());
        }
    }

    public record SyncResult(short error, byte[] assignment) {
    }

    /** A member as DescribeGroups shows it. */
    public record MemberView(String memberId, String groupInstanceId, String clientId, byte[] metadata,
                             byte[] assignment) {
    }

    /** A member a LeaveGroup names: by member id, or (v3+) by instance id with the member id "". */
    public record Leaving(String memberId, String groupInstanceId) {
    }

    /** LeaveGroup's answer: an error for the whole request, or one per member named (v3+ shows them all). */
    public record LeaveResult(short error, List<Short> members) {
    }

    /**
     * What the groups ask of the committed offsets (chapter 6's coordinator): whether a group has
     * any, which groups have any, and to delete a group's offsets of some partitions (null: all).
     */
    public interface Offsets {
        boolean has(String group);

        default Set<String> groups() {
            return Set.of();
        }

        /** Deletes them (a tombstone each); false when they could not be written. */
        default boolean delete(String group, Map<String, Set<Integer>> partitions) {
            return true;
        }

        /**
         * Appends {@code group}'s metadata record ({@link GroupMetadataValue}'s bytes; null: its tombstone)
         * to its offsets partition, in the order of the calls; the answer is Kafka's error code, once
         * it is written (in a cluster: replicated). Without an offsets log there is nothing to write.
         */
        default CompletableFuture<Short> storeGroup(String group, byte[] value) {
            return CompletableFuture.completedFuture(KafkaErrors.NONE);
        }

        /** The broker is going away: nothing more is stored. */
        default void close() {
        }
    }

    /** A group as DescribeGroups shows it. */
    public record GroupView(String groupId, GroupState state, String protocolType, String protocolName,
                            List<MemberView> members) {
    }

    /** A group as ListGroups shows it. */
    public record GroupListing(String groupId, String protocolType, GroupState state) {
    }

    /** OffsetDelete's answer: an error for the whole request, or one per topic named (for each of its partitions). */
    public record OffsetDeleteResult(short error, Map<String, Short> topics) {
    }

    private static final byte[] NOTHING = new byte[0];
    /** The protocol type of Kafka's consumers ({@code ConsumerProtocol.PROTOCOL_TYPE}). */
    static final String CONSUMER_PROTOCOL = "consumer";

    private static final class Member {
        final String id;
        /** KIP-345: the member's group.instance.id, null for a dynamic member. */
        final String instanceId;
        final String clientId;
        long sessionMs;
        long rebalanceMs;
        String protocolType;
        List<Protocol> protocols;
        long heartbeatDeadlineMs;
        CompletableFuture<JoinResult> join;
        CompletableFuture<SyncResult> sync;
        byte[] assignment = NOTHING;

        Member(String id, String instanceId, String clientId) {
            this.id = id;
            this.instanceId = instanceId;
            this.clientId = clientId;
        }

        byte[] metadata(String protocol) {
            return protocols.stream().filter(p -> p.name().equals(protocol)).map(Protocol::metadata).findFirst()
                    .orElse(NOTHING);
        }
    }

    private static final class Group {
        final String id;
        GroupState state = GroupState.EMPTY;
        int generation;
        String protocolType;
        String protocolName;
        String leader;
        final Map<String, Member> members = new LinkedHashMap<>();
        /** KIP-345: each static member's instance id, to its member id now. */
        final Map<String, String> staticMembers = new HashMap<>();
        /**
         * The topics this generation's members subscribe to (consumer protocol), Kafka's
         * {@code subscribedTopics}: null when not known (another protocol, or metadata it cannot read).
         */
        Set<String> subscribedTopics;
        /** KIP-394: ids handed out with MEMBER_ID_REQUIRED, each with the time it must rejoin by. */
        final Map<String, Long> pending = new LinkedHashMap<>();
        long joinDeadlineMs = -1;
        boolean initialDelay;
        long initialDelayRemainingMs;
        boolean joinedDuringDelay;
        /** What this group holds in memory, an estimate ({@link #bytesOf(Group)}). */
        long heldBytes;
        /** When it entered its state (Kafka's currentStateTimestamp): for an Empty group, since when it is. */
        long stateSinceMs;
        /** Whether a metadata record of it is in the offsets log (written, or loaded): its removal leaves a tombstone. */
        boolean stored;

        Group(String id) {
            this.id = id;
        }

        boolean allJoined() {
            return pending.isEmpty() && members.values().stream().allMatch(m -> m.join != null);
        }
    }

    /** What a group costs beyond its strings and bytes (its objects and maps), an estimate. */
    static final long GROUP_OVERHEAD_BYTES = 256;
    /** What a member or an id handed out costs beyond its strings and bytes, an estimate. */
    static final long MEMBER_OVERHEAD_BYTES = 256;

    private final Limits limits;
    private final PrintStream log;
    /** Lines a client can cause at will: one per kind per interval of the broker's time. */
    private final RateLimitedLog troubles;
    private final Offsets offsets;
    private final long startMs;
    private final Map<String, Group> groups = new TreeMap<>();
    private long membersIssued;
    /** The broker time of the last {@link #tick}. */
    private long lastTickMs = Long.MIN_VALUE;
    /** The bytes every group holds together, bounded by {@link Limits#maxHeldBytes}. */
    private long heldBytes;

    /** {@code startMs} (the broker's time at start) makes member ids unique across restarts: it never goes back. */
    public ClassicGroups(Limits limits, long startMs, PrintStream log) {
        this(limits, startMs, log, group -> false);
    }

    /**
     * The same, with chapter 6's committed {@code offsets}: whether a group has any (a lambda says
     * just that), which groups have any, and their deletion.
     */
    public ClassicGroups(Limits limits, long startMs, PrintStream log, Offsets offsets) {
        this.limits = limits;
        this.startMs = startMs;
        this.log = log;
        this.troubles = new RateLimitedLog(log, SocketServer.TROUBLE_LOG_INTERVAL_MS);
        this.offsets = offsets;
    }

    public Limits limits() {
        return limits;
    }

    /**
     * Kafka's member id: the instance id of a static member, else the client id, a dash and a random
     * UUID. Here the UUID is derived (a name-based UUID of the broker's start time and a counter), so
     * a run is repeatable and no randomness enters the chapter: what matters is that no two members
     * get the same id.
     */
    private String newMemberId(String clientId, String instanceId) {
        membersIssued++;
        UUID uuid = UUID.nameUUIDFromBytes(("kaen-log member " + startMs + " " + membersIssued)
                .getBytes(StandardCharsets.UTF_8));
        return (instanceId != null ? instanceId : clientId == null ? "" : clientId) + "-" + uuid;
    }

    private void move(Group group, GroupState.Event event, long nowMs) {
        GroupState next = GroupTransitions.next(group.state, event);
        if (next != group.state) {
            group.stateSinceMs = nowMs;
        }
        group.state = next;
    }

    /** A dynamic member's JoinGroup (no group.instance.id). */
    public CompletableFuture<JoinResult> join(String groupId, String clientId, String memberId, int sessionMs,
                                              int rebalanceMs, String protocolType, List<Protocol> protocols,
                                              boolean requireKnownMemberId, long nowMs) {
        return join(new JoinRequest(groupId, clientId, memberId, null, sessionMs, rebalanceMs, protocolType, protocols,
                requireKnownMemberId), nowMs);
    }

    public synchronized CompletableFuture<JoinResult> join(JoinRequest request, long nowMs) {
        tick(nowMs);
        String groupId = request.groupId();
        // a new group's id, and a member's (or a handed-out) id, instance and client id, protocols: all held
        long incoming = (groups.containsKey(groupId) ? 0 : GROUP_OVERHEAD_BYTES + chars(groupId))
                + MEMBER_OVERHEAD_BYTES + 2 * chars(request.clientId()) + 2 * chars(request.groupInstanceId())
                + chars(request.memberId()) + 2 * 37 + chars(request.protocolType()) + bytes(request.protocols());
        if (heldBytes + incoming > limits.maxHeldBytes()) {
            troubles.println("group-bytes", "kafka: a JoinGroup of group " + LogText.quote(groupId) + " refused: the"
                    + " groups hold " + heldBytes + " bytes already (" + GroupConfigKeys.MAX_HELD_BYTES + ")", nowMs);
            return done(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, request.memberId()));
        }
        CompletableFuture<JoinResult> answer = doJoin(request, nowMs);
        settle(groups.get(groupId), nowMs);
        return answer;
    }

    /** A string's share of the heap, at most: two bytes a character. */
    private static long chars(String s) {
        return s == null ? 0 : 2L * s.length();
    }

    private static long bytes(List<Protocol> protocols) {
        return protocols.stream().mapToLong(p -> chars(p.name()) + p.metadata().length).sum();
    }

    private static long bytesOf(Member m) {
        // an instance id is held twice: the member's, and the group's index of static members
        return MEMBER_OVERHEAD_BYTES + chars(m.id) + 2 * chars(m.instanceId) + chars(m.clientId) + chars(m.protocolType)
                + bytes(m.protocols) + m.assignment.length;
    }

    /** What {@code group} holds: its id and protocol, its members, the ids handed out (an estimate). */
    private static long bytesOf(Group group) {
        long bytes = GROUP_OVERHEAD_BYTES + chars(group.id) + chars(group.protocolType) + chars(group.protocolName);
        if (group.subscribedTopics != null) {
            bytes += group.subscribedTopics.stream().mapToLong(topic -> 32 + chars(topic)).sum();
        }
        for (Member m : group.members.values()) {
            bytes += bytesOf(m);
        }
        for (String pending : group.pending.keySet()) {
            bytes += MEMBER_OVERHEAD_BYTES + chars(pending);
        }
        return bytes;
    }

    /**
     * After a change to {@code group}: {@link #heldBytes} brought up to date, and the group removed
     * when {@link GroupTransitions#removable} says it goes (Empty, no id handed out still to come,
     * no committed offset): Dead, then forgotten, with all it held.
     */
    private void settle(Group group, long nowMs) {
        if (group == null || groups.get(group.id) != group) {
            return;
        }
        long now = bytesOf(group);
        heldBytes += now - group.heldBytes;
        group.heldBytes = now;
        if (GroupTransitions.removable(group.state, group.pending.size(), offsets.has(group.id))) {
            tombstone(group);
            forget(group, nowMs);
        }
    }

    /**
     * The group goes for good (deleted, or Empty with no offsets left): its metadata record's tombstone,
     * if it had one (Kafka's {@code cleanupGroupMetadata} and {@code deleteGroups} write it), so that the
     * next coordinator does not bring it back. A group only unloaded leaves none: another broker has it.
     */
    private void tombstone(Group group) {
        if (group.stored) {
            group.stored = false;
            offsets.storeGroup(group.id, null);
        }
    }

    /**
     * The record of {@code group} Kafka's {@code storeGroup} writes: its protocol, generation, leader and
     * when it entered its state, and each member with its metadata for the group's protocol and the
     * assignment {@code assignmentOf} gives it (the one on its way, at the leader's SyncGroup).
     */
    private static byte[] metadataOf(Group group, Map<String, byte[]> assignmentOf) {
        List<GroupMetadataValue.Member> members = new ArrayList<>();
        for (Member m : group.members.values()) {
            members.add(new GroupMetadataValue.Member(m.id, m.instanceId, m.clientId == null ? "" : m.clientId, "",
                    (int) m.rebalanceMs, (int) m.sessionMs, m.metadata(group.protocolName),
                    assignmentOf.getOrDefault(m.id, NOTHING)));
        }
        return new GroupMetadataValue(group.protocolType == null ? "" : group.protocolType, group.generation,
                group.protocolName, group.leader, group.stateSinceMs, members).encode();
    }

    /** Dead, then forgotten, with all it held. */
    private void forget(Group group, long nowMs) {
        move(group, GroupState.Event.GROUP_REMOVED, nowMs);
        groups.remove(group.id);
        heldBytes -= group.heldBytes;
    }

    private CompletableFuture<JoinResult> doJoin(JoinRequest request, long nowMs) {
        String memberId = request.memberId();
        short refused = refusal(request);
        if (refused != KafkaErrors.NONE) {
            return done(JoinResult.error(refused, memberId));
        }
        Group group = groups.get(request.groupId());
        if (group == null) {
            refused = memberId.isEmpty() ? roomForANewGroup(request.groupId(), nowMs) : KafkaErrors.UNKNOWN_MEMBER_ID;
            if (refused != KafkaErrors.NONE) {
                return done(JoinResult.error(refused, memberId));
            }
            group = new Group(request.groupId());
            group.stateSinceMs = nowMs;
            groups.put(group.id, group);
        }
        if (group.state == GroupState.DEAD) {
            return done(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, memberId));
        }
        if (!supportsProtocols(group, memberId, request.protocolType(), request.protocols())) {
            return done(JoinResult.error(KafkaErrors.INCONSISTENT_GROUP_PROTOCOL, memberId));
        }
        if (memberId.isEmpty()) {
            return joinNew(group, request, nowMs);
        }
        if (group.pending.containsKey(memberId)) {
            return joinPending(group, request, nowMs);
        }
        short known = checkMember(group, memberId, request.groupInstanceId());
        if (known != KafkaErrors.NONE) {
            return done(JoinResult.error(known, memberId));
        }
        return rejoin(group, group.members.get(memberId), request, nowMs);
    }

    /** What a JoinGroup is refused for before its group is looked at: NONE when nothing. */
    private short refusal(JoinRequest request) {
        if (request.groupId().isEmpty()) {
            return KafkaErrors.INVALID_GROUP_ID;
        }
        if (request.sessionMs() < limits.minSessionMs() || request.sessionMs() > limits.maxSessionMs()) {
            // group.min.session.timeout.ms bounds how fast failures are detected (and how often members
            // heartbeat); group.max.session.timeout.ms how long a dead member may hold its partitions.
            return KafkaErrors.INVALID_SESSION_TIMEOUT;
        }
        return KafkaErrors.NONE;
    }

    /** NONE when one more group fits under max.groups; else the refusal, logged. */
    private short roomForANewGroup(String groupId, long nowMs) {
        if (groups.size() < limits.maxGroups()) {
            return KafkaErrors.NONE;
        }
        troubles.println("max-groups", "kafka: group " + LogText.quote(groupId) + " refused: " + groups.size()
                + " groups already (" + GroupConfigKeys.MAX_GROUPS + ")", nowMs);
        return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
    }

    /** The second JoinGroup of a member that was handed its id (KIP-394): it joins now. */
    private CompletableFuture<JoinResult> joinPending(Group group, JoinRequest request, long nowMs) {
        if (request.groupInstanceId() != null) {
            // a pending id was handed to a dynamic member: Kafka's coordinator throws an
            // IllegalStateException here, which its client reads as UNKNOWN_SERVER_ERROR
            return done(JoinResult.error(KafkaErrors.UNKNOWN_SERVER_ERROR, request.memberId()));
        }
        group.pending.remove(request.memberId());
        return addAndRebalance(group, newMember(request.memberId(), request), nowMs);
    }

    /** A known member joins again: it waits for the rebalance under way, gets its answer again, or starts one. */
    private CompletableFuture<JoinResult> rejoin(Group group, Member member, JoinRequest request, long nowMs) {
        boolean sameMetadata = sameProtocols(member.protocols, request.protocols());
        member.sessionMs = request.sessionMs();
        member.rebalanceMs = request.rebalanceMs();
        member.protocols = request.protocols();
        switch (group.state) {
            case PREPARING_REBALANCE -> {
                CompletableFuture<JoinResult> answer = park(member);
                maybeCompleteJoin(group, nowMs);
                return answer;
            }
            case COMPLETING_REBALANCE, STABLE -> {
                // A follower that lost its JoinGroup answer gets it again; the leader, or a member whose
                // subscription changed, starts a new rebalance.
                if (sameMetadata && !(group.state == GroupState.STABLE && member.id.equals(group.leader))) {
                    return done(joinResult(group, member));
                }
                CompletableFuture<JoinResult> answer = park(member);
                prepareRebalance(group, GroupState.Event.MEMBER_JOINS, nowMs);
                return answer;
            }
            default -> {
                return done(JoinResult.error(KafkaErrors.UNKNOWN_MEMBER_ID, member.id));
            }
        }
    }

    /** A JoinGroup without a member id: a new dynamic member, a new static one, or a static one back. */
    private CompletableFuture<JoinResult> joinNew(Group group, JoinRequest request, long nowMs) {
        if (group.members.size() + group.pending.size() >= limits.maxSize()) {
            return done(JoinResult.error(KafkaErrors.GROUP_MAX_SIZE_REACHED, ""));
        }
        String instanceId = request.groupInstanceId();
        String newId = newMemberId(request.clientId(), instanceId);
        if (instanceId != null) {
            String oldId = group.staticMembers.get(instanceId);
            if (oldId != null) {
                return rejoinStatic(group, oldId, newId, request, nowMs);
            }
            // a static member needs no MEMBER_ID_REQUIRED: its instance id already tells a retry from a newcomer
            return addAndRebalance(group, newMember(newId, request), nowMs);
        }
        if (request.requireKnownMemberId()) {
            // KIP-394 (JoinGroup v4+): the id is handed out first and the member joins with it, so a
            // client that retries its first JoinGroup does not leave a stray member behind.
            group.pending.put(newId, nowMs + request.sessionMs());
            return done(JoinResult.error(KafkaErrors.MEMBER_ID_REQUIRED, newId));
        }
        return addAndRebalance(group, newMember(newId, request), nowMs);
    }

    /**
     * KIP-345: a static member comes back (a restarted process) under a new member id and takes the
     * old one's place, its assignment with it; whoever still used the old id is fenced
     * (FENCED_INSTANCE_ID). In a Stable group whose protocol it does not change that is all: no
     * rebalance, the member is answered at once with the current generation and syncs to get its
     * assignment back. It is told the leader as it was before ({@code GroupMetadataManager
     * .updateStaticMemberThenRebalanceOrCompleteJoin}): a JoinGroup before v9 cannot tell a leader
     * to skip the assignment, so a returning leader learns it leads no longer and syncs as a
     * follower. While the group rebalances it joins that rebalance; after the join phase
     * (CompletingRebalance) it starts a new one, since the leader may be assigning to its old id.
     *
     * <p>In the Stable group the answer waits until the group's record naming the new id is written
     * (Kafka's {@code updateStaticMemberAndRebalance} answers in {@code storeGroup}'s callback,
     * {@link #staticMemberStored}), so a client that rejoins again and again under the same instance id
     * goes at the log's pace on each connection (one request at a time); the store queue's bound
     * ({@link GroupStoreQueue}) does the rest, since each rejoin fences the one before at once.
     */
    private CompletableFuture<JoinResult> rejoinStatic(Group group, String oldId, String newId, JoinRequest request,
                                                       long nowMs) {
        Member old = group.members.get(oldId);
        StaticBefore before = new StaticBefore(oldId, old.protocols, old.sessionMs, old.rebalanceMs, group.leader,
                group.generation);
        Member member = replaceStatic(group, oldId, newId);
        member.sessionMs = request.sessionMs();
        member.rebalanceMs = request.rebalanceMs();
        member.protocols = request.protocols();
        member.heartbeatDeadlineMs = nowMs + member.sessionMs;
        if (group.state == GroupState.STABLE && selectProtocol(group).equals(group.protocolName)) {
            // the record names the static member's new id (Kafka's updateStaticMemberAndRebalance stores the
            // group), or the next coordinator would fence it as an older process of itself
            Map<String, byte[]> assignments = new HashMap<>();
            group.members.values().forEach(m -> assignments.put(m.id, m.assignment));
            group.stored = true;
            CompletableFuture<JoinResult> answer = park(member); // waiting, it is not silent: no session expiry
            offsets.storeGroup(group.id, metadataOf(group, assignments))
                    .thenAccept(error -> staticMemberStored(group, member, answer, before, error, nowMs));
            return answer;
        }
        CompletableFuture<JoinResult> answer = park(member);
        if (group.state == GroupState.PREPARING_REBALANCE) {
            maybeCompleteJoin(group, nowMs);
        } else {
            prepareRebalance(group, GroupState.Event.MEMBER_JOINS, nowMs);
        }
        return answer;
    }

    /** What a static member was before it came back under a new id, and its group then: what a failed store restores. */
    private record StaticBefore(String memberId, List<Protocol> protocols, long sessionMs, long rebalanceMs,
                                String leader, int generation) {
    }

    /**
     * The record naming a returning static member's new id is written, or could not be (Kafka's
     * {@code storeGroup} callback in {@code updateStaticMemberAndRebalance}), on the store's thread: written,
     * the member is answered with the current generation under its new id; not written, the replacement is
     * reverted (the old member id is the instance id's again, with its protocols, timeouts and a session
     * from now), so that this coordinator and the offsets log agree, and the JoinGroup is answered the error
     * with no member id. A member answered meanwhile (fenced by the next process of it, removed, unloaded,
     * or joined again) was answered already; one whose group rebalances meanwhile is answered by that
     * rebalance, whose SyncGroup stores the group again.
     */
    private synchronized void staticMemberStored(Group group, Member member, CompletableFuture<JoinResult> answer,
                                                 StaticBefore before, short error, long requestMs) {
        if (groups.get(group.id) != group || group.members.get(member.id) != member || member.join != answer
                || group.state != GroupState.STABLE || group.generation != before.generation()) {
            return;
        }
        long nowMs = Math.max(requestMs, lastTickMs); // the broker's time as this coordinator last saw it
        member.join = null;
        if (error == KafkaErrors.NONE) {
            member.heartbeatDeadlineMs = nowMs + member.sessionMs;
            answer.complete(new JoinResult(KafkaErrors.NONE, group.generation, group.protocolName, before.leader(),
                    member.id, List.of()));
            return;
        }
        Member old = replaceStatic(group, member.id, before.memberId());
        old.protocols = before.protocols();
        old.sessionMs = before.sessionMs();
        old.rebalanceMs = before.rebalanceMs();
        old.heartbeatDeadlineMs = nowMs + old.sessionMs;
        troubles.println("group-store", "kafka: group " + LogText.quote(group.id) + ": static member "
                + LogText.quote(old.instanceId) + "'s new member id was not stored (error " + error + "): it keeps its"
                + " old one, and its JoinGroup is answered the error", nowMs);
        answer.complete(new JoinResult(error, group.generation, group.protocolName, before.leader(), "", List.of()));
        settle(group, nowMs);
    }

    /** The static member {@code oldId} is {@code newId} from now on (Kafka's ClassicGroup.replaceStaticMember). */
    private static Member replaceStatic(Group group, String oldId, String newId) {
        Member old = group.members.remove(oldId);
        if (old.join != null) {
            old.join.complete(JoinResult.error(KafkaErrors.FENCED_INSTANCE_ID, oldId));
        }
        if (old.sync != null) {
            old.sync.complete(new SyncResult(KafkaErrors.FENCED_INSTANCE_ID, NOTHING));
        }
        Member member = new Member(newId, old.instanceId, old.clientId);
        member.protocolType = old.protocolType;
        member.assignment = old.assignment;
        group.members.put(newId, member);
        if (oldId.equals(group.leader)) {
            group.leader = newId;
        }
        group.staticMembers.put(old.instanceId, newId);
        return member;
    }

    /**
     * Kafka's {@code ClassicGroup.validateMember}: a request that names an instance id must come from
     * the member id that instance id has now (another one is FENCED_INSTANCE_ID: an older process of
     * the same static member), and the member must be in the group (UNKNOWN_MEMBER_ID).
     */
    private static short checkMember(Group group, String memberId, String instanceId) {
        if (instanceId != null) {
            String current = group.staticMembers.get(instanceId);
            if (current == null) {
                return KafkaErrors.UNKNOWN_MEMBER_ID;
            }
            if (!current.equals(memberId)) {
                return KafkaErrors.FENCED_INSTANCE_ID;
            }
        }
        return group.members.containsKey(memberId) ? KafkaErrors.NONE : KafkaErrors.UNKNOWN_MEMBER_ID;
    }

    private static Member newMember(String id, JoinRequest request) {
        Member member = new Member(id, request.groupInstanceId(), request.clientId());
        member.sessionMs = request.sessionMs();
        member.rebalanceMs = request.rebalanceMs();
        member.protocolType = request.protocolType();
        member.protocols = request.protocols();
        return member;
    }

    private CompletableFuture<JoinResult> addAndRebalance(Group group, Member member, long nowMs) {
        group.members.put(member.id, member);
        if (member.instanceId != null) {
            group.staticMembers.put(member.instanceId, member.id);
        }
        CompletableFuture<JoinResult> answer = park(member);
        if (group.state == GroupState.PREPARING_REBALANCE) {
            group.joinedDuringDelay = true;
            maybeCompleteJoin(group, nowMs);
        } else {
            prepareRebalance(group, GroupState.Event.MEMBER_JOINS, nowMs);
        }
        return answer;
    }

    private static CompletableFuture<JoinResult> park(Member member) {
        if (member.join != null) {
            // the same member asked again (its first request's connection is likely gone): the newer one waits
            member.join.complete(JoinResult.error(KafkaErrors.REBALANCE_IN_PROGRESS, member.id));
        }
        member.join = new CompletableFuture<>();
        return member.join;
    }

    /**
     * Into PreparingRebalance: every member must rejoin. An Empty group waits
     * {@code group.initial.rebalance.delay.ms} first (and again, up to the rebalance timeout, while
     * members keep arriving), so that consumers started together get one rebalance, not one each.
     */
    private void prepareRebalance(Group group, GroupState.Event event, long nowMs) {
        if (group.state == GroupState.COMPLETING_REBALANCE) {
            for (Member m : group.members.values()) {
                m.assignment = NOTHING;
                if (m.sync != null) {
                    m.sync.complete(new SyncResult(KafkaErrors.REBALANCE_IN_PROGRESS, NOTHING));
                    m.sync = null;
                }
            }
        }
        boolean wasEmpty = group.state == GroupState.EMPTY;
        move(group, event, nowMs);
        long rebalanceMs = group.members.values().stream().mapToLong(m -> m.rebalanceMs).max().orElse(0);
        if (wasEmpty) {
            long delay = Math.min(limits.initialRebalanceDelayMs(), rebalanceMs);
            group.initialDelay = true;
            group.joinedDuringDelay = false;
            group.initialDelayRemainingMs = rebalanceMs - delay;
            group.joinDeadlineMs = nowMs + delay;
        } else {
            group.initialDelay = false;
            group.joinDeadlineMs = nowMs + rebalanceMs;
        }
        maybeCompleteJoin(group, nowMs);
    }

    private void maybeCompleteJoin(Group group, long nowMs) {
        if (group.state != GroupState.PREPARING_REBALANCE) {
            return;
        }
        if (!group.initialDelay && group.allJoined()) {
            completeJoin(group, nowMs);
        } else if (nowMs >= group.joinDeadlineMs) {
            joinDeadlinePassed(group, nowMs);
        }
    }

    private void joinDeadlinePassed(Group group, long nowMs) {
        if (group.initialDelay && group.joinedDuringDelay && group.initialDelayRemainingMs > 0) {
            long delay = Math.min(limits.initialRebalanceDelayMs(), group.initialDelayRemainingMs);
            group.initialDelayRemainingMs -= delay;
            group.joinedDuringDelay = false;
            group.joinDeadlineMs = nowMs + delay;
            return;
        }
        // the rebalance timeout: a dynamic member that has not rejoined is out of the group; a static one
        // stays (a restarting process keeps its place until its session timeout says it is gone)
        group.members.values().removeIf(m -> {
            if (m.join != null || m.instanceId != null) {
                return false;
            }
            if (m.id.equals(group.leader)) {
                group.leader = null;
            }
            return true;
        });
        group.pending.clear();
        if (!electJoinedLeader(group)) {
            // only static members are left and none rejoined: wait another rebalance timeout, for them or
            // for their session timeouts (Kafka's completeClassicGroupJoin)
            group.joinDeadlineMs = nowMs + group.members.values().stream().mapToLong(m -> m.rebalanceMs).max()
                    .orElse(0);
            return;
        }
        completeJoin(group, nowMs);
    }

    /**
     * Kafka's {@code maybeElectNewJoinedLeader}: a leader that did not rejoin hands over to the first
     * member that did. False when members are left and none of them rejoined.
     */
    private static boolean electJoinedLeader(Group group) {
        Member leader = group.leader == null ? null : group.members.get(group.leader);
        if (leader != null && leader.join != null) {
            return true;
        }
        for (Member m : group.members.values()) {
            if (m.join != null) {
                group.leader = m.id;
                return true;
            }
        }
        return group.members.isEmpty();
    }

    /** The join phase ends: a new generation, its leader and protocol; every waiting member is answered. */
    private void completeJoin(Group group, long nowMs) {
        group.initialDelay = false;
        group.joinDeadlineMs = -1;
        group.generation++;
        if (group.members.isEmpty()) {
            // Kafka keeps the protocol type: an Empty group that had members ages its offsets from now on
            group.protocolName = null;
            group.leader = null;
            group.subscribedTopics = subscribedTopics(group);
            move(group, GroupState.Event.JOIN_PHASE_ENDS_EMPTY, nowMs);
            // Kafka's onCompleteJoin stores an Empty group: the next coordinator ages its offsets from now on
            group.stored = true;
            offsets.storeGroup(group.id, metadataOf(group, Map.of()));
            return;
        }
        Member first = group.members.values().iterator().next();
        group.protocolType = first.protocolType;
        group.protocolName = selectProtocol(group);
        group.subscribedTopics = subscribedTopics(group);
        if (group.leader == null || !group.members.containsKey(group.leader)) {
            group.leader = first.id;
        }
        move(group, GroupState.Event.JOIN_PHASE_ENDS, nowMs);
        for (Member m : group.members.values()) {
            m.heartbeatDeadlineMs = nowMs + m.sessionMs;
            if (m.join != null) {
                m.join.complete(joinResult(group, m));
                m.join = null;
            }
        }
    }

    private JoinResult joinResult(Group group, Member member) {
        List<JoinedMember> members = new ArrayList<>();
        if (member.id.equals(group.leader)) {
            for (Member m : group.members.values()) {
                members.add(new JoinedMember(m.id, m.instanceId, m.metadata(group.protocolName)));
            }
        }
        return new JoinResult(KafkaErrors.NONE, group.generation, group.protocolName, group.leader, member.id,
                members);
    }

    /**
     * The topics the members subscribe to, read from their metadata for the group's protocol: a
     * consumer's subscription starts with a version (int16) and its topics, in every version of the
     * consumer protocol (Kafka's {@code ClassicGroup.computeSubscribedTopics} reads only that v0
     * prefix). Null when not known: not the consumer protocol, or metadata that does not read.
     */
    private static Set<String> subscribedTopics(Group group) {
        if (!CONSUMER_PROTOCOL.equals(group.protocolType)) {
            return null;
        }
        Set<String> topics = new TreeSet<>();
        try {
            for (Member m : group.members.values()) {
                KafkaReader in = new KafkaReader(m.metadata(group.protocolName));
                if (in.int16("version") < 0) {
                    return null;
                }
                int count = in.arrayLength("topics");
                for (int i = 0; i < count; i++) {
                    topics.add(in.string("topics"));
                }
                in.nullableBytes("user_data");
            }
        } catch (MalformedMessageException unreadable) {
            return null;
        }
        return topics;
    }

    /** Kafka's vote: among the protocols every member offers, each member votes for its first; the most votes win. */
    private static String selectProtocol(Group group) {
        Set<String> candidates = null;
        for (Member m : group.members.values()) {
            Set<String> names = m.protocols.stream().map(Protocol::name).collect(Collectors.toSet());
            if (candidates == null) {
                candidates = new java.util.LinkedHashSet<>(names);
            } else {
                candidates.retainAll(names);
            }
        }
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (Member m : group.members.values()) {
            for (Protocol p : m.protocols) {
                if (candidates.contains(p.name())) {
                    votes.merge(p.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }

    /** Kafka's rule: the group's protocol type, and at least one protocol every other member offers too. */
    private static boolean supportsProtocols(Group group, String memberId, String protocolType,
                                             List<Protocol> protocols) {
        if (protocolType.isEmpty() || protocols.isEmpty()) {
            return false;
        }
        List<Member> others = group.members.values().stream().filter(m -> !m.id.equals(memberId)).toList();
        if (others.isEmpty()) {
            return true;
        }
        if (!protocolType.equals(others.get(0).protocolType)) {
            return false;
        }
        return protocols.stream().anyMatch(p -> others.stream()
                .allMatch(m -> m.protocols.stream().anyMatch(q -> q.name().equals(p.name()))));
    }

    private static boolean sameProtocols(List<Protocol> a, List<Protocol> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).name().equals(b.get(i).name()) || !Arrays.equals(a.get(i).metadata(), b.get(i).metadata())) {
                return false;
            }
        }
        return true;
    }

    /** A dynamic member's SyncGroup. */
    public CompletableFuture<SyncResult> sync(String groupId, int generationId, String memberId,
                                              Map<String, byte[]> assignments, long nowMs) {
        return sync(groupId, generationId, memberId, null, assignments, nowMs);
    }

    /** SyncGroup; {@code instanceId} is the member's group.instance.id (v3+), null for a dynamic member. */
    public synchronized CompletableFuture<SyncResult> sync(String groupId, int generationId, String memberId,
                                                           String instanceId, Map<String, byte[]> assignments,
                                                           long nowMs) {
        tick(nowMs);
        long incoming = assignments.values().stream().mapToLong(a -> a.length).sum();
        if (heldBytes + incoming > limits.maxHeldBytes()) {
            troubles.println("group-bytes", "kafka: a SyncGroup of group " + LogText.quote(groupId) + " refused: the"
                    + " groups hold " + heldBytes + " bytes already (" + GroupConfigKeys.MAX_HELD_BYTES + ")", nowMs);
            return done(new SyncResult(KafkaErrors.COORDINATOR_NOT_AVAILABLE, NOTHING));
        }
        CompletableFuture<SyncResult> answer = doSync(groupId, generationId, memberId, instanceId, assignments, nowMs);
        settle(groups.get(groupId), nowMs);
        return answer;
    }

    private CompletableFuture<SyncResult> doSync(String groupId, int generationId, String memberId, String instanceId,
                                                 Map<String, byte[]> assignments, long nowMs) {
        Group group = groups.get(groupId);
        if (group == null) {
            return done(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
        }
        if (group.state == GroupState.DEAD) {
            return done(new SyncResult(KafkaErrors.COORDINATOR_NOT_AVAILABLE, NOTHING));
        }
        short known = checkMember(group, memberId, instanceId);
        if (known != KafkaErrors.NONE) {
            return done(new SyncResult(known, NOTHING));
        }
        Member member = group.members.get(memberId);
        if (generationId != group.generation) {
            return done(new SyncResult(KafkaErrors.ILLEGAL_GENERATION, NOTHING));
        }
        member.heartbeatDeadlineMs = nowMs + member.sessionMs;
        switch (group.state) {
            case PREPARING_REBALANCE -> {
                return done(new SyncResult(KafkaErrors.REBALANCE_IN_PROGRESS, NOTHING));
            }
            case STABLE -> {
                return done(new SyncResult(KafkaErrors.NONE, member.assignment));
            }
            case COMPLETING_REBALANCE -> {
                if (member.sync != null) {
                    member.sync.complete(new SyncResult(KafkaErrors.REBALANCE_IN_PROGRESS, NOTHING));
                }
                CompletableFuture<SyncResult> answer = new CompletableFuture<>();
                member.sync = answer;
                if (memberId.equals(group.leader)) {
                    // the leader's assignment is the coordinator's to pass on, not to read: a member the
                    // leader left out gets an empty one
                    Map<String, byte[]> assigned = new HashMap<>();
                    for (Member m : group.members.values()) {
                        assigned.put(m.id, assignments.getOrDefault(m.id, NOTHING));
                    }
                    // Kafka's doSyncGroup: the group's metadata is stored first, the members answered once it is
                    int generation = group.generation;
                    offsets.storeGroup(group.id, metadataOf(group, assigned))
                            .thenAccept(error -> assignmentStored(group, generation, assigned, error, nowMs));
                }
                return answer;
            }
            default -> {
                return done(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
            }
        }
    }

    /**
     * The leader's assignment of {@code generation} is in the offsets log, or could not be written
     * (Kafka's {@code storeGroup} callback in {@code doSyncGroup}): written, the group is Stable and
     * every waiting member gets its assignment; not written, each gets the error and the group
     * rebalances (every member joins again). A group that moved on meanwhile (a member left, the
     * broker stopped coordinating it) was answered already.
     */
    private synchronized void assignmentStored(Group group, int generation, Map<String, byte[]> assigned, short error,
                                               long nowMs) {
        if (groups.get(group.id) != group || group.state != GroupState.COMPLETING_REBALANCE
                || group.generation != generation) {
            return;
        }
        if (error == KafkaErrors.NONE) {
            group.stored = true;
            for (Member m : group.members.values()) {
                m.assignment = assigned.getOrDefault(m.id, NOTHING);
            }
            move(group, GroupState.Event.LEADER_SYNCS, nowMs);
        }
        for (Member m : group.members.values()) {
            if (m.sync != null) {
                m.sync.complete(new SyncResult(error, error == KafkaErrors.NONE ? m.assignment : NOTHING));
                m.sync = null;
            }
        }
        if (error != KafkaErrors.NONE) {
            troubles.println("group-store", "kafka: group " + LogText.quote(group.id) + "'s generation " + generation
                    + " was not stored (error " + error + "): it rebalances", nowMs);
            prepareRebalance(group, GroupState.Event.MEMBER_JOINS, nowMs);
        }
        settle(group, nowMs);
    }

    /**
     * A heartbeat keeps a member in the group for one more session timeout; in PreparingRebalance it
     * is how a member learns to rejoin (REBALANCE_IN_PROGRESS). In CompletingRebalance it is answered
     * NONE: a member may heartbeat between its JoinGroup answer and its SyncGroup answer.
     */
    public short heartbeat(String groupId, int generationId, String memberId, long nowMs) {
        return heartbeat(groupId, generationId, memberId, null, nowMs);
    }

    /** Heartbeat; {@code instanceId} is the member's group.instance.id (v3+), null for a dynamic member. */
    public synchronized short heartbeat(String groupId, int generationId, String memberId, String instanceId,
                                        long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        if (group.state == GroupState.DEAD) {
            return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        }
        short known = checkMember(group, memberId, instanceId);
        if (known != KafkaErrors.NONE) {
            return known;
        }
        Member member = group.members.get(memberId);
        if (generationId != group.generation) {
            return KafkaErrors.ILLEGAL_GENERATION;
        }
        member.heartbeatDeadlineMs = nowMs + member.sessionMs;
        return group.state == GroupState.PREPARING_REBALANCE ? KafkaErrors.REBALANCE_IN_PROGRESS : KafkaErrors.NONE;
    }

    /** LeaveGroup before v3: one member, by its member id; the answer is its error. */
    public short leave(String groupId, String memberId, long nowMs) {
        LeaveResult result = leave(groupId, List.of(new Leaving(memberId, null)), nowMs);
        return result.error() != KafkaErrors.NONE ? result.error() : result.members().get(0);
    }

    /**
     * LeaveGroup (Kafka's {@code classicGroupLeaveToClassicGroup}): each member named leaves at once.
     * One named by its instance id with the member id "" is the static member that instance id has
     * now, whoever it is (an admin's {@code removeMembersFromConsumerGroup}); one named by both must
     * be that member (FENCED_INSTANCE_ID otherwise: an older process of it). A group this coordinator
     * does not have is UNKNOWN_MEMBER_ID for the whole request, unless it only committed offsets: a
     * group with no member, where each member named is UNKNOWN_MEMBER_ID.
     */
    public synchronized LeaveResult leave(String groupId, List<Leaving> leaving, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null) {
            return offsets.has(groupId)
                    ? new LeaveResult(KafkaErrors.NONE, leaving.stream().map(m -> KafkaErrors.UNKNOWN_MEMBER_ID).toList())
                    : new LeaveResult(KafkaErrors.UNKNOWN_MEMBER_ID, List.of());
        }
        List<Short> answers = new ArrayList<>();
        for (Leaving m : leaving) {
            answers.add(leaveOne(group, m, nowMs));
        }
        settle(group, nowMs);
        return new LeaveResult(KafkaErrors.NONE, answers);
    }

    private short leaveOne(Group group, Leaving leaving, long nowMs) {
        String memberId = leaving.memberId();
        if (memberId.isEmpty()) {
            String current = leaving.groupInstanceId() == null ? null : group.staticMembers.get(leaving.groupInstanceId());
            if (current == null) {
                return KafkaErrors.UNKNOWN_MEMBER_ID;
            }
            remove(group, group.members.get(current), nowMs);
            return KafkaErrors.NONE;
        }
        if (group.pending.remove(memberId) != null) {
            maybeCompleteJoin(group, nowMs);
            return KafkaErrors.NONE;
        }
        short known = checkMember(group, memberId, leaving.groupInstanceId());
        if (known == KafkaErrors.NONE) {
            remove(group, group.members.get(memberId), nowMs);
        }
        return known;
    }

    /**
     * Whether this commit may be written (Kafka's {@code ClassicGroup.validateOffsetCommit}): a
     * commit without a generation (-1: kcat's or an admin's, or a consumer with assign()) only while
     * the group has no members; a member's only for the current generation, and not while the
     * generation's assignment is still on its way (CompletingRebalance).
     */
    public short validateCommit(String groupId, int generationId, String memberId, long nowMs) {
        return validateCommit(groupId, generationId, memberId, null, nowMs);
    }

    /**
     * The same, for a member that names its group.instance.id (OffsetCommit v7+): the instance id
     * must be this member's (FENCED_INSTANCE_ID otherwise). A group this coordinator does not have
     * takes a commit without a generation (Kafka makes a "simple" group of it); with a generation it
     * is ILLEGAL_GENERATION, or UNKNOWN_MEMBER_ID when the group has offsets already (Kafka has an
     * Empty group then, without that member).
     */
    public synchronized short validateCommit(String groupId, int generationId, String memberId, String instanceId,
                                             long nowMs) {
        return validate(groupId, generationId, memberId, instanceId, false, nowMs);
    }

    /**
     * A transaction's offsets (TxnOffsetCommit v3+, KIP-447), checked as a commit is with two
     * differences, as Kafka's {@code ClassicGroup.validateOffsetCommit(..., isTransactional)}: one without
     * a member id or generation (TxnOffsetCommit before v3) is taken whatever the group's state, and the
     * group's state is not enforced (no REBALANCE_IN_PROGRESS): a member of the current generation
     * may commit while its assignment is on its way.
     */
    public synchronized short validateTxnCommit(String groupId, int generationId, String memberId, String instanceId,
                                                long nowMs) {
        return validate(groupId, generationId, memberId, instanceId, true, nowMs);
    }

    private short validate(String groupId, int generationId, String memberId, String instanceId,
                           boolean transactional, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null) {
            return generationId < 0 ? KafkaErrors.NONE
                    : offsets.has(groupId) ? KafkaErrors.UNKNOWN_MEMBER_ID : KafkaErrors.ILLEGAL_GENERATION;
        }
        if (group.state == GroupState.DEAD) {
            return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId < 0 && group.state == GroupState.EMPTY) {
            return KafkaErrors.NONE;
        }
        if (generationId >= 0 || !memberId.isEmpty() || instanceId != null) {
            short known = checkMember(group, memberId, instanceId);
            if (known != KafkaErrors.NONE) {
                return known;
            }
            if (generationId != group.generation) {
                return KafkaErrors.ILLEGAL_GENERATION;
            }
        } else if (!transactional && group.state != GroupState.EMPTY) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        return !transactional && group.state == GroupState.COMPLETING_REBALANCE ? KafkaErrors.REBALANCE_IN_PROGRESS
                : KafkaErrors.NONE;
    }

    private void remove(Group group, Member member, long nowMs) {
        group.members.remove(member.id);
        if (member.instanceId != null) {
            group.staticMembers.remove(member.instanceId, member.id);
        }
        if (member.join != null) {
            member.join.complete(JoinResult.error(KafkaErrors.UNKNOWN_MEMBER_ID, member.id));
        }
        if (member.sync != null) {
            member.sync.complete(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
        }
        if (member.id.equals(group.leader)) {
            group.leader = null;
        }
        switch (group.state) {
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, GroupState.Event.MEMBER_LEAVES, nowMs);
            case PREPARING_REBALANCE -> maybeCompleteJoin(group, nowMs);
            default -> {
            }
        }
    }

    /**
     * The broker's time has come to {@code nowMs}: members whose session timeout passed without a
     * heartbeat are removed (not while they wait for a JoinGroup or SyncGroup answer: waiting is not
     * silence), ids handed out with MEMBER_ID_REQUIRED and never used expire, and a join phase whose
     * deadline passed ends.
     */
    public synchronized void tick(long nowMs) {
        if (nowMs <= lastTickMs) {
            return; // every request ticks first: the groups are looked at once per millisecond of broker time
        }
        lastTickMs = nowMs;
        for (Group group : new ArrayList<>(groups.values())) {
            boolean changed = group.pending.values().removeIf(deadline -> deadline <= nowMs);
            for (Iterator<Member> it = new ArrayList<>(group.members.values()).iterator(); it.hasNext(); ) {
                Member m = it.next();
                if (m.join == null && m.sync == null && m.heartbeatDeadlineMs <= nowMs
                        && group.state != GroupState.EMPTY) {
                    troubles.println("member-expired", "kafka: group " + LogText.quote(group.id) + ": member "
                            + LogText.quote(m.id) + " sent no heartbeat for " + m.sessionMs + " ms (its session"
                            + " timeout): removed", nowMs);
                    remove(group, m, nowMs);
                    changed = true;
                }
            }
            if (changed || group.state == GroupState.PREPARING_REBALANCE) {
                maybeCompleteJoin(group, nowMs);
                settle(group, nowMs); // a group no request touched holds what it held
            }
        }
    }

    /**
     * How {@code groupId}'s committed offsets age (chapter 6 asks): a group this coordinator does not
     * have, or one that never had members, is standalone; an Empty one since it became Empty; one
     * with members (or joining) not at all.
     */
    public synchronized GroupActivity activity(String groupId) {
        Group group = groups.get(groupId);
        if (group == null || group.protocolType == null) {
            return GroupActivity.STANDALONE;
        }
        return group.state == GroupState.EMPTY ? new GroupActivity.EmptySince(group.stateSinceMs) : GroupActivity.ACTIVE;
    }

    /** {@code groupId}'s last committed offset expired: an Empty group goes now (Kafka's cleanupGroupMetadata). */
    public synchronized void offsetsExpired(String groupId, long nowMs) {
        settle(groups.get(groupId), nowMs);
    }

    /**
     * Every group, by id: those with members (or joining), and those that only committed offsets,
     * Empty with no protocol type (Kafka's "simple" groups), as ListGroups lists them.
     */
    public synchronized List<GroupListing> list() {
        TreeSet<String> ids = new TreeSet<>(groups.keySet());
        ids.addAll(offsets.groups());
        return ids.stream().map(id -> {
            Group group = groups.get(id);
            return group == null ? new GroupListing(id, "", GroupState.EMPTY)
                    : new GroupListing(id, group.protocolType == null ? "" : group.protocolType, group.state);
        }).toList();
    }

    /**
     * A group as DescribeGroups answers it (Kafka's {@code describeGroups}): the protocol, and each
     * member's metadata and assignment, only while it is Stable; a group that only committed offsets
     * is Empty; an unknown one is Dead, with no members (Kafka's answer before v6).
     */
    public synchronized GroupView describe(String groupId) {
        Group group = groups.get(groupId);
        if (group == null) {
            return new GroupView(groupId, offsets.has(groupId) ? GroupState.EMPTY : GroupState.DEAD, "", "", List.of());
        }
        boolean stable = group.state == GroupState.STABLE;
        List<MemberView> members = group.members.values().stream()
                .map(m -> new MemberView(m.id, m.instanceId, m.clientId, stable ? m.metadata(group.protocolName) : NOTHING,
                        stable ? m.assignment : NOTHING)).toList();
        return new GroupView(group.id, group.state, group.protocolType == null ? "" : group.protocolType,
                stable ? group.protocolName : "", members);
    }

    /**
     * DeleteGroups for one group (Kafka's {@code validateDeleteGroup}, then {@code deleteAllOffsets}):
     * only an Empty group goes (NON_EMPTY_GROUP while it has members), with every offset it
     * committed (a tombstone each); a group there is not is GROUP_ID_NOT_FOUND.
     */
    public synchronized short deleteGroup(String groupId, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null && !offsets.has(groupId)) {
            return KafkaErrors.GROUP_ID_NOT_FOUND;
        }
        if (group != null && group.state != GroupState.EMPTY) {
            return KafkaErrors.NON_EMPTY_GROUP;
        }
        if (!offsets.delete(groupId, null)) {
            return KafkaErrors.KAFKA_STORAGE_ERROR;
        }
        if (group != null) {
            tombstone(group);
            forget(group, nowMs);
        }
        return KafkaErrors.NONE;
    }

    /**
     * OffsetDelete (Kafka's {@code OffsetMetadataManager.deleteOffsets}): a group's offsets of some
     * partitions go (a tombstone each where there is one), but not those of a topic its members
     * subscribe to now (GROUP_SUBSCRIBED_TO_TOPIC, for each of its partitions), and not at all in a
     * group with members of another protocol than the consumers' (NON_EMPTY_GROUP) or none there
     * (GROUP_ID_NOT_FOUND). Answers the whole request's error, and each topic's.
     */
    public synchronized OffsetDeleteResult deleteOffsets(String groupId, Map<String, Set<Integer>> partitions,
                                                         long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null && !offsets.has(groupId)) {
            return new OffsetDeleteResult(KafkaErrors.GROUP_ID_NOT_FOUND, Map.of());
        }
        if (group != null && group.state != GroupState.EMPTY && !CONSUMER_PROTOCOL.equals(group.protocolType)) {
            return new OffsetDeleteResult(KafkaErrors.NON_EMPTY_GROUP, Map.of());
        }
        Map<String, Short> topics = new LinkedHashMap<>();
        Map<String, Set<Integer>> deleted = new LinkedHashMap<>();
        for (Map.Entry<String, Set<Integer>> topic : partitions.entrySet()) {
            boolean subscribed = group != null && (group.subscribedTopics != null
                    ? group.subscribedTopics.contains(topic.getKey()) : CONSUMER_PROTOCOL.equals(group.protocolType));
            topics.put(topic.getKey(), subscribed ? KafkaErrors.GROUP_SUBSCRIBED_TO_TOPIC : KafkaErrors.NONE);
            if (!subscribed) {
                deleted.put(topic.getKey(), topic.getValue());
            }
        }
        if (!deleted.isEmpty() && !offsets.delete(groupId, deleted)) {
            return new OffsetDeleteResult(KafkaErrors.KAFKA_STORAGE_ERROR, Map.of());
        }
        settle(group, nowMs); // an Empty group whose last offset went, goes
        return new OffsetDeleteResult(KafkaErrors.NONE, topics);
    }

    public synchronized int groupCount() {
        return groups.size();
    }

    /** The bytes the groups hold (member ids, metadata, assignments), bounded by {@link Limits#maxHeldBytes}. */
    public synchronized long heldBytes() {
        return heldBytes;
    }

    /** This coordinator as chapter 6's sees it: which groups have members, and when their offsets are all gone. */
    public GroupMembership membership(LongSupplier nowMs) {
        return new GroupMembership() {
            @Override
            public GroupActivity activity(String group) {
                return ClassicGroups.this.activity(group);
            }

            @Override
            public void offsetsExpired(String group) {
                ClassicGroups.this.offsetsExpired(group, nowMs.getAsLong());
            }

            @Override
            public void unloaded(Predicate<String> unloaded) {
                ClassicGroups.this.unload(unloaded, nowMs.getAsLong());
            }

            @Override
            public void loaded(Map<String, byte[]> groups) {
                ClassicGroups.this.load(groups, nowMs.getAsLong());
            }
        };
    }

    /**
     * This broker now coordinates the groups whose last metadata records {@code records} holds (chapter
     * 10: it became the leader of their offsets partition; a broker alone: it started). Each comes back
     * as Kafka's {@code loadGroup} and {@code onGroupLoaded} bring it: Stable with its members, generation,
     * leader, protocol, assignments and static instance ids, or Empty; every member's session starts
     * afresh now. So a member that finds this coordinator goes on in its generation: its heartbeats and
     * commits are taken, no rebalance. A group this coordinator has already, one it has no room for
     * ({@code max.groups}, {@code max.group.bytes}), or a record that does not read is left out (its
     * members rejoin), with a line.
     */
    public synchronized void load(Map<String, byte[]> records, long nowMs) {
        for (Map.Entry<String, byte[]> record : records.entrySet()) {
            String id = record.getKey();
            if (groups.containsKey(id)) {
                continue;
            }
            GroupMetadataValue value;
            try {
                value = GroupMetadataValue.decode(record.getValue());
            } catch (MalformedMessageException unreadable) {
                troubles.println("group-load", "kafka: group " + LogText.quote(id) + "'s metadata record does not"
                        + " read (" + unreadable.getMessage() + "): its members rejoin", nowMs);
                continue;
            }
            String inconsistent = inconsistency(value);
            if (inconsistent != null) {
                troubles.println("group-load", "kafka: group " + LogText.quote(id) + "'s metadata record is not one a"
                        + " coordinator writes (" + inconsistent + "): not loaded, its members rejoin", nowMs);
                continue;
            }
            Group group = loadedGroup(id, value, nowMs);
            long bytes = bytesOf(group);
            if (groups.size() >= limits.maxGroups() || heldBytes + bytes > limits.maxHeldBytes()) {
                troubles.println("group-load", "kafka: group " + LogText.quote(id) + " is not loaded: no room ("
                        + GroupConfigKeys.MAX_GROUPS + ", " + GroupConfigKeys.MAX_HELD_BYTES + "): its members rejoin",
                        nowMs);
                continue;
            }
            groups.put(id, group);
            settle(group, nowMs);
        }
    }

    /**
     * Why a record that reads is still not a group this coordinator could have written, or null: the
     * record comes from a replica's log, and a member loaded with a session outside the broker's
     * bounds would never expire (or expire at once), a leader who is not a member would sync no one.
     * So what a coordinator holds its groups to holds here too: a generation not negative, each
     * member's session within group.min/max.session.timeout.ms (a JoinGroup's rule), member ids and
     * instance ids each once, and a group with members has a protocol and a leader among them.
     */
    private String inconsistency(GroupMetadataValue value) {
        if (value.generation() < 0) {
            return "generation " + value.generation();
        }
        Set<String> ids = new HashSet<>();
        Set<String> instances = new HashSet<>();
        for (GroupMetadataValue.Member m : value.members()) {
            if (m.sessionTimeoutMs() < limits.minSessionMs() || m.sessionTimeoutMs() > limits.maxSessionMs()) {
                return "member " + LogText.quote(m.memberId()) + "'s session of " + m.sessionTimeoutMs()
                        + " ms is outside " + limits.minSessionMs() + ".." + limits.maxSessionMs() + " ms";
            }
            if (!ids.add(m.memberId())) {
                return "member " + LogText.quote(m.memberId()) + " twice";
            }
            if (m.groupInstanceId() != null && !instances.add(m.groupInstanceId())) {
                return "instance " + LogText.quote(m.groupInstanceId()) + " twice";
            }
        }
        if (!value.members().isEmpty() && (value.protocol() == null || !ids.contains(value.leader()))) {
            return value.protocol() == null ? "members but no protocol"
                    : "leader " + LogText.quote(String.valueOf(value.leader())) + " is not a member";
        }
        return null;
    }

    private static Group loadedGroup(String id, GroupMetadataValue value, long nowMs) {
        Group group = new Group(id);
        group.generation = value.generation();
        group.protocolType = value.protocolType().isEmpty() ? null : value.protocolType();
        group.protocolName = value.protocol();
        group.leader = value.leader();
        group.stored = true;
        for (GroupMetadataValue.Member m : value.members()) {
            Member member = new Member(m.memberId(), m.groupInstanceId(), m.clientId());
            member.sessionMs = m.sessionTimeoutMs();
            member.rebalanceMs = m.rebalanceTimeoutMs();
            member.protocolType = group.protocolType;
            member.protocols = value.protocol() == null ? List.of() : List.of(new Protocol(value.protocol(), m.subscription()));
            member.assignment = m.assignment();
            member.heartbeatDeadlineMs = nowMs + member.sessionMs; // Kafka's onGroupLoaded: every session afresh
            group.members.put(member.id, member);
            if (member.instanceId != null) {
                group.staticMembers.put(member.instanceId, member.id);
            }
        }
        group.state = group.members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
        group.stateSinceMs = value.currentStateTimestamp() >= 0 ? value.currentStateTimestamp() : nowMs;
        group.subscribedTopics = subscribedTopics(group);
        return group;
    }

    /**
     * Kafka's {@code onGroupUnloaded} for every group {@code unloaded} accepts (chapter 10: another
     * broker leads its offsets partition now): each waiting JoinGroup and SyncGroup is answered
     * NOT_COORDINATOR, so the member finds the new coordinator at once instead of waiting out its
     * rebalance, and the group is forgotten here.
     */
    public synchronized void unload(Predicate<String> unloaded, long nowMs) {
        for (Group group : List.copyOf(groups.values())) {
            if (!unloaded.test(group.id)) {
                continue;
            }
            for (Member m : group.members.values()) {
                if (m.join != null) {
                    m.join.complete(JoinResult.error(KafkaErrors.NOT_COORDINATOR, m.id));
                }
                if (m.sync != null) {
                    m.sync.complete(new SyncResult(KafkaErrors.NOT_COORDINATOR, NOTHING));
                }
            }
            forget(group, nowMs);
        }
    }

    /**
     * Answers every waiting request: the broker is going away. Then the groups' metadata records still on
     * their way are written (outside this lock: a record's answer takes it), so that a broker stopped
     * gracefully finds its groups as they were when it starts again.
     */
    public void close() {
        synchronized (this) {
            for (Group group : groups.values()) {
                for (Member m : group.members.values()) {
                    if (m.join != null) {
                        m.join.complete(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, m.id));
                    }
                    if (m.sync != null) {
                        m.sync.complete(new SyncResult(KafkaErrors.COORDINATOR_NOT_AVAILABLE, NOTHING));
                    }
                }
            }
        }
        offsets.close();
    }

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
