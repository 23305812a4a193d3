package kaenlog.replication;

/**
 * What one {@link Cluster#fetchOnce} round did: how many records the response carried, the high
 * watermark it carried, and where the leader and the follower stand afterwards.
 */
public record FetchRound(long fetchOffset, int recordsShipped, long responseHighWatermark,
                         long leaderLeo, long leaderHw, long followerLeo, long followerHw) {
}
