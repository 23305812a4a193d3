package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import kafka.zk.ControllerEpochZNode;
import kafka.zk.ControllerZNode;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 1: the znodes' codecs, with the keys and value types of Kafka 3.9's ZkData.scala; a znode
 * read like a request, refused with an error naming what is wrong.
 */
@Order(1)
@SuppressWarnings("unchecked")
class ZNodeCodecsTest {
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void aBrokerRegistersItsListenersAsKafkasVersionFive() {
        Map<String, Object> json = Json.parseObject(ZNodes.encodeBroker(new BrokerInfo(2, "10.0.0.2", 9092, 9093, 9094),
                NOW_MS));
        assertThat(json.get("version")).as("BrokerIdZNode's current version is 5, a JSON number").isEqualTo(5L);
        assertThat(json.get("timestamp"))
                .as("Kafka writes the registration time as a STRING of milliseconds (Time.milliseconds().toString)")
                .isEqualTo("1700000000000");
        assertThat(json.get("jmx_port")).as("no JMX port is -1, a number Kafka's decoder requires").isEqualTo(-1L);
        assertThat((List<Object>) json.get("endpoints"))
                .as("every listener as NAME://host:port: Kafka's, the clients' kaen-log port, and the port brokers use"
                        + " for each other, where followers fetch")
                .containsExactlyInAnyOrder("PLAINTEXT://10.0.0.2:9093", "KAENLOG://10.0.0.2:9092",
                        "REPLICATION://10.0.0.2:9094");
        assertThat(json.get("listener_security_protocol_map"))
                .as("each listener name with its security protocol, or Kafka cannot parse the endpoints")
                .isEqualTo(Map.of("PLAINTEXT", "PLAINTEXT", "KAENLOG", "PLAINTEXT", "REPLICATION", "PLAINTEXT"));
        assertThat(json.get("host")).as("the top-level host is the first endpoint's (for old clients)").isEqualTo("10.0.0.2");
        assertThat(json.get("port")).as("the top-level port is Kafka's PLAINTEXT listener when there is one").isEqualTo(9093L);
        assertThat(json.get("features")).as("no supported features: an empty object").isEqualTo(Map.of());
    }

    @Test
    void aBrokerWithoutAKafkaPortRegistersNoKafkaListener() {
        Map<String, Object> json = Json.parseObject(ZNodes.encodeBroker(new BrokerInfo(1, "h", 9100, BrokerInfo.NO_PORT,
                9101), NOW_MS));
        assertThat((List<Object>) json.get("endpoints")).as("no Kafka port: no PLAINTEXT endpoint at all")
                .containsExactly("KAENLOG://h:9100", "REPLICATION://h:9101");
        assertThat(json.get("port")).as("the top-level port is then the kaen-log listener's").isEqualTo(9100L);
    }

