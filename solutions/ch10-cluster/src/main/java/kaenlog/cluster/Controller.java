package kaenlog.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.BiConsumer;
import org.apache.zookeeper.KeeperException;

/**
 * What the controller does once it has won (given code, on the tasks' pieces): it reads the live
 * brokers and every partition's state, decides with {@link LeaderElection}, and writes each
 * decision conditionally and fenced. Kafka's ZooKeeper-era controller then pushed its decisions
 * to the brokers (LeaderAndIsr requests); here the brokers pull them, by watching their
 * partitions' state znodes, as KRaft brokers pull the metadata log.
 */
public final class Controller {
    /** One partition's state changed by the controller. */
    public record Change(String topic, int partition, PartitionState before, PartitionState after) {
        @Override
        public String toString() {
            return topic + "-" + partition + ": " + after;
        }
    }

    private static final int STALE_RETRIES = 3;
    private final ZkClient zk;
    private final ControllerEpoch epoch;
    private final BiConsumer<String, String> refused;

    public Controller(ZkClient zk, ControllerEpoch epoch) {
        this(zk, epoch, (znode, why) -> { });
    }

    /**
     * @param refused hears of every znode the controller refused to act on as it reads it (a
     *                registration or an assignment that does not parse, a state it cannot trust),
     *                with why: the member logs each once
     */
    public Controller(ZkClient zk, ControllerEpoch epoch, BiConsumer<String, String> refused) {
        this.zk = zk;
        this.epoch = epoch;
        this.refused = refused;
    }

    public ControllerEpoch epoch() {
        return epoch;
    }

    /**
     * Brokers came or went (the watch on {@code /brokers/ids} fired, or this controller just won):
     * every partition whose leader or ISR member is no longer live gets a new state; an offline
     * partition whose ISR member is back gets a leader again.
     */
    public List<Change> onBrokerChange() throws ControllerMovedException, KeeperException, InterruptedException {
        Set<Integer> live = BrokerRegistration.liveBrokers(zk, refused).keySet();
        List<Change> changes = new ArrayList<>();
        for (String topic : PartitionStateStore.topics(zk)) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic, refused);
            if (assignment.isEmpty()) {
                continue;
            }
            for (Map.Entry<Integer, List<Integer>> p : assignment.get().entrySet()) {
                decide(topic, p.getKey(), p.getValue(), live).ifPresent(changes::add);
            }
        }
        return changes;
    }

    /** Topics without states yet (just created by an administrator) get their first states. */
    public List<Change> onTopicChange() throws ControllerMovedException, KeeperException, InterruptedException {
        Set<Integer> live = BrokerRegistration.liveBrokers(zk, refused).keySet();
        List<Change> changes = new ArrayList<>();
        for (String topic : PartitionStateStore.topics(zk)) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic, refused);
            if (assignment.isEmpty() || assignment.get().isEmpty()
                    || zk.exists(ZNodes.statePath(topic, assignment.get().firstKey())).isPresent()) {
                continue;
            }
            Map<Integer, PartitionState> states = new HashMap<>();
            assignment.get().forEach((partition, replicas) ->
                    states.put(partition, LeaderElection.initial(replicas, live, epoch.epoch())));
            PartitionStateStore.createStates(zk, epoch, topic, states);
            states.forEach((partition, state) -> changes.add(new Change(topic, partition, null, state)));
        }
        changes.sort(java.util.Comparator.comparing(Change::topic).thenComparingInt(Change::partition));
        return changes;
    }

    private Optional<Change> decide(String topic, int partition, List<Integer> replicas, Set<Integer> live)
            throws ControllerMovedException, KeeperException, InterruptedException {
        for (int attempt = 0; attempt < STALE_RETRIES; attempt++) {
            Optional<Versioned<PartitionState>> read = readState(topic, partition);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            PartitionState stored = read.get().value();
            PartitionState next = next(topic, partition, replicas, read.get(), live);
            if (next.equals(stored)) {
                return Optional.empty();
            }
            OptionalInt written = PartitionStateStore.updateAsController(zk, epoch, topic, partition, next,
                    read.get().zkVersion());
            if (written.isPresent()) {
                return Optional.of(new Change(topic, partition, stored, next));
            }
            // the leader wrote its ISR in between: read again and decide on what is there now
        }
        throw new IllegalStateException(topic + "-" + partition + ": its state kept moving under the controller");
    }

    /**
     * The state to write after {@code read}: the election's on what was read, or, when the state
     * read cannot be trusted ({@link StateCheck}), on what can be ({@link StateCheck#trusted}), at a
     * leader epoch beyond it even when the election changes nothing else: the refused state must be
     * replaced by one every broker can act on.
     */
    private PartitionState next(String topic, int partition, List<Integer> replicas, Versioned<PartitionState> read,
                                Set<Integer> live) {
        Optional<String> problem = StateCheck.problem(read.value(), read.zkVersion(), replicas);
        if (problem.isEmpty()) {
            return LeaderElection.elect(replicas, read.value(), live, epoch.epoch());
        }
        refused.accept(ZNodes.statePath(topic, partition), problem.get());
        PartitionState trusted = StateCheck.trusted(read.value(), read.zkVersion(), replicas);
        PartitionState next = LeaderElection.elect(replicas, trusted, live, epoch.epoch());
        if (next == trusted) {
            next = new PartitionState(trusted.leader(), Epochs.next(trusted.leaderEpoch(), "leader epoch"),
                    trusted.isr(), epoch.epoch());
        }
        return next;
    }

    /**
     * A partition's state, or empty when there is none or it does not parse: then nothing is known
     * of its ISR, and without the ISR no leader can be elected (no unclean election); the partition
     * is left as it is, refused, until someone writes a state that parses.
     */
    private Optional<Versioned<PartitionState>> readState(String topic, int partition)
            throws KeeperException, InterruptedException {
        try {
            return PartitionStateStore.read(zk, topic, partition);
        } catch (IllegalArgumentException e) { // ZNodeFormatException
            refused.accept(ZNodes.statePath(topic, partition), e.getMessage()
                    + "; without its ISR no leader is elected (no unclean election)");
            return Optional.empty();
        }
    }
}
