package kaenlog.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.BiConsumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;

/**
 * The controller, for one term of office: elected with its epoch on its ZooKeeper session (given
 * code, on the tasks' pieces; Kafka's {@code KafkaController} once active). It keeps what it knows of
 * the cluster ({@link ControllerContext}) and reacts to each event by reading only what the event
 * is about, deciding with {@link LeaderElection} and writing with its {@link PartitionStateMachine},
 * every write conditional and fenced by its epoch. Kafka's ZooKeeper-era controller then pushed its
 * decisions to the brokers (LeaderAndIsr, UpdateMetadata); here the brokers pull them, each watching
 * the znodes ({@link MetadataFollower}), as KRaft brokers pull the metadata log.
 *
 * <p>Its reactions, Kafka's {@code process} of each event:
 * <ul>
 *   <li>{@link #onControllerFailover}: taking office, it reads everything once;</li>
 *   <li>{@link #onBrokerChange}: brokers came or went: their partitions are elected again;</li>
 *   <li>{@link #onTopicChange}: topics created (their first states) or deleted (forgotten);</li>
 *   <li>{@link #onPartitionModifications}: a topic's assignment changed (its new partitions' first
 *       states);</li>
 *   <li>{@link #onStateChange}: a partition's state was written (by its leader, or by anyone who
 *       reaches ZooKeeper: Kafka's IsrChangeNotification, and the check of what was written);</li>
 *   <li>{@link #onTopicDeletion}: topics marked for deletion in {@code /admin/delete_topics} (Kafka's
 *       TopicDeletion) have their znodes deleted, and each broker deletes its replicas.</li>
 * </ul>
 * Kafka's controller has more: partition reassignment, preferred-leader elections. A reaction to
 * another znode is a {@link ZNodeChange.Kind}, a case of {@link #process}, and a method here.
 *
 * <p>Driven by a broker's {@link ControllerCandidate}, on its one event thread, it watches what it
 * read; created directly (a test, a tool) it watches nothing and its caller drives it. Either way its
 * first reaction takes office first.
 */
public final class Controller {
    /** One partition's state changed by the controller. */
    public record Change(String topic, int partition, PartitionState before, PartitionState after) {
        @Override
        public String toString() {
            return topic + "-" + partition + ": " + after;
        }
    }

    private final ZkClient zk;
    private final ControllerEpoch epoch;
    private final BiConsumer<String, String> refused;
    /** Where the watches of what it reads go: its candidate's event queue, or null for none. */
    private final Watcher watches;
    private final ControllerContext context = new ControllerContext();
    private final PartitionStateMachine states;
    private boolean inOffice;

    /** A controller its caller drives (a test, a tool), elected with {@code epoch}; it watches nothing. */
    public Controller(ZkClient zk, ControllerEpoch epoch) {
        this(zk, epoch, (znode, why) -> { }, null);
    }

    /**
     * @param refused hears of every znode the controller refused to act on as it reads it (a
     *                registration or an assignment that does not parse, a state it cannot trust),
     *                with why: the member logs each once
     * @param watches where the watches of what it reads go, or null for none
     */
    Controller(ZkClient zk, ControllerEpoch epoch, BiConsumer<String, String> refused, Watcher watches) {
        this.zk = zk;
        this.epoch = epoch;
        this.refused = refused;
        this.watches = watches;
        this.states = new PartitionStateMachine(zk, epoch, refused);
    }

    public ControllerEpoch epoch() {
        return epoch;
    }

    /** The reaction to {@code change}, Kafka's {@code KafkaController.process}. */
    List<Change> process(ZNodeChange change) throws ControllerMovedException, KeeperException, InterruptedException {
        return switch (change.kind()) {
            case BROKERS -> onBrokerChange();
            case TOPICS -> onTopicChange();
            case ASSIGNMENT -> onPartitionModifications(change.topic());
            case STATE -> onStateChange(change.topic(), change.partition());
            case DELETE_TOPICS -> onTopicDeletion();
            case CONTROLLER, TOPIC_CONFIG -> List.of(); // the candidate's (an election), the brokers' (their configs)
        };
    }

    /**
     * Taking office (Kafka's {@code onControllerFailover}): the live brokers, the topics and their
     * assignments read once, each watched; every partition without a state gets its first, every
     * other one is elected on the live brokers (a leader that died while no one was controller).
     */
    public List<Change> onControllerFailover() throws ControllerMovedException, KeeperException, InterruptedException {
        inOffice = true;
        context.replaceLiveBrokers(liveBrokers());
        List<Change> changes = new ArrayList<>();
        for (String topic : topics()) {
            changes.addAll(addTopic(topic));
        }
        changes.addAll(elect(context.allPartitions(), changes));
        deleteMarkedTopics();
        return changes;
    }