    @Test
    void aBrokerIsReadBackByItsListenerNamesNotByTheTopLevelPort() {
        byte[] kafkaOrder = ("{\"features\":{},\"listener_security_protocol_map\":{\"KAENLOG\":\"PLAINTEXT\","
                + "\"PLAINTEXT\":\"PLAINTEXT\",\"REPLICATION\":\"PLAINTEXT\"},\"endpoints\":[\"REPLICATION://h3:7002\","
                + "\"KAENLOG://h3:7000\",\"PLAINTEXT://h3:7001\"],"
                + "\"jmx_port\":-1,\"port\":7001,\"host\":\"h3\",\"version\":5,\"timestamp\":\"1\"}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(ZNodes.decodeBroker(3, kafkaOrder))
                .as("the kaen-log port is the KAENLOG listener's and the inter-broker port the REPLICATION listener's,"
                        + " whatever the top-level port and the order of the endpoints say")
                .isEqualTo(new BrokerInfo(3, "h3", 7000, 7001, 7002));
        BrokerInfo broker = new BrokerInfo(3, "10.0.0.3", 9300, 9301, 9302);
        assertThat(ZNodes.decodeBroker(3, ZNodes.encodeBroker(broker, NOW_MS))).as("what is written reads back")
                .isEqualTo(broker);
    }

    @Test
    void aRegistrationIsReadLikeARequestAndRefusedWithAnErrorNamingWhatIsWrong() {
        Map<String, String> broken = new java.util.LinkedHashMap<>();
        broken.put("{\"version\":5,\"host\":\"h\",\"endpoints\":[\"KAEN", "bad JSON");
        broken.put(registration("\"KAENLOG://h:9092\""), "endpoints");
        broken.put(registration("[\"KAENLOG://h:9092\", 7]"), "endpoints");
        broken.put(registration("[\"KAENLOG-h-9092\"]"), "is not NAME://host:port");
        broken.put(registration("[\"KAENLOG://:9092\"]"), "is not NAME://host:port");
        broken.put(registration("[\"KAENLOG://h:9092\", \"://h:9093\"]"), "is not NAME://host:port");
        broken.put(registration("[\"KAENLOG://h:http\"]"), "has no port from 0 to 65535");
        broken.put(registration("[\"KAENLOG://h:99999999999999999999\"]"), "has no port from 0 to 65535");
        broken.put(registration("[\"KAENLOG://h:70000\"]"), "has no port from 0 to 65535");
        broken.put(registration("[\"KAENLOG://h:9092\", \"REPLICATION://h:-1\"]"), "has no port from 0 to 65535");
        broken.put(registration("[\"PLAINTEXT://h:9093\"]"), "registered no KAENLOG listener");
        broken.put("[".repeat(100_000), "levels of nesting");
        broken.forEach((text, named) -> {
            Throwable refused = catchThrowable(() -> ZNodes.decodeBroker(2, text.getBytes(StandardCharsets.UTF_8)));
            assertThat(refused)
                    .as("anyone who reaches ZooKeeper can write /brokers/ids/2: a registration that is not Kafka's"
                            + " shape is a ZNodeFormatException naming what is wrong (here: %s), never a"
                            + " ClassCastException, a NumberFormatException or an index out of bounds: %s", named,
                            Json.quote(text))
                    .isInstanceOf(ZNodeFormatException.class)
                    .hasMessageContaining(named);
        });
    }

    @Test
    void aPortOfZeroToSixtyFiveThousandFiveHundredThirtyFiveIsAPort() {
        assertThat(ZNodes.decodeBroker(2, registration("[\"KAENLOG://h:65535\", \"REPLICATION://h:0\"]")
                .getBytes(StandardCharsets.UTF_8)))
                .as("65535 is the largest port, 0 the smallest: both are read, only what lies outside is refused")
                .isEqualTo(new BrokerInfo(2, "h", 65_535, BrokerInfo.NO_PORT, 0));
    }

    @Test
    void theControllerZNodeIsVersionTwoWithATimestampString() {
        Map<String, Object> json = Json.parseObject(ZNodes.encodeController(4, NOW_MS));
        assertThat(json).as("ControllerZNode v2: version, brokerid, timestamp (a string), kraftControllerEpoch -1 (never"
                + " migrated to KRaft)").isEqualTo(Map.of("version", 2L, "brokerid", 4L, "timestamp", "1700000000000",
                "kraftControllerEpoch", -1L));
        assertThat(ZNodes.decodeController(ZNodes.encodeController(4, NOW_MS))).as("the controller's broker id").isEqualTo(4);
    }

    @Test
    void theControllerEpochIsBareDigitsNotJson() {
        assertThat(new String(ZNodes.encodeControllerEpoch(17), StandardCharsets.UTF_8))
                .as("/controller_epoch holds the epoch as plain digits (ControllerEpochZNode: epoch.toString)")
                .isEqualTo("17");
        assertThat(ZNodes.decodeControllerEpoch("17".getBytes(StandardCharsets.UTF_8))).as("and reads them back").isEqualTo(17);
    }

    @Test
    void aTopicIsItsAssignmentByPartitionNumber() {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < 12; p++) {
            assignment.put(p, List.of(p % 3 + 1, (p + 1) % 3 + 1));
        }
        Map<String, Object> json = Json.parseObject(ZNodes.encodeTopic(assignment));
        assertThat(json.get("version")).as("TopicZNode's version in Kafka 3.9 is 3").isEqualTo(3L);
        assertThat(json.get("adding_replicas")).as("no reassignment under way: an empty object").isEqualTo(Map.of());
        assertThat(json.get("removing_replicas")).as("no reassignment under way: an empty object").isEqualTo(Map.of());
        assertThat(Json.objectField(json, "partitions").get("10"))
                .as("partitions are keyed by the partition number as a STRING, to the replicas in assignment order")
                .isEqualTo(List.of(2L, 3L));
        SortedMap<Integer, List<Integer>> back = ZNodes.decodeTopic(ZNodes.encodeTopic(assignment));
        assertThat(back).as("the assignment reads back").isEqualTo(assignment);
        assertThat(List.copyOf(back.keySet())).as("by partition NUMBER: partition 10 comes after partition 9, not after 1")
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    }

