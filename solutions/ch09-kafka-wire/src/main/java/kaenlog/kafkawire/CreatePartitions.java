package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * CreatePartitions (key 37), v0..v3 (flexible from v2; kafka-clients 4.1.1's {@code createPartitions},
 * {@code kafka-topics --alter --partitions N}). Request: topics [name · count int32 · assignments
 * nullable [broker_ids [int32]]] · timeout_ms · validate_only. Response: throttle_time_ms · results
 * [name · error_code · error_message].
 *
 * <p>{@code count} is the topic's new partition count, not how many to add: the new partitions are
 * {@code current..count-1}, made whole or not at all ({@link TopicStore#createPartitions}), with the
 * topic's configs. A manual assignment must name one list per new partition, each this broker alone
 * (INVALID_REPLICA_ASSIGNMENT otherwise); a name twice in one request is INVALID_REQUEST for both.
 */
public final class CreatePartitions {

    /** {@code assignments}: null when the broker places the new partitions (always here: on itself). */
    public record Topic(String name, int count, List<List<Integer>> assignments) {
    }

    public record Request(List<Topic> topics, int timeoutMs, boolean validateOnly) {
    }

    public record Answer(String name, short errorCode, String message) {
    }

    private CreatePartitions() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.CREATE_PARTITIONS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "topics");
        List<Topic> topics = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            String name = CreateTopics.string(in, flexible, "topics.name");
            int partitions = in.int32("count");
            int assignmentCount = CreateTopics.length(in, flexible, "assignments");
            List<List<Integer>> assignments = assignmentCount < 0 ? null : new ArrayList<>();
            for (int a = 0; a < assignmentCount; a++) {
                int brokers = CreateTopics.length(in, flexible, "assignments.broker_ids");
                List<Integer> ids = new ArrayList<>();
                for (int b = 0; b < brokers; b++) {
                    ids.add(in.int32("broker_ids"));
                }
                CreateTopics.tags(in, flexible, "assignment");
                assignments.add(ids);
            }
            CreateTopics.tags(in, flexible, "topic");
            topics.add(new Topic(name, partitions, assignments));
        }
        int timeoutMs = in.int32("timeout_ms");
        boolean validateOnly = in.bool("validate_only");
        CreateTopics.tags(in, flexible, "CreatePartitions request");
        in.end("CreatePartitions v" + version + " request");
        return new Request(topics, timeoutMs, validateOnly);
    }

    public static List<Answer> answer(Request request, Backend backend) throws IOException {
        Set<String> seen = new HashSet<>();
        Set<String> twice = new HashSet<>();
        request.topics().forEach(t -> {
            if (!seen.add(t.name())) {
                twice.add(t.name());
            }
        });
        Optional<ClusterTopics> cluster = backend.clusterTopics();
        List<Answer> answers = new ArrayList<>();
        for (Topic t : request.topics()) {
            if (twice.contains(t.name())) {
                answers.add(new Answer(t.name(), TopicError.INVALID_REQUEST.kafkaCode, "Duplicate topic name."));
                continue;
            }
            if (cluster.isPresent()) { // a cluster's controller places the new partitions on its brokers
                Optional<String> tooMany = backend.clusterGrowthRefusal(t.name(), t.count());
                TopicStore.Result result = cluster.get().isController() && tooMany.isPresent()
                        ? TopicStore.Result.error(t.name(), TopicError.POLICY_VIOLATION, "topic " + t.name() + ": "
                                + tooMany.get())
                        : cluster.get().isController()
                        ? cluster.get().createPartitions(t.name(), t.count(), t.assignments(), request.validateOnly(),
                                request.timeoutMs())
                        : TopicStore.Result.error(t.name(), TopicError.NOT_CONTROLLER,
                                "This is not the correct controller for this cluster.");
                answers.add(new Answer(t.name(), result.error().kafkaCode, result.message()));
                continue;
            }
            String badAssignment = t.assignments() == null ? null : assignmentProblem(t, backend);
            if (badAssignment != null) {
                answers.add(new Answer(t.name(), TopicError.INVALID_REPLICA_ASSIGNMENT.kafkaCode, badAssignment));
                continue;
            }
            TopicStore.Result result = backend.topicStore().createPartitions(t.name(), t.count(), request.validateOnly());
            answers.add(new Answer(t.name(), result.error().kafkaCode, result.message()));
        }
        return answers;
    }

    /** A manual assignment: one list per new partition, each naming this broker alone; null when it does. */
    private static String assignmentProblem(Topic t, Backend backend) throws IOException {
        int current = backend.topicStore().topic(t.name()).map(TopicStore.Topic::partitionCount).orElse(0);
        int adding = t.count() - current;
        if (adding > 0 && t.assignments().size() != adding) {
            return "Attempted to add " + adding + " additional partition(s), but only " + t.assignments().size()
                    + " assignment(s) were specified.";
        }
        for (List<Integer> brokers : t.assignments()) {
            if (!brokers.equals(List.of(Metadata.NODE_ID))) {
                return "a new partition assigned to brokers " + brokers + ": this cluster is broker " + Metadata.NODE_ID
                        + " alone";
            }
        }
        return null;
    }

    public static byte[] response(List<Answer> answers, short version) {
        boolean flexible = ApiKey.CREATE_PARTITIONS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        CreateTopics.length(out, flexible, answers.size());
        for (Answer a : answers) {
            CreateTopics.string(out, flexible, a.name());
            out.int16(a.errorCode());
            CreateTopics.string(out, flexible, a.message());
            CreateTopics.tags(out, flexible);
        }
        CreateTopics.tags(out, flexible);
        return out.toByteArray();
    }
}
