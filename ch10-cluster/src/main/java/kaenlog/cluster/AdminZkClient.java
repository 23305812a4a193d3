package kaenlog.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import kaenlog.kafkawire.TopicError;
import kaenlog.kafkawire.TopicStore;
import kaenlog.wire.PartitionNames;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A cluster's topics changed through chapter 9's Kafka port (given code): Kafka 3.9's
 * {@code AdminZkClient}, with the checks and the words of its {@code ZkAdminManager}, writing the
 * znodes {@code klog topics --zookeeper} writes, for the controller and the brokers to act on as they
 * act on that tool's. A topic is created as its assignment and configs ({@link
 * PartitionStateStore#createAssignment}, placed by {@link ReplicaAssignment}); it grows by a rewrite of
 * its assignment, whose new partitions the controller gives their first states; its configs are
 * rewritten in {@code /config/topics/T} with a change notification in {@code /config/changes}, and
 * every broker applies them ({@link MetadataFollower}); it is deleted by its mark in
 * {@code /admin/delete_topics}, which the controller acts on ({@link Controller#onTopicDeletion}).
 *
 * <p>A creation, a growth or a deletion is answered once this broker's own view of the cluster shows
 * it done (every partition led, or the topic gone), as Kafka's delayed operations answered them, and
 * REQUEST_TIMED_OUT when the client's timeout passes first (at most {@link #MAX_WAIT_MS}: a request
 * thread is not held longer, whatever the client asks).
 */
final class AdminZkClient {
    /** The longest a request waits to see its change done: Kafka's default request.timeout.ms, 30 s, twice. */
    static final int MAX_WAIT_MS = 60_000;
    /** Kafka's ZkNodeChangeNotificationListener purges notifications older than this (15 minutes). */
    static final long CONFIG_CHANGE_EXPIRATION_MS = 15 * 60 * 1_000L;
    /** Kafka's {@code default.replication.factor} default: a CreateTopics with -1 replicas gets 1. */
    static final int DEFAULT_REPLICATION_FACTOR = 1;
    private static final int STALE_RETRIES = 3;

    private final ClusterLeadership leadership;

    AdminZkClient(ClusterLeadership leadership) {
        this.leadership = leadership;
    }

    /**
     * Kafka's {@code ZkAdminManager.createTopics}: a topic that exists, or is marked for deletion, is
     * TOPIC_ALREADY_EXISTS; more replicas than live brokers INVALID_REPLICATION_FACTOR (Kafka's words); a
     * manual assignment whose partitions differ in replica count, or name a broker twice,
     * INVALID_REPLICA_ASSIGNMENT. Then the configs and the assignment are written in one multi.
     */
    TopicStore.Result create(String topic, int partitions, int replicationFactor, List<List<Integer>> manual,
                             Map<String, String> configs, boolean validateOnly, int timeoutMs) throws IOException {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < manual.size(); p++) {
            assignment.put(p, manual.get(p));
        }
        try {
            TopicStore.Result written = createTopic(leadership.session(), topic, partitions, replicationFactor,
                    assignment, configs, validateOnly);
            return written.error() != TopicError.NONE || validateOnly ? written
                    : awaitLeaders(topic, written.partitions(), timeoutMs);
        } catch (KeeperException e) {
            throw zooKeeper(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * The creation itself, answered at once (given; also {@code klog topics --zookeeper --create}'s):
     * {@code manual} the assignment, or empty for Kafka's placement over the live brokers.
     */
    static TopicStore.Result createTopic(ZkClient zk, String topic, int partitions, int replicationFactor,
                                         SortedMap<Integer, List<Integer>> manual, Map<String, String> configs,
                                         boolean validateOnly) throws KeeperException, InterruptedException {
        Optional<TopicStore.Result> exists = existence(zk, topic);
        if (exists.isPresent()) {
            return exists.get();
        }
        SortedMap<Integer, List<Integer>> assignment = manual;
        if (manual.isEmpty()) {
            try {
                assignment = ReplicaAssignment.assign(liveBrokers(zk), partitions, replicationFactor);
            } catch (IllegalArgumentException tooFew) {
                return TopicStore.Result.error(topic, TopicError.INVALID_REPLICATION_FACTOR, tooFew.getMessage());
            }
        } else {
            Optional<String> problem = manualProblem(assignment);
            if (problem.isPresent()) {
                return TopicStore.Result.error(topic, TopicError.INVALID_REPLICA_ASSIGNMENT, problem.get());
            }
        }
        if (validateOnly) {
            return TopicStore.Result.ok(topic, assignment.size());
        }
        try {
            PartitionStateStore.createAssignment(zk, topic, assignment, configs);
        } catch (KeeperException.NodeExistsException raced) {
            return TopicStore.Result.error(topic, TopicError.TOPIC_ALREADY_EXISTS, "Topic '" + topic
                    + "' already exists.");
        }
        return TopicStore.Result.ok(topic, assignment.size());
    }

    /** TOPIC_ALREADY_EXISTS for a topic that exists or is still marked for deletion; empty otherwise. */
    private static Optional<TopicStore.Result> existence(ZkClient zk, String topic)
            throws KeeperException, InterruptedException {
        if (zk.exists(ZNodes.topicPath(topic)).isPresent()) {
            return Optional.of(TopicStore.Result.error(topic, TopicError.TOPIC_ALREADY_EXISTS, "Topic '" + topic
                    + "' already exists."));
        }
        if (zk.exists(ZNodes.deleteTopicPath(topic)).isPresent()) {
            return Optional.of(TopicStore.Result.error(topic, TopicError.TOPIC_ALREADY_EXISTS, "Topic '" + topic
                    + "' is marked for deletion."));
        }
        return Optional.empty();
    }

    /** Kafka's {@code AdminZkClient.validateTopicCreate} on a manual assignment, in its words. */
    private static Optional<String> manualProblem(SortedMap<Integer, List<Integer>> assignment) {
        if (assignment.values().stream().map(List::size).distinct().count() != 1
                || assignment.get(0).isEmpty()) {
            return Optional.of("All partitions should have the same number of replicas");
        }
        for (List<Integer> replicas : assignment.values()) {
            if (new HashSet<>(replicas).size() != replicas.size()) {
                return Optional.of("Duplicate replica assignment found: " + assignment);
            }
        }
        return Optional.empty();
    }

    /**
     * Kafka's {@code ZkAdminManager.createPartitions} and {@code AdminZkClient.createNewPartitionsAssignment}:
     * the new partitions are {@code current..count-1}, placed from the position of partition 0's first
     * replica among the live brokers with partition 0's replica count, or as {@code manual} says (one list
     * per new partition, of live brokers); the assignment is rewritten on the version read, and read
     * again if someone wrote it meanwhile.
     */
    TopicStore.Result createPartitions(String topic, int count, List<List<Integer>> manual, boolean validateOnly,
                                       int timeoutMs) throws IOException {
        try {
            ZkClient zk = leadership.session();
            for (int attempt = 0; attempt < STALE_RETRIES; attempt++) {
                Optional<ZkClient.Node> node = zk.get(ZNodes.topicPath(topic));
                if (node.isEmpty() || PartitionNames.topicProblem(topic) != null) {
                    return TopicStore.Result.error(topic, TopicError.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + topic
                            + "' does not exist.");
                }
                SortedMap<Integer, List<Integer>> existing = ZNodes.decodeTopic(node.get().data());
                Optional<TopicStore.Result> refused = growthRefusal(topic, existing, count, manual, liveBrokers(zk));
                if (refused.isPresent()) {
                    return refused.get();
                }
                SortedMap<Integer, List<Integer>> grown = new TreeMap<>(existing);
                grown.putAll(newPartitions(existing, count, manual, liveBrokers(zk)));
                if (validateOnly) {
                    return TopicStore.Result.ok(topic, count);
                }
                try {
                    zk.setData(ZNodes.topicPath(topic), ZNodes.encodeTopic(grown), node.get().stat().getVersion());
                } catch (KeeperException.BadVersionException moved) {
                    continue; // another writer grew it meanwhile: decide again on what is there now
                }
                return awaitLeaders(topic, count, timeoutMs);
            }
            return TopicStore.Result.error(topic, TopicError.REQUEST_TIMED_OUT, "the assignment of " + topic
                    + " kept changing under this request");
        } catch (KeeperException e) {
            throw zooKeeper(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /** Why {@code topic} cannot grow to {@code count} partitions as asked, in Kafka's words; empty when it can. */
    private static Optional<TopicStore.Result> growthRefusal(String topic, SortedMap<Integer, List<Integer>> existing,
                                                            int count, List<List<Integer>> manual, List<Integer> live) {
        int current = existing.size();
        if (count < current) {
            return invalidPartitions(topic, "Topic currently has " + current + " partitions, which is higher than the"
                    + " requested " + count + ".");
        }
        if (count == current) {
            return invalidPartitions(topic, "Topic already has " + current + " partitions.");
        }
        String tooLong = PartitionNames.problem(topic, count - 1);
        if (tooLong != null) {
            return invalidPartitions(topic, tooLong);
        }
        if (!existing.containsKey(0)) {
            return invalidPartitions(topic, "Unexpected existing replica assignment for topic '" + topic
                    + "', partition id 0 is missing.");
        }
        int factor = existing.get(0).size();
        if (manual == null) {
            return factor > live.size() ? Optional.of(TopicStore.Result.error(topic,
                    TopicError.INVALID_REPLICATION_FACTOR, "Replication factor: " + factor
                            + " larger than available brokers: " + live.size() + ".")) : Optional.empty();
        }
        Set<Integer> unknown = new java.util.TreeSet<>();
        manual.forEach(replicas -> replicas.stream().filter(id -> !live.contains(id)).forEach(unknown::add));
        if (!unknown.isEmpty()) {
            return invalidAssignment(topic, "Unknown broker(s) in replica assignment: " + unknown.stream()
                    .map(String::valueOf).collect(Collectors.joining(", ")) + ".");
        }
        if (manual.size() != count - current) {
            return invalidAssignment(topic, "Increasing the number of partitions by " + (count - current) + " but "
                    + manual.size() + " assignments provided.");
        }
        for (int i = 0; i < manual.size(); i++) {
            List<Integer> replicas = manual.get(i);
            int partition = current + i;
            if (replicas.isEmpty()) {
                return invalidAssignment(topic, "Cannot have replication factor of 0 for partition id " + partition + ".");
            }
            if (new HashSet<>(replicas).size() != replicas.size()) {
                return invalidAssignment(topic, "Duplicate brokers not allowed in replica assignment: "
                        + replicas.stream().map(String::valueOf).collect(Collectors.joining(", ")) + " for partition id "
                        + partition + ".");
            }
            if (replicas.size() != factor) {
                return invalidAssignment(topic, "Inconsistent replication factor between partitions, partition 0 has "
                        + factor + " while partitions [" + partition + "] have replication factors ["
                        + replicas.size() + "], respectively.");
            }
        }
        return Optional.empty();
    }

    private static Optional<TopicStore.Result> invalidPartitions(String topic, String message) {
        return Optional.of(TopicStore.Result.error(topic, TopicError.INVALID_PARTITIONS, message));
    }

    private static Optional<TopicStore.Result> invalidAssignment(String topic, String message) {
        return Optional.of(TopicStore.Result.error(topic, TopicError.INVALID_REPLICA_ASSIGNMENT, message));
    }

    /** The new partitions' replicas: {@code manual}'s, or Kafka's placement from partition 0's first replica. */
    private static SortedMap<Integer, List<Integer>> newPartitions(SortedMap<Integer, List<Integer>> existing, int count,
                                                                  List<List<Integer>> manual, List<Integer> live) {
        int current = existing.size();
        if (manual != null) {
            SortedMap<Integer, List<Integer>> added = new TreeMap<>();
            for (int i = 0; i < manual.size(); i++) {
                added.put(current + i, List.copyOf(manual.get(i)));
            }
            return added;
        }
        List<Integer> partition0 = existing.get(0);
        int startIndex = 0;
        for (int i = 0; i < live.size(); i++) {
            if (live.get(i) >= partition0.get(0)) { // Kafka's allBrokers.indexWhere(_.id >= partition 0's first)
                startIndex = i;
                break;
            }
        }
        return ReplicaAssignment.assign(live, count - current, partition0.size(), startIndex, current);
    }

    /**
     * Kafka's {@code AdminZkClient.deleteTopic}: a topic that does not exist is
     * UNKNOWN_TOPIC_OR_PARTITION; one already marked is waited for like one marked now.
     */
    TopicStore.Result delete(String topic, int timeoutMs) throws IOException {
        if (PartitionNames.isInternal(topic)) {
            return TopicStore.Result.error(topic, TopicError.INVALID_TOPIC_EXCEPTION, "topic names starting with '"
                    + PartitionNames.INTERNAL_PREFIX + "' are the broker's own: deleting " + topic
                    + " would lose what it keeps");
        }
        try {
            if (!markForDeletion(leadership.session(), topic)) {
                return TopicStore.Result.error(topic, TopicError.UNKNOWN_TOPIC_OR_PARTITION, "Topic `" + topic
                        + "` to delete does not exist");
            }
            // a topic marked already is waited for as well (Kafka swallows TopicAlreadyMarkedForDeletionException)
            boolean gone = leadership.awaitView(view -> view.partitions(topic).isEmpty(), wait(timeoutMs));
            return gone ? TopicStore.Result.ok(topic, 0) : timedOut(topic, "deleted");
        } catch (KeeperException e) {
            throw zooKeeper(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * Kafka's {@code createDeleteTopicPath}: {@code /admin/delete_topics/T}, for the controller. False when
     * the topic does not exist; true when it is marked, now or before (given; also {@code klog topics
     * --zookeeper --delete}'s).
     */
    static boolean markForDeletion(ZkClient zk, String topic) throws KeeperException, InterruptedException {
        if (zk.exists(ZNodes.topicPath(topic)).isEmpty()) {
            return false;
        }
        zk.ensurePersistent(ZNodes.DELETE_TOPICS);
        try {
            zk.create(ZNodes.deleteTopicPath(topic), new byte[0], CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException alreadyMarked) {
            // marked before: what was asked
        }
        return true;
    }

    /** {@code topic}'s own configs, as {@code /config/topics/T} holds them; empty when the topic does not exist. */
    Optional<Map<String, String>> configs(String topic) throws IOException {
        try {
            ZkClient zk = leadership.session();
            if (zk.exists(ZNodes.topicPath(topic)).isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(PartitionStateStore.configs(zk, topic));
        } catch (KeeperException e) {
            throw zooKeeper(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * Kafka's {@code AdminZkClient.changeTopicConfig}: {@code /config/topics/T} set (or created), then a
     * sequential {@code /config/changes/config_change_N} naming {@code topics/T}; notifications older
     * than Kafka's 15 minutes are purged, by ZooKeeper's own creation times, as Kafka's brokers purge them.
     */
    void alterConfigs(String topic, Map<String, String> configs) throws IOException {
        try {
            ZkClient zk = leadership.session();
            byte[] data = ZNodes.encodeTopicConfig(configs);
            try {
                zk.setData(ZNodes.topicConfigPath(topic), data, -1);
            } catch (KeeperException.NoNodeException none) {
                zk.ensurePersistent(ZNodes.TOPIC_CONFIGS);
                zk.create(ZNodes.topicConfigPath(topic), data, CreateMode.PERSISTENT);
            }
            zk.ensurePersistent(ZNodes.CONFIG_CHANGES);
            Stat notified = zk.create(ZNodes.CONFIG_CHANGE_PREFIX, ZNodes.encodeConfigChange("topics/" + topic),
                    CreateMode.PERSISTENT_SEQUENTIAL);
            purgeNotificationsBefore(zk, notified.getCtime() - CONFIG_CHANGE_EXPIRATION_MS);
        } catch (KeeperException e) {
            throw zooKeeper(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private static void purgeNotificationsBefore(ZkClient zk, long ctime) throws KeeperException, InterruptedException {
        for (String child : zk.children(ZNodes.CONFIG_CHANGES)) {
            String path = ZNodes.CONFIG_CHANGES + "/" + child;
            Optional<Stat> stat = zk.exists(path);
            if (stat.isPresent() && stat.get().getCtime() < ctime) {
                try {
                    zk.delete(path);
                } catch (KeeperException.NoNodeException purged) {
                    // another broker purged it first
                }
            }
        }
    }

    /** Answered once every partition of {@code topic} up to {@code count} has a leader in this broker's view. */
    private TopicStore.Result awaitLeaders(String topic, int count, int timeoutMs) {
        boolean led = leadership.awaitView(view -> view.partitions(topic).filter(ps -> ps.size() == count
                && ps.stream().allMatch(p -> p.leader() >= 0)).isPresent(), wait(timeoutMs));
        return led ? TopicStore.Result.ok(topic, count) : timedOut(topic, "led");
    }

    /** Kafka answers REQUEST_TIMED_OUT at once for a timeout of 0 or less, after the write. */
    private static long wait(int timeoutMs) {
        return Math.max(0, Math.min(timeoutMs, MAX_WAIT_MS));
    }

    private static TopicStore.Result timedOut(String topic, String what) {
        return TopicStore.Result.error(topic, TopicError.REQUEST_TIMED_OUT, "topic " + topic + " was not seen "
                + what + " within the request's timeout (it may be yet)");
    }

    private static List<Integer> liveBrokers(ZkClient zk) throws KeeperException, InterruptedException {
        return new ArrayList<>(BrokerRegistration.liveBrokers(zk).keySet());
    }

    private static IOException zooKeeper(KeeperException e) {
        return new IOException("ZooKeeper: " + e.getMessage(), e);
    }

    private static IOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IOException("interrupted", e);
    }
}
