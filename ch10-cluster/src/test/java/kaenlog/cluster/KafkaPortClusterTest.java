package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.testkit.WaitsFor;
import kaenlog.wire.ErrorCode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole chapter behind chapter 9's Kafka port: three brokers in this JVM, each with its Kafka
 * listener registered in ZooKeeper, and real Kafka clients. Metadata names every broker and each
 * partition's leader, leader epoch, replicas, ISR and offline replicas; a broker that does not lead a
 * partition answers NOT_LEADER_OR_FOLLOWER for it, so a KafkaProducer whose leader moved asks
 * Metadata again and follows it; a client's stale or future leader epoch is answered 74 or 75.
 *
 * <p>The clients are kafka-clients 3.9.1, the last of the ZooKeeper era: the version this module's
 * Kafka oracle needs on the test classpath (reliability's KafkaClusterFailoverTest drives 4.1.1).
 */
@Order(26)
@WaitsFor("a cluster of three brokers to elect leaders and replicate; a Kafka client to follow a leader")
class KafkaPortClusterTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final String TOPIC = "orders";
    /** Each partition led by another broker (the first of its replicas). */
    private static final Map<Integer, List<Integer>> ASSIGNMENT = Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1),
            2, List.of(3, 1, 2));
    private static final long WAIT_MS = 20_000;
    private static final short NOT_LEADER_OR_FOLLOWER = 6;
    private static final short FENCED_LEADER_EPOCH = 74;
    private static final short UNKNOWN_LEADER_EPOCH = 75;
    private static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
    private static final short LEADER_NOT_AVAILABLE = 5;

    @TempDir
    Path root;

    @Test
    void metadataNamesEveryLiveBrokerAndEachPartitionsLeaderEpochReplicasIsrAndOfflineReplicas() throws Exception {
        try (TestCluster cluster = TestCluster.withKafkaPorts(ZK.connectString(), root, 3)) {
            preflight(cluster);
            int controller = cluster.nodes().stream().filter(n -> n.member.isController()).findFirst().orElseThrow().id;
            // Broker 2 learns the others' registrations from ZooKeeper's watches, as Kafka 3.9's metadata
            // cache learnt them from UpdateMetadata: a client asking first thing may see fewer, there too.
            assertThat(cluster.await(() -> cluster.node(2).leadership.cluster()
                    .map(view -> view.liveBrokers().size() == 3).orElse(false), WAIT_MS))
                    .as("broker 2's view of the cluster holds the three registrations").isTrue();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(cluster.node(2)),
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000))) {
                DescribeClusterResult described = admin.describeCluster();
                assertThat(described.nodes().get().stream().collect(Collectors.toMap(Node::id, Node::port)))
                        .as("Metadata lists every live broker with the Kafka port it registered, not only the broker"
                                + " asked").isEqualTo(cluster.nodes().stream()
                                .collect(Collectors.toMap(n -> n.id, TestCluster.Node::kafkaPort)));
                assertThat(described.controller().get().id()).as("the controller is the broker that won /controller")
                        .isEqualTo(controller);
                TopicDescription orders = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                for (TopicPartitionInfo p : orders.partitions()) {
                    List<Integer> assigned = ASSIGNMENT.get(p.partition());
                    assertThat(p.leader().id()).as("partition %d: led by the first of its replicas, %s", p.partition(),
                            assigned).isEqualTo(assigned.get(0));
                    assertThat(p.replicas().stream().map(Node::id).toList())
                            .as("partition %d: its replicas in assignment order", p.partition()).isEqualTo(assigned);
                    assertThat(p.isr().stream().map(Node::id).toList()).as("partition %d: the ISR, all three",
                            p.partition()).containsExactlyInAnyOrder(1, 2, 3);
                }
            }
            try (Socket socket = connect(cluster.node(3))) {
                assertThat(metadata(socket, List.of("unasked"), false).topics().find("unasked").errorCode())
                        .as("an unknown topic, the client not allowing auto-creation: UNKNOWN_TOPIC_OR_PARTITION")
                        .isEqualTo(UNKNOWN_TOPIC_OR_PARTITION);
                MetadataResponseData metadata = metadata(socket, List.of(TOPIC, "nope"));
                assertThat(metadata.topics().find("nope").errorCode())
                        .as("an unknown topic the client allows to be created: broker 3 writes its znodes and"
                                + " answers LEADER_NOT_AVAILABLE, not waiting for its leader, as Kafka 3.9's"
                                + " createTopicsInZk (timeout 0)").isEqualTo(LEADER_NOT_AVAILABLE);
                assertThat(metadata.topics().find(TOPIC).partitions()).as("Metadata v8: every leader epoch is 0")
                        .allSatisfy(p -> assertThat(p.leaderEpoch()).isZero());
            }
            assertThat(PartitionStateStore.topics(ZK.connect())).as("Metadata created 'nope' in ZooKeeper, and"
                    + " nothing for the request that did not allow it").containsExactlyInAnyOrder(TOPIC, "nope");

            cluster.stop(3);
            assertThat(cluster.await(() -> {
                var view = cluster.node(1).leadership.cluster().orElseThrow();
                return view.liveBrokers().size() == 2 && view.partitions(TOPIC).orElseThrow().stream()
                        .allMatch(p -> p.leader() != 3 && !p.isr().contains(3));
            }, WAIT_MS)).as("broker 3 left: the controller gives orders-2 to broker 1, the next live ISR member, and"
                    + " broker 1's view of the cluster has it").isTrue();
            try (Socket socket = connect(cluster.node(1))) {
                MetadataResponseData metadata = metadata(socket, List.of(TOPIC));
                assertThat(metadata.brokers().stream().map(MetadataResponseData.MetadataResponseBroker::nodeId)
                        .toList()).as("the live brokers only").containsExactlyInAnyOrder(1, 2);
                MetadataResponseData.MetadataResponsePartition two = metadata.topics().find(TOPIC).partitions().stream()
                        .filter(p -> p.partitionIndex() == 2).findFirst().orElseThrow();
                assertThat(two.leaderId()).as("orders-2's new leader").isEqualTo(1);
                assertThat(two.leaderEpoch()).as("orders-2's leader epoch, one more").isEqualTo(1);
                assertThat(two.replicaNodes()).as("the replicas, dead one included").containsExactly(3, 1, 2);
                assertThat(two.isrNodes()).as("the ISR without broker 3").containsExactlyInAnyOrder(1, 2);
                assertThat(two.offlineReplicas()).as("broker 3 listed offline").containsExactly(3);
            }
        }
    }

    @Test
    void aProducerWhoseLeaderMovedIsAnsweredNotLeaderThenFollowsTheLeaderAndAConsumerReadsFromIt() throws Exception {
        try (TestCluster cluster = TestCluster.withKafkaPorts(ZK.connectString(), root, 3)) {
            preflight(cluster);
            String partition = TOPIC + "-0";
            try (Socket follower = connect(cluster.node(2))) {
                assertThat(produceError(follower, 0)).as("a produce to broker 2, a follower of orders-0")
                        .isEqualTo(NOT_LEADER_OR_FOLLOWER);
                assertThat(fetchError(follower, 0, 0)).as("a consumer's fetch from a follower").isEqualTo(
                        NOT_LEADER_OR_FOLLOWER);
            }
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(cluster.node(3)))) {
                for (int i = 0; i < 10; i++) {
                    sent.add("before-" + i);
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, "before-" + i)).get();
                }
                cluster.moveLeadership(TOPIC, 0, 2);
                assertThat(cluster.await(() -> led(cluster.node(2), 0) && !led(cluster.node(1), 0)
                        && cluster.node(1).replica(partition).orElseThrow().leo() >= 11, WAIT_MS))
                        .as("the state names broker 2 at leader epoch 1: it leads, broker 1 follows it").isTrue();
                for (int i = 0; i < 10; i++) {
                    sent.add("after-" + i);
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, "after-" + i)).get();
                }
                assertThat(metric(producer, "record-retry-total"))
                        .as("the producer sent to broker 1, was answered NOT_LEADER_OR_FOLLOWER, asked Metadata again"
                                + " and retried on broker 2").isGreaterThanOrEqualTo(1.0);
            }
            try (Socket oldLeader = connect(cluster.node(1)); Socket newLeader = connect(cluster.node(2))) {
                assertThat(fetchError(oldLeader, 0, 1)).as("broker 1, a follower now, at the current epoch")
                        .isEqualTo(NOT_LEADER_OR_FOLLOWER);
                assertThat(fetchError(newLeader, 0, 0)).as("a consumer that missed the change (epoch 0 < 1)")
                        .isEqualTo(FENCED_LEADER_EPOCH);
                assertThat(fetchError(newLeader, 0, 2)).as("a consumer ahead of the broker (epoch 2 > 1)")
                        .isEqualTo(UNKNOWN_LEADER_EPOCH);
                ListOffsetsResponseData latest = latest(newLeader, 1);
                assertThat(latest.errorCode()).as("ListOffsets at the leader, epoch 1").isZero();
                assertThat(latest.offset()).as("the high watermark: the preflight record and 20").isEqualTo(21);
                assertThat(latest.leaderEpoch()).as("ListOffsets v7 answers the leader's epoch").isEqualTo(1);
                assertThat(latest(oldLeader, 1).errorCode()).as("ListOffsets at a follower").isEqualTo(
                        NOT_LEADER_OR_FOLLOWER);
            }
            List<String> read = consumeFromTheBeginning(cluster.node(1), sent.size() + 1);
            assertThat(read).as("a consumer bootstrapped on a follower reads every record from the leader, in order")
                    .isEqualTo(concat(List.of("preflight"), sent));
        }
    }

    /**
     * The whole chapter at work before any Kafka client: the topic's leaders elected, the code of the
     * tasks that runs on a broker's request threads called here (a TODO there would only close a
     * connection), and one record per partition replicated to every replica by the followers'
     * fetchers. An exercise not written yet fails here, as its TODO.
     */
    static void preflight(TestCluster cluster) throws Exception {
        cluster.createTopic(TOPIC, ASSIGNMENT, Map.of("min.insync.replicas", "2"));
        assertThat(cluster.await(() -> ASSIGNMENT.keySet().stream().allMatch(p -> led(cluster.node(p + 1), p)),
                WAIT_MS)).as("each partition led by the first of its replicas").isTrue();
        LeaderElection.elect(List.of(1, 2, 3), new PartitionState(1, 0, List.of(1, 2, 3), 1), Set.of(2, 3), 1);
        PartitionLeader.checkLeaderEpoch(0, 0);
        PartitionLeader leader = cluster.node(1).leadership.leaderOf(TOPIC + "-0").orElseThrow();
        leader.produceRefusal(kaenlog.wire.ProduceRequest.ACKS_ALL);
        leader.answer(0);
        for (int p : ASSIGNMENT.keySet()) {
            try (BrokerClient client = cluster.node(ASSIGNMENT.get(p).get(0)).client()) {
                assertThat(client.produce(TOPIC + "-" + p, kaenlog.wire.ProduceRequest.ACKS_LEADER,
                        new BatchBuilder().append(1_700_000_000_000L, null, "preflight").build()).error())
                        .isEqualTo(ErrorCode.NONE);
            }
        }
        assertThat(cluster.await(() -> cluster.nodes().stream().allMatch(n -> ASSIGNMENT.keySet().stream()
                .allMatch(p -> n.replica(TOPIC + "-" + p).map(r -> r.leo() == 1 && r.highWatermark() == 1)
                        .orElse(false))), WAIT_MS)).as("every replica holds the preflight record, below its HW").isTrue();
    }

    private static boolean led(TestCluster.Node node, int partition) {
        return node.leadership.leaderOf(TOPIC + "-" + partition).isPresent();
    }

    private static String bootstrap(TestCluster.Node node) {
        return "127.0.0.1:" + node.kafkaPort();
    }

    private static Properties producerConfig(TestCluster.Node bootstrap) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(bootstrap));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }

    private static double metric(KafkaProducer<?, ?> producer, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElse(-1);
    }

    private static List<String> consumeFromTheBeginning(TestCluster.Node bootstrap, int expected) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(bootstrap));
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
            while (read.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(record.value());
                }
            }
        }
        return read;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static Socket connect(TestCluster.Node node) throws IOException {
        Socket socket = new Socket("127.0.0.1", node.kafkaPort());
        socket.setSoTimeout(30_000);
        return socket;
    }

    private static MetadataResponseData metadata(Socket socket, List<String> topics) throws IOException {
        return metadata(socket, topics, true);
    }

    /** A Metadata v8 request for {@code topics}, {@code autoCreate} its allow_auto_topic_creation. */
    static MetadataResponseData metadata(Socket socket, List<String> topics, boolean autoCreate)
            throws IOException {
        return ((MetadataResponse) call(socket, new MetadataRequest.Builder(topics, autoCreate).build((short) 8),
                ApiKeys.METADATA)).data();
    }

    private static short produceError(Socket socket, int partition) throws IOException {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(TOPIC).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(0L, null, "x".getBytes(StandardCharsets.UTF_8)))))));
        ProduceResponse answer = (ProduceResponse) call(socket, new ProduceRequest(data, (short) 8), ApiKeys.PRODUCE);
        return answer.data().responses().iterator().next().partitionResponses().get(0).errorCode();
    }

    /** A consumer's Fetch v11 naming {@code leaderEpoch} as its current_leader_epoch: the partition's error. */
    private static short fetchError(Socket socket, int partition, int leaderEpoch) throws IOException {
        Map<TopicPartition, FetchRequest.PartitionData> fetches = new LinkedHashMap<>();
        fetches.put(new TopicPartition(TOPIC, partition), new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1,
                1 << 20, Optional.of(leaderEpoch)));
        FetchResponse answer = (FetchResponse) call(socket, FetchRequest.Builder.forConsumer((short) 11, 0, 1, fetches)
                .build((short) 11), ApiKeys.FETCH);
        return answer.data().responses().get(0).partitions().get(0).errorCode();
    }

    private static ListOffsetsResponseData latest(Socket socket, int leaderEpoch) throws IOException {
        ListOffsetsRequest request = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName(TOPIC).setPartitions(
                        List.of(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                                .setCurrentLeaderEpoch(leaderEpoch).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))))
                .build((short) 7);
        var p = ((ListOffsetsResponse) call(socket, request, ApiKeys.LIST_OFFSETS)).topics().get(0).partitions().get(0);
        return new ListOffsetsResponseData(p.errorCode(), p.offset(), p.leaderEpoch());
    }

    private record ListOffsetsResponseData(short errorCode, long offset, int leaderEpoch) {
    }

    private static int correlationId;

    /** One request on {@code socket} (kept open: the next call reuses it), its parsed answer. */
    private static AbstractResponse call(Socket socket, AbstractRequest request, ApiKeys key) throws IOException {
        RequestHeader header = new RequestHeader(key, request.version(), "cluster-test", ++correlationId);
        ByteBuffer buffer = request.serializeWithHeader(header);
        byte[] frame = new byte[buffer.remaining()];
        buffer.get(frame);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }
}
