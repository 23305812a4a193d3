package kaenlog.replication;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.workbook.Todo;

/**
 * The leader's view of its followers: who is in sync, what LEO each one last reported, and when
 * each one last fetched.
 *
 * <p>Time enters only as {@code nowMs}. {@link #observe} records it; {@link #shrinkIsr} is the one
 * method that compares it with a limit ({@code replica.lag.time.max.ms}: {@value #REPLICA_LAG_TIME_MAX_MS}
 * ms unless the leader was given another). Nothing here runs on a timer: a caller decides when to shrink.
 *
 * <p>There is no expand path. A follower removed from the ISR keeps fetching (its LEO and time are
 * still recorded) but does not come back by itself: in Kafka the way back goes through the
 * controller, which kaen-log does not have. kaen-log also has one ISR set where Kafka has two
 * (the committed ISR and the "maximal" ISR that includes pending AlterPartition changes): with no
 * controller to wait for, a change takes effect at once, so both are the same set here. Chapter 10's
 * leader, which writes its ISR to ZooKeeper, keeps the two apart and asks these rules about the one
 * it names ({@link #withIsr}).
 */
public final class IsrState implements IsrView {
    /** Kafka's default {@code replica.lag.time.max.ms} (ReplicationConfigs.REPLICA_LAG_TIME_MAX_MS_DEFAULT). */
    public static final long REPLICA_LAG_TIME_MAX_MS = 30_000L;

    private final int leaderId;
    private final int minIsr;
    private final long replicaLagTimeMaxMs;
    private final SortedSet<Integer> followers = new TreeSet<>();
    private final TreeSet<Integer> maximalIsr = new TreeSet<>();
    private final TreeMap<Integer, Long> followerLeos = new TreeMap<>();
    private final TreeMap<Integer, Long> lastCaughtUpMs = new TreeMap<>();

    /**
     * A leader that has just taken over: every follower is in the ISR and counts as caught up
     * {@code nowMs} (Kafka's {@code resetReplicaState} sets {@code lastCaughtUpTimeMs} to the
     * current time for ISR members), and no follower's LEO is known yet.
     */
    public IsrState(int leaderId, List<Integer> followerIds, int minIsr, long nowMs) {
        this(leaderId, followerIds, minIsr, REPLICA_LAG_TIME_MAX_MS, nowMs);
    }

    /** The same, for a leader whose {@code replica.lag.time.max.ms} is {@code replicaLagTimeMaxMs} (chapter 10's is a config). */
    public IsrState(int leaderId, List<Integer> followerIds, int minIsr, long replicaLagTimeMaxMs, long nowMs) {
        Objects.requireNonNull(followerIds, "followerIds");
        requireReplicaId("leaderId", leaderId);
        requireTime(nowMs);
        if (minIsr < 1) {
            throw new IllegalArgumentException("minIsr must be >= 1, got " + minIsr);
        }
        if (replicaLagTimeMaxMs < 1) {
            throw new IllegalArgumentException("replicaLagTimeMaxMs must be >= 1, got " + replicaLagTimeMaxMs);
        }
        this.leaderId = leaderId;
        this.minIsr = minIsr;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        maximalIsr.add(leaderId);
        for (Integer id : followerIds) {
            Objects.requireNonNull(id, "followerIds[" + followers.size() + "]");
            requireReplicaId("followerIds[" + followers.size() + "]", id);
            if (id == leaderId || !followers.add(id)) {
                throw new IllegalArgumentException("followerIds " + followerIds
                        + " must be distinct and must not contain the leader " + leaderId);
            }
            maximalIsr.add(id);
            lastCaughtUpMs.put(id, nowMs);
        }
    }

    /**
     * The leader learns from one fetch request: the request's fetch offset <em>is</em> the
     * follower's LEO (a follower always asks for the offset after the last one it holds), and the
     * request's arrival time is when that follower was last heard from.
     */
    public void observe(int replicaId, long fetchOffset, long nowMs) {
        requireFollower(replicaId);
        if (fetchOffset < 0) {
            throw new IllegalArgumentException("fetchOffset must be >= 0, got " + fetchOffset);
        }
        requireTime(nowMs);
        throw new Todo("ch08 task 2: record what one fetch request tells the leader (IsrStateTest)");
    }

