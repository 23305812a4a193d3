package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topics with many partitions, with the real clients (given code around your tasks; runs after
 * them): AdminClient's createTopics, describeTopics and deleteTopics (CreateTopics and DeleteTopics,
 * Metadata listing every partition), a keyed KafkaProducer whose every record is read back from the
 * partition Kafka's partitioner chose ({@code murmur2(key) % partitions}), a producer naming its
 * partition, kcat {@code -L}, and a data directory with a hole in a topic's partitions.
 */
@Order(12)
@Timeout(180)
class TopicsTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private KafkaPortFixture kafka;

    private void start(PartitionConfigs configs) throws Exception {
        kafka = KafkaPortFixture.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs), brokerLog);
        createTopicsPreflight();
    }

    private void start() throws Exception {
        start(PartitionConfigs.load());
    }

    /** After the fixture's preflight, a CreateTopics v7 that creates nothing, in-process too: an Admin's first request. */
    private void createTopicsPreflight() throws Exception {
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        CreateTopicsRequest create = new CreateTopicsRequest.Builder(new CreateTopicsRequestData()).build((short) 7);
        assertThat(apis.handle(KafkaFrames.frame(create, ApiKeys.CREATE_TOPICS, 3)))
                .as("CreateTopics v7 naming no topic is answered").isPresent();
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

    private KafkaProducer<String, String> producer(Properties extra) {
        Properties config = KafkaPortFixture.producerConfig(kafka.port());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.putAll(extra);
        return new KafkaProducer<>(config);
    }

    private List<String> partitionDirs(String topic) throws Exception {
        try (Stream<Path> entries = Files.list(dir.resolve("data"))) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(topic + "-")).sorted()
                    .toList();
        }
    }

    /** The partition kafka-clients' built-in partitioner gives a keyed record (BuiltInPartitioner.partitionForKey). */
    private static int partitionerChoice(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static Throwable cause(Future<?> future) {
        return KafkaPortFixture.cause(future);
    }

    @Test
    void adminCreatesATopicOfSixPartitionsAndDescribeTopicsShowsSix() throws Exception {
        start();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("six", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicDescription six = admin.describeTopics(List.of("six")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("six");
            assertThat(six.partitions()).extracting(TopicPartitionInfo::partition)
                    .as("Metadata lists every partition of the topic CreateTopics made: 0..5; broker log:%n%s", brokerLog)
                    .containsExactly(0, 1, 2, 3, 4, 5);
            assertThat(six.partitions()).as("each led by this broker (node %d), its only replica and ISR",
                    Metadata.NODE_ID).allSatisfy(p -> {
                        assertThat(p.leader().id()).isEqualTo(Metadata.NODE_ID);
                        assertThat(p.isr()).hasSize(1);
                    });
            assertThat(partitionDirs("six")).as("one directory per partition")
                    .containsExactly("six-0", "six-1", "six-2", "six-3", "six-4", "six-5");
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("listTopics").contains("six");
        }
    }

    @Test
    void createTopicsAnswersEachTopicWithKafkasErrors() throws Exception {
        start(PartitionConfigs.load().with(LogConfigKeys.MAX_PARTITIONS + "=10"));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("taken", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            var results = admin.createTopics(List.of(new NewTopic("taken", 2, (short) 1),
                    new NewTopic("replicated", 1, (short) 3), new NewTopic("none", 0, (short) 1),
                    new NewTopic("a/b", 1, (short) 1), new NewTopic("wide", 9, (short) 1),
                    new NewTopic("fits", 8, (short) 1))).values();
            assertThat(cause(results.get("taken"))).as("a topic that exists: TOPIC_ALREADY_EXISTS (36)")
                    .isInstanceOf(TopicExistsException.class);
            assertThat(cause(results.get("replicated"))).as("3 replicas on one broker: INVALID_REPLICATION_FACTOR (38)")
                    .isInstanceOf(InvalidReplicationFactorException.class);
            assertThat(cause(results.get("none"))).as("0 partitions: INVALID_PARTITIONS (37)")
                    .isInstanceOf(InvalidPartitionsException.class);
            assertThat(cause(results.get("a/b"))).as("a name Kafka's Topic.validate refuses: INVALID_TOPIC_EXCEPTION (17)")
                    .isInstanceOf(InvalidTopicException.class);
            assertThat(cause(results.get("wide"))).as("2 + 9 partitions over max.partitions=10: POLICY_VIOLATION (44)")
                    .isInstanceOf(PolicyViolationException.class).hasMessageContaining("max.partitions");
            assertThat(cause(results.get("fits"))).as("2 + 8 is at max.partitions=10: created").isNull();
            assertThat(partitionDirs("wide")).as("a topic refused leaves nothing on disk").isEmpty();
            assertThat(partitionDirs("replicated")).isEmpty();
            assertThat(partitionDirs("fits")).hasSize(8);
        }
    }

    @Test
    void aKeyedProducerSpreadsOverThePartitionsAndEveryRecordIsReadBackWhereThePartitionerPutIt() throws Exception {
        start();
        int partitions = 6;
        int records = 600;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("keyed", partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Integer> acknowledged = new TreeMap<>();
        try (KafkaProducer<String, String> producer = producer(new Properties())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>("keyed", "key-" + i, "value-" + i)));
            }
            producer.flush();
            for (int i = 0; i < records; i++) {
                acknowledged.put("key-" + i, sent.get(i).get(30, TimeUnit.SECONDS).partition());
            }
        }
        int total = 0;
        for (int p = 0; p < partitions; p++) {
            List<ConsumerRecord<String, String>> read = consume(new TopicPartition("keyed", p), records);
            assertThat(read).as("partition %d of 6 gets some of 600 keys", p).isNotEmpty();
            for (ConsumerRecord<String, String> r : read) {
                assertThat(p).as("%s is read from partition %d: Kafka's partitioner put it in"
                        + " toPositive(murmur2(key)) %% 6", r.key(), p).isEqualTo(partitionerChoice(r.key(), partitions));
                assertThat(acknowledged.get(r.key())).as("%s was acknowledged for the partition it is read from", r.key())
                        .isEqualTo(p);
                assertThat(r.value()).isEqualTo("value-" + r.key().substring("key-".length()));
            }
            total += read.size();
        }
        assertThat(total).as("every record read back once, across the six partitions").isEqualTo(records);
    }

    @Test
    void aProducerNamingPartitionTwoOfAThreePartitionTopicWritesThere() throws Exception {
        start();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("three", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = producer(new Properties())) {
            RecordMetadata written = producer.send(new ProducerRecord<>("three", 2, "k", "to two"))
                    .get(30, TimeUnit.SECONDS);
            assertThat(written.partition()).as("the partition the record named").isEqualTo(2);
            assertThat(written.offset()).as("the first record of three-2").isZero();
        }
        assertThat(consume(new TopicPartition("three", 2), 1)).extracting(ConsumerRecord::value)
                .as("read back from partition 2 (was: 'Partition 2 ... not present in metadata after 10000 ms')")
                .containsExactly("to two");
    }

    @Test
    void deleteTopicsRemovesEveryPartitionAndTheNameCanBeCreatedAgain() throws Exception {
        start();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("doomed", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer = producer(new Properties())) {
                producer.send(new ProducerRecord<>("doomed", 1, null, "gone soon")).get(30, TimeUnit.SECONDS);
            }
            admin.deleteTopics(List.of("doomed")).all().get(30, TimeUnit.SECONDS);
            assertThat(partitionDirs("doomed")).as("every partition's directory is removed; broker log:%n%s", brokerLog)
                    .isEmpty();
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("listTopics").doesNotContain("doomed");
            assertThat(cause(admin.deleteTopics(List.of("doomed")).all()))
                    .as("deleting it again: UNKNOWN_TOPIC_OR_PARTITION (3)")
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
            admin.createTopics(List.of(new NewTopic("doomed", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = producer(new Properties())) {
            assertThat(producer.send(new ProducerRecord<>("doomed", 0, null, "anew")).get(30, TimeUnit.SECONDS).offset())
                    .as("created again, it starts empty: nothing of the deleted topic is left").isZero();
        }
    }

    @Test
    void kcatListsEveryPartitionOfATopic() throws Exception {
        if (!onPath("kcat")) {
            System.out.println("TopicsTest: kcat is not installed (apt-get install -y kcat): kcat -L skipped");
            Assumptions.abort("kcat is not installed");
        }
        start();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("listed", 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Process kcat = new ProcessBuilder("kcat", "-b", "127.0.0.1:" + kafka.port(), "-L", "-t", "listed")
                .redirectErrorStream(true).start();
        String output = new String(kcat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(kcat.waitFor(60, TimeUnit.SECONDS)).as("kcat -L finished").isTrue();
        assertThat(output).as("kcat -L -t listed: the topic and its four partitions, each led by node %d",
                Metadata.NODE_ID).contains("topic \"listed\" with 4 partitions:")
                .contains("partition 0, leader 1, replicas: 1, isrs: 1")
                .contains("partition 3, leader 1, replicas: 1, isrs: 1");
    }

    @Test
    void aHoleInATopicsPartitionsIsReportedAndMetadataKeepsTheCount() throws Exception {
        // partitions 0 and 2 of 'holey', as kaen-log's own port makes them (a produce creates what it
        // names) or as a data directory that lost holey-1 would hold them
        try (Broker before = Broker.start(BrokerConfig.of(dir.resolve("data")), new PrintStream(brokerLog))) {
            before.partition("holey-0");
            before.partition("holey-2");
        }
        start();
        assertThat(brokerLog.toString(StandardCharsets.UTF_8)).as("the hole is reported at start")
                .contains("topic holey: partitions 0..2, but [1] missing from the data directory");
        Properties quick = new Properties();
        quick.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
        quick.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000);
        try (KafkaProducer<String, String> producer = producer(quick)) {
            List<PartitionInfo> partitions = producer.partitionsFor("holey");
            assertThat(partitions).extracting(PartitionInfo::partition).as("Metadata lists partitions 0..2, the"
                    + " count the topic was made with (partitionsForTopic: what the keyed partitioner divides by)")
                    .containsExactlyInAnyOrder(0, 1, 2);
            assertThat(partitions).filteredOn(p -> p.partition() == 1).singleElement()
                    .as("partition 1 has no log: no leader (LEADER_NOT_AVAILABLE), so it is not available")
                    .satisfies(p -> assertThat(p.leader()).isNull());
            String toZero = keyFor(0, 3);
            String toTwo = keyFor(2, 3);
            assertThat(producer.send(new ProducerRecord<>("holey", toZero, "v")).get(30, TimeUnit.SECONDS).partition())
                    .as("a key the partitioner sends to 0 of 3 lands in 0").isZero();
            assertThat(producer.send(new ProducerRecord<>("holey", toTwo, "v")).get(30, TimeUnit.SECONDS).partition())
                    .as("a key the partitioner sends to 2 of 3 lands in 2").isEqualTo(2);
            assertThat(cause(producer.send(new ProducerRecord<>("holey", keyFor(1, 3), "v"))))
                    .as("a key that belongs to the missing partition 1 is refused (not written to another)")
                    .hasMessageContaining("holey-1");
        }
    }

    private static String keyFor(int partition, int partitions) {
        for (int i = 0; ; i++) {
            if (partitionerChoice("k" + i, partitions) == partition) {
                return "k" + i;
            }
        }
    }

    private List<ConsumerRecord<String, String>> consume(TopicPartition partition, int atMost) {
        Properties config = KafkaPortFixture.consumerConfig(kafka.port());
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            int emptyPolls = 0;
            while (read.size() < end && read.size() < atMost && emptyPolls < 40) {
                int before = read.size();
                consumer.poll(Duration.ofMillis(250)).forEach(read::add);
                emptyPolls = read.size() == before ? emptyPolls + 1 : 0;
            }
        }
        return read;
    }

    /** kcat's presence, as RealClientsTest checks it. */
    private static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }

    @Test
    void aKafkaProducerToATopicNobodyCreatedHasItMadeByMetadataWithNumPartitions() throws Exception {
        start();
        try (KafkaProducer<String, String> producer = producer(new Properties())) {
            assertThat(producer.send(new ProducerRecord<>("auto", "k", "v")).get(30, TimeUnit.SECONDS).partition())
                    .as("kafka-clients asks Metadata with allow_auto_topic_creation=true, and a produce creates"
                            + " nothing: the topic is made by Metadata's auto-create, num.partitions=1").isZero();
        }
        assertThat(partitionDirs("auto")).containsExactly("auto-0");
    }
}
