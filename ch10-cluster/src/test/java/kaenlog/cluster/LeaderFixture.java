package kaenlog.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import kaenlog.batch.BatchBuilder;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;

/**
 * Broker 1 leading orders-0 of replicas [1, 2, 3] at a given epoch, for the tests of the leader's
 * side (FollowerFetchTest, AcksAllTest): its replica with some records, and its PartitionLeader on
 * a state the controller wrote in ZooKeeper.
 */
final class LeaderFixture {
    static final long T0 = 1_700_000_000_000L;
    static final long LAG = 30_000;
    static final String TOPIC = "orders";

    private LeaderFixture() {
    }

    /** Broker 1's replica, leader at {@code epoch}, with {@code records} one-record batches; the HW moves only when told. */
    static Replica leaderWith(Path dir, int epoch, int records) throws Exception {
        Replica replica = Replica.open(1, Role.FOLLOWER, dir.resolve(TOPIC + "-0"));
        replica.stopEagerHighWatermark();
        replica.becomeLeader(epoch);
        for (int i = 0; i < records; i++) {
            replica.appendAsLeader(new BatchBuilder().append(T0, "k", "v" + i).build());
        }
        return replica;
    }

    /** The state {@code (leader 1, epoch, isr)} written by a controller, and the leader that reads it; every broker live. */
    static PartitionLeader leader(ZkClient zk, Replica replica, int epoch, List<Integer> isr, int minIsr)
            throws Exception {
        return leader(zk, replica, epoch, isr, minIsr, broker -> true);
    }

    /** The same, with the brokers {@code alive} says are live (the cluster as the leader last read it). */
    static PartitionLeader leader(ZkClient zk, Replica replica, int epoch, List<Integer> isr, int minIsr,
                                  IntPredicate alive) throws Exception {
        ControllerEpoch controller = ControllerElection.elect(zk, 1, T0).orElseThrow();
        return leaderOfNewTopic(zk, controller, TOPIC, replica, epoch, isr, minIsr, alive);
    }

    /**
     * The same on {@code topic}-0, a topic not created yet, by a controller already elected: a property
     * makes one topic per try, and ZooKeeper is not emptied between them.
     */
    static PartitionLeader leaderOfNewTopic(ZkClient zk, ControllerEpoch controller, String topic, Replica replica,
                                            int epoch, List<Integer> isr, int minIsr, IntPredicate alive)
            throws Exception {
        PartitionStateStore.createAssignment(zk, topic, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
        PartitionStateStore.createStates(zk, controller, topic, Map.of(0, new PartitionState(1, epoch, isr, 1)));
        return new PartitionLeader(zk, topic, 0, replica, PartitionStateStore.read(zk, topic, 0).orElseThrow(),
                List.of(1, 2, 3), minIsr, LAG, alive, T0);
    }
}
