package kaenlog.reliability.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.reliability.Deadline;
import kaenlog.reliability.Ledger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The row with real clients: kafka-clients 4.1.1's idempotent producer (acks=all) and its consumer
 * over the brokers' Kafka ports, through a SIGKILL of the leader. The producer finds the new leader
 * with Metadata requests, as it does against Kafka, and retries; each record's acknowledgement
 * (its offset, from the callback) goes to the same ledger as the kaen-log producer's, and the
 * consumer's records to the observer. kafka-clients does not say which broker answered, so the
 * checker holds the batch's epoch against the latest epoch ZooKeeper had written when the answer came.
 */
final class KafkaClientsWorkload {
    static final int PRODUCER = 5;
    private static final int MAX_OUTSTANDING = 100;

    private KafkaClientsWorkload() {
    }

    static void sigkillLeader(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        String bootstrap = String.join(",", cluster.nodes().stream().map(b -> "127.0.0.1:" + b.kafkaPort()).toList());
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Exception> firstError = new java.util.concurrent.atomic.AtomicReference<>();
        Semaphore outstanding = new Semaphore(MAX_OUTSTANDING);
        Thread consumer = consume(run, bootstrap);
        long seq = 0;
        int killed = -1;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
            Deadline deadline = Deadline.in(10 * ClusterRun.WAIT_MS);
            while (acked.get() < n && !deadline.passed()) {
                if (killed < 0 && acked.get() >= n / 3) {
                    killed = cluster.leader();
                    run.kill(killed);
                }
                if (killed > 0 && acked.get() >= 2 * n / 3 && cluster.node(killed).life() == ClusterHarness.Life.KILLED) {
                    run.awaitNewLeader(killed);
                    run.restart(killed);
                }
                if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                long s = seq++;
                long sentAt = System.currentTimeMillis();
                producer.send(new ProducerRecord<>(ClusterHarness.TOPIC, 0, null, Ledger.value(PRODUCER, s)),
                        (metadata, error) -> {
                            outstanding.release();
                            if (error != null) {
                                firstError.compareAndSet(null, error);
                                failed.incrementAndGet();
                                run.ledger().inDoubt(PRODUCER, s, 1);
                                return;
                            }
                            run.ledger().acked(new ClusterLedger.Ack(PRODUCER, -1, s, 1, metadata.offset(),
                                    metadata.offset(), 0, -1, sentAt, System.currentTimeMillis()));
                            acked.incrementAndGet();
                        });
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        run.expect(acked.get() >= n, "kafka-clients had " + n + " records acknowledged, not " + acked.get());
        run.awaitFullIsr();
        Deadline.pause(1_000); // the consumer reads up to the end
        consumer.interrupt();
        try {
            consumer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        run.note("kafka-clients 4.1.1 (idempotent, acks=all) over the Kafka ports: " + acked.get() + " acknowledged, "
                + failed.get() + " failed after their retries" + (firstError.get() == null ? "" : " (the first: "
                + firstError.get() + ")") + "; leader " + killed + " killed and restarted");
    }

    /** kafka-clients' idempotent producer, acks=all, with the harness's timeouts (the coordinator row's too). */
    static Map<String, Object> producerConfig(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ClusterRun.REQUEST_TIMEOUT_MS);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) ClusterRun.WAIT_MS);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }

    /** A kafka-clients consumer on the partition from offset 0, every record it is given kept by the observer. */
    private static Thread consume(ClusterRun run, String bootstrap) {
        Thread thread = new Thread(() -> {
            Map<String, Object> config = new HashMap<>();
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
            config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
            config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            Deadline deadline = Deadline.in(10 * ClusterRun.WAIT_MS);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                TopicPartition partition = new TopicPartition(ClusterHarness.TOPIC, 0);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                while (!Thread.currentThread().isInterrupted() && !deadline.passed()) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        run.observer().served(r.offset(), r.value(), "kafka-clients");
                    }
                }
            } catch (org.apache.kafka.common.errors.InterruptException stop) {
                // interrupted: the row is over
            } catch (RuntimeException e) {
                run.note("the kafka-clients consumer stopped: " + e);
            }
        }, "kafka-clients-consumer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
