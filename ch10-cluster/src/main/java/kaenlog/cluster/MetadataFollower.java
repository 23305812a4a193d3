package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import kaenlog.broker.Broker;
import kaenlog.broker.Leadership;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.PartitionNames;
import org.apache.zookeeper.KeeperException;

/**
 * A broker's follower of the cluster's metadata in ZooKeeper (given code, on the tasks' pieces).
 * Kafka's ZooKeeper-era broker was told it by the controller (UpdateMetadata for its
 * {@code MetadataCache}, LeaderAndIsr for {@code ReplicaManager.becomeLeaderOrFollower}); a KRaft
 * broker replays the metadata log; this one watches the znodes and reacts to each change, one at a
 * time on its own thread, reading only what the change is about:
 * <ul>
 *   <li>the live brokers: their registrations (Metadata's endpoints, and who may join an ISR);</li>
 *   <li>the topics: a new one's configs, assignment and states; a deleted one's replicas stopped and
 *       their logs deleted (the controller deleted its znodes: Kafka's StopReplica);</li>
 *   <li>a topic's assignment: the states of its partitions that are new;</li>
 *   <li>a partition's state: handed to this broker's replica of it, if it holds one, which leads,
 *       follows or stops ({@link PartitionReplica}), and told to the {@link LeadershipListener}s;</li>
 *   <li>the controller; a topic's configs, which this broker applies as its own topic configs.</li>
 * </ul>
 * After each change the cluster as read is published for Kafka's Metadata ({@link ClusterLeadership}),
 * and what this broker's replicas need of it goes to them ({@link LocalReplicas}).
 */
final class MetadataFollower {
    /** A topic as last read: its assignment, and the states of its partitions that could be trusted. */
    private record TopicImage(SortedMap<Integer, List<Integer>> assignment, SortedMap<Integer, PartitionState> states) {
    }

    private final Broker broker;
    private final ClusterLeadership leadership;
    private final LocalReplicas replicas;
    private final int brokerId;
    private final ZNodeRefusals refusals;
    private final EventQueue events;
    private ZkClient zk;
    private SortedMap<Integer, BrokerInfo> live = new TreeMap<>();
    private int controllerId = PartitionState.NO_LEADER;
    private final SortedMap<String, TopicImage> topics = new TreeMap<>();

    /** @param failed hears of what failed that is no ZooKeeper weather (a bug, a learner's TODO) */
    MetadataFollower(Broker broker, ClusterLeadership leadership, PrintStream log, ZNodeRefusals refusals,
                     BiConsumer<String, Throwable> failed) {
        this.broker = broker;
        this.leadership = leadership;
        this.replicas = new LocalReplicas(broker, leadership, log, failed);
        this.brokerId = leadership.brokerId();
        this.refusals = refusals;
        this.events = new EventQueue("klog-metadata-" + brokerId, "broker " + brokerId + "'s metadata", log, failed,
                this::eventOf, this::readAll);
    }

    /** The broker joined on {@code session} (or joined again): everything is read, every watch set. */
    void startup(ZkClient session) {
        events.put(() -> {
            zk = session;
            replicas.joined(session);
            readAll();
        });
    }

    /**
     * The session expired: this broker is no longer a member, whatever it still believes. It stops
     * leading, before the new session reads anything (its followers follow someone else by now, and
     * a produce it acknowledged would be cut by the new leader).
     */
    void sessionExpired() {
        events.put(replicas::stopLeading);
    }

    void close(long waitMs) {
        events.close(waitMs);
    }

    private EventQueue.Event eventOf(ZNodeChange change) {
        return switch (change.kind()) {
            case BROKERS -> this::onBrokerChange;
            case TOPICS -> this::onTopicChange;
            case ASSIGNMENT -> () -> onAssignmentChange(change.topic());
            case STATE -> () -> onStateChange(change.topic(), change.partition());
            case CONTROLLER -> this::onControllerChange;
            case TOPIC_CONFIG -> () -> readConfig(change.topic());
            case DELETE_TOPICS -> () -> { }; // the controller's to act on; this broker sees the topic go
        };
    }

    /** Everything, every watch set again: when the broker joins (again), and after a ZooKeeper error. */
    private void readAll() throws KeeperException, InterruptedException {
        Set<String> known = Set.copyOf(topics.keySet());
        topics.clear();
        readController();
        readBrokers();
        readTopics(known);
        publish();
    }

