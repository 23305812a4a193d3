package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
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

    // ---- Kafka judges: TopicPartitionStateZNode reads every state; a model of the conditional writes ----

    static final String STORE_RULE = "a state is read with the znode's version, its partition epoch (not the leader"
            + " epoch in the JSON); every write names the version its writer read and lands only on it (empty when the"
            + " state moved); the controller's write is fenced by its epoch too (ControllerMovedException once another"
            + " won)";

    /** A write to the state znode: by the leader or a controller (the current one, or one a newer election fenced). */
    record Write(String writer, PartitionState state, int versionBack) {
        @Override
        public String toString() {
            return writer + " writes " + state + " on the version read " + versionBack + " write(s) ago";
        }
    }

    static final Gen<List<Write>> WRITES = Gens.lists(c -> new Write(
            Gens.elements("the leader", "the controller", "a fenced controller").generate(c),
            ZNodeCodecsTest.STATES.generate(c), Gens.elements(0, 0, 0, 1, 2).generate(c)), 1, 8);

    @Test
    void everySequenceOfWritesAgreesWithKafkasConditionalUpdates() throws Exception {
        ZkClient oldSession = ZK.connect();
        ZkClient session = ZK.connect();
        ControllerEpoch fenced = ControllerElection.elect(oldSession, 1, NOW_MS).orElseThrow();
        session.delete(ZNodes.CONTROLLER);
        ControllerEpoch current = ControllerElection.elect(session, 2, NOW_MS).orElseThrow();
        AtomicInteger topics = new AtomicInteger();
        Property.forAll(WRITES).tries(15).shrinkBudget(200).check(writes -> {
            String topic = "t" + topics.incrementAndGet();
            PartitionStateStore.createAssignment(session, topic, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
            PartitionStateStore.createStates(session, current, topic, Map.of(0, FIRST));
            PartitionState kafkasState = FIRST;
            int kafkasVersion = 0;
            for (int i = 0; i < writes.size(); i++) {
                Write w = writes.get(i);
                int expected = Math.max(0, kafkasVersion - w.versionBack());
                Judge.Outcome yours = Judge.Outcome.of(() -> switch (w.writer()) {
                    case "the leader" -> PartitionStateStore.updateAsLeader(session, topic, 0, w.state(), expected);
                    case "the controller" -> PartitionStateStore.updateAsController(session, current, topic, 0, w.state(),
                            expected);
                    default -> PartitionStateStore.updateAsController(oldSession, fenced, topic, 0, w.state(), expected);
                });
                String kafkas;
                if (w.writer().equals("a fenced controller")) {
                    kafkas = "a refusal (ControllerMovedException)";
                } else if (expected != kafkasVersion) {
                    kafkas = String.valueOf(OptionalInt.empty());
                } else {
                    kafkasVersion++;
                    kafkasState = w.state();
                    kafkas = String.valueOf(OptionalInt.of(kafkasVersion));
                }
                String answer = yours.refused() ? "a refusal (" + yours.refusal().getClass().getSimpleName() + ")"
                        : String.valueOf(yours.value());
                ZkClient.Node node = session.get(ZNodes.statePath(topic, 0)).orElseThrow();
                KafkaZk.KafkaState kafkaReads = KafkaZk.kafkaReadsState(node.data(), node.stat());
                Judge.Outcome read = Judge.Outcome.of(() -> PartitionStateStore.read(session, topic, 0).orElseThrow());
                Judge.agree("write " + (i + 1) + " (" + w + ") of " + writes, "answer, then the state read",
                        List.of(answer, read.refused() ? read : read.value()), "conditional setData (KafkaZkClient.updateLeaderAndIsr, fenced by"
                                + " checkControllerAndEpoch), then TopicPartitionStateZNode.decode, give",
                        List.of(kafkas, new Versioned<>(kafkaReads.state(), kafkaReads.partitionEpoch())), STORE_RULE);
                Judge.agree("write " + (i + 1) + " (" + w + ") of " + writes, "state as written",
                        List.of(kafkaReads.state(), kafkaReads.partitionEpoch()), "model of the conditional writes holds",
                        List.of(kafkasState, kafkasVersion), STORE_RULE);
            }
        });
    }
}
