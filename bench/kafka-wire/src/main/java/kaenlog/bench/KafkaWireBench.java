package kaenlog.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.kafkawire.Backend;
import kaenlog.kafkawire.KafkaListener;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One kafka-clients producer and consumer, the same records and acks, against kaen-log's Kafka
 * port and against a real Kafka 4.1.1 broker (KRaft, one combined node, in this JVM). Prints
 * records per second for each and kaen-log's rate as a ratio of Kafka's. A measurement, not a
 * test: one run on a shared 2-core machine is noisy, so each figure is the best of three rounds.
 */
public final class KafkaWireBench {
    private static final int ROUNDS = 3;

    private KafkaWireBench() {
    }

    record Rates(double produced, double consumed) {
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        byte[] value = new byte[size];
        for (int i = 0; i < size; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        Path root = Files.createTempDirectory("kafka-wire-bench");
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        List<String> rows = new ArrayList<>();
        try (Broker broker = Broker.start(BrokerConfig.of(root.resolve("kaenlog")), quiet);
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0, quiet);
             KafkaClusterTestKit kafka = startKafka(root.resolve("kafka"))) {
            String kaenlog = "127.0.0.1:" + listener.port();
            String real = kafka.bootstrapServers();
            for (String acks : List.of("1", "all")) {
                createTopics(real, acks);
                Rates ours = best(kaenlog, acks, records, value);
                Rates theirs = best(real, acks, records, value);
                rows.add(String.format("%-5s %14.0f %14.0f %7.2fx %14.0f %14.0f %7.2fx", acks, ours.produced(),
                        theirs.produced(), ours.produced() / theirs.produced(), ours.consumed(), theirs.consumed(),
                        ours.consumed() / theirs.consumed()));
            }
        } finally {
            deleteTree(root);
        }
        System.out.printf("%d records of %d bytes, best of %d rounds, records/s%n", records, size, ROUNDS);
        System.out.printf("%-5s %14s %14s %8s %14s %14s %8s%n", "acks", "produce klog", "produce Kafka", "ratio",
                "consume klog", "consume Kafka", "ratio");
        rows.forEach(System.out::println);
    }

    static KafkaClusterTestKit startKafka(Path dir) throws Exception {
        return startKafka(dir, 1);
    }

    /**
     * {@code brokers} KRaft brokers, the first also the one controller, in this JVM. The group
     * coordinator's {@code __consumer_offsets} gets at most as many replicas as there are brokers
     * (Kafka's default, 3, leaves a smaller cluster without a coordinator, as its own single-node
     * {@code server.properties} says by setting it to 1).
     */
    static KafkaClusterTestKit startKafka(Path dir, int brokers) throws Exception {
        return startKafka(dir, brokers, Map.of());
    }

    /** As {@link #startKafka(Path, int)}, with more broker configs. */
    static KafkaClusterTestKit startKafka(Path dir, int brokers, Map<String, String> configs) throws Exception {
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(brokers).setNumControllerNodes(1).setBaseDirectory(dir).build())
                .setConfigProp("log.flush.interval.messages", Long.MAX_VALUE)
                .setConfigProp("offsets.topic.replication.factor", (short) Math.min(3, brokers));
        configs.forEach(builder::setConfigProp);
        KafkaClusterTestKit kafka = builder.build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        return kafka;
    }

    private static void createTopics(String bootstrap, String acks) throws Exception {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(config)) {
            List<NewTopic> topics = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                topics.add(new NewTopic(topic(acks, round), 1, (short) 1));
            }
            admin.createTopics(topics).all().get();
        }
    }

    private static String topic(String acks, int round) {
        return "bench-acks-" + acks + "-" + round;
    }

    private static Rates best(String bootstrap, String acks, int records, byte[] value) throws Exception {
        double produced = 0;
        double consumed = 0;
        for (int round = 0; round < ROUNDS; round++) {
            String topic = topic(acks, round);
            produced = Math.max(produced, produce(bootstrap, topic, acks, records, value));
            consumed = Math.max(consumed, consume(bootstrap, topic, records));
        }
        return new Rates(produced, consumed);
    }

    private static double produce(String bootstrap, String topic, String acks, int records, byte[] value)
            throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, acks.equals("all"));
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.partitionsFor(topic); // metadata first: the clock starts with the first record
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static double consume(String bootstrap, String topic, int records) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            consumer.position(partition);
            long start = System.nanoTime();
            int read = 0;
            while (read < records) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
