package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.broker.Leadership;
import kaenlog.wire.PartitionNames;

/**
 * Metadata (key 3), v1..v8: which brokers there are, which topics and partitions exist and which
 * broker leads each. A broker alone is the leader of everything, every replica list is [itself] and
 * so is the ISR. A topic a producer names that does not exist yet is created when the client allows
 * it and the broker does (Kafka's auto.create.topics.enable, default true, with num.partitions,
 * default 1), under max.partitions; otherwise it is answered UNKNOWN_TOPIC_OR_PARTITION.
 *
 * <p>A broker of chapter 10's cluster answers from the cluster as it last read it ({@link
 * Backend#cluster}), as Kafka's brokers answer from their {@code MetadataCache}: every live broker
 * that has a Kafka port, the controller, and per partition its leader, leader epoch, replicas, ISR
 * and offline replicas. A topic no one has created is UNKNOWN_TOPIC_OR_PARTITION: in a cluster a
 * topic exists where its assignment is written in ZooKeeper, never where a client asks.
 */
public final class Metadata {
    /** This broker's node id in every answer of a broker alone. */
    public static final int NODE_ID = 1;
    public static final String CLUSTER_ID = "kaen-log";
    /** Kafka's LISTENER_NOT_FOUND: the leader is live but has no Kafka port (v6 on; LEADER_NOT_AVAILABLE before). */
    static final short LISTENER_NOT_FOUND = 72;

    /** {@code topics} null means every topic. */
    public record Request(List<String> topics, boolean allowAutoTopicCreation, short version) {
    }

    /** A broker as Metadata lists it: its node id and where clients reach its Kafka port. */
    public record Node(int id, String host, int port) {
    }

    /** One partition's answer (Kafka's MetadataResponsePartition). */
    public record PartitionMetadata(short errorCode, int partition, int leader, int leaderEpoch, List<Integer> replicas,
                                    List<Integer> isr, List<Integer> offlineReplicas) {
    }

    public record TopicMetadata(short errorCode, String name, List<PartitionMetadata> partitions) {
    }

    /** The whole answer: the brokers, the controller, the topics. */
    public record Answer(List<Node> brokers, int controllerId, List<TopicMetadata> topics) {
    }

    private Metadata() {
    }

