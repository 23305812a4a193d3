package kaenlog.txn;

/**
 * The coordinator's settings, with Kafka's names and defaults.
 *
 * @param maxTimeoutMs       transaction.max.timeout.ms (900000: 15 minutes): the longest timeout a producer may ask for
 * @param stateLogPartitions transaction.state.log.num.partitions (50): how many partitions {@code __transaction_state} has
 * @param maxIds             how many transactional ids the coordinator holds at most (kaen-log's own bound, as
 *                           {@code max.groups} is for groups: Kafka keeps every id until it expires, 7 days idle)
 * @param maxIdBytes         how many bytes of transactional ids it holds at most (an id may be 32,767 bytes long)
 */
public record TxnConfig(int maxTimeoutMs, int stateLogPartitions, int maxIds, long maxIdBytes) {
    public static final int DEFAULT_MAX_TIMEOUT_MS = 900_000;
    public static final int DEFAULT_STATE_LOG_PARTITIONS = 50;
    public static final int DEFAULT_MAX_IDS = 10_000;
    public static final long DEFAULT_MAX_ID_BYTES = 8L << 20;
    /** __transaction_state's segment.bytes (Kafka's transaction.state.log.segment.bytes). */
    public static final int STATE_LOG_SEGMENT_BYTES = 100 * 1024 * 1024;
    public static final String STATE_LOG_TOPIC = "__transaction_state";

    public TxnConfig {
        if (maxTimeoutMs < 1 || stateLogPartitions < 1) {
            throw new IllegalArgumentException("transaction.max.timeout.ms and transaction.state.log.num.partitions are"
                    + " at least 1, not " + maxTimeoutMs + " and " + stateLogPartitions);
        }
        if (maxIds < 1 || maxIdBytes < 1) {
            throw new IllegalArgumentException("the transactional ids held are bounded by at least 1 id and 1 byte, not "
                    + maxIds + " and " + maxIdBytes);
        }
    }

    public TxnConfig(int maxTimeoutMs, int stateLogPartitions) {
        this(maxTimeoutMs, stateLogPartitions, DEFAULT_MAX_IDS, DEFAULT_MAX_ID_BYTES);
    }

    public static TxnConfig defaults() {
        return new TxnConfig(DEFAULT_MAX_TIMEOUT_MS, DEFAULT_STATE_LOG_PARTITIONS);
    }

    /** These settings, holding at most {@code ids} transactional ids of {@code bytes} bytes in all. */
    public TxnConfig withIdBudget(int ids, long bytes) {
        return new TxnConfig(maxTimeoutMs, stateLogPartitions, ids, bytes);
    }
}
