package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionLimitException;
import kaenlog.wire.PartitionNames;

/**
 * Topics as Kafka has them: a name and partitions 0..N-1, created whole (CreateTopics, Metadata's
 * auto-create, {@code klog topics --create}) and deleted whole, over chapter 3's partitions (one
 * directory each, {@code topic-N}). The data directory is the only record of a topic: its count is
 * its highest partition number plus one, and a partition missing below that (a hole, such as
 * {0, 2}: a directory lost, or kaen-log's own port producing to {@code t-2} only) is reported, never
 * hidden: a topic with a hole keeps its count, so a keyed producer's {@code murmur2(key) % N} still
 * means the partition it meant.
 *
 * <p>Creations and deletions run one at a time (one lock for the JVM: one broker per process), so
 * two clients creating one topic get one topic and one TOPIC_ALREADY_EXISTS.
 */
public final class TopicStore {
    private static final Object LOCK = new Object();
    /** Kafka's default.replication.factor: with one broker, the only factor there is. */
    public static final short REPLICATION_FACTOR = 1;

    /** One topic: its partition count (highest number + 1) and the numbers below it with no directory. */
    public record Topic(String name, int partitionCount, TreeSet<Integer> missing) {
        public boolean has(int partition) {
            return partition >= 0 && partition < partitionCount && !missing.contains(partition);
        }
    }

    /** The answer for one topic: an error (NONE when it worked), why, and its partition count (0 if none). */
    public record Result(String topic, TopicError error, String message, int partitions) {
        public static Result ok(String topic, int partitions) {
            return new Result(topic, TopicError.NONE, null, partitions);
        }

        public static Result error(String topic, TopicError error, String message) {
            return new Result(topic, error, message, 0);
        }
    }

    private final BrokerContext broker;

    public TopicStore(BrokerContext broker) {
        this.broker = broker;
    }

    /** Every client topic with its partitions, by name ({@code __...} are the broker's own and left out). */
    public Map<String, Topic> topics() throws IOException {
        Map<String, TreeSet<Integer>> present = new TreeMap<>();
        for (String name : broker.clientPartitionNames()) {
            PartitionNames.parse(name).ifPresent(p ->
                    present.computeIfAbsent(p.topic(), t -> new TreeSet<>()).add(p.partition()));
        }
        Map<String, Topic> topics = new TreeMap<>();
        present.forEach((name, partitions) -> {
            TreeSet<Integer> missing = new TreeSet<>();
            for (int p = 0; p < partitions.last(); p++) {
                if (!partitions.contains(p)) {
                    missing.add(p);
                }
            }
            topics.put(name, new Topic(name, partitions.last() + 1, missing));
        });
        return topics;
    }

    public Optional<Topic> topic(String name) throws IOException {
        return Optional.ofNullable(topics().get(name));
    }

    /** The broker's log lines for topics with holes: one per topic, naming the missing partitions. */
    public List<String> holes() throws IOException {
        List<String> lines = new ArrayList<>();
        for (Topic t : topics().values()) {
            if (!t.missing().isEmpty()) {
                lines.add("topic " + t.name() + ": partitions 0.." + (t.partitionCount() - 1) + ", but " + t.missing()
                        + " missing from the data directory; Metadata answers them LEADER_NOT_AVAILABLE (their"
                        + " records are not here: restore the directories, or delete and create the topic)");
            }
        }
        return lines;
    }

    /**
     * Creates {@code topic} with partitions 0..partitions-1, all or none: INVALID_TOPIC_EXCEPTION for a
     * name Kafka's Topic.validate refuses (or the broker's own {@code __} prefix), INVALID_PARTITIONS
     * below 1, TOPIC_ALREADY_EXISTS when any partition of it exists, POLICY_VIOLATION when the broker
     * would hold more than {@code max.partitions}, KAFKA_STORAGE_ERROR when the disk refuses; a topic
     * not created leaves nothing on disk. {@code validateOnly} checks and creates nothing. A broker
     * whose leadership creates no partition on a client's word (a member of chapter 10's cluster,
     * whose topics are assignments written in ZooKeeper) answers POLICY_VIOLATION with its reason.
     */
    public Result create(String topic, int partitions, boolean validateOnly) throws IOException {
        return create(topic, partitions, Map.of(), validateOnly);
    }

