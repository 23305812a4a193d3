package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.WaitsFor;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the cluster reads from ZooKeeper is read as a request is, since anyone who reaches ZooKeeper
 * can write a znode, and a follower's word is taken only on the port brokers use for each other.
 * First the given pieces alone (Json's bounds, {@link Epochs}, {@link StateCheck}, the controller
 * epoch, {@link ZkClient}'s guard), then three brokers at work: a registration that does not parse
 * is a broker that is absent, a state no writer of this cluster writes is refused by the brokers
 * and replaced by the controller at an epoch they can all act on, and a replica fetch on the client
 * port is refused.
 */
@Order(27)
@WaitsFor("a cluster of three brokers to react to a tampered znode")
class ZooKeeperDataTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final String PARTITION = "orders-0";
    private static final String STATE = ZNodes.statePath("orders", 0);
    private static final long WAIT_MS = 20_000;
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);

    @TempDir
    Path root;

    @Test
    @PassesOnSkeleton("given code: Json's bounds")
    void jsonNestedDeeperThanAZNodeEverIsRefusedNotAStackOverflow() {
        Throwable refused = catchThrowable(() -> Json.parse("[".repeat(1_000_000).getBytes(StandardCharsets.UTF_8)));
        assertThat(refused).as("a megabyte of '[' (a znode holds up to 1 MB) would overflow the parser's stack: the"
                + " depth is bounded").isInstanceOf(ZNodeFormatException.class).hasMessageContaining("nesting");
        assertThat(refused.getMessage().length()).as("and the message quotes a bounded part of the text")
                .isLessThan(400);
    }

    @Test
    @PassesOnSkeleton("given code: Json's bounds")
    void aNumberOutsideItsTypeIsRefused() {
        Map<String, Object> wide = Json.parseObject("{\"leader\":2147483648}".getBytes(StandardCharsets.UTF_8));
        assertThat(catchThrowable(() -> Json.intField(wide, "leader")))
                .as("2^31 is no int: refused, never cut to -2^31 (an ArithmeticException before)")
                .isInstanceOf(ZNodeFormatException.class).hasMessageContaining("leader");
        assertThat(catchThrowable(() -> Json.parse("99999999999999999999999".getBytes(StandardCharsets.UTF_8))))
                .as("a number outside 64 bits is refused as JSON, not a NumberFormatException")
                .isInstanceOf(ZNodeFormatException.class);
    }

    @Test
    @PassesOnSkeleton("given code: Json.quote")
    void aQuotedZNodeCannotForgeALineOfTheLog() {
        String quoted = Json.quote("broker 2\ncluster: broker 1 is the controller\u001b[31m" + "x".repeat(10_000));
        assertThat(quoted).as("no newline, no ESC: a forged znode quoted in a message forges no line of the log")
                .doesNotContain("\n", "\u001b");
        assertThat(quoted.length()).as("and a bounded part of it").isLessThan(200);
    }

    @Test
    @PassesOnSkeleton("given code: Epochs")
    void anEpochNeverWraps() {
        assertThat(Epochs.next(Integer.MAX_VALUE - 1, "leader epoch")).isEqualTo(Integer.MAX_VALUE);
        assertThat(catchThrowable(() -> Epochs.next(Integer.MAX_VALUE, "controller epoch")))
                .as("past 2^31-1 an int wraps to -2^31, the oldest of epochs: refused, naming the epoch")
                .isInstanceOf(EpochOverflowException.class).hasMessageContaining("controller epoch 2147483647");
    }

    @Test
    @PassesOnSkeleton("given code: the next controller epoch")
    void theNextControllerEpochIsOneMoreThanTheStoredOneOrElseTheVersion() {
        assertThat(ControllerElection.nextControllerEpoch(epochNode("4", 4))).as("written by controllers alone: 4 + 1")
                .isEqualTo(5);
        for (String forged : List.of("2147483647", "-5", "epoch", "90")) {
            assertThat(ControllerElection.nextControllerEpoch(epochNode(forged, 4)))
                    .as("/controller_epoch = '%s' at version 4: no election of this cluster wrote that (each bumps"
                            + " the value and the version together), so the version, which no client can forge, is"
                            + " taken: 4 + 1, never a wrapped or negative epoch", forged)
                    .isEqualTo(5);
        }
    }

    @Test
    @PassesOnSkeleton("given code: StateCheck")
    void aStateNoWriterOfThisClusterWritesIsRefusedAndWhatCanBeTrustedIsKept() {
        PartitionState forged = new PartitionState(999, Integer.MAX_VALUE, List.of(1, 2, 3), 1);
        assertThat(StateCheck.problem(forged, 7, REPLICAS)).as("leader 999 is no replica")
                .hasValueSatisfying(why -> assertThat(why).contains("leader 999"));
        assertThat(StateCheck.problem(new PartitionState(1, Integer.MAX_VALUE, REPLICAS, 1), 7, REPLICAS))
                .as("an epoch at its maximum: nothing could ever follow it")
                .hasValueSatisfying(why -> assertThat(why).contains("maximum"));
        assertThat(StateCheck.problem(new PartitionState(1, 8, REPLICAS, 1), 7, REPLICAS))
                .as("leader epoch 8 at version 7: each leader epoch is one write of the znode, so no writer of this"
                        + " cluster wrote it").hasValueSatisfying(why -> assertThat(why).contains("version 7"));
        assertThat(StateCheck.problem(new PartitionState(1, -3, REPLICAS, 1), 7, REPLICAS)).as("a negative epoch")
                .hasValueSatisfying(why -> assertThat(why).contains("negative"));
        assertThat(StateCheck.problem(new PartitionState(1, 3, List.of(1, 4), 1), 7, REPLICAS))
                .as("an ISR outside the replicas").isPresent();
        assertThat(StateCheck.problem(new PartitionState(1, 7, REPLICAS, 1), 7, REPLICAS))
                .as("leader 1 of the replicas, epoch 7 at version 7, ISR within them: a state the cluster writes")
                .isEmpty();
        assertThat(StateCheck.trusted(forged, 7, REPLICAS))
                .as("what the controller can trust of the forged state: no leader (999 is none), the ISR members that"
                        + " are replicas, and as the leader epoch the version 7 (at least every leader epoch the"
                        + " cluster wrote there); it elects from this, at epoch 8")
                .isEqualTo(new PartitionState(PartitionState.NO_LEADER, 7, REPLICAS, 1));
    }

    @Test
    @PassesOnSkeleton("given code: ZkClient's guard")
    void aConditionalWriteOnAVersionThatWouldWrapIsRefused() throws Exception {
        ZkClient zk = ZK.connect();
        zk.create("/v", new byte[0], CreateMode.PERSISTENT);
        assertThat(catchThrowable(() -> zk.setData("/v", new byte[0], Integer.MAX_VALUE)))
                .as("ZooKeeper 3.9 adds one to a version with no check: a write at 2^31-1 would leave -2^31, and a"
                        + " version of -1 matches any; a state znode's version is Kafka's partition epoch: refused")
                .isInstanceOf(EpochOverflowException.class);
        assertThat(catchThrowable(() -> zk.multi(List.of(Op.setData("/v", new byte[0], Integer.MAX_VALUE)))))
                .as("in a multi too").isInstanceOf(EpochOverflowException.class);
        assertThat(zk.setData("/v", new byte[0], 0).getVersion()).as("any other version is written").isEqualTo(1);
    }

    @Test
    void aReplicaFetchIsTakenOnlyOnThePortBrokersUseForEachOther() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            TestCluster.Node leader = startedWithLeaderOne(cluster);
            try (BrokerClient client = leader.client()) {
                for (int i = 0; i < 3; i++) {
                    assertThat(client.produce(PARTITION, ProduceRequest.ACKS_ALL, new BatchBuilder().append(1_700_000_000_000L, "k", "m" + i).build())
                            .error()).as("acks=all answered: the followers fetch on the inter-broker port")
                            .isEqualTo(ErrorCode.NONE);
                }
                FetchResponse spoofed = client.fetch(new FetchRequest(2, PARTITION, 1L << 40, 1024, 0));
                assertThat(spoofed.error())
                        .as("a client that poses as follower 2 on the client port is refused, as Kafka refuses a"
                                + " replica Fetch without ClusterAction: TOPIC_AUTHORIZATION_FAILED")
                        .isEqualTo(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
                assertThat(client.fetch(FetchRequest.consumer(PARTITION, 0, 1024, 0)).error())
                        .as("a consumer's fetch on the client port is served").isEqualTo(ErrorCode.NONE);
            }
            BrokerInfo registered = BrokerRegistration.read(ZK.connect(), 1).orElseThrow();
            try (BrokerClient peer = BrokerClient.connect("127.0.0.1", registered.replicationPort(), 10_000)) {
                assertThat(peer.fetch(new FetchRequest(2, PARTITION, 1L << 40, 1024, 0)).error())
                        .as("on the inter-broker port the fetch is taken, and checked against the log: 2^40 is past"
                                + " the leader's log end")
                        .isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            }
            assertThat(leader.leadership.leaderOf(PARTITION).orElseThrow().committedIsr())
                    .as("and the ISR is what the real followers made it").containsExactly(1, 2, 3);
        }
    }

    @Test
    void aBrokerWhoseRegistrationDoesNotParseIsNeverElected() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            startedWithLeaderOne(cluster);
            ZkClient anyone = ZK.connect();
            anyone.setData(ZNodes.brokerPath(2), "{\"version\":5,\"endpoints\":[\"KAEN".getBytes(StandardCharsets.UTF_8),
                    -1);
            cluster.stop(1);
            assertThat(cluster.await(() -> state(anyone).map(s -> s.leader() == 3).orElse(false), WAIT_MS))
                    .as("leader 1 left; broker 2, the next in assignment order, has a registration that does not"
                            + " parse: it is absent, and broker 3 leads (state %s)%n%s", state(anyone), cluster.logs())
                    .isTrue();
            assertThat(state(anyone).orElseThrow().isr()).as("broker 2 is out of the ISR: an absent broker's")
                    .doesNotContain(2);
            assertThat(cluster.logs()).as("a log line names the znode and why")
                    .contains("refuses '/brokers/ids/2': bad JSON");
        }
    }

    @Test
    void aStateSetToAnUnknownLeaderAtTheLargestEpochIsReplacedAtAnEpochEveryBrokerCanActOn() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            startedWithLeaderOne(cluster);
            ZkClient anyone = ZK.connect();
            PartitionState before = state(anyone).orElseThrow();
            anyone.setData(STATE, ZNodes.encodeState(new PartitionState(999, Integer.MAX_VALUE, before.isr(),
                    before.controllerEpoch())), -1);
            assertThat(cluster.await(() -> versioned(anyone)
                    .map(s -> s.value().leader() == 1 && s.value().leaderEpoch() == s.zkVersion()
                            && cluster.node(1).leadership.leaderOf(PARTITION)
                            .map(leader -> leader.leaderEpoch() == s.value().leaderEpoch()).orElse(false))
                    .orElse(false), WAIT_MS))
                    .as("the controller refuses leader 999 at epoch 2^31-1 and elects from what it can trust: leader 1"
                            + " (the first live ISR member), at the epoch after the state's version, which every"
                            + " broker can act on; no epoch wraps (state %s)%n%s", state(anyone), cluster.logs())
                    .isTrue();
            int epoch = state(anyone).orElseThrow().leaderEpoch();
            assertThat(cluster.leaderOf(PARTITION).orElseThrow().leadership.leaderOf(PARTITION).orElseThrow()
                    .leaderEpoch()).as("broker 1 leads at that epoch").isEqualTo(epoch);
            assertThat(cluster.logs()).as("a log line names the state znode and why")
                    .contains("refuses '" + STATE + "': leader 999 is not one of the replicas");
        }
    }

    /** Creates {@code orders} on brokers 1, 2, 3 with min.insync.replicas 2 and waits until broker 1 leads it. */
    private static TestCluster.Node startedWithLeaderOne(TestCluster cluster) throws Exception {
        cluster.createTopic("orders", Map.of(0, REPLICAS), Map.of("min.insync.replicas", "2"));
        assertThat(cluster.await(() -> cluster.leaderOf(PARTITION).isPresent(), WAIT_MS))
                .as("broker 1, the first of the assignment, leads").isTrue();
        return cluster.leaderOf(PARTITION).orElseThrow();
    }

    private static Optional<PartitionState> state(ZkClient zk) {
        return versioned(zk).map(Versioned::value);
    }

    private static Optional<Versioned<PartitionState>> versioned(ZkClient zk) {
        try {
            return PartitionStateStore.read(zk, "orders", 0);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static ZkClient.Node epochNode(String text, int version) {
        Stat stat = new Stat();
        stat.setVersion(version);
        return new ZkClient.Node(text.getBytes(StandardCharsets.UTF_8), stat);
    }
}
