package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.idem.Idempotence;
import kaenlog.log.FetchIsolation;
import kaenlog.replication.LeaderEpochCache;
import kaenlog.replication.Replica;
import kaenlog.testkit.WaitsFor;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import kaenlog.wire.Topics;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole chapter at work: three brokers in this JVM, each on its own port and directory, one
 * ZooKeeper; followers fetch from their leader over TCP, acks=all waits for the ISR, a leader that
 * leaves is replaced by the first live ISR member, and an idempotent producer that retries to the
 * new leader is answered with the offsets the old one gave.
 */
@Order(25)
@WaitsFor("a cluster of three brokers to reach a state: followers fetching over TCP, a new leader elected")
class ClusterReplicationTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final String PARTITION = "orders-0";
    private static final long WAIT_MS = 20_000;

    @TempDir
    Path root;

    @Test
    void followersCopyTheLeadersBatchesByteForByteAndAcksAllWaitsForThem() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"));
            assertThat(cluster.await(() -> cluster.leaderOf(PARTITION).isPresent(), WAIT_MS))
                    .as("the controller elects broker 1, the first of the assignment, and broker 1 leads").isTrue();
            TestCluster.Node leader = cluster.leaderOf(PARTITION).orElseThrow();
            assertThat(leader.id).isEqualTo(1);
            try (BrokerClient client = leader.client()) {
                for (int i = 0; i < 20; i++) {
                    ProduceResponse answer = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch("m" + i));
                    assertThat(answer.error()).as("acks=all with the ISR whole: answered once the HW covers it")
                            .isEqualTo(ErrorCode.NONE);
                    assertThat(answer.baseOffset()).isEqualTo(i);
                }
            }
            assertThat(cluster.await(() -> cluster.nodes().stream().allMatch(n -> hw(n) == 20), WAIT_MS))
                    .as("every replica ends with LEO and HW 20 (a follower learns the HW in the next response)")
                    .isTrue();
            List<Integer> crcs = crcs(leader.replica(PARTITION).orElseThrow());
            for (TestCluster.Node node : cluster.nodes()) {
                Replica replica = node.replica(PARTITION).orElseThrow();
                assertThat(crcs(replica))
                        .as("broker %d holds the leader's batches CRC for CRC: no offset reassigned", node.id)
                        .isEqualTo(crcs);
                assertThat(epochs(replica))
                        .as("broker %d's batches carry leader epoch 0: the leader stamps its epoch on every batch it"
                                + " writes, so that a follower learns the epochs from what it copies", node.id)
                        .containsOnly(0);
                assertThat(replica.epochs().entries())
                        .as("broker %d's epoch cache says epoch 0 starts at offset 0, learnt from the copied batches"
                                + " (a follower's truncation by epoch asks with it)", node.id)
                        .containsExactly(new LeaderEpochCache.EpochEntry(0, 0));
            }
        }
    }

    @Test
    void aPartitionWithOneReplicaAnswersAcksAllAndServesItsRecordsAtOnce() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 2)) {
            cluster.createTopic("solo", Map.of(0, List.of(1)), Map.of("min.insync.replicas", "1"));
            assertThat(cluster.await(() -> cluster.leaderOf("solo-0").isPresent(), WAIT_MS)).isTrue();
            try (BrokerClient client = cluster.node(1).client()) {
                ProduceResponse answer = client.produce(new ProduceRequest("solo-0", ProduceRequest.ACKS_ALL, 2_000,
                        batch("alone")));
                assertThat(answer.error())
                        .as("acks=all with an ISR of the leader alone (min.insync.replicas 1) is answered at once: the"
                                + " leader's append moves its high watermark (Kafka's maybeIncrementLeaderHW), there is"
                                + " no follower fetch to wait for")
                        .isEqualTo(ErrorCode.NONE);
                assertThat(client.fetch(FetchRequest.consumer("solo-0", 0, 1 << 20, 0)).highWatermark())
                        .as("a consumer is served the record: the high watermark is past it").isEqualTo(1);
            }
        }
    }

    @Test
    void aLeaderThatLeavesIsReplacedAndAnIdempotentRetryIsADuplicate() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"));
            assertThat(cluster.await(() -> cluster.leaderOf(PARTITION).isPresent(), WAIT_MS)).isTrue();
            ByteBuffer resent;
            long pid;
            try (BrokerClient client = cluster.leaderOf(PARTITION).orElseThrow().client()) {
                pid = InitProducerId.Response.decode(client.call(InitProducerId.API_KEY,
                        InitProducerId.encodeRequest())).producerId();
                client.produce(PARTITION, ProduceRequest.ACKS_ALL, Idempotence.producerBatch(pid, (short) 0, 0,
                        List.of("a", "b"), 1_700_000_000_000L));
                resent = Idempotence.producerBatch(pid, (short) 0, 2, List.of("c"), 1_700_000_000_000L);
                assertThat(client.produce(PARTITION, ProduceRequest.ACKS_ALL, resent.duplicate()).baseOffset())
                        .isEqualTo(2);
            }
            cluster.stop(1);
            assertThat(cluster.await(() -> cluster.leaderOf(PARTITION).map(n -> n.id == 2).orElse(false), WAIT_MS))
                    .as("broker 1 left: the controller elects broker 2, the first live ISR member in assignment order")
                    .isTrue();
            TestCluster.Node newLeader = cluster.node(2);
            assertThat(newLeader.leadership.leaderOf(PARTITION).orElseThrow().leaderEpoch())
                    .as("at leader epoch 1: one more than the epoch broker 1 led at").isEqualTo(1);
            try (BrokerClient client = newLeader.client()) {
                ProduceResponse retry = client.produce(PARTITION, ProduceRequest.ACKS_ALL, resent.duplicate());
                assertThat(retry.error()).as("the retry of a batch the old leader wrote is a success").isEqualTo(ErrorCode.NONE);
                assertThat(retry.baseOffset())
                        .as("answered DUPLICATE with the old leader's offset 2: the follower kept the producer's window")
                        .isEqualTo(2);
                assertThat(client.produce(PARTITION, ProduceRequest.ACKS_ALL,
                        Idempotence.producerBatch(pid, (short) 0, 3, List.of("d"), 1_700_000_000_000L)).baseOffset())
                        .as("and the next sequence is written after it").isEqualTo(3);
            }
        }
    }

    @Test
    void whoeverListensHearsEachLeadershipABrokerTakesAndEachItLeaves() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 3)) {
            Map<Integer, List<String>> heard = new ConcurrentHashMap<>();
            for (TestCluster.Node node : cluster.nodes()) {
                List<String> own = heard.computeIfAbsent(node.id, id -> new CopyOnWriteArrayList<>());
                node.leadership.addListener(new LeadershipListener() {
                    @Override
                    public void onElection(String partition, int leaderEpoch) {
                        own.add("leads " + partition + " at " + leaderEpoch);
                    }

                    @Override
                    public void onResignation(String partition, int leaderEpoch) {
                        own.add("resigns " + partition + ", led at " + leaderEpoch);
                    }
                });
            }
            cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)), Map.of());
            assertThat(cluster.await(() -> !heard.get(1).isEmpty(), WAIT_MS)).as("broker 1 leads orders-0").isTrue();

            // the controller's own kind of write, as a preferred-replica election would make it: broker 2 leads
            ZkClient admin = ZK.connect();
            Versioned<PartitionState> read = PartitionStateStore.read(admin, "orders", 0).orElseThrow();
            ZkClient.Node epochNode = admin.get(ZNodes.CONTROLLER_EPOCH).orElseThrow();
            ControllerEpoch controller = new ControllerEpoch(ControllerElection.controller(admin),
                    ZNodes.decodeControllerEpoch(epochNode.data()), epochNode.stat().getVersion());
            PartitionStateStore.updateAsController(admin, controller, "orders", 0, new PartitionState(2, 1,
                    read.value().isr(), controller.epoch()), read.zkVersion());
            assertThat(cluster.await(() -> heard.get(1).size() == 2 && heard.get(2).size() == 1, WAIT_MS))
                    .as("broker 1 stops leading and broker 2 leads: both are told (heard %s)", heard).isTrue();
            assertThat(heard)
                    .as("each broker's listener hears its own leaderships, with their epochs (Kafka's onElection and"
                            + " onResignation): broker 1 led orders-0 at epoch 0 and resigned, broker 2 leads it at 1,"
                            + " broker 3 only ever followed")
                    .isEqualTo(Map.of(1, List.of("leads orders-0 at 0", "resigns orders-0, led at 0"),
                            2, List.of("leads orders-0 at 1"), 3, List.of()));
        }
    }

    @Test
    void aBrokerWithNoReplicaOfAPartitionTakesNoWriteForItAndCreatesNothing() throws Exception {
        try (TestCluster cluster = TestCluster.start(ZK.connectString(), root, 2)) {
            cluster.createTopic("single", Map.of(0, List.of(2)), Map.of());
            assertThat(cluster.await(() -> cluster.leaderOf("single-0").isPresent(), WAIT_MS)).isTrue();
            try (BrokerClient other = cluster.node(1).client()) {
                assertThat(other.produce("single-0", ProduceRequest.ACKS_ALL, batch("elsewhere")).error())
                        .as("broker 1 holds no replica of single-0: it takes no write for it, and creates nothing")
                        .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
                Topics.Answer made = Topics.Answer.decode(other.call(ApiKeys.CREATE_TOPICS,
                        new Topics.Create("local", 1).encode()));
                assertThat(made.error()).as("klog topics on a member's own port creates nothing: a cluster's topics"
                        + " are assignments in ZooKeeper").isEqualTo("POLICY_VIOLATION");
            }
            assertThat(root.resolve("broker-1").resolve("single-0")).doesNotExist();
            assertThat(root.resolve("broker-1").resolve("local-0")).doesNotExist();
        }
    }

    private static long hw(TestCluster.Node node) {
        return node.replica(PARTITION).map(r -> r.leo() == 20 ? r.highWatermark() : -1).orElse(-1L);
    }

    private static List<Integer> crcs(Replica replica) throws Exception {
        ByteBuffer bytes = replica.partition().locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END));
        List<Integer> crcs = new ArrayList<>();
        RecordBatch.decodeAll(bytes).forEach(batch -> crcs.add(batch.header().crc()));
        return crcs;
    }

    private static List<Integer> epochs(Replica replica) throws Exception {
        ByteBuffer bytes = replica.partition().locked(log -> log.read(0, 1 << 20, FetchIsolation.LOG_END));
        List<Integer> epochs = new ArrayList<>();
        RecordBatch.decodeAll(bytes).forEach(batch -> epochs.add(batch.header().partitionLeaderEpoch()));
        return epochs;
    }

    private static ByteBuffer batch(String value) {
        return new BatchBuilder().append(1_700_000_000_000L, "k", value).build();
    }
}
