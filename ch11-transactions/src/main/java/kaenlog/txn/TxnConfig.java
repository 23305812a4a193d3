package kaenlog.txn;

/**
 * The coordinator's settings, with Kafka's names and defaults.
 *
 * @param maxTimeoutMs       transaction.max.timeout.ms (900000: 15 minutes): the longest timeout a producer may ask for
 * @param stateLogPartitions transaction.state.log.num.partitions (50): how many partitions {@code __transaction_state} has
 */
public record TxnConfig(int maxTimeoutMs, int stateLogPartitions) {
    public static final int DEFAULT_MAX_TIMEOUT_MS = 900_000;
    public static final int DEFAULT_STATE_LOG_PARTITIONS = 50;
    /** __transaction_state's segment.bytes (Kafka's transaction.state.log.segment.bytes). */
    public static final int STATE_LOG_SEGMENT_BYTES = 100 * 1024 * 1024;
    public static final String STATE_LOG_TOPIC = "__transaction_state";

    public TxnConfig {
        if (maxTimeoutMs < 1 || stateLogPartitions < 1) {
            throw new IllegalArgumentException("transaction.max.timeout.ms and transaction.state.log.num.partitions are"
                    + " at least 1, not " + maxTimeoutMs + " and " + stateLogPartitions);
        }
    }

    public static TxnConfig defaults() {
        return new TxnConfig(DEFAULT_MAX_TIMEOUT_MS, DEFAULT_STATE_LOG_PARTITIONS);
    }
}