    private void onBrokerChange() throws KeeperException, InterruptedException {
        readBrokers();
        publish();
    }

    private void onTopicChange() throws KeeperException, InterruptedException {
        readTopics(Set.copyOf(topics.keySet()));
        publish();
    }

    private void onAssignmentChange(String topic) throws KeeperException, InterruptedException {
        readAssignment(topic);
        publish();
    }

    private void onStateChange(String topic, int partition) throws KeeperException, InterruptedException {
        readState(topic, partition);
        publish();
    }

    private void onControllerChange() throws KeeperException, InterruptedException {
        readController();
        publish();
    }

    private void readController() throws KeeperException, InterruptedException {
        zk.get(ZNodes.CONTROLLER, events);
        controllerId = ControllerElection.controller(zk);
    }

    private void readBrokers() throws KeeperException, InterruptedException {
        zk.children(ZNodes.BROKER_IDS, events);
        SortedMap<Integer, BrokerInfo> now = new TreeMap<>();
        for (int id : BrokerRegistration.liveBrokers(zk, refusals::refused).keySet()) {
            BrokerRegistration.read(zk, id).ifPresent(found -> now.put(id, found));
        }
        live = now;
        replicas.liveBrokers(now.keySet());
    }

    /**
     * The topics: a new one read whole; one of {@code known} that is gone was deleted by the controller,
     * and this broker's replicas of it are stopped and their logs deleted. (Only a topic this broker
     * knew: a broker that joins a ZooKeeper without its topics, an empty one by mistake, deletes nothing.)
     */
    private void readTopics(Set<String> known) throws KeeperException, InterruptedException {
        List<String> names = zk.children(ZNodes.TOPICS, events);
        names.sort(null);
        topics.keySet().retainAll(names);
        for (String gone : new TreeSet<>(known)) {
            if (!names.contains(gone)) {
                replicas.deleteTopic(gone);
            }
        }
        for (String topic : names) {
            if (!topics.containsKey(topic)) {
                readConfig(topic);
                readAssignment(topic);
            }
        }
    }

