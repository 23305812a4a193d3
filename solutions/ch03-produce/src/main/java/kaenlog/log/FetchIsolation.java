package kaenlog.log;

/**
 * How far a fetch may read. A follower (replicaId >= 0) must copy everything the leader has, so
 * it reads to the log end; a consumer (replicaId -1) may only see committed records, so it stops
 * at the high watermark. Kafka: {@code FetchIsolation.of(replicaId, isolationLevel)}, whose
 * LOG_END / HIGH_WATERMARK cases these are (TXN_COMMITTED, for transactions, is not built here).
 */
public enum FetchIsolation {
    LOG_END,
    HIGH_WATERMARK;

    /** The replica id a consumer sends. */
    public static final int CONSUMER_REPLICA_ID = -1;

    public static FetchIsolation of(int replicaId) {
        // BEGIN-SOLUTION ch03 task 4: followers read to the log end, consumers to the high watermark (LogReadTest)
        return replicaId >= 0 ? LOG_END : HIGH_WATERMARK;
        // END-SOLUTION
    }
}
