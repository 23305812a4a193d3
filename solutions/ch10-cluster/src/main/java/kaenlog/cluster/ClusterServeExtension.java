package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.ServeExtension;
import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/**
 * {@code klog serve --broker-id N --zookeeper H:P[,H:P...]}: the broker joins a cluster whose
 * metadata is in ZooKeeper ({@link ClusterMember}). It opens the port brokers use for each other
 * ({@link InterBrokerListener}: {@code --replication-port}, any free one by default, on the
 * broker's host), the only port where a follower's fetch is taken, and registers it with its
 * kaen-log port and, with {@code --kafka-port}, its Kafka port; {@code --advertised-host} is the
 * host it registers (the listening host by default), for brokers on other machines, and
 * {@code --advertised-port} / {@code --advertised-replication-port} / {@code --advertised-kafka-port}
 * the ports (the listening ones by default), for a broker reached through a proxy or a port forward
 * (reliability's fault harness puts one between the brokers).
 */
public final class ClusterServeExtension implements ServeExtension {
    /** Kafka's default is 18 s (zookeeper.session.timeout.ms); shorter, so a learner sees a failover soon. */
    private static final int DEFAULT_SESSION_MS = 6_000;

    /** After chapter 9's Kafka listener, whose port it registers. */
    @Override
    public int startOrder() {
        return 1;
    }

    @Override
    public Set<String> flags() {
        return Set.of("broker-id", "zookeeper", "advertised-host", "advertised-port", "advertised-kafka-port",
                "replication-port", "advertised-replication-port", "zookeeper-session-timeout-ms");
    }

    @Override
    public String usage() {
        return "[--broker-id N --zookeeper H:P[,H:P...] (chapter 10: join a cluster) [--advertised-host H]"
                + " [--advertised-port P] [--advertised-kafka-port P]"
                + " [--replication-port P (0: any free one; followers fetch there)] [--advertised-replication-port P]"
                + " [--zookeeper-session-timeout-ms MS (6000)]]";
    }

    /** The leadership the broker starts with, made before it listens; null when not in a cluster. */
    private ClusterLeadership leadership;

    /**
     * With {@code --zookeeper}, the broker starts as a member of a cluster that knows nothing yet:
     * it refuses every produce and fetch until it has joined and read its partitions' states.
     */
    @Override
    public BrokerConfig configure(BrokerConfig config, Flags flags) throws UsageException {
        if (!flags.has("zookeeper")) {
            for (String needsACluster : List.of("broker-id", "replication-port", "advertised-replication-port")) {
                if (flags.has(needsACluster)) {
                    throw new UsageException("--" + needsACluster + " needs --zookeeper");
                }
            }
            return config;
        }
        if (!flags.has("broker-id")) {
            throw new UsageException("--zookeeper needs --broker-id");
        }
        leadership = new ClusterLeadership(flags.intValue("broker-id", 0, 0, Integer.MAX_VALUE));
        return config.withLeadership(leadership);
    }

    @Override
    public Optional<Closeable> start(Broker broker, Flags flags, PrintStream out, PrintStream err)
            throws IOException, UsageException {
        if (leadership == null) {
            return Optional.empty();
        }
        int id = leadership.brokerId();
        String address = broker.address();
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String host = flags.string("advertised-host", broker.config().host());
        port = flags.intValue("advertised-port", port, 1, 65_535);
        // chapter 9's listener has started (startOrder): its port is the one it picked when --kafka-port 0
        int kafkaPort = flags.has("kafka-port") && !broker.extraListenerPorts().isEmpty()
                ? broker.extraListenerPorts().get(0) : BrokerInfo.NO_PORT;
        if (flags.has("advertised-kafka-port")) {
            kafkaPort = flags.intValue("advertised-kafka-port", kafkaPort, 1, 65_535);
        }
        int sessionMs = flags.intValue("zookeeper-session-timeout-ms", DEFAULT_SESSION_MS, 1, Integer.MAX_VALUE);
        int replicationPort = InterBrokerListener.start(broker, broker.config().host(),
                flags.intValue("replication-port", 0, 0, 65_535)).port();
        replicationPort = flags.intValue("advertised-replication-port", replicationPort, 1, 65_535);
        ClusterMember member = ClusterMember.join(broker, leadership, flags.string("zookeeper", ""), sessionMs,
                new BrokerInfo(id, host, port, kafkaPort, replicationPort), err, failure -> { });
        out.println("cluster member " + id + " of " + flags.string("zookeeper", ""));
        out.flush();
        return Optional.of(member);
    }
}
