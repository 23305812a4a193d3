package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import kaenlog.testkit.FaultInjectingProxy;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the kafka-clients on the classpath ask this listener for, request by request: an Admin that
 * creates a topic, looks offsets up by time and deletes it, an idempotent producer per codec, and a
 * consumer in a group, seen through a proxy that reads each request's api key and version. Every request must be one the table answers, except the first ApiVersions
 * of each connection, which goes at the client's newest version and gets the fallback. Chapter 9
 * runs it with kafka-clients 4.1.1; {@code newest-clients/} runs it again with the newest release,
 * and both print what they saw, so the two can be compared.
 */
@Order(12)
@Timeout(90)
class ClientRequestVersionsTest {
    private static final String TOPIC = "versions";
    private static final int RECORDS = 100;
    private static final long FIRST_TIMESTAMP = 1_700_000_000_000L;
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    /** The kafka-clients release on the classpath, from its own jar (its AppInfoParser moved in 4.4). */
    private static final String CLIENT = clientVersion();

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private FaultInjectingProxy proxy;
    /** Each api key the client sent, with every version it sent it at. */
    private final Map<Short, Set<Short>> asked = new ConcurrentHashMap<>();

    @BeforeEach
    void start() throws Exception {
        // The coordinator calls task 7 (GroupStateTest) for every change of state: a TODO fails here, not as a timeout.
        GroupTransitions.next(GroupState.EMPTY, GroupState.Event.MEMBER_JOINS);
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        PartitionConfigs configs = PartitionConfigs.load().with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=0");
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        Preflight.run(broker);
        proxy = new FaultInjectingProxy("127.0.0.1", listener.port(),
                new FaultInjectingProxy.Faults(0, 0, 0, 0, 1, false));
        proxy.observeRequests(frame -> {
            ByteBuffer header = ByteBuffer.wrap(frame);
            asked.computeIfAbsent(header.getShort(0), k -> ConcurrentHashMap.newKeySet()).add(header.getShort(2));
        });
        listener.advertise("127.0.0.1", proxy.port()); // Metadata sends the clients back through the proxy
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void everyRequestTheClientsSendIsOneTheTableAnswers() throws Exception {
        String bootstrap = "127.0.0.1:" + proxy.port();
        Properties adminConfig = new Properties();
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(adminConfig)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            for (int c = 0; c < CODECS.size(); c++) {
                produce(bootstrap, CODECS.get(c), FIRST_TIMESTAMP + (long) c * RECORDS);
            }
            assertThat(consumeInAGroup(bootstrap)).as("the group's consumer reads every record of every codec's"
                    + " producer; broker log:%n%s", brokerLog).isEqualTo(RECORDS * CODECS.size());
            TopicPartition p0 = new TopicPartition(TOPIC, 0);
            long maxTimestamp = admin.listOffsets(Map.of(p0, OffsetSpec.maxTimestamp())).all()
                    .get(30, TimeUnit.SECONDS).get(p0).offset();
            assertThat(maxTimestamp).as("ListOffsets MAX_TIMESTAMP (v7): on partition 0 the record of the largest"
                    + " timestamp is the last producer's last one there, at offset %d", RECORDS * CODECS.size() / 2 - 1)
                    .isEqualTo(RECORDS * CODECS.size() / 2 - 1);
            long atTime = admin.listOffsets(Map.of(p0, OffsetSpec.forTimestamp(FIRST_TIMESTAMP + RECORDS / 2))).all()
                    .get(30, TimeUnit.SECONDS).get(p0).offset();
            assertThat(atTime).as("ListOffsets by timestamp %d: the first record of partition 0 at or after it",
                    FIRST_TIMESTAMP + RECORDS / 2).isEqualTo(RECORDS / 4);
            admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, String> seen = new TreeMap<>();
        asked.forEach((key, versions) -> seen.put(ApiKeys.forId(key) + " (key " + key + ")", versions.toString()));
        System.out.println("kafka-clients " + CLIENT + " asked this listener for: " + seen);

        short newestApiVersions = ApiKeys.API_VERSIONS.latestVersion();
        assertThat(asked.get(ApiKeys.API_VERSIONS.id)).as("kafka-clients %s opens each connection with ApiVersions"
                + " v%d, its newest, which this listener answers UNSUPPORTED_VERSION in the v0 layout, and then asks"
                + " again at v3", CLIENT, newestApiVersions)
                .contains(newestApiVersions, (short) 3);
        for (Map.Entry<Short, Set<Short>> e : asked.entrySet()) {
            for (short version : e.getValue()) {
                if (e.getKey() == ApiKeys.API_VERSIONS.id && version == newestApiVersions) {
                    continue;
                }
                assertThat(ApiKey.of(e.getKey()).filter(k -> k.supports(version)))
                        .as("kafka-clients %s sent %s v%d: a client picks a version the ApiVersions answer lists, so"
                                + " every request must be in the table (ApiKey); broker log:%n%s",
                                CLIENT, ApiKeys.forId(e.getKey()), version, brokerLog)
                        .isPresent();
            }
        }
        assertThat(asked.keySet()).as("the consumer's group requests went through too")
                .contains(ApiKeys.FIND_COORDINATOR.id, ApiKeys.JOIN_GROUP.id, ApiKeys.SYNC_GROUP.id,
                        ApiKeys.OFFSET_COMMIT.id, ApiKeys.PRODUCE.id, ApiKeys.FETCH.id, ApiKeys.INIT_PRODUCER_ID.id);
    }

    /**
     * An idempotent producer compressing with {@code codec}: RECORDS records, the even ones to
     * partition 0, timestamped from {@code firstTimestamp} on, one millisecond apart.
     */
    private static void produce(String bootstrap, String codec, long firstTimestamp) throws Exception {
        Properties config = KafkaPortFixture.producerConfig(0);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, i % 2, firstTimestamp + i, "k" + i,
                        codec + "-" + i)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static String clientVersion() {
        Properties version = new Properties();
        try (var in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            version.load(in);
        } catch (java.io.IOException | NullPointerException e) {
            throw new AssertionError("kafka-clients' kafka/kafka-version.properties is not on the classpath", e);
        }
        return version.getProperty("version");
    }

    /** A consumer in group "versions-group": reads until it has every record, commits, leaves. */
    private int consumeInAGroup(String bootstrap) {
        Properties config = KafkaPortFixture.consumerConfig(0);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "versions-group");
        Set<String> values = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < RECORDS * CODECS.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
            consumer.commitSync(Duration.ofSeconds(30));
        }
        return values.size();
    }
}
