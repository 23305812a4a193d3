package kaenlog.cluster;

import java.io.IOException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.OffsetsForLeaderEpoch;
import kaenlog.wire.WireConnection;

/**
 * A follower's connection to its leader's inter-broker port ({@link InterBrokerListener}, the
 * REPLICATION listener it registered): chapter 3's frames over chapter 3's {@link WireConnection},
 * the exchange a client uses too (a broker, the server, does not reach up into the client's code).
 */
final class TcpLeaderEndpoint implements ReplicaFetcher.LeaderEndpoint {
    private final WireConnection connection;

    private TcpLeaderEndpoint(WireConnection connection) {
        this.connection = connection;
    }

    /**
     * Connects to {@code leader}'s inter-broker port. A read that waits longer than
     * {@code readTimeoutMs} fails (Kafka's replica.socket.timeout.ms): a leader stopped, not dead,
     * must not hold its followers forever.
     */
    static TcpLeaderEndpoint connect(BrokerInfo leader, int readTimeoutMs) throws IOException {
        if (leader.replicationPort() == BrokerInfo.NO_PORT) {
            throw new IOException("broker " + leader.id() + " registered no " + BrokerInfo.REPLICATION_LISTENER
                    + " listener: it takes no follower's fetch");
        }
        return new TcpLeaderEndpoint(WireConnection.connect(leader.host(), leader.replicationPort(), readTimeoutMs));
    }

    @Override
    public FetchResponse fetch(FetchRequest request) throws IOException {
        return FetchResponse.decode(connection.call(ApiKeys.FETCH, request.encode()));
    }

    @Override
    public OffsetsForLeaderEpoch.Response offsetsForLeaderEpoch(OffsetsForLeaderEpoch.Request request)
            throws IOException {
        return OffsetsForLeaderEpoch.Response.decode(connection.call(OffsetsForLeaderEpoch.API_KEY, request.encode()));
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
