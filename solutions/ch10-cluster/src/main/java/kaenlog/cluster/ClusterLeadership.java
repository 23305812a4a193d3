package kaenlog.cluster;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.Leadership;
import kaenlog.broker.ProducerIds;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.OffsetsForLeaderEpoch;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * A broker of a cluster, as chapter 3's request path asks it (Kafka's {@code ReplicaManager} with
 * its {@code MetadataCache}): which partitions it holds a replica of ({@link PartitionReplica}),
 * which of them it leads, and the cluster as last read from ZooKeeper, for Kafka's Metadata. It
 * exists before the broker listens and refuses everything until the broker has joined and read its
 * partitions' states: a produce is never taken by a broker that does not know yet that it leads.
 */
public final class ClusterLeadership implements Leadership, ProducerIds {
    private final int brokerId;
    private final Map<String, PartitionReplica> replicas = new ConcurrentHashMap<>();
    private final ProducerIdBlocks producerIds;
    /** The member's ZooKeeper session, once it has joined (and again after each rejoin). */
    private volatile ZkClient zk;
    private volatile Snapshot view;

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

    private ZkClient session() throws IOException {
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
    public ErrorCode produceRefusal(ProduceRequest request) {
        PartitionReplica replica = replicas.get(request.partition());
        return replica == null ? ErrorCode.NOT_LEADER_OR_FOLLOWER : replica.produceRefusal(request);
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
     * of: a consumer is told NOT_LEADER_OR_FOLLOWER; a follower, which names an epoch,
     * UNKNOWN_LEADER_EPOCH (this broker has not read that state yet: it just started, say), so that
     * it asks again instead of waiting for a state that already came.
     */
    @Override
    public ErrorCode beforeFetch(FetchRequest request, long nowMs) {
        ErrorCode refused = replicaFetchRefusal(request);
        if (refused != ErrorCode.NONE) {
            return refused;
        }
        PartitionReplica replica = replicas.get(request.partition());
        if (replica == null) {
            return request.currentLeaderEpoch() == FetchRequest.NO_LEADER_EPOCH ? ErrorCode.NOT_LEADER_OR_FOLLOWER
                    : ErrorCode.UNKNOWN_LEADER_EPOCH;
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

    @Override
    public ErrorCode readRefusal(String partition) {
        PartitionReplica replica = replicas.get(partition);
        return replica != null && replica.leader().isPresent() ? ErrorCode.NONE : ErrorCode.NOT_LEADER_OR_FOLLOWER;
    }

    @Override
    public boolean producesCreatePartitions() {
        return false;
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

    Collection<PartitionReplica> replicas() {
        return replicas.values();
    }

    /** The partitions this broker holds a replica of, with their high watermarks, for the checkpoint. */
    SortedMap<String, Long> highWatermarks() {
        SortedMap<String, Long> hws = new TreeMap<>();
        replicas.values().forEach(replica -> hws.put(replica.name(), replica.replica().highWatermark()));
        return hws;
    }

    /** The leader this broker's replica of {@code partition} leads as, if it leads it. */
    public Optional<PartitionLeader> leaderOf(String partition) {
        return replica(partition).flatMap(PartitionReplica::leader);
    }

    void publish(Snapshot snapshot) {
        view = snapshot;
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
