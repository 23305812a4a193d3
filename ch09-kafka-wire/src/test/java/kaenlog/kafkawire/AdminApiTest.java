package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.Leadership;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionConfigs;
import kaenlog.broker.TopicConfigFile;
import kaenlog.log.Log;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API as Kafka's tools and applications call it, through kafka-clients 4.1.1's AdminClient
 * (given code around your tasks; runs after them): a topic's configs given at creation, described with
 * their sources as Kafka names them, changed one at a time or all together, kept across a restart and
 * obeyed by the open logs; a config the broker does not honour refused naming it; partitions added to a
 * topic; records deleted below an offset (the log start moves, as Kafka's DeleteRecords moves it); the
 * broker's one log directory described. A member of a cluster refuses the changes with its reason.
 */
@Order(15)
@Timeout(120)
class AdminApiTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private KafkaPortFixture kafka;

    private void start(PartitionConfigs configs) throws Exception {
        start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs));
    }

    private void start(BrokerConfig config) throws Exception {
        kafka = KafkaPortFixture.start(config, brokerLog);
    }

    private void restart() throws Exception {
        BrokerConfig config = kafka.broker.config();
        kafka.close();
        kafka = null;
        start(config);
    }

    @AfterEach
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private Admin admin() {
        return kafka.admin();
    }

    private static ConfigResource topic(String name) {
        return new ConfigResource(ConfigResource.Type.TOPIC, name);
    }

    private Config describe(Admin admin, ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true)).all()
                .get(30, TimeUnit.SECONDS).get(resource);
    }

    private static Throwable cause(Future<?> future) {
        return KafkaPortFixture.cause(future);
    }

    private static List<String> synonyms(ConfigEntry entry) {
        return entry.synonyms().stream().map(s -> s.source() + ":" + s.name() + "=" + s.value()).toList();
    }

    private void produce(String topic, int partition, int records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(KafkaPortFixture.producerConfig(kafka.port()))) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "k" + i, "value-" + i + "-".repeat(50)));
            }
            producer.flush();
        }
    }

    private List<Long> offsetsFromTheBeginning(TopicPartition partition) {
        List<Long> offsets = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(KafkaPortFixture.consumerConfig(kafka.port()))) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    offsets.add(r.offset());
                }
            }
        }
        return offsets;
    }

    private long segmentFiles(String partition) throws Exception {
        try (Stream<Path> files = Files.list(dir.resolve("data").resolve(partition))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).count();
        }
    }

    @Test
    void aTopicsConfigsAreDescribedWithTheirSourcesAsKafkaNamesThem() throws Exception {
        start(PartitionConfigs.load().with(LogConfigKeys.SEGMENT_BYTES + "=2048"));
        try (Admin admin = admin()) {
            var created = admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact", "retention.ms", "-1"))));
            created.all().get(30, TimeUnit.SECONDS);
            assertThat(created.config("orders").get().get("cleanup.policy").value())
                    .as("CreateTopics (v5+) answers with the configs the topic runs with").isEqualTo("compact");

            Config orders = describe(admin, topic("orders"));
            assertThat(orders.get("cleanup.policy")).as("a config given at creation is the topic's own:"
                    + " DYNAMIC_TOPIC_CONFIG").extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(synonyms(orders.get("cleanup.policy"))).as("its synonyms, the most specific first: the topic's,"
                    + " then Kafka's broker name with its default")
                    .containsExactly("DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact", "DEFAULT_CONFIG:log.cleanup.policy=delete");
            assertThat(orders.get("segment.bytes")).as("klog serve --config segment.bytes=2048 is what Kafka's"
                    + " server.properties would say: STATIC_BROKER_CONFIG")
                    .extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("2048", ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
            assertThat(synonyms(orders.get("segment.bytes"))).containsExactly(
                    "STATIC_BROKER_CONFIG:log.segment.bytes=2048", "DEFAULT_CONFIG:log.segment.bytes=1073741824");
            assertThat(orders.get("max.message.bytes")).as("a config nobody set: Kafka's default")
                    .extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("1048588", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(orders.get("min.insync.replicas")).as("a config this broker does not honour is not listed")
                    .isNull();

            Config broker = describe(admin, new ConfigResource(ConfigResource.Type.BROKER, "1"));
            assertThat(broker.get("log.segment.bytes")).as("the broker (node 1) lists the topic configs' broker"
                    + " values under Kafka's broker names, read-only")
                    .extracting(ConfigEntry::value, ConfigEntry::source, ConfigEntry::isReadOnly)
                    .containsExactly("2048", ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, true);
            assertThat(broker.get("max.partitions").value()).isEqualTo("10000");
            assertThat(cause(admin.describeConfigs(List.of(topic("nobody"))).all()))
                    .as("a topic that does not exist").isInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }

    @Test
    void configsChangedOneAtATimeOrAllTogetherAreKeptAcrossARestart() throws Exception {
        start(PartitionConfigs.load());
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("events", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(topic("events"), List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND))))
                    .all().get(30, TimeUnit.SECONDS);
            Config events = describe(admin, topic("events"));
            assertThat(events.get("retention.ms").value()).as("SET").isEqualTo("3600000");
            assertThat(events.get("cleanup.policy").value()).as("APPEND to a list starts from its value: delete")
                    .isEqualTo("delete,compact");
        }
        restart();
        assertThat(Files.readString(dir.resolve("data").resolve(TopicConfigFile.FILE_NAME)))
                .as("the data directory keeps every topic's own configs")
                .isEqualTo("events cleanup.policy=delete,compact\nevents retention.ms=3600000\n");
        try (Admin admin = admin()) {
            assertThat(describe(admin, topic("events")).get("retention.ms"))
                    .as("a restarted broker has the topic's configs").extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("3600000", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            admin.incrementalAlterConfigs(Map.of(topic("events"), List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE))))
                    .all().get(30, TimeUnit.SECONDS);
            assertThat(describe(admin, topic("events")).get("retention.ms"))
                    .as("DELETE: the broker's value applies again").extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            admin.deleteTopics(List.of("events")).all().get(30, TimeUnit.SECONDS);
            assertThat(Files.readString(dir.resolve("data").resolve(TopicConfigFile.FILE_NAME)))
                    .as("a deleted topic takes its configs with it").isEmpty();
        }
    }

    @Test
    void aNewSegmentBytesIsObeyedByTheOpenLogAtItsNextRoll() throws Exception {
        start(PartitionConfigs.load());
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("rolling", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            produce("rolling", 0, 20);
            assertThat(segmentFiles("rolling-0")).as("1 GiB segments: one").isEqualTo(1);
            admin.incrementalAlterConfigs(Map.of(topic("rolling"), List.of(
                    new AlterConfigOp(new ConfigEntry("segment.bytes", "1024"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 10; i++) {
                produce("rolling", 0, 10);
            }
            assertThat(segmentFiles("rolling-0")).as("after segment.bytes=1024 the open log rolls at 1 KiB (Kafka's"
                    + " UnifiedLog.updateConfig): 120 records make several segments").isGreaterThan(3);
        }
    }

    @Test
    void aConfigTheBrokerDoesNotHonourIsRefusedNamingIt() throws Exception {
        start(PartitionConfigs.load());
        try (Admin admin = admin()) {
            var created = admin.createTopics(List.of(
                    new NewTopic("replicated", 1, (short) 1).configs(Map.of("min.insync.replicas", "2")),
                    new NewTopic("made-up", 1, (short) 1).configs(Map.of("no.such.config", "1")),
                    new NewTopic("log-append", 1, (short) 1).configs(Map.of("message.timestamp.type", "LogAppendTime")),
                    new NewTopic("not-a-number", 1, (short) 1).configs(Map.of("retention.ms", "soon")))).values();
            assertThat(cause(created.get("replicated"))).as("a Kafka config not built here: INVALID_CONFIG naming it")
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("min.insync.replicas");
            assertThat(cause(created.get("made-up"))).as("a name Kafka does not know, in Kafka's words")
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage("Unknown topic config name: no.such.config");
            assertThat(cause(created.get("log-append"))).as("LogAppendTime is not built")
                    .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("message.timestamp.type");
            assertThat(cause(created.get("not-a-number")))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageStartingWith("Invalid value soon for configuration retention.ms");
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("a topic refused is not created")
                    .doesNotContain("replicated", "made-up", "log-append", "not-a-number");

            admin.createTopics(List.of(new NewTopic("kept", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            var altered = admin.incrementalAlterConfigs(Map.of(
                    topic("kept"), List.of(new AlterConfigOp(new ConfigEntry("segment.ms", "1000"), AlterConfigOp.OpType.SET)),
                    topic("nobody"), List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET)),
                    new ConfigResource(ConfigResource.Type.BROKER, "1"), List.of(
                            new AlterConfigOp(new ConfigEntry("max.partitions", "5"), AlterConfigOp.OpType.SET)))).values();
            assertThat(cause(altered.get(topic("kept")))).isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("segment.ms");
            assertThat(cause(altered.get(topic("nobody")))).isInstanceOf(UnknownTopicOrPartitionException.class)
                    .hasMessage("The topic 'nobody' does not exist.");
            assertThat(cause(altered.get(new ConfigResource(ConfigResource.Type.BROKER, "1"))))
                    .as("the broker's configs are set when it starts").isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("klog serve --config");
            assertThat(describe(admin, topic("kept")).get("cleanup.policy").source()).as("nothing changed")
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        }
    }

    @Test
    void createPartitionsGrowsATopicWholeAndItsNewPartitionsHaveItsConfigs() throws Exception {
        start(PartitionConfigs.load().with(LogConfigKeys.MAX_PARTITIONS + "=8"));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("grow", 2, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
            admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(5))).all().get(30, TimeUnit.SECONDS);
            assertThat(admin.describeTopics(List.of("grow")).allTopicNames().get(30, TimeUnit.SECONDS).get("grow")
                    .partitions()).as("partitions 0..4").hasSize(5);
            assertThat(kafka.broker.configs().value("grow-4", "cleanup.policy")).as("a new partition runs with the"
                    + " topic's configs").isEqualTo("compact");
            var refused = admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(3),
                    "nobody", NewPartitions.increaseTo(2))).values();
            assertThat(cause(refused.get("grow"))).as("3 is not an increase of 5")
                    .isInstanceOf(InvalidPartitionsException.class)
                    .hasMessage("The topic grow currently has 5 partition(s); 3 would not be an increase.");
            assertThat(cause(refused.get("nobody"))).isInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(cause(admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(9))).all()))
                    .as("5 + 4 over max.partitions=8: POLICY_VIOLATION, and nothing made")
                    .isInstanceOf(PolicyViolationException.class).hasMessageContaining("max.partitions");
            assertThat(Files.exists(dir.resolve("data").resolve("grow-5"))).isFalse();
        }
    }

    @Test
    void deleteRecordsMovesTheLogStartOffsetForEveryReader() throws Exception {
        start(PartitionConfigs.load().with(LogConfigKeys.SEGMENT_BYTES + "=1024"));
        TopicPartition tp = new TopicPartition("purged", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("purged", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 10; i++) {
                produce("purged", 0, 10);
            }
            long segmentsBefore = segmentFiles("purged-0");
            var deleted = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(40))).lowWatermarks().get(tp)
                    .get(30, TimeUnit.SECONDS);
            assertThat(deleted.lowWatermark()).as("the answer's low watermark is the new log start").isEqualTo(40);
            Path logStart = dir.resolve("data").resolve("purged-0").resolve(Log.LOG_START_OFFSET_FILE);
            assertThat(Files.exists(logStart) ? Files.readString(logStart).strip() : "no " + logStart.getFileName())
                    .as("the new log start is on disk before it is answered (the checkpoint is forced without the"
                            + " partition's lock, but before the answer): an answered DeleteRecords survives a crash")
                    .isEqualTo("40");
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                    .get(30, TimeUnit.SECONDS).offset()).as("ListOffsets' earliest").isEqualTo(40);
            assertThat(offsetsFromTheBeginning(tp)).as("a consumer from the beginning reads 40..99")
                    .startsWith(40L).endsWith(99L).hasSize(60);
            assertThat(segmentFiles("purged-0")).as("the segments wholly below 40 are deleted")
                    .isLessThan(segmentsBefore);
            assertThat(cause(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(101))).all()))
                    .as("past the high watermark (100): OFFSET_OUT_OF_RANGE").isInstanceOf(OffsetOutOfRangeException.class);
            assertThat(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(10))).lowWatermarks().get(tp)
                    .get(30, TimeUnit.SECONDS).lowWatermark()).as("below the log start moves nothing").isEqualTo(40);
        }
        restart();
        try (Admin admin = admin()) {
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                    .get(30, TimeUnit.SECONDS).offset()).as("the log start survives a restart").isEqualTo(40);
            assertThat(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1))).lowWatermarks().get(tp)
                    .get(30, TimeUnit.SECONDS).lowWatermark()).as("-1: up to the high watermark").isEqualTo(100);
        }
    }

    @Test
    void describeLogDirsListsEveryPartitionWithTheBytesOfItsSegments() throws Exception {
        start(PartitionConfigs.load());
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("sized", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            produce("sized", 1, 25);
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(Metadata.NODE_ID)).allDescriptions()
                    .get(30, TimeUnit.SECONDS).get(Metadata.NODE_ID);
            assertThat(dirs.keySet()).as("one log directory: the data directory")
                    .containsExactly(dir.resolve("data").toAbsolutePath().toString());
            Map<TopicPartition, ReplicaInfo> replicas = dirs.values().iterator().next().replicaInfos();
            assertThat(replicas.get(new TopicPartition("sized", 0)).size()).as("an empty partition").isZero();
            assertThat(replicas.get(new TopicPartition("sized", 1)).size()).as("the bytes of its segment file")
                    .isEqualTo(Files.size(dir.resolve("data").resolve("sized-1").resolve("00000000000000000000.log")));
            assertThat(replicas.get(new TopicPartition("sized", 1)).offsetLag()).isZero();
            assertThat(dirs.values().iterator().next().totalBytes()).as("v4: the volume's size").isPresent();
        }
    }

    @Test
    void aMemberOfAClusterRefusesTopicChangesWithItsReason() throws Exception {
        Leadership member = new Leadership() {
            @Override
            public Optional<String> topicChangeRefusal() {
                return Optional.of("a cluster's topic configs live in ZooKeeper");
            }
        };
        start(BrokerConfig.of(dir.resolve("data")).withConfigs(PartitionConfigs.load()));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("shared", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            produce("shared", 0, 3);
        }
        BrokerConfig config = kafka.broker.config().withLeadership(member);
        kafka.close();
        kafka = null;
        start(config);
        try (Admin admin = admin()) {
            assertThat(cause(admin.incrementalAlterConfigs(Map.of(topic("shared"), List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET)))).all()))
                    .isInstanceOf(PolicyViolationException.class).hasMessageContaining("ZooKeeper");
            TopicPartition tp = new TopicPartition("shared", 0);
            assertThat(cause(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(1))).all()))
                    .as("a broker that makes no topic change a client asks moves no log start either")
                    .isInstanceOf(PolicyViolationException.class);
        }
    }
}