    public static Request parse(KafkaReader in, short version) {
        int count = in.arrayLength("topics");
        List<String> topics = null;
        if (count >= 0) {
            topics = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                topics.add(in.string("topics.name"));
            }
        }
        boolean allowAutoTopicCreation = true;
        if (version >= 4) {
            allowAutoTopicCreation = in.bool("allow_auto_topic_creation");
        }
        if (version >= 8) {
            in.bool("include_cluster_authorized_operations");
            in.bool("include_topic_authorized_operations");
        }
        in.end("Metadata v" + version + " request");
        return new Request(topics, allowAutoTopicCreation, version);
    }

    /**
     * The answer of this broker, which clients reach at {@code self}: from the cluster it is a member
     * of, or, alone, from its data directory.
     */
    public static Answer answer(Request request, Backend backend, Node self) throws IOException {
        Optional<Leadership.ClusterView> cluster = backend.cluster();
        if (cluster.isPresent()) {
            return ofCluster(request, cluster.get());
        }
        return new Answer(List.of(self), self.id(), aloneTopics(request, backend, self.id()));
    }

    private static List<TopicMetadata> aloneTopics(Request request, Backend backend, int nodeId) throws IOException {
        Map<String, TreeSet<Integer>> existing = backend.topics();
        List<TopicMetadata> answer = new ArrayList<>();
        if (request.topics() == null) {
            for (Map.Entry<String, TreeSet<Integer>> topic : existing.entrySet()) {
                answer.add(existingTopic(topic.getKey(), topic.getValue(), backend, nodeId));
            }
            return answer;
        }
        for (String name : request.topics()) {
            TreeSet<Integer> partitions = existing.get(name);
            if (partitions != null) {
                answer.add(existingTopic(name, partitions, backend, nodeId));
            } else if (invalidName(name)) {
                answer.add(new TopicMetadata(KafkaErrors.INVALID_TOPIC_EXCEPTION, name, List.of()));
            } else {
                answer.add(autoCreated(request, name, backend, nodeId));
            }
        }
        return answer;
    }

    private static boolean invalidName(String name) {
        return PartitionNames.isInternal(name) || PartitionNames.topicProblem(name) != null;
    }

    /**
     * A topic on disk, with the partitions whose log is offline. Kafka's MetadataCache answers such a
     * partition with its replica in offline_replicas and, its only replica being offline, no leader
     * (leader -1, LEADER_NOT_AVAILABLE); it never answers KAFKA_STORAGE_ERROR in Metadata. A client
     * then sends nothing for that partition and goes on with the others.
     *
     * <p>Every partition 0..N-1 is listed: a topic's count is its highest partition + 1, and a
     * partition with no directory below it is answered the same way as an offline one (so a keyed
     * producer's murmur2(key) % N keeps N, and no record goes to the wrong partition).
     */
    private static TopicMetadata existingTopic(String name, TreeSet<Integer> partitions, Backend backend, int nodeId)
            throws IOException {
        List<PartitionMetadata> answer = new ArrayList<>();
        int count = partitions.isEmpty() ? 0 : partitions.last() + 1;
        for (int partition = 0; partition < count; partition++) {
            boolean present = partitions.contains(partition) && !backend.isOffline(name, partition);
            backend.partitionsDone();
            answer.add(present
                    ? new PartitionMetadata(KafkaErrors.NONE, partition, nodeId, 0, List.of(nodeId), List.of(nodeId),
                            List.of())
                    : new PartitionMetadata(KafkaErrors.LEADER_NOT_AVAILABLE, partition, -1, 0, List.of(nodeId),
                            List.of(), List.of(nodeId)));
        }
        return new TopicMetadata(KafkaErrors.NONE, name, answer);
    }

    /** A topic that does not exist: created if the client and the broker allow it, else UNKNOWN_TOPIC_OR_PARTITION. */
    private static TopicMetadata autoCreated(Request request, String name, Backend backend, int nodeId)
            throws IOException {
        int created = request.allowAutoTopicCreation() ? backend.autoCreate(name) : 0;
        if (created == 0) {
            return new TopicMetadata(KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, name, List.of());
        }
        TreeSet<Integer> numbers = new TreeSet<>();
        for (int p = 0; p < created; p++) {
            numbers.add(p);
        }
        return existingTopic(name, numbers, backend, nodeId);
    }

    /**
     * A cluster member's answer, from the cluster as it last read it (Kafka's
     * {@code ZkMetadataCache.getPartitionMetadata}): the live brokers that have a Kafka port; per
     * partition the leader when it is live and has a Kafka port, else leader -1 with
     * LEADER_NOT_AVAILABLE (or, from v6, LISTENER_NOT_FOUND for a live leader without a Kafka port),
     * and in every case the leader epoch, the replicas, the ISR and the offline replicas as the
     * metadata holds them. A topic that is not in the metadata is UNKNOWN_TOPIC_OR_PARTITION (no
     * auto-creation: a cluster's topics are created in ZooKeeper).
     */
    private static Answer ofCluster(Request request, Leadership.ClusterView view) {
        Map<Integer, Leadership.BrokerEndpoint> live = new TreeMap<>();
        view.liveBrokers().forEach(b -> live.put(b.id(), b));
        List<Node> brokers = live.values().stream().filter(b -> b.kafkaPort() >= 0)
                .map(b -> new Node(b.id(), b.host(), b.kafkaPort())).toList();
        List<TopicMetadata> topics = new ArrayList<>();
        for (String name : request.topics() == null ? view.topics() : request.topics()) {
            Optional<List<Leadership.PartitionView>> partitions = view.partitions(name);
            if (partitions.isPresent()) {
                topics.add(new TopicMetadata(KafkaErrors.NONE, name, partitions.get().stream()
                        .map(p -> partition(p, live, request.version())).toList()));
            } else {
                topics.add(new TopicMetadata(invalidName(name) ? KafkaErrors.INVALID_TOPIC_EXCEPTION
                        : KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, name, List.of()));
            }
        }
        return new Answer(brokers, view.controllerId(), topics);
    }

    private static PartitionMetadata partition(Leadership.PartitionView p, Map<Integer, Leadership.BrokerEndpoint> live,
                                               short version) {
        Leadership.BrokerEndpoint leader = live.get(p.leader());
        short error = KafkaErrors.NONE;
        if (leader == null) {
            error = KafkaErrors.LEADER_NOT_AVAILABLE;
        } else if (leader.kafkaPort() < 0) {
            error = version >= 6 ? LISTENER_NOT_FOUND : KafkaErrors.LEADER_NOT_AVAILABLE;
        }
        return new PartitionMetadata(error, p.partition(), error == KafkaErrors.NONE ? p.leader() : -1,
                p.leaderEpoch(), p.replicas(), p.isr(), p.offlineReplicas());
    }

    public static byte[] response(Answer answer, short version) {
        KafkaWriter out = new KafkaWriter();
        if (version >= 3) {
            out.int32(0); // throttle_time_ms
        }
        out.arrayLength(answer.brokers().size());
        for (Node node : answer.brokers()) {
            out.int32(node.id()).nullableString(node.host()).int32(node.port()).nullableString(null); // rack
        }
        if (version >= 2) {
            out.nullableString(CLUSTER_ID);
        }
        out.int32(answer.controllerId());
        out.arrayLength(answer.topics().size());
        for (TopicMetadata topic : answer.topics()) {
            out.int16(topic.errorCode()).nullableString(topic.name()).bool(false); // is_internal
            out.arrayLength(topic.partitions().size());
            for (PartitionMetadata p : topic.partitions()) {
                out.int16(p.errorCode()).int32(p.partition()).int32(p.leader());
                if (version >= 7) {
                    out.int32(p.leaderEpoch());
                }
                ids(out, p.replicas()); // replica_nodes
                ids(out, p.isr()); // isr_nodes
                if (version >= 5) {
                    ids(out, p.offlineReplicas());
                }
            }
            if (version >= 8) {
                out.int32(Integer.MIN_VALUE); // topic_authorized_operations: not asked for
            }
        }
        if (version >= 8) {
            out.int32(Integer.MIN_VALUE); // cluster_authorized_operations
        }
        return out.toByteArray();
    }

    private static void ids(KafkaWriter out, List<Integer> ids) {
        out.arrayLength(ids.size());
        ids.forEach(out::int32);
    }
}
