package kaenlog.kafkawire;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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

/**
 * Kafka's classic group coordinator, in memory, on the broker's time: members join (JoinGroup),
 * the coordinator waits until every known member has rejoined or the rebalance timeout has passed,
 * bumps the generation, picks a leader and a protocol, hands the leader every member's metadata,
 * and the leader's SyncGroup brings the assignment back for everyone. A member that sends no
 * heartbeat for its session timeout is removed and the group rebalances. Every state change goes
 * through {@link GroupTransitions#next}. The rules and answers are Kafka's
 * ({@code GroupMetadataManager}'s classic part, {@code ClassicGroup}); what kaen-log leaves out is
 * in the chapter's guide (static membership, the sync timeout, persistence of the group's metadata:
 * a restarted broker starts with no groups, and the members rejoin).
 *
 * <p>What a client makes it keep is counted ({@link #heldBytes}, bounded by {@code max.group.bytes}):
 * group ids, member ids, client ids, protocol names and metadata, assignments, the ids handed out
 * with MEMBER_ID_REQUIRED (a group instance id is read and not kept). A group that is Empty, with no
 * id handed out still to come and no committed offset, is removed at once
 * ({@link GroupTransitions#removable}); chapter 6's coordinator asks it how each group's offsets
 * age ({@link GroupMembership}). Its log lines quote a client's strings through {@link LogText} and
 * are rate limited: a client can cause them at will.
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

    /** A member as the leader sees it in its JoinGroup answer. */
    public record JoinedMember(String memberId, byte[] metadata) {
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
    public record MemberView(String memberId, String clientId, byte[] metadata, byte[] assignment) {
    }

    /** A group as DescribeGroups and ListGroups show it. */
    public record GroupView(String groupId, GroupState state, String protocolType, String protocolName,
                            List<MemberView> members) {
    }

    private static final byte[] NOTHING = new byte[0];

    private static final class Member {
        final String id;
        final String clientId;
        long sessionMs;
        long rebalanceMs;
        String protocolType;
        List<Protocol> protocols;
        long heartbeatDeadlineMs;
        CompletableFuture<JoinResult> join;
        CompletableFuture<SyncResult> sync;
        byte[] assignment = NOTHING;

        Member(String id, String clientId) {
            this.id = id;
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
    private final Predicate<String> hasOffsets;
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

    /** The same, {@code hasOffsets} saying whether a group has committed offsets (chapter 6's coordinator). */
    public ClassicGroups(Limits limits, long startMs, PrintStream log, Predicate<String> hasOffsets) {
        this.limits = limits;
        this.startMs = startMs;
        this.log = log;
        this.troubles = new RateLimitedLog(log, SocketServer.TROUBLE_LOG_INTERVAL_MS);
        this.hasOffsets = hasOffsets;
    }

    public Limits limits() {
        return limits;
    }

    /**
     * Kafka's member id: the client id, a dash and a random UUID. Here the UUID is derived (a
     * name-based UUID of the broker's start time and a counter), so a run is repeatable and no
     * randomness enters the chapter: what matters is that no two members get the same id.
     */
    private String newMemberId(String clientId) {
        membersIssued++;
        UUID uuid = UUID.nameUUIDFromBytes(("kaen-log member " + startMs + " " + membersIssued)
                .getBytes(StandardCharsets.UTF_8));
        return (clientId == null ? "" : clientId) + "-" + uuid;
    }

    private void move(Group group, GroupState.Event event, long nowMs) {
        GroupState next = GroupTransitions.next(group.state, event);
        if (next != group.state) {
            group.stateSinceMs = nowMs;
        }
        group.state = next;
    }

    public synchronized CompletableFuture<JoinResult> join(String groupId, String clientId, String memberId,
                                                           int sessionMs, int rebalanceMs, String protocolType,
                                                           List<Protocol> protocols, boolean requireKnownMemberId,
                                                           long nowMs) {
        tick(nowMs);
        // a new group's id, and a member's (or a handed-out) id, client id, protocols: all held in memory
        long incoming = (groups.containsKey(groupId) ? 0 : GROUP_OVERHEAD_BYTES + chars(groupId))
                + MEMBER_OVERHEAD_BYTES + 2 * chars(clientId) + chars(memberId) + 2 * 37 + chars(protocolType)
                + bytes(protocols);
        if (heldBytes + incoming > limits.maxHeldBytes()) {
            troubles.println("group-bytes", "kafka: a JoinGroup of group " + LogText.quote(groupId) + " refused: the"
                    + " groups hold " + heldBytes + " bytes already (" + GroupConfigKeys.MAX_HELD_BYTES + ")", nowMs);
            return done(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, memberId));
        }
        CompletableFuture<JoinResult> answer = doJoin(groupId, clientId, memberId, sessionMs, rebalanceMs,
                protocolType, protocols, requireKnownMemberId, nowMs);
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
        return MEMBER_OVERHEAD_BYTES + chars(m.id) + chars(m.clientId) + chars(m.protocolType) + bytes(m.protocols)
                + m.assignment.length;
    }

    /** What {@code group} holds: its id and protocol, its members, the ids handed out (an estimate). */
    private static long bytesOf(Group group) {
        long bytes = GROUP_OVERHEAD_BYTES + chars(group.id) + chars(group.protocolType) + chars(group.protocolName);
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
        if (GroupTransitions.removable(group.state, group.pending.size(), hasOffsets.test(group.id))) {
            move(group, GroupState.Event.GROUP_REMOVED, nowMs);
            groups.remove(group.id);
            heldBytes -= group.heldBytes;
        }
    }

    private CompletableFuture<JoinResult> doJoin(String groupId, String clientId, String memberId, int sessionMs,
                                                 int rebalanceMs, String protocolType, List<Protocol> protocols,
                                                 boolean requireKnownMemberId, long nowMs) {
        if (groupId.isEmpty()) {
            return done(JoinResult.error(KafkaErrors.INVALID_GROUP_ID, memberId));
        }
        if (sessionMs < limits.minSessionMs() || sessionMs > limits.maxSessionMs()) {
            // group.min.session.timeout.ms bounds how fast failures are detected (and how often members
            // heartbeat); group.max.session.timeout.ms how long a dead member may hold its partitions.
            return done(JoinResult.error(KafkaErrors.INVALID_SESSION_TIMEOUT, memberId));
        }
        Group group = groups.get(groupId);
        if (group == null) {
            if (!memberId.isEmpty()) {
                return done(JoinResult.error(KafkaErrors.UNKNOWN_MEMBER_ID, memberId));
            }
            if (groups.size() >= limits.maxGroups()) {
                troubles.println("max-groups", "kafka: group " + LogText.quote(groupId) + " refused: " + groups.size()
                        + " groups already (" + GroupConfigKeys.MAX_GROUPS + ")", nowMs);
                return done(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, memberId));
            }
            group = new Group(groupId);
            group.stateSinceMs = nowMs;
            groups.put(groupId, group);
        }
        if (group.state == GroupState.DEAD) {
            return done(JoinResult.error(KafkaErrors.COORDINATOR_NOT_AVAILABLE, memberId));
        }
        if (!supportsProtocols(group, memberId, protocolType, protocols)) {
            return done(JoinResult.error(KafkaErrors.INCONSISTENT_GROUP_PROTOCOL, memberId));
        }
        if (memberId.isEmpty()) {
            if (group.members.size() + group.pending.size() >= limits.maxSize()) {
                return done(JoinResult.error(KafkaErrors.GROUP_MAX_SIZE_REACHED, memberId));
            }
            String newId = newMemberId(clientId);
            if (requireKnownMemberId) {
                // KIP-394 (JoinGroup v4+): the id is handed out first and the member joins with it, so a
                // client that retries its first JoinGroup does not leave a stray member behind.
                group.pending.put(newId, nowMs + sessionMs);
                return done(JoinResult.error(KafkaErrors.MEMBER_ID_REQUIRED, newId));
            }
            return addAndRebalance(group, newMember(newId, clientId, sessionMs, rebalanceMs, protocolType, protocols),
                    nowMs);
        }
        if (group.pending.remove(memberId) != null) {
            return addAndRebalance(group, newMember(memberId, clientId, sessionMs, rebalanceMs, protocolType,
                    protocols), nowMs);
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            return done(JoinResult.error(KafkaErrors.UNKNOWN_MEMBER_ID, memberId));
        }
        boolean sameMetadata = sameProtocols(member.protocols, protocols);
        member.sessionMs = sessionMs;
        member.rebalanceMs = rebalanceMs;
        member.protocols = protocols;
        switch (group.state) {
            case PREPARING_REBALANCE -> {
                CompletableFuture<JoinResult> answer = park(member);
                maybeCompleteJoin(group, nowMs);
                return answer;
            }
            case COMPLETING_REBALANCE, STABLE -> {
                // A follower that lost its JoinGroup answer gets it again; the leader, or a member whose
                // subscription changed, starts a new rebalance.
                if (sameMetadata && !(group.state == GroupState.STABLE && memberId.equals(group.leader))) {
                    return done(joinResult(group, member));
                }
                CompletableFuture<JoinResult> answer = park(member);
                prepareRebalance(group, GroupState.Event.MEMBER_JOINS, nowMs);
                return answer;
            }
            default -> {
                return done(JoinResult.error(KafkaErrors.UNKNOWN_MEMBER_ID, memberId));
            }
        }
    }

    private static Member newMember(String id, String clientId, int sessionMs, int rebalanceMs, String protocolType,
                                    List<Protocol> protocols) {
        Member member = new Member(id, clientId);
        member.sessionMs = sessionMs;
        member.rebalanceMs = rebalanceMs;
        member.protocolType = protocolType;
        member.protocols = protocols;
        return member;
    }

    private CompletableFuture<JoinResult> addAndRebalance(Group group, Member member, long nowMs) {
        group.members.put(member.id, member);
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
        // the rebalance timeout: whoever has not rejoined is out of the group
        group.members.values().removeIf(m -> {
            if (m.join != null) {
                return false;
            }
            if (m.id.equals(group.leader)) {
                group.leader = null;
            }
            return true;
        });
        group.pending.clear();
        completeJoin(group, nowMs);
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
            move(group, GroupState.Event.JOIN_PHASE_ENDS_EMPTY, nowMs);
            return;
        }
        Member first = group.members.values().iterator().next();
        group.protocolType = first.protocolType;
        group.protocolName = selectProtocol(group);
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
                members.add(new JoinedMember(m.id, m.metadata(group.protocolName)));
            }
        }
        return new JoinResult(KafkaErrors.NONE, group.generation, group.protocolName, group.leader, member.id,
                members);
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

    public synchronized CompletableFuture<SyncResult> sync(String groupId, int generationId, String memberId,
                                                           Map<String, byte[]> assignments, long nowMs) {
        tick(nowMs);
        long incoming = assignments.values().stream().mapToLong(a -> a.length).sum();
        if (heldBytes + incoming > limits.maxHeldBytes()) {
            troubles.println("group-bytes", "kafka: a SyncGroup of group " + LogText.quote(groupId) + " refused: the"
                    + " groups hold " + heldBytes + " bytes already (" + GroupConfigKeys.MAX_HELD_BYTES + ")", nowMs);
            return done(new SyncResult(KafkaErrors.COORDINATOR_NOT_AVAILABLE, NOTHING));
        }
        CompletableFuture<SyncResult> answer = doSync(groupId, generationId, memberId, assignments, nowMs);
        settle(groups.get(groupId), nowMs);
        return answer;
    }

    private CompletableFuture<SyncResult> doSync(String groupId, int generationId, String memberId,
                                                 Map<String, byte[]> assignments, long nowMs) {
        Group group = groups.get(groupId);
        if (group == null) {
            return done(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
        }
        if (group.state == GroupState.DEAD) {
            return done(new SyncResult(KafkaErrors.COORDINATOR_NOT_AVAILABLE, NOTHING));
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            return done(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
        }
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
                    for (Member m : group.members.values()) {
                        m.assignment = assignments.getOrDefault(m.id, NOTHING);
                    }
                    move(group, GroupState.Event.LEADER_SYNCS, nowMs);
                    for (Member m : group.members.values()) {
                        if (m.sync != null) {
                            m.sync.complete(new SyncResult(KafkaErrors.NONE, m.assignment));
                            m.sync = null;
                        }
                    }
                }
                return answer;
            }
            default -> {
                return done(new SyncResult(KafkaErrors.UNKNOWN_MEMBER_ID, NOTHING));
            }
        }
    }

    /**
     * A heartbeat keeps a member in the group for one more session timeout; in PreparingRebalance it
     * is how a member learns to rejoin (REBALANCE_IN_PROGRESS). In CompletingRebalance it is answered
     * NONE: a member may heartbeat between its JoinGroup answer and its SyncGroup answer.
     */
    public synchronized short heartbeat(String groupId, int generationId, String memberId, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        if (group.state == GroupState.DEAD) {
            return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != group.generation) {
            return KafkaErrors.ILLEGAL_GENERATION;
        }
        member.heartbeatDeadlineMs = nowMs + member.sessionMs;
        return group.state == GroupState.PREPARING_REBALANCE ? KafkaErrors.REBALANCE_IN_PROGRESS : KafkaErrors.NONE;
    }

    public synchronized short leave(String groupId, String memberId, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null || group.state == GroupState.DEAD) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        if (group.pending.remove(memberId) != null) {
            maybeCompleteJoin(group, nowMs);
            settle(group, nowMs);
            return KafkaErrors.NONE;
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        remove(group, member, nowMs);
        settle(group, nowMs);
        return KafkaErrors.NONE;
    }

    /**
     * Whether this commit may be written (Kafka's {@code ClassicGroup.validateOffsetCommit}): a
     * commit without a generation (-1: kcat's or an admin's, or a consumer with assign()) only while
     * the group has no members; a member's only for the current generation, and not while the
     * generation's assignment is still on its way (CompletingRebalance).
     */
    public synchronized short validateCommit(String groupId, int generationId, String memberId, long nowMs) {
        tick(nowMs);
        Group group = groups.get(groupId);
        if (group == null) {
            return generationId < 0 ? KafkaErrors.NONE : KafkaErrors.ILLEGAL_GENERATION;
        }
        if (group.state == GroupState.DEAD) {
            return KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId < 0 && group.state == GroupState.EMPTY) {
            return KafkaErrors.NONE;
        }
        if (generationId >= 0 || !memberId.isEmpty()) {
            Member member = group.members.get(memberId);
            if (member == null) {
                return KafkaErrors.UNKNOWN_MEMBER_ID;
            }
            if (generationId != group.generation) {
                return KafkaErrors.ILLEGAL_GENERATION;
            }
        } else if (group.state != GroupState.EMPTY) {
            return KafkaErrors.UNKNOWN_MEMBER_ID;
        }
        return group.state == GroupState.COMPLETING_REBALANCE ? KafkaErrors.REBALANCE_IN_PROGRESS : KafkaErrors.NONE;
    }

    private void remove(Group group, Member member, long nowMs) {
        group.members.remove(member.id);
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

    public synchronized List<GroupView> list() {
        return groups.keySet().stream().map(this::describe).toList();
    }

    /** A group as DescribeGroups answers it; an unknown group is Dead, with no members (Kafka's answer before v6). */
    public synchronized GroupView describe(String groupId) {
        Group group = groups.get(groupId);
        if (group == null) {
            return new GroupView(groupId, GroupState.DEAD, "", "", List.of());
        }
        boolean stable = group.state == GroupState.STABLE;
        List<MemberView> members = group.members.values().stream()
                .map(m -> new MemberView(m.id, m.clientId, stable ? m.metadata(group.protocolName) : NOTHING,
                        stable ? m.assignment : NOTHING)).toList();
        return new GroupView(group.id, group.state, group.protocolType == null ? "" : group.protocolType,
                group.protocolName == null ? "" : group.protocolName, members);
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
        };
    }

    /** Answers every waiting request: the broker is going away. */
    public synchronized void close() {
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

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
