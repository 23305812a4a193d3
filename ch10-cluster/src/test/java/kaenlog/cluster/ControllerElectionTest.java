package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.zookeeper.KeeperException;
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

    // ---- Kafka judges: a model of registerControllerAndIncrementControllerEpoch and checkControllerAndEpoch ----

    static final String ELECTION_RULE = "the first to create the ephemeral /controller wins and bumps /controller_epoch"
            + " in the same multi, conditional on the version read (a loser changes nothing); every write of a"
            + " controller starts with the check of /controller_epoch's version: once another has won, the old one"
            + " writes nothing (ControllerMovedException), and an op that fails otherwise is ZooKeeper's own error";

    /** A candidate runs, a controller writes (one op that may fail on its own), or its session's /controller goes. */
    record Move(String kind, int broker) {
        @Override
        public String toString() {
            return switch (kind) {
                case "elect" -> "broker " + broker + " runs for controller";
                case "write" -> "broker " + broker + " writes as the controller it last won";
                case "write-failing" -> "broker " + broker + " writes, one op of it failing (a znode that exists)";
                default -> "/controller goes (its owner's session ended)";
            };
        }
    }

    static final Gen<List<Move>> MOVES = Gens.lists(c -> new Move(
            Gens.elements("elect", "elect", "write", "write", "write-failing", "gone").generate(c),
            Gens.ints(1, 3).generate(c)), 1, 10);

    @Test
    void everySequenceOfElectionsAndWritesAgreesWithKafkasController() throws Exception {
        Map<Integer, ZkClient> brokers = Map.of(1, ZK.connect(), 2, ZK.connect(), 3, ZK.connect());
        ZkClient admin = ZK.connect();
        AtomicInteger writes = new AtomicInteger();
        Property.forAll(MOVES).tries(25).shrinkBudget(200).check(moves -> {
            admin.deleteRecursive("/");
            admin.create("/w", new byte[0], CreateMode.PERSISTENT);
            Map<Integer, ControllerEpoch> won = new HashMap<>();
            // the model: who holds /controller, and /controller_epoch's epoch and version
            int controller = -1;
            int epoch = ControllerElection.INITIAL_CONTROLLER_EPOCH;
            int version = 0;
            boolean epochNodeExists = false;
            Map<Integer, int[]> kafkasWon = new HashMap<>();
            for (int i = 0; i < moves.size(); i++) {
                Move move = moves.get(i);
                String at = "move " + (i + 1) + " (" + move + ") of " + moves;
                ZkClient zk = brokers.get(move.broker());
                String yours;
                String kafkas;
                switch (move.kind()) {
                    case "elect" -> {
                        Optional<ControllerEpoch> result = ControllerElection.elect(zk, move.broker(), NOW_MS);
                        result.ifPresent(e -> won.put(move.broker(), e));
                        yours = result.map(e -> "won epoch " + e.epoch() + " at version " + e.zkVersion()).orElse("lost");
                        epochNodeExists = true;
                        if (controller == -1) {
                            controller = move.broker();
                            epoch++;
                            version++;
                            kafkasWon.put(move.broker(), new int[] {epoch, version});
                            kafkas = "won epoch " + epoch + " at version " + version;
                        } else {
                            kafkas = "lost";
                        }
                    }
                    case "write", "write-failing" -> {
                        ControllerEpoch mine = won.get(move.broker());
                        if (mine == null) {
                            continue; // never won: nothing to write with
                        }
                        String path = "/w/" + writes.incrementAndGet();
                        List<Op> ops = move.kind().equals("write") ? List.of(create(path))
                                : List.of(create(path), create("/w"));
                        Judge.Outcome result = Judge.Outcome.of(() -> ControllerElection.write(zk, mine, ops).size());
                        yours = (result.refused() ? result.refusal().getClass().getSimpleName() : result.value() + " results")
                                + (admin.exists(path).isPresent() ? ", applied" : ", nothing applied");
                        int[] kafkasEpoch = kafkasWon.get(move.broker());
                        kafkas = kafkasEpoch[1] != version ? "ControllerMovedException, nothing applied"
                                : move.kind().equals("write") ? "1 results, applied" : "NodeExistsException, nothing applied";
                    }
                    default -> {
                        admin.exists(ZNodes.CONTROLLER).ifPresent(stat -> delete(admin));
                        controller = -1;
                        continue;
                    }
                }
                String state = "; then /controller names " + ControllerElection.controller(admin) + ", /controller_epoch "
                        + (epochNodeExists ? epochOn(admin) + " at version "
                        + admin.exists(ZNodes.CONTROLLER_EPOCH).orElseThrow().getVersion() : "absent");
                String kafkasState = "; then /controller names " + controller + ", /controller_epoch "
                        + (epochNodeExists ? epoch + " at version " + version : "absent");
                Judge.agree(at, "answer", yours + state,
                        "KafkaZkClient.registerControllerAndIncrementControllerEpoch and checkControllerAndEpoch give",
                        kafkas + kafkasState, ELECTION_RULE);
            }
        });
    }

    private static void delete(ZkClient admin) {
        try {
            admin.delete(ZNodes.CONTROLLER);
        } catch (KeeperException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