    /**
     * Removes every follower not heard from for more than {@code replica.lag.time.max.ms} (the
     * leader's: {@value #REPLICA_LAG_TIME_MAX_MS} ms unless it was given another) and says whether
     * the ISR changed. Exactly the limit is still in sync (Kafka's {@code isCaughtUp}:
     * {@code currentTimeMs - lastCaughtUpTimeMs <= replicaMaxLagMs}). The leader is never removed
     * from its own ISR.
     */
    public boolean shrinkIsr(long nowMs) {
        requireTime(nowMs);
        throw new Todo("ch08 task 2: drop followers silent for more than replica.lag.time.max.ms (IsrStateTest)");
    }

    /** True when the ISR has fewer members than {@code min.insync.replicas}: acks=all is refused. */
    public boolean underMinIsr() {
        throw new Todo("ch08 task 2: compare the ISR with min.insync.replicas (IsrStateTest)");
    }

    /**
     * This state over another ISR (given): the same leader, followers, minimum, limit, LEOs and fetch
     * times, with {@code isr} as the ISR, so that this chapter's rules ({@link #shrinkIsr},
     * {@link #underMinIsr}) can be asked about it. This state is left as it is. Chapter 10's leader
     * asks them about the ISR as written in ZooKeeper, which is not always the one its high
     * watermark counts.
     */
    public IsrState withIsr(Collection<Integer> isr) {
        IsrState copy = new IsrState(leaderId, List.copyOf(followers), minIsr, replicaLagTimeMaxMs, 0);
        copy.maximalIsr.clear();
        for (Integer id : isr) {
            if (id != leaderId) {
                requireFollower(Objects.requireNonNull(id, "isr member"));
            }
            copy.maximalIsr.add(id);
        }
        copy.followerLeos.putAll(followerLeos);
        copy.lastCaughtUpMs.putAll(lastCaughtUpMs);
        return copy;
    }

    /** The ISR in ascending id order, the leader included: prints as {@code [1, 2]}. */
    public List<Integer> isr() {
        return List.copyOf(maximalIsr);
    }

    /** The same members as a read-only set, for {@link HighWatermark#advanceHw}. */
    @Override
    public SortedSet<Integer> maximalIsr() {
        return Collections.unmodifiableSortedSet(maximalIsr);
    }

    /** Each follower's LEO as last reported; a follower that has not fetched yet has no entry. */
    @Override
    public Map<Integer, Long> followerLeos() {
        return Collections.unmodifiableMap(followerLeos);
    }

    /** When the follower was last heard from (or when this leader took over, if it has not fetched). */
    public long lastCaughtUpMs(int replicaId) {
        requireFollower(replicaId);
        return lastCaughtUpMs.get(replicaId);
    }

    public int leaderId() {
        return leaderId;
    }

    @Override
    public int minIsr() {
        return minIsr;
    }

    /** {@code replica.lag.time.max.ms}: silent for longer than this, a follower leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    /** Every assigned follower, in or out of the ISR. */
    public SortedSet<Integer> followers() {
        return Collections.unmodifiableSortedSet(followers);
    }

    private void requireFollower(int replicaId) {
        if (!followers.contains(replicaId)) {
            throw new IllegalArgumentException("replicaId " + replicaId + " is not a follower of leader " + leaderId
                    + " (followers " + followers + ")");
        }
    }

    private static void requireReplicaId(String field, int id) {
        if (id < 0) {
            throw new IllegalArgumentException(field + " must be >= 0 (a negative replica id is a consumer), got " + id);
        }
    }

    private static void requireTime(long nowMs) {
        if (nowMs < 0) {
            throw new IllegalArgumentException("nowMs must be >= 0, got " + nowMs);
        }
    }
}
