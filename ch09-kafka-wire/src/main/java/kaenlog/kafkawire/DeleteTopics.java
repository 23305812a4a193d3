package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.wire.PartitionNames;

/**
 * DeleteTopics (key 20), v1..v6 (flexible from v4; kafka-clients 4.1.1 asks for v6). Request: up to
 * v5 topic_names [string]; from v6 topics [name nullable · topic_id uuid]; then timeout_ms. Response:
 * throttle_time_ms · responses [name (nullable from v6) · topic_id (v6+) · error_code · error_message
 * (v5+)].
 *
 * <p>Each topic's partitions are closed and their directories removed, the highest partition first;
 * a storage error stops there and is answered KAFKA_STORAGE_ERROR (the partitions left are still
 * 0..k, whole). A topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION; one named only by a topic
 * id is UNKNOWN_TOPIC_ID, since kaen-log keeps no topic ids; a name twice is INVALID_REQUEST.
 */
public final class DeleteTopics {

    /** A topic to delete: its name (null when only an id was sent) and whether an id came with it. */
    public record Target(String name, long idHigh, long idLow) {
    }

    public record Answer(String name, long idHigh, long idLow, short errorCode, String message) {
    }

    /** {@code timeoutMs}: how long a cluster's broker waits to see its controller delete the topics. */
    public record Request(List<Target> targets, int timeoutMs) {
    }

    private DeleteTopics() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.DELETE_TOPICS.isFlexible(version);
        List<Target> targets = new ArrayList<>();
        int count = CreateTopics.length(in, flexible, version >= 6 ? "topics" : "topic_names");
        for (int t = 0; t < count; t++) {
            if (version >= 6) {
                String name = in.compactNullableString("topics.name");
                long high = in.int64("topics.topic_id");
                long low = in.int64("topics.topic_id");
                in.skipTaggedFields("topic");
                targets.add(new Target(name, high, low));
            } else {
                targets.add(new Target(CreateTopics.string(in, flexible, "topic_names"), 0, 0));
            }
        }
        int timeoutMs = in.int32("timeout_ms");
        CreateTopics.tags(in, flexible, "DeleteTopics request");
        in.end("DeleteTopics v" + version + " request");
        return new Request(targets, timeoutMs);
    }

    public static List<Answer> answer(Request request, Backend backend) throws IOException {
        List<Target> targets = request.targets();
        Optional<ClusterTopics> cluster = backend.clusterTopics();
        Set<String> seen = new HashSet<>();
        Set<String> twice = new HashSet<>();
        targets.stream().map(Target::name).filter(n -> n != null).forEach(n -> {
            if (!seen.add(n)) {
                twice.add(n);
            }
        });
        List<Answer> answers = new ArrayList<>();
        for (Target t : targets) {
            if (t.name() == null) {
                answers.add(new Answer(null, t.idHigh(), t.idLow(), TopicError.UNKNOWN_TOPIC_ID.kafkaCode,
                        "kaen-log keeps no topic ids: name the topic"));
            } else if (twice.contains(t.name())) {
                answers.add(new Answer(t.name(), t.idHigh(), t.idLow(), TopicError.INVALID_REQUEST.kafkaCode,
                        "Duplicate topic name."));
            } else if (cluster.isPresent()) { // a cluster's controller deletes topics (Kafka 3.9's TopicDeletionManager)
                TopicStore.Result result = !cluster.get().isController()
                        ? TopicStore.Result.error(t.name(), TopicError.NOT_CONTROLLER,
                                "This is not the correct controller for this cluster.")
                        : PartitionNames.topicProblem(t.name()) != null
                        ? TopicStore.Result.error(t.name(), TopicError.INVALID_TOPIC_EXCEPTION,
                                PartitionNames.topicProblem(t.name()))
                        : cluster.get().delete(t.name(), request.timeoutMs());
                answers.add(new Answer(t.name(), 0, 0, result.error().kafkaCode, result.message()));
            } else {
                TopicStore.Result result = backend.topicStore().delete(t.name());
                answers.add(new Answer(t.name(), 0, 0, result.error().kafkaCode, result.message()));
            }
        }
        return answers;
    }

    public static byte[] response(List<Answer> answers, short version) {
        boolean flexible = ApiKey.DELETE_TOPICS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        CreateTopics.length(out, flexible, answers.size());
        for (Answer a : answers) {
            CreateTopics.string(out, flexible, a.name());
            if (version >= 6) {
                out.int64(a.idHigh()).int64(a.idLow());
            }
            out.int16(a.errorCode());
            if (version >= 5) {
                CreateTopics.string(out, flexible, a.message());
            }
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
    }
}