    /** A registration like Kafka's whose {@code endpoints} is {@code endpoints} (JSON text). */
    private static String registration(String endpoints) {
        return "{\"features\":{},\"listener_security_protocol_map\":{\"KAENLOG\":\"PLAINTEXT\"},\"endpoints\":"
                + endpoints + ",\"jmx_port\":-1,\"port\":9092,\"host\":\"h\",\"version\":5,\"timestamp\":\"1\"}";
    }

    @Test
    void aPartitionStateKeepsItsTwoEpochsApart() {
        PartitionState state = new PartitionState(2, 7, List.of(2, 3, 1), 4);
        Map<String, Object> json = Json.parseObject(ZNodes.encodeState(state));
        assertThat(json).as("TopicPartitionStateZNode v1: version 1, leader, leader_epoch, controller_epoch, isr")
                .isEqualTo(Map.of("version", 1L, "leader", 2L, "leader_epoch", 7L, "controller_epoch", 4L,
                        "isr", List.of(2L, 3L, 1L)));
        byte[] kafkaOrder = "{\"controller_epoch\":4,\"leader\":2,\"version\":1,\"leader_epoch\":7,\"isr\":[2,3,1]}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(ZNodes.decodeState(kafkaOrder))
                .as("read by name: leader_epoch 7 (the leader's, chapter 8's) is not controller_epoch 4 (the writer's);"
                        + " the ISR keeps its order")
                .isEqualTo(state);
    }

    // ---- Kafka judges: Kafka 3.9.1's kafka.zk codecs, on generated znodes, both ways ----

    static final String BROKER_RULE = "a registration is BrokerIdZNode v5: every listener as NAME://host:port in"
            + " endpoints, each name in listener_security_protocol_map, jmx_port -1";
    static final String LISTENER_RULE = "read every port from the endpoint whose listener has its name (KAENLOG,"
            + " PLAINTEXT, REPLICATION), never from the top-level port or the endpoints' order; other listeners are not"
            + " kaen-log's";

    @Test
    void everyRegistrationIsReadByKafkasBrokerIdZNode() {
        Property.forAll(KafkaZk.brokers()).tries(100).check(broker -> {
            byte[] ours = ZNodes.encodeBroker(broker, NOW_MS);
            kafka.zk.BrokerInfo read = kafka.zk.BrokerIdZNode.decode(broker.id(), ours);
            String kafkaReads = "version " + read.version() + ", jmx_port " + read.jmxPort() + ", endpoints "
                    + KafkaZk.kafkaReadsEndpoints(broker.id(), ours);
            String registered = "version 5, jmx_port -1, endpoints " + KafkaZk.endpoints(broker).stream().sorted().toList();
            Judge.agree("the registration of " + broker, "registration as Kafka reads it", kafkaReads,
                    "BrokerIdZNode.decode of the same broker expects", registered, BROKER_RULE);
        });
    }

