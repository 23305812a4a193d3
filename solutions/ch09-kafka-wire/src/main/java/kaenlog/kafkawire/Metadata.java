package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import kaenlog.wire.PartitionNames;

/**
 * Metadata (key 3), v1..v8: which topics and partitions exist and which broker leads each. kaen-log
 * is one broker, so it is the leader of everything, every replica list is [itself] and so is the
 * ISR. A topic a producer names that does not exist yet is created when the client allows it and
 * the broker does (Kafka's auto.create.topics.enable, default true, with num.partitions, default 1),
 * under max.partitions; otherwise it is answered UNKNOWN_TOPIC_OR_PARTITION.
 */
public final class Metadata {
    /** This broker's node id in every answer. */
    public static final int NODE_ID = 1;
    public static final String CLUSTER_ID = "kaen-log";

    /** {@code topics} null means every topic. */
    public record Request(List<String> topics, boolean allowAutoTopicCreation) {
    }

    /** {@code offline}: the partitions whose log is offline on this broker (their one replica is offline). */
    public record TopicMetadata(short errorCode, String name, TreeSet<Integer> partitions, Set<Integer> offline) {
        public TopicMetadata(short errorCode, String name, TreeSet<Integer> partitions) {
            this(errorCode, name, partitions, Set.of());
        }
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
        return new Request(topics, allowAutoTopicCreation);
    }

    public static List<TopicMetadata> answer(Request request, Backend backend) throws IOException {
        Map<String, TreeSet<Integer>> existing = backend.topics();
        List<TopicMetadata> answer = new ArrayList<>();
        if (request.topics() == null) {
            for (Map.Entry<String, TreeSet<Integer>> topic : existing.entrySet()) {
                answer.add(existingTopic(topic.getKey(), topic.getValue(), backend));
            }
            return answer;
        }
        for (String name : request.topics()) {
            TreeSet<Integer> partitions = existing.get(name);
            if (partitions != null) {
                answer.add(existingTopic(name, partitions, backend));
            } else if (PartitionNames.isInternal(name) || PartitionNames.topicProblem(name) != null) {
                answer.add(new TopicMetadata(KafkaErrors.INVALID_TOPIC_EXCEPTION, name, new TreeSet<>()));
            } else {
                answer.add(autoCreated(request, name, backend));
            }
        }
        return answer;
    }

    /**
     * A topic on disk, with the partitions whose log is offline. Kafka's MetadataCache answers such a
     * partition with its replica in offline_replicas and, its only replica being offline, no leader
     * (leader -1, LEADER_NOT_AVAILABLE); it never answers KAFKA_STORAGE_ERROR in Metadata. A client
     * then sends nothing for that partition and goes on with the others.
     */
    private static TopicMetadata existingTopic(String name, TreeSet<Integer> partitions, Backend backend)
            throws IOException {
        Set<Integer> offline = new TreeSet<>();
        for (int partition : partitions) {
            if (backend.isOffline(name, partition)) {
                offline.add(partition);
            }
            backend.partitionsDone();
        }
        return new TopicMetadata(KafkaErrors.NONE, name, partitions, offline);
    }

    /** A topic that does not exist: created if the client and the broker allow it, else UNKNOWN_TOPIC_OR_PARTITION. */
    private static TopicMetadata autoCreated(Request request, String name, Backend backend) throws IOException {
        int created = request.allowAutoTopicCreation() ? backend.autoCreate(name) : 0;
        if (created == 0) {
            return new TopicMetadata(KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, name, new TreeSet<>());
        }
        TreeSet<Integer> numbers = new TreeSet<>();
        for (int p = 0; p < created; p++) {
            numbers.add(p);
        }
        return new TopicMetadata(KafkaErrors.NONE, name, numbers);
    }

    public static byte[] response(List<TopicMetadata> topics, String host, int port, short version) {
        KafkaWriter out = new KafkaWriter();
        if (version >= 3) {
            out.int32(0); // throttle_time_ms
        }
        out.arrayLength(1).int32(NODE_ID).nullableString(host).int32(port).nullableString(null); // rack
        if (version >= 2) {
            out.nullableString(CLUSTER_ID);
        }
        out.int32(NODE_ID); // controller_id
        out.arrayLength(topics.size());
        for (TopicMetadata topic : topics) {
            out.int16(topic.errorCode()).nullableString(topic.name()).bool(false); // is_internal
            // every partition 0..N-1: a topic's count is its highest partition + 1, and a partition with
            // no directory below it, or whose log is offline, is answered LEADER_NOT_AVAILABLE, leader -1,
            // its one replica offline (so a keyed producer's murmur2(key) % N keeps N, and no record goes
            // to the wrong partition)
            int count = topic.partitions().isEmpty() ? 0 : topic.partitions().last() + 1;
            out.arrayLength(count);
            for (int partition = 0; partition < count; partition++) {
                boolean present = topic.partitions().contains(partition) && !topic.offline().contains(partition);
                out.int16(present ? KafkaErrors.NONE : KafkaErrors.LEADER_NOT_AVAILABLE).int32(partition)
                        .int32(present ? NODE_ID : -1);
                if (version >= 7) {
                    out.int32(0); // leader_epoch
                }
                out.arrayLength(1).int32(NODE_ID); // replica_nodes
                if (present) {
                    out.arrayLength(1).int32(NODE_ID); // isr_nodes
                } else {
                    out.arrayLength(0);
                }
                if (version >= 5) {
                    if (present) {
                        out.arrayLength(0); // offline_replicas
                    } else {
                        out.arrayLength(1).int32(NODE_ID);
                    }
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
}
