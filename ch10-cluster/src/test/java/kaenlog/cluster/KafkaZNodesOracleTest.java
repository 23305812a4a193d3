package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import kafka.api.LeaderAndIsr;
import kafka.cluster.EndPoint;
import kafka.controller.LeaderIsrAndControllerEpoch;
import kafka.zk.ConfigEntityZNode;
import kafka.zk.ControllerEpochZNode;
import kafka.zk.ControllerZNode;
import kafka.zk.ProducerIdBlockZNode;
import kafka.zk.TopicPartitionStateZNode;
import kafka.zk.TopicZNode;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.common.ProducerIdsBlock;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Kafka 3.9.1, the last Kafka with ZooKeeper mode, reads every znode the cluster wrote with its own
 * decoders ({@code kafka.zk.*ZNode.decode}): registration, election, topic creation, producer-id blocks and a failover,
 * read back from ZooKeeper itself.
 */
@Order(30)
class KafkaZNodesOracleTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void kafkasDecodersReadEveryZNodeTheClusterWrote() throws Exception {
        ZkClient one = ZK.connect();
        ZkClient two = ZK.connect();
        BrokerRegistration.register(one, new BrokerInfo(1, "127.0.0.1", 9110, 9111, 9112), NOW_MS);
        BrokerRegistration.register(two, new BrokerInfo(2, "127.0.0.1", 9120, BrokerInfo.NO_PORT, 9122), NOW_MS);
        ControllerEpoch epoch = ControllerElection.elect(one, 1, NOW_MS).orElseThrow();
        PartitionStateStore.createAssignment(one, "orders", new TreeMap<>(Map.of(0, List.of(1, 2), 1, List.of(2, 1))),
                Map.of("min.insync.replicas", "2"));
        new Controller(one, epoch).onTopicChange();
        ZkClient reader = ZK.connect();

        kafka.zk.BrokerInfo broker = kafka.zk.BrokerIdZNode.decode(1, data(reader, ZNodes.brokerPath(1)));
        assertThat(broker.version()).as("BrokerIdZNode version").isEqualTo(5);
        List<EndPoint> endpoints = CollectionConverters.asJava(broker.broker().endPoints());
        assertThat(endpoints).as("Kafka parses the three listeners").extracting(EndPoint::connectionString)
                .containsExactlyInAnyOrder("PLAINTEXT://127.0.0.1:9111", "KAENLOG://127.0.0.1:9110",
                        "REPLICATION://127.0.0.1:9112");
        kafka.zk.BrokerInfo noKafkaPort = kafka.zk.BrokerIdZNode.decode(2, data(reader, ZNodes.brokerPath(2)));
        assertThat(CollectionConverters.asJava(noKafkaPort.broker().endPoints())).extracting(EndPoint::connectionString)
                .as("a broker without a Kafka port").containsExactly("KAENLOG://127.0.0.1:9120",
                        "REPLICATION://127.0.0.1:9122");

        assertThat(ControllerZNode.decode(data(reader, ZNodes.CONTROLLER)).get()).as("ControllerZNode's brokerid")
                .isEqualTo(1);
        assertThat(ControllerZNode.decodeController(data(reader, ZNodes.CONTROLLER), 0).kraftEpoch().get())
                .as("never migrated to KRaft").isEqualTo(-1);
        assertThat(ControllerEpochZNode.decode(data(reader, ZNodes.CONTROLLER_EPOCH))).as("ControllerEpochZNode")
                .isEqualTo(1);

        TopicZNode.TopicIdReplicaAssignment topic = TopicZNode.decode("orders", data(reader, ZNodes.topicPath("orders")));
        Map<TopicPartition, kafka.controller.ReplicaAssignment> assignment = CollectionConverters.asJava(topic.assignment());
        assertThat(CollectionConverters.asJava(assignment.get(new TopicPartition("orders", 1)).replicas()))
                .as("TopicZNode's replicas of orders-1, in assignment order").containsExactly(2, 1);
        assertThat(ConfigEntityZNode.decode(data(reader, ZNodes.topicConfigPath("orders"))).getProperty("min.insync.replicas"))
                .as("ConfigEntityZNode").isEqualTo("2");

        ClusterLeadership brokerOne = new ClusterLeadership(1);
        brokerOne.joined(one);
        ClusterLeadership brokerTwo = new ClusterLeadership(2);
        brokerTwo.joined(two);
        assertThat(List.of(brokerOne.issue(null), brokerTwo.issue(null), brokerOne.issue(null)))
                .as("each broker hands out ids from a block of its own").containsExactly(0L, 1000L, 1L);
        ProducerIdsBlock block = ProducerIdBlockZNode.parseProducerIdBlockData(data(reader, ProducerIdBlocks.PATH));
        assertThat(List.of(block.assignedBrokerId(), block.firstProducerId(), block.lastProducerId()))
                .as("ProducerIdBlockZNode reads the latest block: broker 2's, ids 1000..1999")
                .containsExactly(2, 1000L, 1999L);

        one.close();
        ControllerEpoch second = ControllerElection.elect(two, 2, NOW_MS).orElseThrow();
        new Controller(two, second).onBrokerChange();
        ZkClient.Node node = reader.get(ZNodes.statePath("orders", 0)).orElseThrow();
        LeaderIsrAndControllerEpoch state = TopicPartitionStateZNode.decode(node.data(), node.stat()).get();
        LeaderAndIsr leaderAndIsr = state.leaderAndIsr();
        assertThat(leaderAndIsr.leader()).as("after the failover, Kafka reads leader 2").isEqualTo(2);
        assertThat(leaderAndIsr.leaderEpoch()).as("leader epoch 1").isEqualTo(1);
        assertThat(Set.copyOf(CollectionConverters.asJava(leaderAndIsr.isr()))).as("ISR [2]").isEqualTo(Set.of(2));
        assertThat(leaderAndIsr.partitionEpoch()).as("its partition epoch is the znode's version").isEqualTo(1);
        assertThat(state.controllerEpoch()).as("written by the controller of epoch 2").isEqualTo(2);
    }

    private static byte[] data(ZkClient zk, String path) throws Exception {
        return zk.get(path).orElseThrow().data();
    }
}
