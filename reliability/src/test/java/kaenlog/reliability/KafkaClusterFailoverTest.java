package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import kaenlog.cluster.BrokerRegistration;
import kaenlog.cluster.EmbeddedZooKeeper;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.PartitionStateStore;
import kaenlog.cluster.Versioned;
import kaenlog.cluster.ZkClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #27's acceptance: three {@code klog serve --broker-id N --zookeeper ... --kafka-port 0}
 * processes and a ZooKeeper; a topic with replication factor 3 and min.insync.replicas 2; a
 * KafkaProducer (kafka-clients 4.1.1, idempotent, acks=all) sends 100,000 records while the
 * partition's leader is killed with SIGKILL twice (each time a new leader is elected, and the killed
 * broker is restarted on its directory and rejoins the ISR); then a KafkaConsumer reads exactly
 * 100,000 records, in the order they were sent, none twice.
 */
@Order(20)
class KafkaClusterFailoverTest {
    private static final String TOPIC = "acceptance";
    private static final String PARTITION = TOPIC + "-0";
    private static final int RECORDS = 100_000;
    /**
     * The producer's pace: 4,000 records a second, 25 s for all of them, so both kills (each about 2 s
     * to a new leader and 5 s to the ISR whole again) land while it sends.
     */
    private static final int RECORDS_PER_TICK = 40;
    private static final long TICK_MS = 10;
    private static final int SESSION_MS = 2_000;
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    @Test
    void anIdempotentProducerSends100000RecordsThroughTwoLeaderKillsAndAConsumerReadsEachOnceInOrder()
            throws Exception {
        List<String> figures = new ArrayList<>();
        try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(Files.createDirectories(dir.resolve("zk")), 0, 200);
             ZkClient zk = ZkClient.connect(zookeeper.connectString(), 10_000);
             Cluster cluster = new Cluster(dir, zookeeper.connectString())) {
            for (int id = 1; id <= 3; id++) {
                cluster.start(id);
            }
            await(cluster, "three brokers registered", () -> BrokerRegistration.liveBrokers(zk).size() == 3);
            PartitionStateStore.createAssignment(zk, TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3))),
                    Map.of("min.insync.replicas", "2"));
            await(cluster, "the partition led by broker 1 with the ISR whole", () -> state(zk)
                    .filter(s -> s.leader() == 1 && s.isr().size() == 3).isPresent());

            AtomicLong acked = new AtomicLong();
            AtomicInteger failed = new AtomicInteger();
            AtomicReference<Exception> firstFailure = new AtomicReference<>();
            long started = System.nanoTime();
            String bootstrap = cluster.bootstrap();
            Thread producing = new Thread(() -> produce(bootstrap, acked, failed, firstFailure),
                    "acceptance-producer");
            producing.start();

            for (int kill = 1; kill <= 2; kill++) {
                long before = acked.get();
                await(cluster, "records acknowledged before kill " + kill, () -> acked.get() >= before + 10_000);
                PartitionState leading = state(zk).orElseThrow();
                long ackedAtKill = acked.get();
                long killedAt = System.nanoTime();
                cluster.kill(leading.leader());
                await(cluster, "a new leader after kill " + kill, () -> state(zk).filter(s -> s.leader() >= 0
                        && s.leader() != leading.leader() && s.leaderEpoch() > leading.leaderEpoch()).isPresent());
                long failoverMs = elapsedMs(killedAt);
                PartitionState elected = state(zk).orElseThrow();
                cluster.start(leading.leader());
                await(cluster, "broker " + leading.leader() + " back in the ISR after kill " + kill,
                        () -> state(zk).filter(s -> s.isr().contains(leading.leader())).isPresent());
                figures.add(String.format("kill %d: broker %d (leader at epoch %d) SIGKILLed with %d records acked;"
                                + " broker %d leads at epoch %d after %d ms, ISR %s; broker %d restarted and back in the"
                                + " ISR %d ms after the kill", kill, leading.leader(), leading.leaderEpoch(), ackedAtKill,
                        elected.leader(), elected.leaderEpoch(), failoverMs, elected.isr(), leading.leader(),
                        elapsedMs(killedAt)));
                assertThat(ackedAtKill).as("kill %d landed while the producer was still sending", kill)
                        .isLessThan(RECORDS);
            }
            producing.join(300_000);
            assertThat(producing.isAlive()).as("the producer finished within 5 minutes").isFalse();
            figures.add(String.format("produced %d records in %d ms, %d sends failed", acked.get(), elapsedMs(started),
                    failed.get()));
            assertThat(failed.get()).as("no send failed: an idempotent producer retries through a failover (first"
                    + " failure: %s)%n%s%n%s", firstFailure.get(), String.join("\n", figures), cluster.logs()).isZero();
            assertThat(acked.get()).as("every record acknowledged").isEqualTo(RECORDS);

            List<Integer> read = consume(cluster.bootstrap());
            long duplicates = read.size() - read.stream().distinct().count();
            int outOfOrder = 0;
            for (int i = 1; i < read.size(); i++) {
                if (read.get(i) <= read.get(i - 1)) {
                    outOfOrder++;
                }
            }
            figures.add(String.format("consumed %d records, %d duplicates, %d out of order", read.size(), duplicates,
                    outOfOrder));
            figures.forEach(line -> System.out.println("[kafka-cluster-failover] " + line));
            String report = String.join("\n", figures) + "\n" + cluster.logs();
            assertThat(duplicates).as("no record twice: the new leader answered the producer's retries DUPLICATE%n%s",
                    report).isZero();
            assertThat(outOfOrder).as("the records in the order they were sent%n%s", report).isZero();
            assertThat(read).as("exactly the 100,000 records sent, each once, in order%n%s", report)
                    .hasSize(RECORDS).first().isEqualTo(0);
            assertThat(read.get(read.size() - 1)).isEqualTo(RECORDS - 1);
        }
    }

    /** Sends 0..99,999 as values, paced, one partition; counts acknowledgements and failures. */
    private static void produce(String bootstrap, AtomicLong acked, AtomicInteger failed,
                                AtomicReference<Exception> firstFailure) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 240_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, Integer.toString(i)), (metadata, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                });
                if (i % RECORDS_PER_TICK == RECORDS_PER_TICK - 1) {
                    Deadline.pause(TICK_MS);
                }
            }
            producer.flush();
        }
    }

    /** Every record of the partition, from its start to its end offset, by value. */
    private static List<Integer> consume(String bootstrap) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<Integer> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
            Deadline deadline = Deadline.in(WAIT_MS);
            while (consumer.position(partition) < end && !deadline.passed()) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(Integer.parseInt(record.value()));
                }
            }
        }
        return read;
    }

    private static Optional<PartitionState> state(ZkClient zk) throws KeeperException, InterruptedException {
        return PartitionStateStore.read(zk, TOPIC, 0).map(Versioned::value);
    }

    private static long elapsedMs(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1_000_000;
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Polls {@code condition} every 20 ms (a ZooKeeper read, say; one that fails is "not yet"), bounded. */
    private static void await(Cluster cluster, String what, Condition condition) {
        Deadline deadline = Deadline.in(WAIT_MS);
        while (true) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception notYet) {
                // ZooKeeper busy or the znode not there yet: asked again
            }
            assertThat(deadline.passed()).as(() -> "within " + WAIT_MS + " ms: " + what + "\n" + cluster.logs())
                    .isFalse();
            Deadline.pause(20);
        }
    }

    /** Three klog serve processes of one cluster, each on its own directory, killed and restarted by id. */
    private static final class Cluster implements AutoCloseable {
        private final Path dir;
        private final String zookeeper;
        private final Map<Integer, BrokerProcess> brokers = new TreeMap<>();
        /** Every process started, the killed ones too: their logs tell a failure's story. */
        private final List<BrokerProcess> lives = new ArrayList<>();

        Cluster(Path dir, String zookeeper) {
            this.dir = dir;
            this.zookeeper = zookeeper;
        }

        void start(int id) throws IOException {
            BrokerProcess.Options options = BrokerProcess.Options.ofThisClasspath().withMaxHeap("256m")
                    .plusServeArgs("--broker-id", Integer.toString(id), "--zookeeper", zookeeper, "--kafka-port", "0",
                            "--zookeeper-session-timeout-ms", Integer.toString(SESSION_MS),
                            "--config", "replica.lag.time.max.ms=2000");
            BrokerProcess started = BrokerProcess.start(dir.resolve("broker-" + id), options);
            brokers.put(id, started);
            lives.add(started);
        }

        /** Each broker life's cluster lines (its role changes, its ISR changes, its fetchers' troubles). */
        String logs() {
            StringBuilder all = new StringBuilder();
            for (BrokerProcess life : lives) {
                all.append("---- broker process ").append(life.pid()).append('\n');
                life.log().stream().filter(line -> line.contains("cluster") || line.contains("isr-expiration"))
                        .forEach(line -> all.append(line).append('\n'));
            }
            return all.toString();
        }

        void kill(int id) throws IOException {
            brokers.remove(id).kill();
        }

        /** Every live broker's Kafka port. */
        String bootstrap() throws IOException {
            List<String> ports = new ArrayList<>();
            for (BrokerProcess broker : brokers.values()) {
                ports.add("127.0.0.1:" + broker.kafkaPort());
            }
            return ports.stream().collect(Collectors.joining(","));
        }

        @Override
        public void close() throws IOException {
            for (BrokerProcess broker : brokers.values()) {
                broker.close();
            }
        }
    }
}
