package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import kaenlog.broker.Broker;
import kaenlog.broker.ServeExtension;
import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/**
 * {@code klog serve --broker-id N --zookeeper H:P[,H:P...]}: the broker joins a cluster whose
 * metadata is in ZooKeeper ({@link ClusterMember}). It registers its kaen-log port and, with
 * {@code --kafka-port}, its Kafka port; {@code --advertised-host} is the host it registers (the
 * listening host by default), for brokers on other machines.
 */
public final class ClusterServeExtension implements ServeExtension {
    /** Kafka's default is 18 s (zookeeper.session.timeout.ms); shorter, so a learner sees a failover soon. */
    private static final int DEFAULT_SESSION_MS = 6_000;

    @Override
    public Set<String> flags() {
        return Set.of("broker-id", "zookeeper", "advertised-host", "zookeeper-session-timeout-ms");
    }

    @Override
    public String usage() {
        return "[--broker-id N --zookeeper H:P[,H:P...] (chapter 10: join a cluster) [--advertised-host H]"
                + " [--zookeeper-session-timeout-ms MS (6000)]]";
    }

    @Override
    public Optional<Closeable> start(Broker broker, Flags flags, PrintStream out, PrintStream err)
            throws IOException, UsageException {
        if (!flags.has("zookeeper")) {
            if (flags.has("broker-id")) {
                throw new UsageException("--broker-id needs --zookeeper");
            }
            return Optional.empty();
        }
        if (!flags.has("broker-id")) {
            throw new UsageException("--zookeeper needs --broker-id");
        }
        int id = flags.intValue("broker-id", 0, 0, Integer.MAX_VALUE);
        String address = broker.address();
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String host = flags.string("advertised-host", broker.config().host());
        int kafkaPort = flags.has("kafka-port") ? flags.intValue("kafka-port", 0, 0, 65_535) : BrokerInfo.NO_PORT;
        int sessionMs = flags.intValue("zookeeper-session-timeout-ms", DEFAULT_SESSION_MS, 1, Integer.MAX_VALUE);
        ClusterMember member = ClusterMember.join(flags.string("zookeeper", ""), sessionMs,
                new BrokerInfo(id, host, port, kafkaPort == 0 ? BrokerInfo.NO_PORT : kafkaPort),
                registrationMs(broker), err);
        out.println("cluster member " + id + " of " + flags.string("zookeeper", ""));
        out.flush();
        return Optional.of(member);
    }

    /** The registration's timestamp: the broker's wall clock, or its virtual time (--now-ms). */
    private static long registrationMs(Broker broker) {
        LongSupplier clock = broker.config().clock();
        return clock != null ? clock.getAsLong() : broker.config().startNowMs();
    }
}
