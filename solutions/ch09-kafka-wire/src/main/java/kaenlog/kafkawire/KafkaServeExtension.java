package kaenlog.kafkawire;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import java.util.Set;
import kaenlog.broker.Broker;
import kaenlog.broker.ServeExtension;
import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/** {@code klog serve --kafka-port P}: the Kafka listener beside the kaen-log one, on the same host. */
public final class KafkaServeExtension implements ServeExtension {
    @Override
    public Set<String> flags() {
        return Set.of("kafka-port");
    }

    @Override
    public String usage() {
        return "[--kafka-port P (chapter 9: Kafka's protocol; 0 = any free port)]";
    }

    @Override
    public Optional<Closeable> start(Broker broker, Flags flags, PrintStream out, PrintStream err)
            throws IOException, UsageException {
        if (!flags.has("kafka-port")) {
            return Optional.empty();
        }
        int port = flags.intValue("kafka-port", 9093, 0, 65535);
        String host = broker.config().host();
        KafkaListener listener;
        try {
            listener = KafkaListener.start(broker, host, port, err);
        } catch (IOException e) {
            throw new IOException("cannot listen for Kafka clients on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        out.println("kafka protocol on " + host + ":" + listener.port());
        for (ApiKey key : KafkaApis.answered()) {
            err.println("kafka: answers " + key + " (key " + key.id + ") v" + key.minVersion + "..v" + key.maxVersion);
        }
        out.flush();
        return Optional.of(listener);
    }
}
