package kaenlog.log;

/**
 * How far a fetch may read. A follower (replicaId >= 0) must copy everything the leader has, so
 * it reads to the log end; a consumer (replicaId -1) may only see committed records, so it stops
 * at the high watermark. Kafka: {@code FetchIsolation.of(replicaId, isolationLevel)}, whose cases
 * these are; the third, TXN_COMMITTED, is chapter 11's: a consumer with {@code isolation.level=read_committed}
 * stops at the last stable offset ({@link Log#lastStableOffset}).
 */
public enum FetchIsolation {
    LOG_END,
    HIGH_WATERMARK,
    TXN_COMMITTED;

    /** The replica id a consumer sends. */
    public static final int CONSUMER_REPLICA_ID = -1;
    /** Kafka's IsolationLevel ids, as a Fetch or ListOffsets request carries them. */
    public static final byte READ_UNCOMMITTED = 0;
    public static final byte READ_COMMITTED = 1;

    /**
     * Kafka's {@code FetchIsolation.of(replicaId, isolationLevel)}: a follower reads to the log end
     * whatever it asks; a consumer with read_committed reads to the last stable offset (chapter 11).
     */
    public static FetchIsolation of(int replicaId, byte isolationLevel) {
        FetchIsolation byReplica = of(replicaId);
        return byReplica == HIGH_WATERMARK && isolationLevel == READ_COMMITTED ? TXN_COMMITTED : byReplica;
    }

    public static FetchIsolation of(int replicaId) {
        // BEGIN-SOLUTION ch03 task 4: followers read to the log end, consumers to the high watermark (LogReadTest)
        return replicaId >= 0 ? LOG_END : HIGH_WATERMARK;
        // END-SOLUTION
    }
}
