package kaenlog.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;

/**
 * Kafka 4.1.1 as a process of its own for {@link EndToEndBench}: the same one-node KRaft broker
 * {@link KafkaWireBench} starts in-process, started here in a JVM of its own so that the bench
 * compares two servers as a user runs them. Prints {@code bootstrap HOST:PORT} once it is ready and
 * stops when its standard input closes. Arguments: the data directory, the number of brokers (1 by
 * default; more for {@link KafkaClusterBench}'s three, one of them the KRaft controller too), then
 * broker configs as {@code key=value} ({@link LatencyBench}'s bounded log).
 */
public final class KafkaBrokerMain {
    private KafkaBrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        int brokers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Map<String, String> configs = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            configs.put(kv[0], kv[1]);
        }
        try (KafkaClusterTestKit kafka = KafkaWireBench.startKafka(dir, brokers, configs)) {
            System.out.println("bootstrap " + kafka.bootstrapServers());
            System.out.flush();
            waitForEndOfInput();
        }
        System.exit(0); // the test kit leaves non-daemon threads behind
    }

    private static void waitForEndOfInput() throws IOException {
        while (System.in.read() >= 0) {
            // the bench closes our stdin to stop us
        }
    }
}
