package kaenlog.kafkawire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import kaenlog.broker.Leadership;
import kaenlog.wire.PartitionNames;

/**
 * Metadata (key 3), v1..v8: which brokers there are, which topics and partitions exist and which
 * broker leads each. A broker alone is the leader of everything, every replica list is [itself] and
 * so is the ISR. A topic a producer names that does not exist yet is created when the client allows
 * it and the broker does (Kafka's auto.create.topics.enable, default true, with num.partitions,
 * default 1), under max.partitions; otherwise it is answered UNKNOWN_TOPIC_OR_PARTITION.
 *
 * <p>One answer for both: a broker alone is a cluster of one ({@link BrokerAlone}); a broker of
 * chapter 10's cluster answers from the cluster as it last read it: every live broker that has a
 * Kafka port, the controller, and per partition its leader, leader epoch, replicas, ISR and offline
 * replicas. There a topic is auto-created by writing its assignment in ZooKeeper, and answered
 * LEADER_NOT_AVAILABLE until this broker has read it, as Kafka 3.9 in ZooKeeper mode answered.
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
     * The answer of this broker, whose listener clients reach at {@code listener}, from the cluster it
     * answers for ({@link Backend#clusterView}), as Kafka's brokers answer from their
     * {@code MetadataCache} ({@code KafkaApis.handleTopicMetadataRequest}): the live brokers that
     * have a Kafka port; per partition the leader when it is live and has a Kafka port, else leader
     * -1 with LEADER_NOT_AVAILABLE (or, from v6, LISTENER_NOT_FOUND for a live leader without a Kafka
     * port), and in every case the leader epoch, the replicas, the ISR and the offline replicas as the
     * metadata holds them. A topic asked for that does not exist is created first when the client and
     * the broker allow it ({@link Backend#autoCreate}); one still missing is
     * UNKNOWN_TOPIC_OR_PARTITION.
     */
    public static Answer answer(Request request, Backend backend, Node listener) throws IOException {
        try {
            Leadership.ClusterView view = backend.clusterView(listener);
            Set<String> created = request.allowAutoTopicCreation() && request.topics() != null
                    ? autoCreated(request.topics(), view, backend) : Set.of();
            if (!created.isEmpty() && backend.clusterTopics().isEmpty()) { // a cluster's: LEADER_NOT_AVAILABLE
                view = backend.clusterView(listener);
            }
            return answer(request, view, created);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Creates, in the order asked, the topics the view does not have; the names it created. */
    private static Set<String> autoCreated(List<String> names, Leadership.ClusterView view, Backend backend)
            throws IOException {
        Set<String> known = new HashSet<>(view.topics());
        Set<String> created = new HashSet<>();
        for (String name : names) {
            if (!known.contains(name) && !invalidName(name) && backend.autoCreate(name) > 0) {
                created.add(name);
            }
        }
        return created;
    }

    private static boolean invalidName(String name) {
        return PartitionNames.isInternal(name) || PartitionNames.topicProblem(name) != null;
    }

    /**
     * {@code created}: topics auto-created for this request; one the view does not hold (a cluster's,
     * whose leaders its controller elects later) is LEADER_NOT_AVAILABLE, which every client retries, as
     * Kafka 3.9 answers a topic it has just auto-created in ZooKeeper.
     */
    private static Answer answer(Request request, Leadership.ClusterView view, Set<String> created) {
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
                        : created.contains(name) ? KafkaErrors.LEADER_NOT_AVAILABLE
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
