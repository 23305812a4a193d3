package kaenlog.replication;

/** What a replica of a partition does: the leader takes writes, a follower copies them by fetching. */
public enum Role {
    LEADER,
    FOLLOWER
}
