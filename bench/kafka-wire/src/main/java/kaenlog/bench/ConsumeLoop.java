package kaenlog.bench;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer half of {@link EndToEndBench}, a JVM of its own like kafka-clients'
 * ConsumerPerformance. That tool subscribes through a consumer group, and kaen-log's Kafka port has
 * no group coordinator (FindCoordinator), so this is its loop on {@code assign()}: partition 0 from
 * the beginning, poll until the given count, the clock started after the first position is known.
 * Prints {@code consumed N records/s R}. Arguments: bootstrap, topic, records.
 */
public final class ConsumeLoop {
    private ConsumeLoop() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        String topic = args[1];
        long records = Long.parseLong(args[2]);
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
            long read = 0;
            long deadline = start + Duration.ofMinutes(5).toNanos();
            while (read < records && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("consumed %d records/s %.1f%n", read, read / seconds);
        }
    }
}
