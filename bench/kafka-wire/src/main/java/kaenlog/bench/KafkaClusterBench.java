package kaenlog.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.cluster.ClusterHarness;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * #28's comparison with Kafka: acks=all throughput to a partition with replication factor 3
 * (min.insync.replicas 2) and to one with factor 1, both led by the same broker, written by the
 * same client (kafka-clients 4.1.1: idempotent, acks=all, linger.ms 5, five requests in flight) with
 * the same records, on two three-broker clusters started in this run: kaen-log's (three
 * {@code klog serve --broker-id N --zookeeper ... --kafka-port} processes, reliability's
 * {@link ClusterHarness}, a ZooKeeper in this JVM) and Kafka 4.1.1's (three KRaft brokers, the first
 * also the controller, in one process of their own: {@link KafkaBrokerMain}). Rounds interleaved,
 * medians and ranges; the ratios rf 3 / rf 1 on each, and kaen-log / Kafka.
 *
 * <p>{@code bench/kafka-wire/run --cluster [--rounds 5] [--records 100000] [--bytes 100]}
 */
public final class KafkaClusterBench {
    private KafkaClusterBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Integer> flags = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            flags.put(args[i].replaceFirst("^--", ""), Integer.parseInt(args[i + 1]));
        }
        int rounds = flags.getOrDefault("rounds", 5);
        int records = flags.getOrDefault("records", 100_000);
        byte[] value = new byte[flags.getOrDefault("bytes", 100)];
        Path root = Files.createTempDirectory("kaenlog-kafka-cluster-bench");
        EndToEndBench.Broker kafka = null;
        BrokerProcess.Options brokers = BrokerProcess.Options.ofThisClasspath().withMaxHeap("256m")
                .withJvmArgs(List.of("-XX:+ExitOnOutOfMemoryError"));
        try (ClusterHarness klog = ClusterHarness.start(root.resolve("klog"),
                ClusterHarness.Config.standard().withDirectPeers().withKafkaPorts(), brokers)) {
            klog.createTopic("orders", new TreeMap<>(Map.of(0, List.of(1, 2, 3))), 2);
            klog.createTopic("solo", new TreeMap<>(Map.of(0, List.of(1))), 1);
            klog.await("broker 1 leads orders (its ISR whole) and solo", () ->
                    klog.state().map(s -> s.isr().size() == 3 && s.leader() == 1).orElse(false)
                            && klog.state("solo").map(s -> s.leader() == 1).orElse(false), 60_000);
            String klogBootstrap = String.join(",", klog.nodes().stream().map(n -> "127.0.0.1:" + n.kafkaPort())
                    .toList());
            kafka = EndToEndBench.startKafka(System.getProperty("java.class.path"), root.resolve("kafka"), 3);
            createKafkaTopics(kafka.bootstrap());

            Map<String, List<Double>> rates = new LinkedHashMap<>();
            Map<String, String[]> targets = new LinkedHashMap<>();
            targets.put("kaen-log rf 3", new String[] {klogBootstrap, "orders"});
            targets.put("kaen-log rf 1", new String[] {klogBootstrap, "solo"});
            targets.put("Kafka    rf 3", new String[] {kafka.bootstrap(), "orders"});
            targets.put("Kafka    rf 1", new String[] {kafka.bootstrap(), "solo"});
            for (String[] target : targets.values()) {
                throughput(target[0], target[1], records / 5, value); // warm both up
            }
            for (int round = 0; round < rounds; round++) {
                for (Map.Entry<String, String[]> t : targets.entrySet()) {
                    rates.computeIfAbsent(t.getKey(), k -> new ArrayList<>())
                            .add(throughput(t.getValue()[0], t.getValue()[1], records, value));
                }
            }
            System.out.printf("acks=all, kafka-clients 4.1.1 (idempotent, linger.ms 5, 5 in flight), %,d records of %d"
                    + " bytes a round, %d rounds interleaved, records/s: median [range]%n", records, value.length, rounds);
            rates.forEach((name, r) -> System.out.printf("  %s: %s%n", name, EndToEndBench.figure(r)));
            System.out.printf("  rf 3 / rf 1: kaen-log %.2f, Kafka %.2f%n",
                    EndToEndBench.median(rates.get("kaen-log rf 3")) / EndToEndBench.median(rates.get("kaen-log rf 1")),
                    EndToEndBench.median(rates.get("Kafka    rf 3")) / EndToEndBench.median(rates.get("Kafka    rf 1")));
            System.out.printf("  kaen-log / Kafka: rf 3 %.2f, rf 1 %.2f%n",
                    EndToEndBench.median(rates.get("kaen-log rf 3")) / EndToEndBench.median(rates.get("Kafka    rf 3")),
                    EndToEndBench.median(rates.get("kaen-log rf 1")) / EndToEndBench.median(rates.get("Kafka    rf 1")));
        } finally {
            EndToEndBench.stop(kafka);
            EndToEndBench.deleteTree(root);
        }
    }

    /** rf 3 with min.insync.replicas 2 and rf 1, each led by the broker with the smallest id. */
    private static void createKafkaTopics(String bootstrap) throws Exception {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(config)) {
            List<Integer> ids = admin.describeCluster().nodes().get().stream().map(Node::id).sorted().toList();
            NewTopic replicated = new NewTopic("orders", Map.of(0, ids.subList(0, 3)))
                    .configs(Map.of("min.insync.replicas", "2"));
            NewTopic alone = new NewTopic("solo", Map.of(0, ids.subList(0, 1)));
            admin.createTopics(List.of(replicated, alone)).all().get();
        }
    }

    /** Records per second for {@code records} records sent to partition 0 of {@code topic}, every one acknowledged. */
    static double throughput(String bootstrap, String topic, int records, byte[] value) throws IOException {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> first = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.partitionsFor(topic); // metadata before the clock
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                        first.compareAndSet(null, error);
                    }
                });
            }
            producer.flush();
            double seconds = (System.nanoTime() - start) / 1e9;
            if (failed.get() > 0) {
                throw new IOException(failed.get() + " records to " + topic + " at " + bootstrap + " failed",
                        first.get());
            }
            return records / seconds;
        }
    }
}
