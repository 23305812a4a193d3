package kaenlog.wire;

import kaenlog.log.FetchIsolation;

/**
 * A read from one partition. {@code replicaId} says who asks: -1 a consumer, a broker id a follower
 * (the only difference between the two, chapter 8). A fetch with nothing to return waits up to
 * {@code maxWaitMs} for data. Body: replicaId int32 · partition string · fetchOffset int64 ·
 * maxBytes int32 · maxWaitMs int32, then, only from a follower of chapter 10's cluster,
 * currentLeaderEpoch int32.
 *
 * <p>{@code currentLeaderEpoch} is the leader epoch the follower believes in (Kafka's
 * current_leader_epoch, KIP-320): the leader refuses a fetch from an older epoch
 * (FENCED_LEADER_EPOCH) or a newer one (UNKNOWN_LEADER_EPOCH). {@value #NO_LEADER_EPOCH} means "not
 * checked", what a consumer sends; it is left off the wire, so a consumer's fetch is the five
 * fields chapter 3 defined.
 *
 * <p>{@code isolationLevel} is Kafka's (0 read_uncommitted, 1 read_committed): only Kafka's port
 * sends read_committed (chapter 11: a consumer that reads only up to the last stable offset); it is
 * not on kaen-log's wire, whose consumers read up to the high watermark.
 */
public record FetchRequest(int replicaId, String partition, long fetchOffset, int maxBytes, int maxWaitMs,
                           int currentLeaderEpoch, byte isolationLevel) {
    /** No leader epoch to check (Kafka's -1 in current_leader_epoch). */
    public static final int NO_LEADER_EPOCH = -1;

    public FetchRequest {
        if (maxBytes < 0 || maxWaitMs < 0) {
            throw new MalformedMessageException("maxBytes and maxWaitMs must not be negative");
        }
        if (currentLeaderEpoch < NO_LEADER_EPOCH) {
            throw new MalformedMessageException("currentLeaderEpoch must be -1 (not checked) or an epoch, not "
                    + currentLeaderEpoch);
        }
        if (isolationLevel != FetchIsolation.READ_UNCOMMITTED && isolationLevel != FetchIsolation.READ_COMMITTED) {
            throw new MalformedMessageException("isolation level must be 0 (read_uncommitted) or 1 (read_committed), not "
                    + isolationLevel);
        }
    }

    /** A fetch that reads what is not yet committed to a transaction too (read_uncommitted). */
    public FetchRequest(int replicaId, String partition, long fetchOffset, int maxBytes, int maxWaitMs,
                        int currentLeaderEpoch) {
        this(replicaId, partition, fetchOffset, maxBytes, maxWaitMs, currentLeaderEpoch, FetchIsolation.READ_UNCOMMITTED);
    }

    /** Chapter 3's fetch: no leader epoch to check. */
    public FetchRequest(int replicaId, String partition, long fetchOffset, int maxBytes, int maxWaitMs) {
        this(replicaId, partition, fetchOffset, maxBytes, maxWaitMs, NO_LEADER_EPOCH);
    }

    public static FetchRequest consumer(String partition, long fetchOffset, int maxBytes, int maxWaitMs) {
        return new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID, partition, fetchOffset, maxBytes, maxWaitMs);
    }

    public FetchIsolation isolation() {
        return FetchIsolation.of(replicaId, isolationLevel);
    }

    /** The same fetch reading at most {@code newMaxBytes}. */
    public FetchRequest withMaxBytes(int newMaxBytes) {
        return new FetchRequest(replicaId, partition, fetchOffset, newMaxBytes, maxWaitMs, currentLeaderEpoch,
                isolationLevel);
    }

    public byte[] encode() {
        Wire.Writer out = new Wire.Writer().int32(replicaId).string(partition).int64(fetchOffset).int32(maxBytes)
                .int32(maxWaitMs);
        if (currentLeaderEpoch != NO_LEADER_EPOCH) {
            out.int32(currentLeaderEpoch);
        }
        return out.toByteArray();
    }

    public static FetchRequest decode(byte[] body) {
        Wire.Reader in = new Wire.Reader(body);
        int replicaId = in.int32("replicaId");
        String partition = in.string("partition");
        long fetchOffset = in.int64("fetchOffset");
        int maxBytes = in.int32("maxBytes");
        int maxWaitMs = in.int32("maxWaitMs");
        int currentLeaderEpoch = in.remaining() > 0 ? in.int32("currentLeaderEpoch") : NO_LEADER_EPOCH;
        in.end();
        return new FetchRequest(replicaId, partition, fetchOffset, maxBytes, maxWaitMs, currentLeaderEpoch);
    }
}
