package kaenlog.txn;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;
import kaenlog.logmanager.CleanupConfigs;

/**
 * The coordinator's partitions in the running broker: {@code __transaction_state-0} to {@code -49},
 * compacted as Kafka creates them ({@code cleanup.policy=compact}, segment.bytes 100 MiB:
 * transaction.state.log.segment.bytes), so chapter 6's cleaner keeps each transactional id's last
 * state and drops the rest. In chapter 10's cluster {@code __transaction_state} is a topic of the
 * cluster, created at the first FindCoordinator for a transactional id with Kafka's
 * {@code transaction.state.log.*} settings below, and a member's ids are placed by the cluster
 * ({@link #placeIn}).
 */
public final class TransactionStateExtension implements BrokerExtension {
    /** Kafka's name and default (50): the partitions of the cluster's {@code __transaction_state}. */
    public static final String NUM_PARTITIONS = "transaction.state.log.num.partitions";
    /** Kafka's name and default (3): the replicas of each; the topic is not created until as many brokers live. */
    public static final String REPLICATION_FACTOR = "transaction.state.log.replication.factor";
    /** Kafka's name and default (2): the topic's min.insync.replicas, so a transition is acknowledged once two replicas hold it. */
    public static final String MIN_ISR = "transaction.state.log.min.isr";

    /** Where this broker's transactional ids are coordinated in a cluster; null for a broker alone. */
    private volatile TxnPlacement placement;

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(NUM_PARTITIONS, TxnConfig.DEFAULT_STATE_LOG_PARTITIONS, 1,
                        TxnConfig.DEFAULT_STATE_LOG_PARTITIONS, ConfigKey.Scope.BROKER, 11,
                        "partitions of a cluster's __transaction_state, created at the first FindCoordinator for a"
                                + " transactional id (Kafka's default 50; kaen-log's most, each declared compacted)"),
                ConfigKey.whole(REPLICATION_FACTOR, 3, 1, Short.MAX_VALUE, ConfigKey.Scope.BROKER, 11,
                        "replicas of each __transaction_state partition; no coordinator until this many brokers live"
                                + " (Kafka's default 3)"),
                ConfigKey.whole(MIN_ISR, 2, 1, Short.MAX_VALUE, ConfigKey.Scope.BROKER, 11,
                        "the min.insync.replicas __transaction_state is created with (Kafka's default 2)"));
    }

    /** This broker's extension (one per broker, as every {@link BrokerExtension}). */
    public static TransactionStateExtension of(BrokerContext broker) {
        return broker.extension(TransactionStateExtension.class).orElseThrow(() -> new IllegalStateException(
                "chapter 11's TransactionStateExtension is not registered in META-INF/services/kaenlog.broker.BrokerExtension"));
    }

    /** From now on this broker's transactional ids are placed by {@code placement} (chapter 10's cluster). */
    public void placeIn(TxnPlacement placement) {
        this.placement = placement;
    }

    /** The cluster's placement of this broker's transactional ids, once it has joined one. */
    public Optional<TxnPlacement> placement() {
        return Optional.ofNullable(placement);
    }
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
