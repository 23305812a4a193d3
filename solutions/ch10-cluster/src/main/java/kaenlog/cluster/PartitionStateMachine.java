package kaenlog.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.zookeeper.KeeperException;

/**
 * The controller's writes of partitions' states (given code, on the tasks' pieces; Kafka's
 * {@code PartitionStateMachine}): a new partition's first state (NewPartition to OnlinePartition),
 * and a new state when its leader or an ISR member is no longer live (OfflinePartition to
 * OnlinePartition, and {@code ReplicaStateMachine}'s removal of a dead replica from the ISR), decided
 * by {@link LeaderElection} and written conditionally on the zkVersion read, fenced by the
 * controller epoch. A refused write means a leader wrote its ISR in between: read again, decide again.
 */
final class PartitionStateMachine {
    private static final int STALE_RETRIES = 3;
    private final ZkClient zk;
    private final ControllerEpoch epoch;
    private final BiConsumer<String, String> refused;

    PartitionStateMachine(ZkClient zk, ControllerEpoch epoch, BiConsumer<String, String> refused) {
        this.zk = zk;
        this.epoch = epoch;
        this.refused = refused;
    }

    /**
     * The partitions of {@code topic}'s {@code assignment} that have no state yet get their first
     * (the first live replica leads, the live replicas are the ISR), all in one fenced multi.
     */
    List<Controller.Change> createFirstStates(String topic, SortedMap<Integer, List<Integer>> assignment,
                                              Set<Integer> live)
            throws ControllerMovedException, KeeperException, InterruptedException {
        SortedMap<Integer, PartitionState> states = new TreeMap<>();
        for (Map.Entry<Integer, List<Integer>> p : assignment.entrySet()) {
            if (zk.exists(ZNodes.statePath(topic, p.getKey())).isEmpty()) {
                states.put(p.getKey(), LeaderElection.initial(p.getValue(), live, epoch.epoch()));
            }
        }
        if (states.isEmpty()) {
            return List.of();
        }
        PartitionStateStore.createStates(zk, epoch, topic, states);
        List<Controller.Change> changes = new ArrayList<>();
        states.forEach((partition, state) -> changes.add(new Controller.Change(topic, partition, null, state)));
        return changes;
    }

    /**
     * The state {@code topic}-{@code partition} should have with {@code live} brokers, written if it
     * differs from the one read; empty when nothing was written (no state, nothing to change).
     */
    Optional<Controller.Change> elect(String topic, int partition, List<Integer> replicas, Set<Integer> live)
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
                return Optional.of(new Controller.Change(topic, partition, stored, next));
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
