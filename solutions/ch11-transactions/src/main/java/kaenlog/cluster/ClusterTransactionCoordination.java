package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kaenlog.broker.Broker;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.logmanager.CleanupConfigs;
import kaenlog.txn.PartitionStateLog;
import kaenlog.txn.StateLog;
import kaenlog.txn.TransactionCoordinator;
import kaenlog.txn.TransactionStateExtension;
import kaenlog.txn.TxnConfig;
import kaenlog.txn.TxnError;
import kaenlog.txn.TxnPlacement;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Chapter 11's transaction coordinator in chapter 10's cluster (given code, on chapter 10's
 * task 13 (CoordinatorPartitionsTest) and chapter 11's coordinator), as chapter 10 places groups
 * ({@code ClusterGroupCoordination}): {@code __transaction_state} is a topic of the cluster, created
 * through the controller by the first FindCoordinator for a transactional id that finds it missing,
 * with Kafka's {@code transaction.state.log.num.partitions} (50), {@code replication.factor} (3) and
 * {@code min.isr} (2) and the configs of Kafka's {@code TransactionStateManager.transactionTopicConfigs}
 * (compacted, 100 MiB segments; a cluster of chapter 10 never elects uncleanly); a transactional id's coordinator is the leader of
 * its partition, {@code Utils.abs(id.hashCode()) % partitions} ({@link CoordinatorPartitions}, as
 * Kafka's {@code TransactionStateManager.partitionFor}).
 *
 * <p>A broker that becomes a partition's leader loads it on a thread of its own (Kafka's
 * {@code TransactionCoordinator.onElection} and {@code loadTransactionsForTxnTopicPartition}), and
 * answers its ids COORDINATOR_LOAD_IN_PROGRESS meanwhile; its coordinator epoch is the partition's
 * leader epoch, written in every marker it sends. The load completes what the log left prepared: a
 * PrepareCommit or PrepareAbort sends its markers again (chapter 11's {@code TransactionCoordinator.load}).
 * One that stops leading forgets the partition's ids at once (Kafka's
 * {@code onResignation}, {@code removeTransactionsForTxnTopicPartition}). Every transition is appended
 * by the leader with acks=all and waits for the high watermark (Kafka appends to this log with
 * {@code requiredAcks = -1}), so what a producer was told survives the coordinator's broker; and the
 * markers go to each partition's leader with WriteTxnMarkers ({@link ClusterMarkers}).
 */
final class ClusterTransactionCoordination implements TxnPlacement, LeadershipListener, Closeable {
    /**
     * How long a transition waits for its replicas: Kafka waits {@code request.timeout.ms}; a shorter
     * wait, since the coordinator's one lock is held meanwhile (a timeout answers NOT_COORDINATOR,
     * which the producer retries after a new FindCoordinator).
     */
    static final int STATE_LOG_APPEND_TIMEOUT_MS = 5_000;

    private final Broker broker;
    private final ClusterLeadership leadership;
    private final PrintStream log;
    private final int partitionCount;
    private final ExecutorService loads;
    private final ClusterMarkers markers;
    private final TransactionCoordinator coordinator;
    private final CoordinatorPartitions partitions;

    private ClusterTransactionCoordination(Broker broker, ClusterLeadership leadership, PrintStream log) {
        this.broker = broker;
        this.leadership = leadership;
        this.log = log;
        this.partitionCount = (int) broker.configs().brokerLong(TransactionStateExtension.NUM_PARTITIONS);
        this.loads = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "klog-txn-loads-" + leadership.brokerId());
            thread.setDaemon(true);
            return thread;
        });
        this.markers = new ClusterMarkers(leadership, broker.configs());
        this.coordinator = new TransactionCoordinator(new TxnConfig(TxnConfig.DEFAULT_MAX_TIMEOUT_MS, partitionCount),
                () -> leadership.issue(broker), markers,
                group -> PartitionNames.parse(GroupCoordinator.of(broker).placement().partitionFor(group)).orElseThrow());
        this.partitions = new CoordinatorPartitions(TxnConfig.STATE_LOG_TOPIC, () -> partitionCount, loads,
                new CoordinatorPartitions.Offsets() {
                    @Override
                    public void load(String partition) throws IOException {
                        int coordinatorEpoch = leadership.leaderOf(partition).map(PartitionLeader::leaderEpoch)
                                .orElseThrow(() -> new IOException(partition + " is not led here any more"));
                        List<String> prepared = coordinator.load(number(partition), coordinatorEpoch,
                                stateLog(partition), broker.nowMs());
                        log.println("cluster: broker " + leadership.brokerId() + " coordinates the transactions of "
                                + partition + " (coordinator epoch " + coordinatorEpoch + ")" + (prepared.isEmpty() ? ""
                                : "; it sends the markers of what its log left prepared: " + String.join(", ", prepared)));
                    }

                    @Override
                    public void unload(String partition) {
                        coordinator.unload(number(partition));
                        log.println("cluster: broker " + leadership.brokerId()
                                + " no longer coordinates the transactions of " + partition);
                    }
                }, log);
    }

    /** Places {@code broker}'s transactional ids in the cluster: it hears which partitions it leads. */
    static ClusterTransactionCoordination install(Broker broker, ClusterLeadership leadership, PrintStream log) {
        ClusterTransactionCoordination coordination = new ClusterTransactionCoordination(broker, leadership, log);
        leadership.addListener(coordination);
        TransactionStateExtension.of(broker).placeIn(coordination);
        return coordination;
    }

    private static int number(String partition) {
        return PartitionNames.parse(partition).orElseThrow().partition();
    }

    // TxnPlacement: who answers a transactional id.

    @Override
    public int coordinatorId(String transactionalId) {
        Leadership.ClusterView view = leadership.cluster().orElseThrow();
        return CoordinatorTopic.coordinatorId(view, TxnConfig.STATE_LOG_TOPIC,
                count -> CoordinatorPartitions.partitionFor(transactionalId, count), () -> createStateTopic(view));
    }

    @Override
    public TxnError status(String transactionalId) {
        return switch (partitions.status(transactionalId)) {
            case NONE -> TxnError.NONE;
            case LOAD_IN_PROGRESS -> TxnError.COORDINATOR_LOAD_IN_PROGRESS;
            case NOT_COORDINATOR -> TxnError.NOT_COORDINATOR;
        };
    }

    @Override
    public TransactionCoordinator coordinator() {
        return coordinator;
    }

    /**
     * {@code __transaction_state} as Kafka creates it ({@code AutoTopicCreationManager} with
     * {@code transaction.state.log.replication.factor}, not lowered to the live brokers; the configs of
     * {@code transactionTopicConfigs}).
     */
    private void createStateTopic(Leadership.ClusterView view) {
        int replicationFactor = (int) broker.configs().brokerLong(TransactionStateExtension.REPLICATION_FACTOR);
        long minIsr = broker.configs().brokerLong(TransactionStateExtension.MIN_ISR);
        CoordinatorTopic.create(broker, leadership, view, TxnConfig.STATE_LOG_TOPIC, partitionCount, replicationFactor,
                TransactionStateExtension.REPLICATION_FACTOR, Map.of(CleanupConfigs.CLEANUP_POLICY, CleanupConfigs.COMPACT,
                        "segment.bytes", Integer.toString(TxnConfig.STATE_LOG_SEGMENT_BYTES),
                        ClusterConfigKeys.MIN_INSYNC_REPLICAS, Long.toString(minIsr)));
    }

    /**
     * A {@code __transaction_state} partition as its leader writes it: each transition appended with
     * acks=all, stamped with the leader epoch, through the same path as a client's produce (chapter 10's
     * {@code PartitionReplica.produce}); read back from the local log to its end at a load.
     */
    private StateLog stateLog(String name) {
        PartitionStateLog local = new PartitionStateLog(() -> broker.partition(name));
        return new StateLog() {
            @Override
            public void append(ByteBuffer batch) throws IOException {
                Partition partition = broker.partition(name);
                ProduceRequest request = new ProduceRequest(name, ProduceRequest.ACKS_ALL, STATE_LOG_APPEND_TIMEOUT_MS,
                        batch);
                ProduceResponse response = broker.await(leadership.produce(request,
                        leaderEpoch -> partition.produce(request, leaderEpoch, broker.nowMs())));
                if (response.error() != ErrorCode.NONE) {
                    throw new IOException("appending to " + name + ": " + response.error());
                }
            }

            @Override
            public void forEachRecord(RecordVisitor visitor) throws IOException {
                local.forEachRecord(visitor);
            }
        };
    }

    // LeadershipListener: this broker gains or loses a __transaction_state partition.

    @Override
    public void onElection(String partition, int leaderEpoch) {
        partitions.onElection(partition, leaderEpoch);
    }

    @Override
    public void onResignation(String partition, int leaderEpoch) {
        partitions.onResignation(partition, leaderEpoch);
    }

    /**
     * The marker channel: closed, it sends nothing more (every marker fails and waits for the next
     * tick), which is how a test crashes this coordinator between PrepareCommit and its markers.
     */
    ClusterMarkers markers() {
        return markers;
    }

    @Override
    public void close() {
        loads.shutdownNow();
        markers.close();
    }
}
