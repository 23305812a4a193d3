package kaenlog.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import kaenlog.batch.BatchHeader;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.Leadership;
import kaenlog.broker.ProducerIds;
import kaenlog.kafkawire.ClusterTopics;
import kaenlog.kafkawire.TopicStore;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.OffsetsForLeaderEpoch;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * A broker of a cluster, as chapter 3's request path asks it (Kafka's {@code ReplicaManager} with
 * its {@code MetadataCache}): which partitions it holds a replica of ({@link PartitionReplica}),
 * which of them it leads, and the cluster as last read from ZooKeeper, for Kafka's Metadata. It
 * exists before the broker listens and refuses everything until the broker has joined and read its
 * partitions' states: a produce is never taken by a broker that does not know yet that it leads.
 */
public final class ClusterLeadership implements Leadership, ProducerIds, ClusterTopics {
    private final int brokerId;
    private final Map<String, PartitionReplica> replicas = new ConcurrentHashMap<>();
    private final List<LeadershipListener> listeners = new CopyOnWriteArrayList<>();
    private final ProducerIdBlocks producerIds;
    /** The member's ZooKeeper session, once it has joined (and again after each rejoin). */
    private volatile ZkClient zk;
    private volatile Snapshot view;
    /** Requests waiting to see a change of theirs in the metadata ({@link #awaitView}). */
    private final List<ViewWaiter> waiters = new CopyOnWriteArrayList<>();
    private final AdminZkClient admin = new AdminZkClient(this);

    private record ViewWaiter(Predicate<ClusterView> done, CompletableFuture<Void> seen) {
    }

    public ClusterLeadership(int brokerId) {
        this.brokerId = brokerId;
        this.producerIds = new ProducerIdBlocks(brokerId);
        this.view = new Snapshot(brokerId, List.of(), -1, new TreeMap<>());
    }

    /** The session the member joined with: producer ids are reserved through it. */
    void joined(ZkClient session) {
        this.zk = session;
    }

    /** A producer id from this broker's block (Kafka's /latest_producer_id_block), unique in the cluster. */
    @Override
    public long issue(BrokerContext broker) throws IOException {
        return producerIds.issue(session());
    }

    /** Any broker's id counts: an idempotent producer that fails over keeps its id. */
    @Override
    public boolean wasIssued(BrokerContext broker, long producerId) throws IOException {
        return producerIds.wasIssued(session(), producerId);
    }

    ZkClient session() throws IOException {
        ZkClient session = zk;
        if (session == null) {
            throw new IOException("broker " + brokerId + " has not joined its cluster yet: no producer id to hand out");
        }
        return session;
    }

    public int brokerId() {
        return brokerId;
    }

    @Override
    public CompletableFuture<ProduceResponse> produce(ProduceRequest request, Append append) throws IOException {
        PartitionReplica replica = replicas.get(request.partition());
        if (replica == null) {
            return CompletableFuture.completedFuture(ProduceResponse.error(request.partition(),
                    ErrorCode.NOT_LEADER_OR_FOLLOWER));
        }
        return replica.produce(request, append);
    }

    /**
     * A follower's fetch that did not come through the port brokers use for each other is refused
     * before anything else ({@link #replicaFetchRefusal}). A partition this broker holds no replica
     * of: a follower that names an epoch is told UNKNOWN_LEADER_EPOCH (this broker has not read that
     * state yet: it just started, say), so that it asks again instead of waiting for a state that
     * already came; anyone else gets {@link #missingPartition}.
     */
    @Override
    public ErrorCode beforeFetch(FetchRequest request, long nowMs) {
        ErrorCode refused = replicaFetchRefusal(request);
        if (refused != ErrorCode.NONE) {
            return refused;
        }
        PartitionReplica replica = replicas.get(request.partition());
        if (replica == null) {
            boolean follower = request.replicaId() >= 0 && request.currentLeaderEpoch() != FetchRequest.NO_LEADER_EPOCH;
            return follower ? ErrorCode.UNKNOWN_LEADER_EPOCH : missingPartition(request.partition());
        }
        try {
            return replica.beforeFetch(request, nowMs);
        } catch (IOException e) {
            return ErrorCode.STORAGE_ERROR;
        }
    }

