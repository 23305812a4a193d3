package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Task 4: the partition state, read with its zkVersion (the partition epoch) and written conditionally. */
@Order(4)
class PartitionStateStoreTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final String TOPIC = "orders";
    private static final PartitionState FIRST = new PartitionState(1, 5, List.of(1, 2, 3), 1);

    @Test
    void aStateIsReadWithItsZkVersionNotItsLeaderEpoch() throws Exception {
        ZkClient controller = ZK.connect();
        created(controller);
        Versioned<PartitionState> read = PartitionStateStore.read(ZK.connect(), TOPIC, 0).orElseThrow();
        assertThat(read.value()).as("the state the controller wrote").isEqualTo(FIRST);
        assertThat(read.zkVersion()).as("a znode never written since its creation is at zkVersion 0: the partition epoch"
                + " is the znode's version, not the leader epoch (5) in its JSON").isZero();
        assertThat(PartitionStateStore.read(controller, TOPIC, 7)).as("a partition that does not exist reads as empty")
                .isEmpty();
    }

    @Test
    void theLeadersWriteLandsOnlyOnTheVersionItRead() throws Exception {
        ZkClient controller = ZK.connect();
        created(controller);
        ZkClient leader = ZK.connect();
        PartitionState shrunk = new PartitionState(1, 5, List.of(1, 2), 1);
        assertThat(PartitionStateStore.updateAsLeader(leader, TOPIC, 0, shrunk, 0))
                .as("written on zkVersion 0: the new zkVersion is 1").isEqualTo(OptionalInt.of(1));
        PartitionState expanded = new PartitionState(1, 5, List.of(1, 2, 3), 1);
        assertThat(PartitionStateStore.updateAsLeader(leader, TOPIC, 0, expanded, 0))
                .as("a write still naming zkVersion 0 is stale: refused (empty), so the leader re-reads before it decides")
                .isEmpty();
        assertThat(PartitionStateStore.read(leader, TOPIC, 0).orElseThrow())
                .as("the stale write changed nothing: the write must be CONDITIONAL on the version")
                .isEqualTo(new Versioned<>(shrunk, 1));
    }

    @Test
    void theControllersWriteIsConditionalToo() throws Exception {
        ZkClient controllerSession = ZK.connect();
        ControllerEpoch epoch = created(controllerSession);
        PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, 5, List.of(1), 1), 0);
        PartitionState elected = new PartitionState(2, 6, List.of(2, 3), epoch.epoch());
        assertThat(PartitionStateStore.updateAsController(controllerSession, epoch, TOPIC, 0, elected, 0))
                .as("the leader wrote its ISR since the controller read zkVersion 0: the controller's write is stale,"
                        + " refused (empty), never an overwrite of the leader's").isEmpty();
        assertThat(PartitionStateStore.updateAsController(controllerSession, epoch, TOPIC, 0, elected, 1))
                .as("on the version it re-read, it lands").isEqualTo(OptionalInt.of(2));
        assertThat(PartitionStateStore.read(controllerSession, TOPIC, 0).orElseThrow().value()).isEqualTo(elected);
    }

    @Test
    void aFencedControllerCannotWriteAState() throws Exception {
        ZkClient oldSession = ZK.connect();
        ControllerEpoch old = created(oldSession);
        ZkClient next = ZK.connect();
        next.delete(ZNodes.CONTROLLER);
        ControllerElection.elect(next, 2, NOW_MS).orElseThrow();
        Throwable fenced = catchThrowable(() -> PartitionStateStore.updateAsController(oldSession, old, TOPIC, 0,
                new PartitionState(3, 6, List.of(3), old.epoch()), 0));
        assertThat(fenced).as("the controller's state write goes through ControllerElection.write: a controller whose"
                + " epoch is over is fenced").isInstanceOf(ControllerMovedException.class);
        assertThat(PartitionStateStore.read(next, TOPIC, 0).orElseThrow()).as("and the state is untouched")
                .isEqualTo(new Versioned<>(FIRST, 0));
    }

    private static ControllerEpoch created(ZkClient session) throws Exception {
        ControllerEpoch epoch = ControllerElection.elect(session, 1, NOW_MS).orElseThrow();
        PartitionStateStore.createAssignment(session, TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
        PartitionStateStore.createStates(session, epoch, TOPIC, Map.of(0, FIRST));
        return epoch;
    }
}
