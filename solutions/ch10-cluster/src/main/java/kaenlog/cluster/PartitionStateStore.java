package kaenlog.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.function.BiConsumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * The partitions' state znodes, where the ISR really lives. Every write is conditional on the
 * zkVersion its writer read (Kafka's partition epoch): two writers (the controller electing a
 * leader, the leader shrinking its ISR) can never overwrite each other unseen; the one that loses
 * gets a refusal, re-reads, and decides again. KRaft's successor: the PartitionRecord and
 * PartitionChangeRecord of the metadata log, and the leader's AlterPartition request naming the
 * partition epoch it saw.
 */
public final class PartitionStateStore {
    private PartitionStateStore() {
    }

    /**
     * An administrator creates a topic (given; Kafka's {@code AdminZkClient.createTopicWithAssignment}):
     * its configs, then its assignment, in one multi. No state yet: the controller, told by its watch
     * on {@code /brokers/topics}, elects each partition's first leader ({@link #createStates}).
     */
    public static void createAssignment(ZkClient zk, String topic, SortedMap<Integer, List<Integer>> assignment,
                                        Map<String, String> configs) throws KeeperException, InterruptedException {
        zk.ensurePersistent(ZNodes.TOPICS);
        zk.ensurePersistent(ZNodes.TOPIC_CONFIGS);
        zk.multi(List.of(create(ZNodes.topicConfigPath(topic), ZNodes.encodeTopicConfig(configs)),
                create(ZNodes.topicPath(topic), ZNodes.encodeTopic(assignment))));
    }

    /** A topic's configs ({@code min.insync.replicas}, ...), empty when none (given). */
    public static Map<String, String> configs(ZkClient zk, String topic) throws KeeperException, InterruptedException {
        return zk.get(ZNodes.topicConfigPath(topic)).map(node -> ZNodes.decodeTopicConfig(node.data())).orElse(Map.of());
    }

    /** The controller writes each new partition's first state, fenced, all or none (given). */
    public static void createStates(ZkClient zk, ControllerEpoch epoch, String topic, Map<Integer, PartitionState> states)
            throws ControllerMovedException, KeeperException, InterruptedException {
        List<Op> ops = new ArrayList<>();
        if (zk.exists(ZNodes.partitionsPath(topic)).isEmpty()) {
            ops.add(create(ZNodes.partitionsPath(topic), new byte[0]));
        }
        for (Map.Entry<Integer, PartitionState> e : new java.util.TreeMap<>(states).entrySet()) {
            ops.add(create(ZNodes.partitionsPath(topic) + "/" + e.getKey(), new byte[0]));
            ops.add(create(ZNodes.statePath(topic, e.getKey()), ZNodes.encodeState(e.getValue())));
        }
        ControllerElection.write(zk, epoch, ops);
    }

    /** A topic's assignment, or empty (given). */
    public static Optional<SortedMap<Integer, List<Integer>>> assignment(ZkClient zk, String topic)
            throws KeeperException, InterruptedException {
        return zk.get(ZNodes.topicPath(topic)).map(node -> ZNodes.decodeTopic(node.data()));
    }

    /**
     * A topic's assignment, read like a request (given): empty when there is none, or when it does
     * not parse, and then {@code refused} hears of its znode and why, and the topic is left alone.
     */
    public static Optional<SortedMap<Integer, List<Integer>>> assignment(ZkClient zk, String topic,
                                                                        BiConsumer<String, String> refused)
            throws KeeperException, InterruptedException {
        try {
            return assignment(zk, topic);
        } catch (IllegalArgumentException e) { // ZNodeFormatException, or a partition key that is no number
            refused.accept(ZNodes.topicPath(topic), e.getMessage());
            return Optional.empty();
        }
    }

    /** The topics, sorted (given). */
    public static List<String> topics(ZkClient zk) throws KeeperException, InterruptedException {
        List<String> topics = zk.children(ZNodes.TOPICS);
        topics.sort(null);
        return topics;
    }

    /** The state of {@code topic}-{@code partition} with the zkVersion it was read at, or empty. */
    public static Optional<Versioned<PartitionState>> read(ZkClient zk, String topic, int partition)
            throws KeeperException, InterruptedException {
        // BEGIN-SOLUTION ch10 task 4: read the state with its zkVersion, the partition epoch (PartitionStateStoreTest)
        return zk.get(ZNodes.statePath(topic, partition))
                .map(node -> new Versioned<>(ZNodes.decodeState(node.data()), node.stat().getVersion()));
        // END-SOLUTION
    }

    /**
     * The controller's write of a new state (an election, an ISR it shrank for a dead broker):
     * fenced by the controller epoch, and conditional on {@code expectedZkVersion}. The new
     * zkVersion, or empty when the state moved since it was read (re-read and decide again).
     */
    public static OptionalInt updateAsController(ZkClient zk, ControllerEpoch epoch, String topic, int partition,
                                                 PartitionState next, int expectedZkVersion)
            throws ControllerMovedException, KeeperException, InterruptedException {
        // BEGIN-SOLUTION ch10 task 4: the controller's conditional, fenced state write (PartitionStateStoreTest)
        Op set = Op.setData(ZNodes.statePath(topic, partition), ZNodes.encodeState(next), expectedZkVersion);
        try {
            List<OpResult> results = ControllerElection.write(zk, epoch, List.of(set));
            return OptionalInt.of(((OpResult.SetDataResult) results.get(0)).getStat().getVersion());
        } catch (KeeperException.BadVersionException stale) {
            return OptionalInt.empty();
        }
        // END-SOLUTION
    }

    /**
     * The leader's own write of its ISR (ZooKeeper-era Kafka before 2.7, {@code Partition.updateIsr}
     * through {@code conditionalUpdatePath}): conditional on {@code expectedZkVersion} only. The new
     * zkVersion, or empty when the state moved (the controller elected someone, say): the leader
     * must stop acting on what it read until it reads the state again.
     */
    public static OptionalInt updateAsLeader(ZkClient zk, String topic, int partition, PartitionState next,
                                             int expectedZkVersion) throws KeeperException, InterruptedException {
        // BEGIN-SOLUTION ch10 task 4: the leader's conditional ISR write (PartitionStateStoreTest)
        try {
            Stat written = zk.setData(ZNodes.statePath(topic, partition), ZNodes.encodeState(next), expectedZkVersion);
            return OptionalInt.of(written.getVersion());
        } catch (KeeperException.BadVersionException stale) {
            return OptionalInt.empty();
        }
        // END-SOLUTION
    }

    private static Op create(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
}
