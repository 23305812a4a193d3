package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The controller's reactions, each to the event it is about, on the tasks' pieces (registration,
 * the election, the state store, the offline election): a topic whose assignment grows gets first
 * states for its new partitions, a state that names a broker that is not live is shrunk, and a
 * broker change elects only the partitions on the brokers that came or went.
 */
@Order(24)
class ControllerEventsTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void aPartitionAddedToATopicsAssignmentGetsItsFirstState() throws Exception {
        ZkClient one = registered(1);
        registered(2);
        ZkClient admin = ZK.connect();
        PartitionStateStore.createAssignment(admin, "orders", new TreeMap<>(Map.of(0, List.of(1, 2))), Map.of());
        Controller controller = new Controller(one, ControllerElection.elect(one, 1, NOW_MS).orElseThrow());
        assertThat(controller.onTopicChange()).as("taking office, the controller gives orders-0 its first state")
                .extracting(Controller.Change::partition).containsExactly(0);

        admin.setData(ZNodes.topicPath("orders"), ZNodes.encodeTopic(new TreeMap<>(Map.of(0, List.of(1, 2),
                1, List.of(2, 1)))), -1);
        assertThat(controller.onPartitionModifications("orders"))
                .as("orders' assignment now names partition 1 (Kafka's PartitionModifications): its first state,"
                        + " and only its, orders-0 having one")
                .extracting(Controller.Change::partition).containsExactly(1);
        assertThat(PartitionStateStore.read(admin, "orders", 1).orElseThrow().value())
                .as("the first live replica of its assignment leads, the live replicas are the ISR, epoch 0")
                .isEqualTo(new PartitionState(2, 0, List.of(2, 1), 1));
    }

    @Test
    void aStateWhoseIsrNamesABrokerThatIsNotLiveIsShrunkAtTheNextEpoch() throws Exception {
        ZkClient one = registered(1);
        registered(2);
        ZkClient admin = ZK.connect();
        PartitionStateStore.createAssignment(admin, "orders", new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
        Controller controller = new Controller(one, ControllerElection.elect(one, 1, NOW_MS).orElseThrow());
        controller.onTopicChange();
        assertThat(PartitionStateStore.read(admin, "orders", 0).orElseThrow().value().isr())
                .as("broker 3 is not registered: the first ISR is the live replicas").containsExactly(1, 2);

        PartitionStateStore.updateAsLeader(admin, "orders", 0, new PartitionState(1, 0, List.of(1, 2, 3), 1), 0);
        assertThat(controller.onStateChange("orders", 0))
                .as("the leader wrote broker 3, which is not live, into the ISR: the controller, told of the write,"
                        + " reads that one state and takes broker 3 out, at the next leader epoch")
                .extracting(Controller.Change::after)
                .containsExactly(new PartitionState(1, 1, List.of(1, 2), 1));
    }

    @Test
    void aBrokerChangeElectsOnlyThePartitionsOnTheBrokersThatCameOrWent() throws Exception {
        ZkClient one = registered(1);
        ZkClient two = registered(2);
        registered(3);
        ZkClient admin = ZK.connect();
        PartitionStateStore.createAssignment(admin, "far", new TreeMap<>(Map.of(0, List.of(1, 3))), Map.of());
        PartitionStateStore.createAssignment(admin, "near", new TreeMap<>(Map.of(0, List.of(2, 1))), Map.of());
        Controller controller = new Controller(one, ControllerElection.elect(one, 1, NOW_MS).orElseThrow());
        controller.onTopicChange();
        int farVersion = PartitionStateStore.read(admin, "far", 0).orElseThrow().zkVersion();
        // a state the controller would rewrite if it read it: leader 1 at epoch 0, the ISR without broker 3
        PartitionStateStore.updateAsLeader(admin, "far", 0, new PartitionState(1, 0, List.of(1, 3, 2), 1),
                farVersion);

        two.close(); // broker 2's session ends: its registration goes
        assertThat(controller.onBrokerChange())
                .as("broker 2 went: near-0, on brokers [2, 1], is elected again, leader 1 at epoch 1; far-0, on [1, 3],"
                        + " is not read at all (a broker change concerns the partitions of the brokers that changed)")
                .extracting(Controller.Change::toString)
                .containsExactly("near-0: " + new PartitionState(1, 1, List.of(1), 1));
    }

    private ZkClient registered(int id) throws Exception {
        ZkClient session = ZK.connect();
        BrokerRegistration.register(session, new BrokerInfo(id, "127.0.0.1", 9090 + 2 * id, BrokerInfo.NO_PORT,
                9190 + id), NOW_MS);
        return session;
    }
}