    /** {@code topic}'s assignment; the states of its partitions that are new, or on other replicas, are read. */
    private void readAssignment(String topic) throws KeeperException, InterruptedException {
        zk.get(ZNodes.topicPath(topic), events);
        Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic,
                refusals::refused);
        TopicImage before = topics.remove(topic);
        if (assignment.isEmpty()) {
            if (before != null && zk.exists(ZNodes.topicPath(topic)).isEmpty()) {
                replicas.deleteTopic(topic); // deleted by the controller (its watch fired before the topics')
            }
            return; // deleted, or not readable: listed no more
        }
        TopicImage now = new TopicImage(assignment.get(), new TreeMap<>());
        topics.put(topic, now);
        for (Map.Entry<Integer, List<Integer>> p : assignment.get().entrySet()) {
            boolean same = before != null && p.getValue().equals(before.assignment().get(p.getKey()));
            if (same && before.states().containsKey(p.getKey())) {
                now.states().put(p.getKey(), before.states().get(p.getKey())); // its watch is still set
            } else {
                readState(topic, p.getKey());
            }
        }
    }

    /** One partition's state, watched and read like a request; this broker's replica of it acts on it. */
    private void readState(String topic, int partition) throws KeeperException, InterruptedException {
        TopicImage image = topics.get(topic);
        List<Integer> assigned = image == null ? null : image.assignment().get(partition);
        if (assigned == null) {
            return; // a partition no assignment names (any more)
        }
        zk.get(ZNodes.statePath(topic, partition), events);
        Optional<Versioned<PartitionState>> state = trustedState(topic, partition, assigned);
        if (state.isEmpty()) {
            // no state yet (the controller has not written the first one), or one this broker refuses:
            // listed with no leader, so a client counts the topic's partitions right and asks again
            image.states().remove(partition);
            return;
        }
        image.states().put(partition, state.get().value());
        if (assigned.contains(brokerId)) {
            replicas.onState(topic, partition, assigned, state.get());
        }
    }

    /**
     * A partition's state, read like a request: empty when there is none, when it does not parse,
     * or when it is not a state any writer of this cluster writes ({@link StateCheck}); a refused
     * state gets one log line, and this broker keeps the role it had until the controller replaces it.
     */
    private Optional<Versioned<PartitionState>> trustedState(String topic, int partition, List<Integer> replicas)
            throws KeeperException, InterruptedException {
        String path = ZNodes.statePath(topic, partition);
        Optional<Versioned<PartitionState>> state;
        try {
            state = PartitionStateStore.read(zk, topic, partition);
        } catch (IllegalArgumentException e) { // ZNodeFormatException
            refusals.refused(path, e.getMessage());
            return Optional.empty();
        }
        Optional<String> problem = state.flatMap(s -> StateCheck.problem(s.value(), s.zkVersion(), replicas));
        if (problem.isPresent()) {
            refusals.refused(path, problem.get() + " (version " + state.get().zkVersion() + ")");
            return Optional.empty();
        }
        return state;
    }

    /**
     * The topic's configs in ZooKeeper, applied as this broker's own configs of the topic (chapter 3's
     * topic configs: retention, segments, compaction; what DescribeConfigs answers), each checked as the
     * broker checks any config it is given ({@link PartitionConfigs}); one it refuses is left out with a
     * log line. Its {@code min.insync.replicas}, else the broker's, applies from the next time this
     * broker takes the lead.
     */
    private void readConfig(String topic) throws KeeperException, InterruptedException {
        zk.get(ZNodes.topicConfigPath(topic), events);
        applyConfigs(topic);
        String partition = PartitionNames.name(topic, 0);
        PartitionConfigs configs = broker.configs();
        try {
            String own = PartitionStateStore.configs(zk, topic).get(ClusterConfigKeys.MIN_INSYNC_REPLICAS);
            if (own != null) {
                configs = configs.withPartition(partition + ":" + ClusterConfigKeys.MIN_INSYNC_REPLICAS + "=" + own);
            }
        } catch (IllegalArgumentException refused) { // a value the config refuses, a znode that does not parse
            refusals.refused(ZNodes.topicConfigPath(topic), refused.getMessage() + "; the broker's "
                    + ClusterConfigKeys.MIN_INSYNC_REPLICAS + " applies");
        }
        replicas.minIsr(topic, (int) configs.of(partition).longValue(ClusterConfigKeys.MIN_INSYNC_REPLICAS));
    }

    /** {@code topic}'s configs in ZooKeeper as this broker's own (the broker's internal topics keep theirs). */
    private void applyConfigs(String topic) throws KeeperException, InterruptedException {
        if (PartitionNames.isInternal(topic)) {
            return;
        }
        Map<String, String> own = new TreeMap<>();
        try {
            PartitionStateStore.configs(zk, topic).forEach((name, value) -> {
                String problem = broker.configs().topicConfigProblem(name, value);
                if (problem == null) {
                    own.put(name, value);
                } else {
                    refusals.refused(ZNodes.topicConfigPath(topic), problem + "; left out");
                }
            });
            broker.alterTopicConfigs(Map.of(topic, own));
        } catch (IllegalArgumentException refused) { // a znode that does not parse
            refusals.refused(ZNodes.topicConfigPath(topic), refused.getMessage());
        } catch (IOException e) {
            broker.trouble("configs " + topic, "cluster: the configs of " + topic + " are not applied: "
                    + e.getMessage());
        }
    }

    /** The cluster as read, for Kafka's Metadata: the live brokers, the controller, every partition. */
    private void publish() {
        SortedMap<String, List<Leadership.PartitionView>> byTopic = new TreeMap<>();
        topics.forEach((topic, image) -> {
            List<Leadership.PartitionView> views = new ArrayList<>();
            image.assignment().forEach((partition, replicas) -> views.add(view(partition, replicas,
                    image.states().get(partition))));
            byTopic.put(topic, List.copyOf(views));
        });
        List<Leadership.BrokerEndpoint> endpoints = live.values().stream()
                .map(b -> new Leadership.BrokerEndpoint(b.id(), b.host(), b.port(), b.kafkaPort())).toList();
        leadership.publish(new ClusterLeadership.Snapshot(brokerId, endpoints, controllerId, byTopic));
    }

    private Leadership.PartitionView view(int partition, List<Integer> replicas, PartitionState state) {
        List<Integer> offline = replicas.stream().filter(id -> !live.containsKey(id)).toList();
        return state == null
                ? new Leadership.PartitionView(partition, PartitionState.NO_LEADER, PartitionRole.NO_EPOCH, replicas,
                        List.of(), offline)
                : new Leadership.PartitionView(partition, state.leader(), state.leaderEpoch(), replicas, state.isr(),
                        offline);
    }
}
