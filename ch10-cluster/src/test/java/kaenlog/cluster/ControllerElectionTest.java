package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Task 3: the controller election in one multi, and the epoch fence on every controller write. */
@Order(3)
class ControllerElectionTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void theFirstCandidateWinsWithEpochOne() throws Exception {
        ZkClient one = ZK.connect();
        Optional<ControllerEpoch> won = ControllerElection.elect(one, 1, NOW_MS);
        assertThat(won).as("the first candidate creates /controller and wins").isPresent();
        assertThat(won.get().epoch()).as("the initial controller epoch is 0, so the first controller's is 1").isEqualTo(1);
        ZkClient observer = ZK.connect();
        assertThat(ControllerElection.controller(observer)).as("/controller names broker 1").isEqualTo(1);
        assertThat(epochOn(observer)).as("/controller_epoch was bumped to 1 with it").isEqualTo(1);
        assertThat(won.get().zkVersion()).as("the epoch's zkVersion is the one /controller_epoch has now, the fence's check")
                .isEqualTo(observer.exists(ZNodes.CONTROLLER_EPOCH).orElseThrow().getVersion());
        assertThat(observer.exists(ZNodes.CONTROLLER).orElseThrow().getEphemeralOwner())
                .as("/controller must be EPHEMERAL: when the controller's session ends, another broker can win")
                .isEqualTo(one.sessionId());
    }

    @Test
    void aLosingCandidateChangesNothing() throws Exception {
        ControllerElection.elect(ZK.connect(), 1, NOW_MS).orElseThrow();
        ZkClient two = ZK.connect();
        assertThat(ControllerElection.elect(two, 2, NOW_MS)).as("/controller exists: broker 2 loses").isEmpty();
        assertThat(epochOn(two)).as("a candidate that lost must leave /controller_epoch as it was: bump it in the same"
                + " multi that creates /controller, never before it").isEqualTo(1);
        assertThat(ControllerElection.controller(two)).as("broker 1 is still the controller").isEqualTo(1);
    }

    @Test
    void eachElectionBumpsTheEpochOnce() throws Exception {
        ZkClient one = ZK.connect();
        ControllerElection.elect(one, 1, NOW_MS).orElseThrow();
        one.close();
        ControllerEpoch second = ControllerElection.elect(ZK.connect(), 2, NOW_MS).orElseThrow();
        assertThat(second.epoch()).as("broker 1's session ended, /controller went with it: broker 2 wins epoch 2")
                .isEqualTo(2);
        assertThat(epochOn(ZK.connect())).as("/controller_epoch says 2").isEqualTo(2);
    }

    @Test
    void aZombieControllerWritesNothing() throws Exception {
        ZkClient one = ZK.connect();
        ControllerEpoch old = ControllerElection.elect(one, 1, NOW_MS).orElseThrow();
        ZkClient thief = ZK.connect();
        thief.delete(ZNodes.CONTROLLER);
        ControllerEpoch current = ControllerElection.elect(thief, 2, NOW_MS).orElseThrow();
        List<Op> writes = List.of(create("/zombie-a"), create("/zombie-b"));
        Throwable fenced = catchThrowable(() -> ControllerElection.write(one, old, writes));
        assertThat(fenced).as("broker 1 still has its session but epoch %d is over (now %d): its write must be refused"
                + " with ControllerMovedException", old.epoch(), current.epoch())
                .isInstanceOf(ControllerMovedException.class);
        assertThat(thief.exists("/zombie-a")).as("and none of its ops applied: the fence is checked in the same multi")
                .isEmpty();
        assertThat(thief.exists("/zombie-b")).as("none of its ops applied").isEmpty();
    }

    @Test
    void theCurrentControllersWriteLandsWhole() throws Exception {
        ZkClient one = ZK.connect();
        ControllerEpoch epoch = ControllerElection.elect(one, 1, NOW_MS).orElseThrow();
        assertThat(ControllerElection.write(one, epoch, List.of(create("/a"), create("/b"))))
                .as("one result per op of the caller's, without the fence's").hasSize(2);
        assertThat(one.exists("/a").isPresent() && one.exists("/b").isPresent()).as("both ops applied").isTrue();
        Throwable failed = catchThrowable(() -> ControllerElection.write(one, epoch, List.of(create("/c"), create("/a"))));
        assertThat(failed).as("an op that fails for another reason than the fence is ZooKeeper's own exception, not"
                + " ControllerMovedException: the controller is still the controller")
                .isInstanceOf(org.apache.zookeeper.KeeperException.NodeExistsException.class);
        assertThat(one.exists("/c")).as("and the multi applied nothing").isEmpty();
    }

    private static int epochOn(ZkClient zk) throws Exception {
        return Integer.parseInt(new String(zk.get(ZNodes.CONTROLLER_EPOCH).orElseThrow().data(), StandardCharsets.UTF_8));
    }

    private static Op create(String path) {
        return Op.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
}