    /**
     * {@link #create(String, int, boolean)} with the topic's own configs ({@code cleanup.policy=compact},
     * say), checked by the caller ({@link TopicConfigs#refusal}): they are written before the first
     * partition is made, so every partition opens with them (a compacted topic is never retained by age
     * for a moment), and replace whatever configs an earlier topic of the name left; a topic not
     * created leaves no configs behind either.
     */
    public Result create(String topic, int partitions, Map<String, String> configs, boolean validateOnly)
            throws IOException {
        Optional<String> elsewhere = broker.leadership().creationRefusal();
        if (elsewhere.isPresent()) {
            return Result.error(topic, TopicError.POLICY_VIOLATION, elsewhere.get());
        }
        synchronized (LOCK) {
            Optional<Result> refused = refusal(topic, partitions);
            if (refused.isPresent() || validateOnly) {
                return refused.orElse(Result.ok(topic, partitions));
            }
            if (!broker.configs().topicConfigs(topic).equals(configs)) {
                try {
                    broker.alterTopicConfigs(Map.of(topic, configs));
                } catch (IOException e) {
                    return Result.error(topic, TopicError.KAFKA_STORAGE_ERROR, "writing the configs of " + topic + ": "
                            + e.getMessage());
                }
            }
            Optional<Result> failed = addPartitions(topic, 0, partitions);
            if (failed.isPresent()) {
                removeCreated(topic, partitions);
                return failed.get();
            }
            return Result.ok(topic, partitions);
        }
    }

    /**
     * Makes partitions {@code from..to-1} of {@code topic}, one at a time; empty when all were made, else
     * the error of the first that could not be (the ones made before it are left: the caller decides).
     */
    private Optional<Result> addPartitions(String topic, int from, int to) throws IOException {
        for (int p = from; p < to; p++) {
            try {
                broker.partition(PartitionNames.name(topic, p));
                broker.partitionsDone();
            } catch (PartitionLimitException full) {
                broker.refusedCreation(full.getMessage());
                return Optional.of(Result.error(topic, TopicError.POLICY_VIOLATION, full.getMessage()));
            } catch (IOException e) {
                return Optional.of(Result.error(topic, TopicError.KAFKA_STORAGE_ERROR, "creating partition " + p + " of "
                        + topic + ": " + e.getMessage()));
            }
        }
        return Optional.empty();
    }

    /**
     * Grows {@code topic} to {@code count} partitions (Kafka's CreatePartitions): the new ones are
     * {@code current..count-1}, made with the topic's configs; the existing ones are untouched (a keyed
     * producer's {@code murmur2(key) % count} changes for new records: Kafka's documented trade). Kafka's
     * answers: UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist, INVALID_PARTITIONS for a count
     * that is not an increase, POLICY_VIOLATION over {@code max.partitions}; all new partitions or none.
     * A member of a cluster answers POLICY_VIOLATION: its partitions are assignments in ZooKeeper.
     */
    public Result createPartitions(String topic, int count, boolean validateOnly) throws IOException {
        Optional<String> elsewhere = broker.leadership().creationRefusal();
        if (elsewhere.isPresent()) {
            return Result.error(topic, TopicError.POLICY_VIOLATION, elsewhere.get());
        }
        synchronized (LOCK) {
            Optional<Topic> found = PartitionNames.topicProblem(topic) == null ? topic(topic) : Optional.empty();
            if (found.isEmpty()) {
                return Result.error(topic, TopicError.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + topic
                        + "' does not exist.");
            }
            int current = found.get().partitionCount();
            if (count < current) {
                return Result.error(topic, TopicError.INVALID_PARTITIONS, "The topic " + topic + " currently has "
                        + current + " partition(s); " + count + " would not be an increase.");
            }
            if (count == current) {
                return Result.error(topic, TopicError.INVALID_PARTITIONS, "Topic already has " + current
                        + " partition(s).");
            }
            String tooLong = PartitionNames.problem(topic, count - 1);
            if (tooLong != null) {
                return Result.error(topic, TopicError.INVALID_PARTITIONS, tooLong);
            }
            Optional<Result> over = overMaxPartitions(topic, count - current);
            if (over.isPresent() || validateOnly) {
                return over.orElse(Result.ok(topic, count));
            }
            Optional<Result> failed = addPartitions(topic, current, count);
            if (failed.isPresent()) {
                broker.partitionsDone();
                for (int p = count - 1; p >= current; p--) {
                    broker.deletePartition(PartitionNames.name(topic, p));
                }
                return failed.get();
            }
            return Result.ok(topic, count);
        }
    }

    private Optional<Result> refusal(String topic, int partitions) throws IOException {
        Optional<Result> shape = shapeRefusal(topic, partitions);
        if (shape.isPresent()) {
            return shape;
        }
        if (topics().containsKey(topic)) {
            return Optional.of(Result.error(topic, TopicError.TOPIC_ALREADY_EXISTS, "Topic '" + topic
                    + "' already exists."));
        }
        return overMaxPartitions(topic, partitions);
    }

