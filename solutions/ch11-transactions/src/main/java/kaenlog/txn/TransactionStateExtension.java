package kaenlog.txn;

import java.util.Map;
import java.util.TreeMap;
import kaenlog.broker.BrokerExtension;
import kaenlog.logmanager.CleanupConfigs;

/**
 * The coordinator's partitions in the running broker: {@code __transaction_state-0} to {@code -49},
 * compacted as Kafka creates them ({@code cleanup.policy=compact}, segment.bytes 100 MiB:
 * transaction.state.log.segment.bytes), so chapter 6's cleaner keeps each transactional id's last
 * state and drops the rest.
 */
public final class TransactionStateExtension implements BrokerExtension {
    @Override
    public Map<String, Map<String, String>> internalPartitions() {
        Map<String, Map<String, String>> partitions = new TreeMap<>();
        for (int n = 0; n < TxnConfig.DEFAULT_STATE_LOG_PARTITIONS; n++) {
            partitions.put(stateLogPartition(n), Map.of(CleanupConfigs.CLEANUP_POLICY, CleanupConfigs.COMPACT,
                    "segment.bytes", Integer.toString(TxnConfig.STATE_LOG_SEGMENT_BYTES)));
        }
        return partitions;
    }

    /** The name of {@code __transaction_state}'s partition {@code n}. */
    public static String stateLogPartition(int n) {
        return TxnConfig.STATE_LOG_TOPIC + "-" + n;
    }
}