    /**
     * A replica id says "I am a follower": a leader takes the fetch offset as that follower's log
     * end and may acknowledge acks=all writes on it. Only the inter-broker listener takes such a
     * fetch ({@link InterBrokerListener}); on the client port it is TOPIC_AUTHORIZATION_FAILED, what
     * Kafka answers a replica Fetch whose sender lacks ClusterAction. A consumer (-1) may fetch on
     * either port.
     */
    static ErrorCode replicaFetchRefusal(FetchRequest request) {
        if (request.replicaId() >= 0 && !InterBrokerListener.serving()) {
            return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        }
        return ErrorCode.NONE;
    }

    /** The epoch the client believes in checked against the last state learnt, then only the leader answers. */
    @Override
    public ErrorCode readRefusal(String partition, int currentLeaderEpoch) {
        PartitionReplica replica = replicas.get(partition);
        if (replica == null) {
            return missingPartition(partition);
        }
        ErrorCode epochError = PartitionLeader.checkLeaderEpoch(currentLeaderEpoch, replica.knownEpoch());
        if (epochError != ErrorCode.NONE) {
            return epochError;
        }
        return replica.leader().isPresent() ? ErrorCode.NONE : ErrorCode.NOT_LEADER_OR_FOLLOWER;
    }

    /**
     * Kafka's {@code getPartitionOrError} for a partition this broker holds no replica of:
     * NOT_LEADER_OR_FOLLOWER when the cluster's metadata has it (another broker does: the client asks
     * Metadata again and goes there), UNKNOWN_PARTITION when no one does.
     */
    @Override
    public ErrorCode missingPartition(String partition) {
        return partitionView(partition).isPresent() ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_PARTITION;
    }

    /**
     * A cluster's topics are assignments written in ZooKeeper (by {@code klog topics --zookeeper}, or by
     * the controller's answer to the Kafka port's CreateTopics, or Metadata's auto-create on any member,
     * {@link ClusterTopics}): a member creates none on its own disk where a client happens to write (a
     * produce naming a new partition, kaen-log's own port).
     */
    @Override
    public Optional<String> creationRefusal() {
        return Optional.of("this broker is a member of a cluster whose topics are created in ZooKeeper:"
                + " klog topics --zookeeper H:P --create --topic T --partitions N --replication-factor R"
                + " [--config min.insync.replicas=M], or CreateTopics on the Kafka port");
    }

    // No topicChangeRefusal: DeleteRecords moves the log start on the partition's leader (the Kafka
    // port answers NOT_LEADER_OR_FOLLOWER elsewhere), and its followers take it from the leader's
    // fetch answers (ReplicaFetcher), as Kafka's do.

    /** kaen-log's own port deletes no topic of a cluster: its controller does, on the Kafka port's DeleteTopics. */
    @Override
    public Optional<String> deletionRefusal() {
        return Optional.of("this broker is a member of a cluster, whose controller deletes topics: DeleteTopics on"
                + " the Kafka port (kafka-topics --bootstrap-server ... --delete)");
    }

    // ClusterTopics: chapter 9's admin requests, on the cluster's znodes (AdminZkClient).

    @Override
    public boolean isController() {
        return view.controllerId() == brokerId;
    }

    @Override
    public TopicStore.Result create(String topic, int partitions, int replicationFactor, List<List<Integer>> assignment,
                                    Map<String, String> configs, boolean validateOnly, int timeoutMs) throws IOException {
        return admin.create(topic, partitions, replicationFactor, assignment, configs, validateOnly, timeoutMs);
    }

    @Override
    public TopicStore.Result createPartitions(String topic, int count, List<List<Integer>> assignment,
                                              boolean validateOnly, int timeoutMs) throws IOException {
        return admin.createPartitions(topic, count, assignment, validateOnly, timeoutMs);
    }

    @Override
    public TopicStore.Result delete(String topic, int timeoutMs) throws IOException {
        return admin.delete(topic, timeoutMs);
    }

    @Override
    public Optional<Map<String, String>> configs(String topic) throws IOException {
        return admin.configs(topic);
    }

    @Override
    public void alterConfigs(String topic, Map<String, String> configs) throws IOException {
        admin.alterConfigs(topic, configs);
    }