    /**
     * What refuses a topic of {@code partitions} partitions wherever it would live (on this disk or in a
     * cluster, {@link ClusterTopics}): a name Kafka's Topic.validate refuses, the broker's own {@code __}
     * prefix, a count below 1 or too long a directory name; empty when none does.
     */
    static Optional<Result> shapeRefusal(String topic, int partitions) {
        String problem = PartitionNames.topicProblem(topic);
        if (problem != null) {
            return Optional.of(Result.error(topic, TopicError.INVALID_TOPIC_EXCEPTION, problem));
        }
        if (PartitionNames.isInternal(topic)) {
            return Optional.of(Result.error(topic, TopicError.INVALID_TOPIC_EXCEPTION, "topic names starting with '"
                    + PartitionNames.INTERNAL_PREFIX + "' are the broker's own"));
        }
        if (partitions < 1) {
            return Optional.of(Result.error(topic, TopicError.INVALID_PARTITIONS,
                    "Number of partitions was set to an invalid non-positive value."));
        }
        String tooLong = PartitionNames.problem(topic, partitions - 1);
        if (tooLong != null) {
            return Optional.of(Result.error(topic, TopicError.INVALID_PARTITIONS, tooLong));
        }
        return Optional.empty();
    }

    /** POLICY_VIOLATION when {@code more} partitions of {@code topic} would take the broker past max.partitions. */
    private Optional<Result> overMaxPartitions(String topic, int more) {
        long max = broker.configs().brokerLong(LogConfigKeys.MAX_PARTITIONS);
        if (broker.heldPartitionCount() + (long) more > max) {
            return Optional.of(Result.error(topic, TopicError.POLICY_VIOLATION, "topic " + topic + " with "
                    + more + " more partitions would make the broker hold " + (broker.heldPartitionCount()
                    + (long) more) + ", over max.partitions (" + max + ")"));
        }
        return Optional.empty();
    }

    /**
     * The partitions of a topic that could not be created whole, and its configs: deleted again (closed
     * and removed, open or not: under max.open.partitions the first ones may be closed already).
     */
    private void removeCreated(String topic, int partitions) throws IOException {
        broker.partitionsDone();
        for (int p = partitions - 1; p >= 0; p--) {
            broker.deletePartition(PartitionNames.name(topic, p));
        }
        if (!broker.configs().topicConfigs(topic).isEmpty()) {
            broker.alterTopicConfigs(Map.of(topic, Map.of()));
        }
    }

    /**
     * Deletes every partition of {@code topic}, the highest first, each closed before its directory is
     * removed ({@link BrokerContext#deletePartition}). A storage error stops the deletion there and is
     * answered KAFKA_STORAGE_ERROR: what is left is partitions 0..k, still a whole topic, never a hole.
     * A broker whose leadership deletes no topic (chapter 10's cluster) answers Kafka's
     * TOPIC_DELETION_DISABLED, its answer with {@code delete.topic.enable=false}, with the reason.
     */
    public Result delete(String topic) throws IOException {
        Optional<String> disabled = broker.leadership().deletionRefusal();
        if (disabled.isPresent()) {
            return Result.error(topic, TopicError.TOPIC_DELETION_DISABLED, disabled.get());
        }
        synchronized (LOCK) {
            String problem = PartitionNames.topicProblem(topic);
            if (problem != null) {
                return Result.error(topic, TopicError.INVALID_TOPIC_EXCEPTION, problem);
            }
            Optional<Topic> found = topic(topic);
            if (found.isEmpty()) {
                return Result.error(topic, TopicError.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this"
                        + " topic-partition.");
            }
            Topic t = found.get();
            for (int p = t.partitionCount() - 1; p >= 0; p--) {
                if (!t.has(p)) {
                    continue;
                }
                try {
                    broker.deletePartition(PartitionNames.name(topic, p));
                } catch (IOException e) {
                    return Result.error(topic, TopicError.KAFKA_STORAGE_ERROR, "deleting partition " + p + " of "
                            + topic + " failed (" + e.getMessage() + "); partitions 0.." + p + " are left");
                }
            }
            if (!broker.configs().topicConfigs(topic).isEmpty()) {
                broker.alterTopicConfigs(Map.of(topic, Map.of())); // a topic deleted takes its configs with it
            }
            return Result.ok(topic, t.partitionCount());
        }
    }
}