    @Test
    void everyRegistrationKafkaWritesIsReadByItsListenerNames() {
        Gen<List<String>> others = Gens.lists(Gens.elements("SSL", "CONTROLLER", "INTERNAL", "SASL_PLAINTEXT"), 0, 3);
        Gen<Object[]> cases = c -> new Object[] {KafkaZk.brokers().generate(c), others.generate(c),
            Gens.lists(Gens.ints(0, 1000), 6, 6).generate(c), KafkaZk.hosts().generate(c),
            Gens.ints(-1, 65_535).generate(c), KafkaZk.ports().generate(c)};
        Property.forAll(cases).tries(100).check(input -> {
            BrokerInfo broker = (BrokerInfo) input[0];
            @SuppressWarnings("unchecked") List<String> otherListeners = (List<String>) input[1];
            @SuppressWarnings("unchecked") List<Integer> order = (List<Integer>) input[2];
            List<Map.Entry<String, Integer>> listeners = new ArrayList<>();
            listeners.add(Map.entry(BrokerInfo.KAENLOG_LISTENER, broker.port()));
            if (broker.kafkaPort() != BrokerInfo.NO_PORT) {
                listeners.add(Map.entry(BrokerInfo.KAFKA_LISTENER, broker.kafkaPort()));
            }
            if (broker.replicationPort() != BrokerInfo.NO_PORT) {
                listeners.add(Map.entry(BrokerInfo.REPLICATION_LISTENER, broker.replicationPort()));
            }
            otherListeners.stream().distinct().forEach(name -> listeners.add(Map.entry(name, (int) input[5])));
            List<Map.Entry<String, Integer>> shuffled = new ArrayList<>(listeners);
            shuffled.sort((a, b) -> Integer.compare(order.get(listeners.indexOf(a)), order.get(listeners.indexOf(b))));
            Map<String, Integer> endpoints = new LinkedHashMap<>();
            shuffled.forEach(e -> endpoints.put(e.getKey(), e.getValue()));
            byte[] kafkas = KafkaZk.kafkaWritesBroker(broker.host(), endpoints, (String) input[3], (int) input[4]);
            Judge.agree("the registration Kafka's BrokerIdZNode.encode writes with endpoints " + endpoints + " on "
                    + broker.host() + " (top-level " + input[3] + ":" + input[4] + ")", "broker",
                    (Judge.ThrowingSupplier<?>) () -> ZNodes.decodeBroker(broker.id(), kafkas), "registration holds", broker, LISTENER_RULE);
        });
    }

    @Test
    void everyControllerZNodeAgreesWithKafkasControllerZNode() {
        Gen<long[]> cases = c -> new long[] {Gens.ints(0, Integer.MAX_VALUE).generate(c), Gens.longs().generate(c)};
        Property.forAll(cases).tries(100).check(input -> {
            int id = (int) input[0];
            byte[] ours = ZNodes.encodeController(id, input[1]);
            String kafkaReads = "brokerid " + ControllerZNode.decode(ours).get() + ", kraftControllerEpoch "
                    + ControllerZNode.decodeController(ours, 0).kraftEpoch().get();
            Judge.agree("/controller of broker " + id + " at " + input[1], "znode as Kafka reads it", kafkaReads,
                    "ControllerZNode.decode expects", "brokerid " + id + ", kraftControllerEpoch -1",
                    "/controller is ControllerZNode v2: version, brokerid, a timestamp string, kraftControllerEpoch -1");
            byte[] kafkas = ControllerZNode.encode(id, input[1], -1);
            Judge.agree("/controller as Kafka's ControllerZNode.encode writes it for broker " + id, "controller",
                    (Judge.ThrowingSupplier<?>) () -> ZNodes.decodeController(kafkas), "znode names", id, "the controller is the brokerid field");
        });
    }

