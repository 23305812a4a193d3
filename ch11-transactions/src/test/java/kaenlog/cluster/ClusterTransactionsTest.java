package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.Leadership;
import kaenlog.broker.PartitionConfigs;
import kaenlog.kafkawire.KafkaErrors;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.kafkawire.WriteTxnMarkers;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.testkit.WaitsFor;
import kaenlog.txn.TransactionResult;
import kaenlog.txn.TransactionState;
import kaenlog.txn.TransactionStateExtension;
import kaenlog.txn.TransactionalProducerTest;
import kaenlog.txn.TxnConfig;
import kaenlog.txn.TxnMarker;
import kaenlog.txn.TxnPlacement;
import kaenlog.txn.TxnTransit;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.WireConnection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chapter 11's coordinator in chapter 10's cluster (given code: {@code ClusterTransactionCoordination},
 * {@code ClusterMarkers}, {@code WriteTxnMarkersHandler}), three brokers in the test JVM on a
 * ZooKeeper of its own, with kafka-clients 4.1.1. The first FindCoordinator for a transactional id
 * creates {@code __transaction_state} through the controller (replication factor 3, min ISR 2), and
 * every broker names the same coordinator: the leader of the id's partition, Kafka's
 * {@code Utils.abs(id.hashCode()) % partitions}; any other broker answers the id NOT_COORDINATOR. A
 * transactional producer commits and aborts over partitions led by the three brokers, its markers
 * sent to each leader with WriteTxnMarkers, and read_committed reads exactly the committed records.
 * And the coordinator's broker stopped between PrepareCommit and the markers: the partition's next
 * leader loads the log, finds PrepareCommit and completes the commit. {@code __transaction_state} has
 * 5 partitions here ({@code transaction.state.log.num.partitions}, Kafka's 50), so that three
 * brokers in one JVM start 15 replicas of it instead of 150.
 */
@Order(27)
@WaitsFor("three brokers to create __transaction_state and elect its leaders; a coordinator to load its partition")
class ClusterTransactionsTest {
    private static final int STATE_PARTITIONS = 5;
    private static final String TOPIC = "orders";
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path root;
    private EmbeddedZooKeeper zookeeper;
    private final Map<Integer, Node> nodes = new TreeMap<>();
    private final ThreadFailures failures = new ThreadFailures();
    private final List<AutoCloseable> clients = new ArrayList<>();

    /** One broker: chapter 3's broker, chapter 9's Kafka listener, chapter 10's membership. */
    private record Node(int id, Broker broker, ClusterLeadership leadership, ClusterMember member, KafkaListener kafka,
                        ByteArrayOutputStream log) {
        TxnPlacement placement() {
            return TransactionStateExtension.of(broker).placement().orElseThrow();
        }
    }

    @BeforeEach
    void start() throws Exception {
        TransactionalProducerTest.preflight(root.resolve("preflight")); // a task not written fails here, on its TODO
        zookeeper = EmbeddedZooKeeper.start(root.resolve("zookeeper"), 0, 200);
        for (int id = 1; id <= 3; id++) {
            startBroker(id);
        }
    }

    private void startBroker(int id) throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().with("replica.fetch.wait.max.ms=100")
                .with("replica.fetch.backoff.ms=50").with("offsets.topic.num.partitions=" + STATE_PARTITIONS)
                .with(TransactionStateExtension.NUM_PARTITIONS + "=" + STATE_PARTITIONS);
        ClusterLeadership leadership = new ClusterLeadership(id);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Broker broker = Broker.start(BrokerConfig.of(root.resolve("broker-" + id)).withConfigs(configs)
                .withLeadership(leadership), log);
        KafkaListener kafka = KafkaListener.start(broker, "127.0.0.1", 0, log);
        int replicationPort = InterBrokerListener.start(broker, "127.0.0.1", 0).port();
        ClusterMember member = ClusterMember.join(broker, leadership, zookeeper.connectString(), 4_000,
                new BrokerInfo(id, "127.0.0.1", broker.port(), kafka.port(), replicationPort), log, failures);
        nodes.put(id, new Node(id, broker, leadership, member, kafka, bytes));
    }

    /** Broker {@code id} leaves: its session closed (the controller moves its leaderships at once), its sockets closed. */
    private void stop(int id) {
        Node node = nodes.remove(id);
        node.kafka().close();
        node.member().close();
        node.broker().close();
    }

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
        for (int id : List.copyOf(nodes.keySet())) {
            stop(id);
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    @Test
    void everyBrokerNamesTheLeaderOfTheIdsStatePartitionAsItsCoordinatorAndTheOthersAnswerNotCoordinator()
            throws Exception {
        // "polygenelubricants".hashCode() is Integer.MIN_VALUE: Kafka's Utils.abs makes it partition 0
        List<String> ids = List.of("orders-app", "polygenelubricants", "payments", "txn-7", "a");
        for (String id : ids) {
            int partition = Utils.abs(id.hashCode()) % STATE_PARTITIONS;
            String statePartition = TxnConfig.STATE_LOG_TOPIC + "-" + partition;
            awaitTrue(() -> nodes.values().stream().allMatch(n -> findCoordinator(n, id).error() == Errors.NONE),
                    "every broker names a coordinator for " + id);
            int leader = leaderOf(statePartition);
            for (Node asked : nodes.values()) {
                FindCoordinatorResponse answer = findCoordinator(asked, id);
                assertThat(answer.data().nodeId()).as("broker %d names the leader of %s (Kafka's Utils.abs(\"%s\""
                        + ".hashCode()) %% %d = %d), broker %d, as %s's coordinator", asked.id(), statePartition, id,
                        STATE_PARTITIONS, partition, leader, id).isEqualTo(leader);
                assertThat(answer.data().port()).as("at its Kafka port").isEqualTo(nodes.get(leader).kafka().port());
            }
            awaitTrue(() -> initProducerId(nodes.get(leader), id).error() == Errors.NONE,
                    "the coordinator of " + id + " gives it a producer id once it has loaded " + statePartition);
            for (Node other : nodes.values()) {
                if (other.id() != leader) {
                    assertThat(initProducerId(other, id).error()).as("broker %d does not lead %s: it answers %s's"
                            + " InitProducerId NOT_COORDINATOR, so the client finds the coordinator again", other.id(),
                            statePartition, id).isEqualTo(Errors.NOT_COORDINATOR);
                }
            }
        }
        Leadership.ClusterView view = nodes.get(1).leadership().cluster().orElseThrow();
        assertThat(view.partitions(TxnConfig.STATE_LOG_TOPIC).orElseThrow())
                .as("__transaction_state was created with transaction.state.log.num.partitions partitions of"
                        + " transaction.state.log.replication.factor (3) replicas").hasSize(STATE_PARTITIONS)
                .allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
        assertThat(nodes.get(1).leadership().configs(TxnConfig.STATE_LOG_TOPIC).orElseThrow())
                .as("with Kafka's transaction topic configs: compacted, min.insync.replicas 2 (transaction.state.log.min.isr)")
                .containsEntry("cleanup.policy", "compact").containsEntry("min.insync.replicas", "2");
    }

    @Test
    void aTransactionalProducerCommitsAndAbortsOverPartitionsLedByThreeBrokers() throws Exception {
        createOrders();
        assertThat(List.of(leaderOf(TOPIC + "-0"), leaderOf(TOPIC + "-1"), leaderOf(TOPIC + "-2")))
                .as("the three partitions are led by the three brokers: markers go to each").containsExactly(1, 2, 3);
        KafkaProducer<String, String> producer = producer("orders-app");
        producer.initTransactions();
        List<String> committed = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int t = 0; t < 9; t++) {
            boolean abort = t % 3 == 1; // 6 committed, 3 aborted, interleaved, the last one committed
            producer.beginTransaction();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String value = "t" + t + "-" + i;
                producer.send(new ProducerRecord<>(TOPIC, i % 3, null, value));
                values.add(value);
            }
            if (abort) {
                producer.flush();
                producer.abortTransaction();
            } else {
                producer.commitTransaction();
                committed.addAll(values);
            }
            all.addAll(values);
        }
        // commitTransaction returns once PrepareCommit is written (Kafka's EndTxn too): the markers may still
        // be on their way, and until the last one lands its partition's last stable offset holds its records back
        int coordinator = leaderOf(statePartitionOf("orders-app"));
        awaitTrue(() -> nodes.get(coordinator).placement().coordinator().transaction("orders-app")
                        .map(t -> t.state() == TransactionState.COMPLETE_COMMIT).orElse(false),
                "the coordinator wrote CompleteCommit once every leader had its marker");
        assertThat(readToEnd(consumer("read_committed"))).as("read_committed reads the 180 records of the 6 committed"
                + " transactions and none of the 3 aborted; logs:%n%s", logs()).hasSize(180)
                .containsExactlyInAnyOrderElementsOf(committed);
        assertThat(readToEnd(consumer("read_uncommitted"))).as("read_uncommitted reads all 270").hasSize(270)
                .containsExactlyInAnyOrderElementsOf(all);

        // WriteTxnMarkers ends anyone's transaction: a leader takes it on the inter-broker listener only
        Node leader = nodes.get(1);
        long end = leader.broker().partition(TOPIC + "-0").locked(Log::logEndOffset);
        TxnMarker forged = new TxnMarker("orders-app", 1L, (short) 0, 0, TransactionResult.ABORT,
                TxnTransit.sorted(List.of(new kaenlog.wire.PartitionNames.TopicPartition(TOPIC, 0))));
        try (WireConnection client = WireConnection.connect("127.0.0.1", leader.broker().port(), 30_000)) {
            byte[] answer = client.call(ApiKeys.WRITE_TXN_MARKERS, WriteTxnMarkers.request(List.of(forged)));
            assertThat(WriteTxnMarkers.parseResponse(answer).get(0).values())
                    .as("WriteTxnMarkers on the client port is CLUSTER_AUTHORIZATION_FAILED (Kafka's answer to a sender"
                            + " without ClusterAction)").containsExactly(KafkaErrors.CLUSTER_AUTHORIZATION_FAILED);
        }
        assertThat(leader.broker().partition(TOPIC + "-0").locked(Log::logEndOffset))
                .as("and nothing is appended").isEqualTo(end);
    }

    @Test
    void theCoordinatorsBrokerStoppedBetweenPrepareCommitAndTheMarkersTheNextCoordinatorCompletesTheCommit()
            throws Exception {
        createOrders();
        String id = "orders-app";
        KafkaProducer<String, String> producer = producer(id);
        producer.initTransactions();
        int coordinator = leaderOf(statePartitionOf(id));
        producer.beginTransaction();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            values.add("v" + i);
            producer.send(new ProducerRecord<>(TOPIC, i % 3, null, "v" + i));
        }
        producer.flush();
        // the crash: from now on the coordinator writes no marker (its channel closed), as if it died
        ((ClusterTransactionCoordination) nodes.get(coordinator).placement()).markers().close();
        producer.commitTransaction(); // answered once PrepareCommit is written with acks=all
        assertThat(nodes.get(coordinator).placement().coordinator().transaction(id).orElseThrow().state())
                .as("the commit is decided (PrepareCommit written and answered), its markers are not written")
                .isEqualTo(TransactionState.PREPARE_COMMIT);
        producer.close();
        assertThat(readToEnd(consumer("read_committed"))).as("no read_committed reader sees the transaction before"
                + " its markers: the last stable offset holds at its first offset").isEmpty();

        stop(coordinator);
        awaitTrue(() -> nodes.values().stream().anyMatch(n -> n.leadership().leaderOf(statePartitionOf(id)).isPresent()
                        && n.placement().coordinator().transaction(id).map(t -> t.state() == TransactionState.COMPLETE_COMMIT)
                        .orElse(false)),
                "the next leader of " + statePartitionOf(id) + " loads PrepareCommit, sends every marker and writes"
                        + " CompleteCommit");
        assertThat(readToEnd(consumer("read_committed"))).as("read_committed reads the whole transaction once the"
                + " new coordinator completed it; logs:%n%s", logs()).containsExactlyInAnyOrderElementsOf(values);
        int successor = leaderOf(statePartitionOf(id));
        int coordinatorEpoch = nodes.get(successor).leadership().leaderOf(statePartitionOf(id)).orElseThrow()
                .leaderEpoch();
        assertThat(coordinatorEpoch).as("the successor leads %s at a newer leader epoch", statePartitionOf(id))
                .isPositive();
        int markerPartitionLeader = leaderOf(TOPIC + "-0");
        EndTransactionMarker marker = lastMarker(nodes.get(markerPartitionLeader).broker(), TOPIC + "-0");
        assertThat(marker.type()).as("the successor's marker in %s-0", TOPIC).isEqualTo(ControlRecordType.COMMIT);
        assertThat(marker.coordinatorEpoch()).as("it carries the successor's coordinator epoch, the leader epoch it"
                + " loaded %s at: a partition refuses a marker of an older one (a zombie coordinator's)",
                statePartitionOf(id)).isEqualTo(coordinatorEpoch);
    }

    /** The last COMMIT or ABORT marker in {@code partition}'s log on {@code broker}. */
    private static EndTransactionMarker lastMarker(Broker broker, String partition) throws IOException {
        ByteBuffer all = broker.partition(partition).locked(log -> log.read(log.logStartOffset(), 1 << 20,
                FetchIsolation.LOG_END));
        EndTransactionMarker last = null;
        for (RecordBatch batch : RecordBatch.decodeAll(all)) {
            if (batch.header().isControl()) {
                last = EndTransactionMarker.read(batch.records().get(0));
            }
        }
        assertThat(last).as("%s holds a marker", partition).isNotNull();
        return last;
    }

    // ---- the cluster, the clients ----

    private static String statePartitionOf(String transactionalId) {
        return TxnConfig.STATE_LOG_TOPIC + "-" + Utils.abs(transactionalId.hashCode()) % STATE_PARTITIONS;
    }

    /** The broker leading {@code partition} by its own account, once one does. */
    private int leaderOf(String partition) throws InterruptedException {
        awaitTrue(() -> nodes.values().stream().anyMatch(n -> n.leadership().leaderOf(partition).isPresent()),
                "a broker leads " + partition);
        return nodes.values().stream().filter(n -> n.leadership().leaderOf(partition).isPresent()).findFirst()
                .orElseThrow().id();
    }

    /** {@code orders}, three partitions of three replicas, led by brokers 1, 2 and 3. */
    private void createOrders() throws Exception {
        try (ZkClient admin = ZkClient.connect(zookeeper.connectString(), 4_000)) {
            PartitionStateStore.createAssignment(admin, TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3),
                    1, List.of(2, 3, 1), 2, List.of(3, 1, 2))), Map.of());
        }
        for (int p = 0; p < 3; p++) {
            leaderOf(TOPIC + "-" + p);
        }
    }

    private String bootstrap() {
        return nodes.values().stream().map(n -> "127.0.0.1:" + n.kafka().port()).collect(Collectors.joining(","));
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        clients.add(producer);
        return producer;
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        consumer.assign(List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1), new TopicPartition(TOPIC, 2)));
        clients.add(consumer);
        return consumer;
    }

    /** What the consumer reads up to the end offsets its isolation sees now. */
    private static List<String> readToEnd(KafkaConsumer<String, String> consumer) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            assertThat(System.nanoTime()).as("the consumer reached %s within a minute", ends).isLessThan(deadline);
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                values.add(record.value());
            }
        }
        return values;
    }

    private FindCoordinatorResponse findCoordinator(Node node, String transactionalId) {
        return (FindCoordinatorResponse) call(node, new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                .setKey(transactionalId).setKeyType(FindCoordinatorRequest.CoordinatorType.TRANSACTION.id()))
                .build((short) 1));
    }

    private InitProducerIdResponse initProducerId(Node node, String transactionalId) {
        return (InitProducerIdResponse) call(node, new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                .setTransactionalId(transactionalId).setTransactionTimeoutMs(60_000)).build((short) 1));
    }

    /** One Kafka request to {@code node}'s Kafka port, its answer parsed by kafka-clients. */
    private static AbstractResponse call(Node node, AbstractRequest request) {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "cluster-test", 7);
        ByteBuffer bytes = request.serializeWithHeader(header);
        try (Socket socket = new Socket("127.0.0.1", node.kafka().port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(bytes.remaining());
            out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
        while (!condition.getAsBoolean()) {
            failures.rethrowFirst();
            assertThat(System.nanoTime()).as("%s within %d ms; logs:%n%s", what, WAIT_MS, logs()).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private String logs() {
        StringBuilder all = new StringBuilder();
        nodes.values().forEach(n -> all.append("---- broker ").append(n.id()).append('\n')
                .append(n.log().toString(StandardCharsets.UTF_8)));
        return all.toString();
    }
}