    /**
     * Brokers came or went (Kafka's {@code BrokerChange}): the partitions with a replica on a broker
     * that came, went, or came back with a new broker epoch are elected again; no other partition
     * is read.
     */
    public List<Change> onBrokerChange() throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = takeOfficeFirst();
        Set<Integer> changed = context.replaceLiveBrokers(liveBrokers());
        changes.addAll(elect(context.partitionsOn(changed), List.of()));
        deleteMarkedTopics(); // a deletion that waited for a broker to come back
        return changes;
    }

    /**
     * Topics were marked for deletion (Kafka's {@code TopicDeletion}, on the children of
     * {@code /admin/delete_topics}): see {@link #deleteMarkedTopics}. No state changes.
     */
    public List<Change> onTopicDeletion() throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = takeOfficeFirst();
        deleteMarkedTopics();
        return changes;
    }

    /**
     * Each topic marked for deletion whose replicas are all on live brokers loses its znodes (its
     * assignment, its partitions' states, its configs, and the mark) in one multi fenced by the
     * controller epoch; every broker, seeing the topic gone from {@code /brokers/topics}, stops its
     * replicas and deletes their logs (Kafka's StopReplica with deletePartitions, which its controller
     * sent before it deleted the znodes). A topic with a replica on a broker that is not live waits,
     * marked, until the broker comes back (Kafka's "ineligible for deletion"), so that no broker keeps
     * the log of a deleted topic. A mark naming no topic is removed, as Kafka removes it.
     */
    private void deleteMarkedTopics() throws ControllerMovedException, KeeperException, InterruptedException {
        List<String> marked = watches == null ? zk.children(ZNodes.DELETE_TOPICS)
                : zk.children(ZNodes.DELETE_TOPICS, watches);
        marked.sort(null);
        for (String topic : marked) {
            List<Op> ops = new ArrayList<>();
            if (context.topics().contains(topic)) {
                boolean replicasLive = context.partitions(topic).stream()
                        .allMatch(p -> context.liveBrokerIds().containsAll(p.replicas()));
                if (!replicasLive) {
                    continue;
                }
                ops.addAll(zk.deleteOps(ZNodes.topicPath(topic)));
                ops.addAll(zk.deleteOps(ZNodes.topicConfigPath(topic)));
            }
            ops.add(Op.delete(ZNodes.deleteTopicPath(topic), -1));
            try {
                ControllerElection.write(zk, epoch, ops);
            } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException moved) {
                continue; // deleted meanwhile, or a znode written under it meanwhile: its next event decides
            }
            context.removeTopic(topic);
        }
    }

    /**
     * Topics created or deleted (Kafka's {@code TopicChange}): a new topic's assignment is read and
     * its partitions get their first states; a deleted one is forgotten. No other topic is read.
     */
    public List<Change> onTopicChange() throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = takeOfficeFirst();
        List<String> topics = topics();
        for (String gone : new ArrayList<>(context.topics())) {
            if (!topics.contains(gone)) {
                context.removeTopic(gone);
            }
        }
        for (String topic : topics) {
            if (!context.topics().contains(topic)) {
                List<Change> created = addTopic(topic);
                changes.addAll(created);
                changes.addAll(elect(context.partitions(topic), created));
            }
        }
        return changes;
    }

    /**
     * {@code topic}'s assignment changed (Kafka's {@code PartitionModifications}): read again, and
     * its partitions without a state, the ones added, get their first.
     */
    public List<Change> onPartitionModifications(String topic)
            throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = takeOfficeFirst();
        if (context.topics().contains(topic)) {
            changes.addAll(addTopic(topic));
        }
        return changes;
    }

    /**
     * {@code topic}-{@code partition}'s state was written: by its leader (a changed ISR, Kafka's
     * {@code IsrChangeNotification}) or by anyone who reaches ZooKeeper. It is read and elected on
     * the live brokers: a state no writer of this cluster writes is replaced ({@link StateCheck}),
     * an ISR that names a broker that is not live is shrunk.
     */
    public List<Change> onStateChange(String topic, int partition)
            throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = takeOfficeFirst();
        List<Integer> replicas = context.assignment(topic).get(partition);
        if (replicas != null) {
            watch(ZNodes.statePath(topic, partition));
            states.elect(topic, partition, replicas, context.liveBrokerIds()).ifPresent(changes::add);
        }
        return changes;
    }

    /** The first reaction of a term takes office first; its changes come first. */
    private List<Change> takeOfficeFirst() throws ControllerMovedException, KeeperException, InterruptedException {
        return inOffice ? new ArrayList<>() : onControllerFailover();
    }

    /** Reads {@code topic}'s assignment (watched) into the context; its partitions without a state get their first. */
    private List<Change> addTopic(String topic) throws ControllerMovedException, KeeperException, InterruptedException {
        watch(ZNodes.topicPath(topic));
        Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic, refused);
        if (assignment.isEmpty()) {
            return List.of();
        }
        context.putAssignment(topic, assignment.get());
        for (int partition : assignment.get().keySet()) {
            watch(ZNodes.statePath(topic, partition));
        }
        return states.createFirstStates(topic, assignment.get(), context.liveBrokerIds());
    }

    /** Elects each of {@code partitions} on the live brokers, but those whose first state is among {@code created}. */
    private List<Change> elect(List<ControllerContext.Assigned> partitions, List<Change> created)
            throws ControllerMovedException, KeeperException, InterruptedException {
        List<Change> changes = new ArrayList<>();
        for (ControllerContext.Assigned p : partitions) {
            if (created.stream().noneMatch(c -> c.topic().equals(p.topic()) && c.partition() == p.partition())) {
                states.elect(p.topic(), p.partition(), p.replicas(), context.liveBrokerIds()).ifPresent(changes::add);
            }
        }
        return changes;
    }

    private SortedMap<Integer, Long> liveBrokers() throws KeeperException, InterruptedException {
        if (watches != null) {
            zk.children(ZNodes.BROKER_IDS, watches);
        }
        return BrokerRegistration.liveBrokers(zk, refused);
    }

    private List<String> topics() throws KeeperException, InterruptedException {
        List<String> topics = watches == null ? zk.children(ZNodes.TOPICS) : zk.children(ZNodes.TOPICS, watches);
        topics.sort(null);
        return topics;
    }

    private void watch(String path) throws KeeperException, InterruptedException {
        if (watches != null) {
            zk.get(path, watches);
        }
    }
}
