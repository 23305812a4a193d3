package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import kaenlog.wire.PartitionNames;

/**
 * Metadata (key 3), v1..v8: which topics and partitions exist and which broker leads each. kaen-log
 * is one broker, so it is the leader of everything, every replica list is [itself] and so is the
 * ISR. A topic a producer names that does not exist yet is created with one partition when the
 * client allows it (Kafka's auto.create.topics.enable, on by default in Kafka too).
 */
public final class Metadata {
    /** This broker's node id in every answer. */
    public static final int NODE_ID = 1;
    public static final String CLUSTER_ID = "kaen-log";

    /** {@code topics} null means every topic. */
    public record Request(List<String> topics, boolean allowAutoTopicCreation) {
    }

    public record TopicMetadata(short errorCode, String name, TreeSet<Integer> partitions) {
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
            existing.forEach((name, partitions) -> answer.add(new TopicMetadata(KafkaErrors.NONE, name, partitions)));
            return answer;
        }
        for (String name : request.topics()) {
            TreeSet<Integer> partitions = existing.get(name);
            if (partitions != null) {
                answer.add(new TopicMetadata(KafkaErrors.NONE, name, partitions));
            } else if (PartitionNames.isInternal(name) || PartitionNames.problem(Backend.partitionName(name, 0)) != null) {
                answer.add(new TopicMetadata(KafkaErrors.INVALID_TOPIC_EXCEPTION, name, new TreeSet<>()));
            } else if (request.allowAutoTopicCreation()) {
                backend.create(Backend.partitionName(name, 0));
                answer.add(new TopicMetadata(KafkaErrors.NONE, name, new TreeSet<>(List.of(0))));
            } else {
                answer.add(new TopicMetadata(KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, name, new TreeSet<>()));
            }
        }
        return answer;
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
            out.arrayLength(topic.partitions().size());
            for (int partition : topic.partitions()) {
                out.int16(KafkaErrors.NONE).int32(partition).int32(NODE_ID);
                if (version >= 7) {
                    out.int32(0); // leader_epoch
                }
                out.arrayLength(1).int32(NODE_ID); // replica_nodes
                out.arrayLength(1).int32(NODE_ID); // isr_nodes
                if (version >= 5) {
                    out.arrayLength(0); // offline_replicas
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