    /**
     * Waits until the cluster as this broker reads it satisfies {@code done}, at most {@code timeoutMs}
     * (Kafka's delayed operations: a CreateTopics answered once its partitions are led); false when it
     * did not in time.
     */
    boolean awaitView(Predicate<ClusterView> done, long timeoutMs) {
        ViewWaiter waiter = new ViewWaiter(done, new CompletableFuture<>());
        waiters.add(waiter);
        try {
            if (done.test(view)) {
                return true;
            }
            waiter.seen().get(timeoutMs, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            waiters.remove(waiter);
        }
    }

    /** The leader epoch the metadata names for {@code partition} (0 before it names one). */
    @Override
    public int leaderEpoch(String partition) {
        return partitionView(partition).map(PartitionView::leaderEpoch).orElse(0);
    }

    /**
     * The epoch stamped on the batch at the log's start (a leader stamps every batch it appends with
     * its epoch, {@link PartitionReplica#produce}); -1 when the log holds no batch.
     */
    @Override
    public int earliestLeaderEpoch(Log log) throws IOException {
        if (log.logEndOffset() <= log.logStartOffset()) {
            return -1;
        }
        ByteBuffer first = log.read(log.logStartOffset(), 1, FetchIsolation.LOG_END);
        return first.remaining() < BatchHeader.SIZE ? -1 : BatchHeader.readFrom(first).partitionLeaderEpoch();
    }

    /** {@code partition} as the cluster's metadata last read holds it, if it does. */
    private Optional<PartitionView> partitionView(String partition) {
        return PartitionNames.parse(partition).flatMap(p -> view.partitions(p.topic())
                .flatMap(views -> views.stream().filter(v -> v.partition() == p.partition()).findFirst()));
    }

    @Override
    public Optional<ClusterView> cluster() {
        return Optional.of(view);
    }

    /** The leader's answer to a follower's OFFSETS_FOR_LEADER_EPOCH. */
    public OffsetsForLeaderEpoch.Response offsetsForLeaderEpoch(OffsetsForLeaderEpoch.Request request) {
        PartitionReplica replica = replicas.get(request.partition());
        if (replica == null) {
            return OffsetsForLeaderEpoch.Response.error(ErrorCode.UNKNOWN_LEADER_EPOCH);
        }
        return replica.endOffsetForEpoch(request.currentLeaderEpoch(), request.leaderEpoch());
    }

    /** This broker's replica of {@code partition}, if it holds one. */
    Optional<PartitionReplica> replica(String partition) {
        return Optional.ofNullable(replicas.get(partition));
    }

    void add(PartitionReplica replica) {
        replicas.put(replica.name(), replica);
    }

    /** This broker holds no replica of {@code partition} any more (its topic was deleted). */
    void remove(String partition) {
        replicas.remove(partition);
    }

    Collection<PartitionReplica> replicas() {
        return replicas.values();
    }

    /** The partitions this broker holds a replica of, with their high watermarks, for the checkpoint. */
    SortedMap<String, Long> highWatermarks() {
        SortedMap<String, Long> hws = new TreeMap<>();
        replicas.values().forEach(replica -> hws.put(replica.name(), replica.replica().highWatermark()));
        return hws;
    }

    /**
     * From now on {@code listener} hears of every partition this broker comes to lead or stops
     * leading (a coordinator of the partitions of an internal topic, say).
     */
    public void addListener(LeadershipListener listener) {
        listeners.add(listener);
    }

    /** This broker now leads {@code partition} at {@code leaderEpoch}: every listener hears it. */
    void elected(String partition, int leaderEpoch) {
        listeners.forEach(listener -> listener.onElection(partition, leaderEpoch));
    }

    /** This broker no longer leads {@code partition}, led at {@code leaderEpoch}: every listener hears it. */
    void resigned(String partition, int leaderEpoch) {
        listeners.forEach(listener -> listener.onResignation(partition, leaderEpoch));
    }

    /** The leader this broker's replica of {@code partition} leads as, if it leads it. */
    public Optional<PartitionLeader> leaderOf(String partition) {
        return replica(partition).flatMap(PartitionReplica::leader);
    }

    void publish(Snapshot snapshot) {
        view = snapshot;
        waiters.stream().filter(w -> w.done().test(snapshot)).forEach(w -> w.seen().complete(null));
    }

    /** The cluster as last read from ZooKeeper: what Kafka's Metadata answers from. */
    record Snapshot(int brokerId, List<BrokerEndpoint> liveBrokers, int controllerId,
                    SortedMap<String, List<PartitionView>> byTopic)
            implements ClusterView {
        @Override
        public List<String> topics() {
            return List.copyOf(byTopic.keySet());
        }

        @Override
        public Optional<List<PartitionView>> partitions(String topic) {
            return Optional.ofNullable(byTopic.get(topic));
        }
    }
}
