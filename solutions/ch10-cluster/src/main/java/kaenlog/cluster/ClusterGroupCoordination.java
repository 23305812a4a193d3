package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.OffsetCommitError;
import kaenlog.coordinator.OffsetsPlacement;
import kaenlog.logmanager.CleanupConfigs;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Chapter 6's group coordinator in a cluster (given code, on task 13 (CoordinatorPartitionsTest)):
 * {@code __consumer_offsets} is a topic of the cluster, created through the controller like any other
 * (its assignment and configs written in ZooKeeper, {@link PartitionStateStore#createAssignment}) by
 * the first FindCoordinator that finds it missing, as Kafka 3.9's {@code AutoTopicCreationManager}
 * does in ZooKeeper mode; a group's coordinator is the leader of its partition
 * ({@link CoordinatorPartitions}), told by this broker's {@link LeadershipListener}; and a commit is
 * appended by that leader with acks=all, through the same path as a client's produce (chapter 10's
 * {@link PartitionReplica#produce}: stamped with the leader epoch, answered once the high watermark
 * passed it), so the offsets a group committed survive the coordinator's broker.
 */
final class ClusterGroupCoordination implements OffsetsPlacement, LeadershipListener, Closeable {
    /** Kafka's {@code offsets.commit.timeout.ms} default: a commit not replicated by then is REQUEST_TIMED_OUT. */
    static final int OFFSETS_COMMIT_TIMEOUT_MS = 5_000;
    /** The offsets topic's min.insync.replicas: a commit is acknowledged once two replicas hold it. */
    static final int OFFSETS_MIN_ISR = 2;

    private final Broker broker;
    private final ClusterLeadership leadership;
    private final ExecutorService loads;
    private final CoordinatorPartitions partitions;

    private ClusterGroupCoordination(Broker broker, ClusterLeadership leadership, PrintStream log) {
        this.broker = broker;
        this.leadership = leadership;
        this.loads = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "klog-group-loads-" + leadership.brokerId());
            thread.setDaemon(true);
            return thread;
        });
        GroupCoordinator coordinator = GroupCoordinator.of(broker);
        this.partitions = new CoordinatorPartitions(this::partitionCount, loads, new CoordinatorPartitions.Offsets() {
            @Override
            public void load(String partition) throws IOException {
                coordinator.reload(broker.partition(partition));
                log.println("cluster: broker " + leadership.brokerId() + " coordinates the groups of " + partition);
            }

            @Override
            public void unload(String partition) {
                coordinator.unload(partition);
                log.println("cluster: broker " + leadership.brokerId() + " no longer coordinates the groups of "
                        + partition);
            }
        }, log);
    }

    /**
     * Makes the broker's group coordinator (chapter 6's) a cluster's: its offsets placed in
     * {@code __consumer_offsets}' partitions, the leaders of which coordinate their groups.
     */
    static ClusterGroupCoordination install(Broker broker, ClusterLeadership leadership, PrintStream log) {
        ClusterGroupCoordination coordination = new ClusterGroupCoordination(broker, leadership, log);
        leadership.addListener(coordination);
        GroupCoordinator.of(broker).placeIn(coordination);
        return coordination;
    }

    /** The topic's partition count once it exists (Kafka reads it from ZooKeeper), else offsets.topic.num.partitions. */
    private int partitionCount() {
        return leadership.cluster().flatMap(view -> view.partitions(GroupCoordinator.OFFSETS_TOPIC)).map(List::size)
                .filter(n -> n > 0).orElseGet(() ->
                        (int) broker.configs().brokerLong(ClusterConfigKeys.OFFSETS_TOPIC_NUM_PARTITIONS));
    }

    // OffsetsPlacement: where chapter 6's coordinator keeps a group's offsets, and who answers for it.

    @Override
    public boolean alone() {
        return false;
    }

    @Override
    public String partitionFor(String group) {
        return partitions.partitionName(group);
    }

    @Override
    public Status status(String group) {
        return partitions.status(group);
    }

    @Override
    public boolean owns(String partition) {
        return partitions.owns(partition);
    }

    @Override
    public Set<String> owned() {
        return partitions.owned();
    }

    /**
     * Kafka's {@code KafkaApis.getCoordinator}: without the topic, it is created (and the answer is
     * COORDINATOR_NOT_AVAILABLE: -1); with it, the live leader of the group's partition, else -1.
     */
    @Override
    public int coordinatorId(String group, int self) {
        Leadership.ClusterView view = leadership.cluster().orElseThrow();
        return CoordinatorTopic.coordinatorId(view, GroupCoordinator.OFFSETS_TOPIC,
                count -> CoordinatorPartitions.partitionFor(group, count), () -> createOffsetsTopic(view));
    }

    /**
     * {@code __consumer_offsets} with {@code offsets.topic.num.partitions} partitions of
     * {@code offsets.topic.replication.factor} replicas, compacted, min.insync.replicas 2
     * ({@link CoordinatorTopic#create}).
     */
    private void createOffsetsTopic(Leadership.ClusterView view) {
        int count = (int) broker.configs().brokerLong(ClusterConfigKeys.OFFSETS_TOPIC_NUM_PARTITIONS);
        int replicationFactor = (int) broker.configs().brokerLong(ClusterConfigKeys.OFFSETS_TOPIC_REPLICATION_FACTOR);
        CoordinatorTopic.create(broker, leadership, view, GroupCoordinator.OFFSETS_TOPIC, count, replicationFactor,
                ClusterConfigKeys.OFFSETS_TOPIC_REPLICATION_FACTOR, Map.of(CleanupConfigs.CLEANUP_POLICY,
                        CleanupConfigs.COMPACT, "segment.bytes", GroupCoordinator.OFFSETS_SEGMENT_BYTES,
                        ClusterConfigKeys.MIN_INSYNC_REPLICAS, Integer.toString(Math.min(OFFSETS_MIN_ISR, replicationFactor))));
    }

    /**
     * A commit's (or a deletion's) batch, appended by this broker as the partition's leader with
     * acks=all and answered once committed; the produce's errors in Kafka's coordinator's words
     * ({@code GroupMetadataManager.storeOffsets}): too few in-sync replicas is COORDINATOR_NOT_AVAILABLE,
     * not the leader (or a storage error) NOT_COORDINATOR.
     */
    @Override
    public Appended append(BrokerContext context, Partition partition, ByteBuffer batch) throws IOException {
        ProduceRequest request = new ProduceRequest(partition.name(), ProduceRequest.ACKS_ALL,
                OFFSETS_COMMIT_TIMEOUT_MS, batch);
        CompletableFuture<ProduceResponse> answer = leadership.produce(request,
                leaderEpoch -> partition.produce(request, leaderEpoch, broker.nowMs()));
        ProduceResponse response = broker.await(answer);
        OffsetCommitError error = switch (response.error()) {
            case NONE -> OffsetCommitError.NONE;
            case NOT_LEADER_OR_FOLLOWER, STORAGE_ERROR, READ_ONLY_STORAGE -> OffsetCommitError.NOT_COORDINATOR;
            case REQUEST_TIMED_OUT -> OffsetCommitError.TIMED_OUT;
            case BATCH_TOO_LARGE -> OffsetCommitError.BATCH_TOO_LARGE;
            default -> OffsetCommitError.COORDINATOR_NOT_AVAILABLE;
        };
        return new Appended(error, response.baseOffset());
    }

    /**
     * An expiry's tombstones: appended by this broker as the partition's leader (stamped with its
     * epoch), answered at once (acks=1: Kafka's coordinator appends them with requiredAcks 0); the
     * followers copy them as any record. A broker that no longer leads it writes nothing.
     */
    @Override
    public void appendUnacknowledged(Partition partition, ByteBuffer batch) throws IOException {
        ProduceRequest request = new ProduceRequest(partition.name(), ProduceRequest.ACKS_LEADER,
                OFFSETS_COMMIT_TIMEOUT_MS, batch);
        ProduceResponse response = broker.await(leadership.produce(request,
                leaderEpoch -> partition.produce(request, leaderEpoch, broker.nowMs())));
        if (response.error() != ErrorCode.NONE) {
            throw new IOException("the tombstones of expired offsets were not appended to " + partition.name()
                    + ": " + response.error());
        }
    }

    // LeadershipListener: this broker gains or loses an offsets partition.

    @Override
    public void onElection(String partition, int leaderEpoch) {
        partitions.onElection(partition, leaderEpoch);
    }

    @Override
    public void onResignation(String partition, int leaderEpoch) {
        partitions.onResignation(partition, leaderEpoch);
    }

    @Override
    public void close() {
        loads.shutdownNow();
    }
}
