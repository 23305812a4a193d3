package kaenlog.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
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

    public Controller(ZkClient zk, ControllerEpoch epoch) {
        this.zk = zk;
        this.epoch = epoch;
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
        Set<Integer> live = BrokerRegistration.liveBrokers(zk).keySet();
        List<Change> changes = new ArrayList<>();
        for (String topic : PartitionStateStore.topics(zk)) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic);
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
        Set<Integer> live = BrokerRegistration.liveBrokers(zk).keySet();
        List<Change> changes = new ArrayList<>();
        for (String topic : PartitionStateStore.topics(zk)) {
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic);
            if (assignment.isEmpty() || PartitionStateStore.read(zk, topic, assignment.get().firstKey()).isPresent()) {
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
            Optional<Versioned<PartitionState>> read = PartitionStateStore.read(zk, topic, partition);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            PartitionState current = read.get().value();
            PartitionState next = LeaderElection.elect(replicas, current, live, epoch.epoch());
            if (next.equals(current)) {
                return Optional.empty();
            }
            OptionalInt written = PartitionStateStore.updateAsController(zk, epoch, topic, partition, next,
                    read.get().zkVersion());
            if (written.isPresent()) {
                return Optional.of(new Change(topic, partition, current, next));
            }
            // the leader wrote its ISR in between: read again and decide on what is there now
        }
        throw new IllegalStateException(topic + "-" + partition + ": its state kept moving under the controller");
    }
}
