package kaenlog.kafkawire;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Admin;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What a test with the real clients starts from: a broker, its Kafka port open on 127.0.0.1 (a port
 * the system chooses), the {@link Preflight} run, and the client settings every such test shares.
 */
final class KafkaPortFixture implements Closeable {
    final Broker broker;
    final KafkaListener listener;

    private KafkaPortFixture(Broker broker, KafkaListener listener) {
        this.broker = broker;
        this.listener = listener;
    }

    /** Starts both, each writing its lines to {@code log} (for the failure messages), then the preflight. */
    static KafkaPortFixture start(BrokerConfig config, ByteArrayOutputStream log) throws IOException {
        PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
        Broker broker = Broker.start(config, out);
        KafkaListener listener = null;
        boolean ready = false;
        try {
            listener = KafkaListener.start(broker, "127.0.0.1", 0, out);
            Preflight.run(broker);
            ready = true;
            return new KafkaPortFixture(broker, listener);
        } finally {
            if (!ready) { // a preflight that failed on a TODO leaves no broker running behind it
                if (listener != null) {
                    listener.close();
                }
                broker.close();
            }
        }
    }

    int port() {
        return listener.port();
    }

    /** A producer of string keys and values, acks=all, to {@code port}: this broker's, or a proxy's in front of it. */
    static Properties producerConfig(int port) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }

    /** A consumer of string keys and values without a group: assigned, it commits nothing and starts at the earliest. */
    static Properties consumerConfig(int port) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }

    /** An AdminClient of this broker's Kafka port, its calls given 30 s. */
    Admin admin() {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(config);
    }

    /** The failure of a client's call ({@code null} when it worked), waited for at most 30 s. */
    static Throwable cause(Future<?> future) {
        try {
            future.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
    }

    @Override
    public void close() {
        listener.close();
        broker.close();
    }
}
