package kaenlog.cluster;

import java.io.IOException;
import kaenlog.broker.Broker;
import kaenlog.broker.SocketServer;

/**
 * The port brokers use for each other (given code): Kafka's inter-broker listener
 * ({@code inter.broker.listener.name}), registered as {@code REPLICATION://host:port}. It speaks
 * chapter 3's own protocol, as the broker's client port does, with one difference: it is the only
 * port whose follower fetches (replica id >= 0) are taken. On the client port such a fetch is
 * refused ({@link ClusterLeadership#beforeFetch}), so a client cannot pose as a follower and tell a
 * leader what its followers hold.
 *
 * <p>Which listener a request came in on is a property of its connection's thread: each
 * connection is served by a thread of its own, which this listener marks while it serves.
 *
 * <p>What Kafka adds, and kaen-log does not: the inter-broker listener authenticates the broker at
 * the other end (SASL or mutual TLS, {@code security.inter.broker.protocol}), and a Fetch with a
 * replica id is refused unless its principal holds the ClusterAction ACL on the cluster (brokers
 * are usually {@code super.users}). Without an authorizer, Kafka takes a replica fetch on any
 * listener. kaen-log authenticates no one: whoever reaches this port is taken for a broker, which
 * is why it listens on loopback unless told otherwise, and why an operator keeps it where only the
 * brokers reach it.
 */
public final class InterBrokerListener {
    private static final ThreadLocal<Boolean> SERVING = new ThreadLocal<>();

    private InterBrokerListener() {
    }

    /**
     * Opens the listener on {@code host}:{@code port} (0: any free port); it closes with the broker. A
     * follower's fetch is answered as on the client port, its records sent from the segment files.
     */
    public static SocketServer.Listener start(Broker broker, String host, int port) throws IOException {
        SocketServer.ConnectionProtocol kaenLog = broker.kaenLogProtocol();
        return broker.listenKaenLog(host, port, (in, out) -> {
            SERVING.set(Boolean.TRUE);
            try {
                kaenLog.serve(in, out);
            } finally {
                SERVING.remove();
            }
        });
    }

    /** True on a thread serving a connection of the inter-broker listener. */
    static boolean serving() {
        return SERVING.get() == Boolean.TRUE;
    }
}