    @Test
    void everyControllerEpochIsKafkasBareDigits() {
        Property.forAll(Gens.ints()).tries(200).check(epoch -> {
            Judge.agree("/controller_epoch " + epoch, "bytes", ZNodes.encodeControllerEpoch(epoch),
                    "ControllerEpochZNode.encode writes", ControllerEpochZNode.encode(epoch),
                    "/controller_epoch is not JSON at all, just digits");
            Judge.agree("the bytes Kafka writes for /controller_epoch " + epoch, "epoch",
                    (Judge.ThrowingSupplier<?>) () -> ZNodes.decodeControllerEpoch(ControllerEpochZNode.encode(epoch)), "ControllerEpochZNode holds",
                    epoch, "/controller_epoch is not JSON at all, just digits");
        });
    }

    /** Assignments as topics have them: partitions by number (some missing), replicas in assignment order. */
    static final Gen<SortedMap<Integer, List<Integer>>> ASSIGNMENTS = c -> {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p : Gens.lists(Gens.ints(0, 1_000), 0, 14).generate(c)) {
            assignment.put(p, Gens.lists(Gens.ints(0, Integer.MAX_VALUE), 0, 4).generate(c));
        }
        return assignment;
    };

    @Test
    void everyAssignmentAgreesWithKafkasTopicZNode() {
        Property.forAll(ASSIGNMENTS).tries(100).check(assignment -> {
            String rule = "a topic is TopicZNode v3: partitions keyed by the partition number as a string, read back by"
                    + " NUMBER (10 after 9), each to its replicas in assignment order";
            Judge.agree("the assignment " + assignment, "topic as Kafka reads it",
                    KafkaZk.kafkaReadsTopic(ZNodes.encodeTopic(assignment)), "TopicZNode.decode expects", assignment, rule);
            byte[] kafkas = KafkaZk.kafkaWritesTopic(assignment);
            Judge.agree("the assignment Kafka's TopicZNode.encode writes for " + assignment, "assignment",
                    (Judge.ThrowingSupplier<?>) () -> new ArrayList<>(ZNodes.decodeTopic(kafkas).entrySet()), "topic holds",
                    new ArrayList<>(assignment.entrySet()), rule);
        });
    }

    /** Partition states of every shape: any leader, both epochs over every int, any ISR. */
    static final Gen<PartitionState> STATES = c -> new PartitionState(Gens.ints(-1, Integer.MAX_VALUE).generate(c),
            Gens.ints().generate(c), Gens.lists(Gens.ints(0, Integer.MAX_VALUE), 0, 5).generate(c), Gens.ints().generate(c));

    @Test
    void everyPartitionStateAgreesWithKafkasTopicPartitionStateZNode() {
        Property.forAll(STATES).tries(100).check(state -> {
            String rule = "a state is TopicPartitionStateZNode v1, every field read by its name: leader_epoch (the"
                    + " leader's) is not controller_epoch (the writer's), the ISR keeps its order";
            int zkVersion = Math.abs(state.leaderEpoch() % 1000);
            KafkaZk.KafkaState kafkaReads = KafkaZk.kafkaReadsState(ZNodes.encodeState(state), KafkaZk.version(zkVersion));
            Judge.agree("the state " + state, "state as Kafka reads it", kafkaReads.state(),
                    "TopicPartitionStateZNode.decode expects", state, rule);
            byte[] kafkas = KafkaZk.kafkaWritesState(state);
            Judge.agree("the state Kafka's TopicPartitionStateZNode.encode writes for " + state, "state",
                    (Judge.ThrowingSupplier<?>) () -> ZNodes.decodeState(kafkas), "state holds", state, rule);
        });
    }
}
