package kaenlog.replication;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import kaenlog.wire.ErrorCode;

/**
 * Kafka's replication rules that no class of Kafka runs without a whole broker around it (they are
 * methods of {@code kafka.cluster.Partition}, which needs a log manager, a metadata cache, an
 * AlterPartition channel), written here as small executable models, each quoting the Kafka 4.1.1
 * source it follows ({@code core/src/main/scala/kafka/cluster/Partition.scala} unless named). Where
 * kaen-log's rule differs from Kafka's on purpose, the model follows the guide's "Where kaen-log
 * differs from Kafka 4.1" and says which difference.
 */
final class KafkaModel {
    /** {@code UnifiedLog.UNKNOWN_OFFSET}: what Kafka's leader holds as the LEO of a follower that has not fetched. */
    static final long UNKNOWN_OFFSET = -1L;

    private KafkaModel() {
    }

    /**
     * {@code isUnderMinIsr}: {@code partitionState.isr.size < effectiveMinIsr}. kaen-log takes
     * {@code min.insync.replicas} as given (no cap at the replication factor: a documented difference).
     */
    static boolean underMinIsr(int isrSize, int minIsr) {
        return isrSize < minIsr;
    }

    /**
     * The candidate of {@code maybeIncrementLeaderHW}: {@code var newHighWatermark = leaderLogEndOffset},
     * then for every remote replica {@code if (replicaState.logEndOffsetMetadata.messageOffset <
     * newHighWatermark.messageOffset && partitionState.maximalIsr.contains(replica.brokerId))
     * newHighWatermark = replicaState.logEndOffsetMetadata}. A follower that has not fetched since
     * the leader took over is at {@code UNKNOWN_OFFSET}, -1. (Kafka also waits for a follower that is
     * caught up and eligible to join the ISR: kaen-log counts ISR members only, a documented difference.)
     *
     * @param followerLeos the LEOs the leader knows; a follower without an entry is at UNKNOWN_OFFSET
     */
    static long hwCandidate(int leaderId, long leaderLeo, Map<Integer, Long> followerLeos, Set<Integer> maximalIsr) {
        long candidate = leaderLeo;
        for (int id : maximalIsr) {
            if (id != leaderId) {
                candidate = Math.min(candidate, followerLeos.getOrDefault(id, UNKNOWN_OFFSET));
            }
        }
        return candidate;
    }

    /**
     * {@code UnifiedLog.maybeIncrementHighWatermark}: {@code if (oldHighWatermark.messageOffset <
     * newHighWatermark.messageOffset) updateHighWatermarkMetadata(newHighWatermark)}: the HW only rises.
     */
    static long maybeIncrementHighWatermark(long current, long proposed) {
        return current < proposed ? proposed : current;
    }

    /**
     * The whole of {@code maybeIncrementLeaderHW}: {@code if (isUnderMinIsr) return false}, else the
     * candidate, then {@code leaderLog.maybeIncrementHighWatermark(newHighWatermark)}.
     */
    static long leaderHwAfter(long current, int leaderId, long leaderLeo, Map<Integer, Long> followerLeos,
                              Set<Integer> maximalIsr, int minIsr) {
        if (underMinIsr(maximalIsr.size(), minIsr)) {
            return current;
        }
        return maybeIncrementHighWatermark(current, hwCandidate(leaderId, leaderLeo, followerLeos, maximalIsr));
    }

    /**
     * {@code checkEnoughReplicasReachOffset}: {@code if (leaderLog.highWatermark >= requiredOffset)
     * { if (minIsr <= curMaximalIsr.size) (true, Errors.NONE) else (true,
     * Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND) } else (false, Errors.NONE)}: (false, NONE) is NotYet.
     */
    static AckVerdict checkEnoughReplicasReachOffset(long requiredOffset, long highWatermark, int maximalIsrSize,
                                                     int minIsr) {
        if (highWatermark >= requiredOffset) {
            return minIsr <= maximalIsrSize ? AckVerdict.COMMITTED : AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
        }
        return AckVerdict.NOT_YET;
    }

    /**
     * {@code appendRecordsToLeader}: {@code if (inSyncSize < minIsr && requiredAcks == -1) throw new
     * NotEnoughReplicasException(...)}, before {@code leaderLog.appendAsLeader}.
     */
    static boolean refusedBeforeTheAppend(int isrSize, int minIsr, short acks) {
        return isrSize < minIsr && acks == -1;
    }

    /**
     * A follower's fetch, as {@code fetchRecords} takes it: {@code followerReplicaOrThrow} first (a
     * replica id that is not a remote replica of the partition is NOT_LEADER_OR_FOLLOWER), then the
     * read: {@code UnifiedLog.checkLogStartOffset} ({@code offset < logStartOffset} is
     * OFFSET_OUT_OF_RANGE) and {@code LocalLog.read} ({@code startOffset > endOffset} is
     * OFFSET_OUT_OF_RANGE; the log end itself reads nothing, without error); only then
     * {@code updateFollowerFetchState}.
     */
    static ErrorCode followerFetch(int replicaId, long fetchOffset, Collection<Integer> remoteReplicas,
                                   long logStartOffset, long logEndOffset) {
        if (!remoteReplicas.contains(replicaId)) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        if (fetchOffset < logStartOffset || fetchOffset > logEndOffset) {
            return ErrorCode.OFFSET_OUT_OF_RANGE;
        }
        return ErrorCode.NONE;
    }
}
