package kaenlog.cluster;

/**
 * What a broker registers under {@code /brokers/ids/N}: its id and where to reach it. kaen-log has
 * three listeners: chapter 3's own protocol for clients on {@code port}; the same protocol for the
 * other brokers on {@code replicationPort}, the only port that takes a follower's fetch (Kafka's
 * inter-broker listener, {@code inter.broker.listener.name}); and, when chapter 9's is on, Kafka's
 * protocol on {@code kafkaPort}. -1 is a listener the broker does not have. They are registered as
 * Kafka registers listeners: {@code KAENLOG://host:port}, {@code REPLICATION://host:replicationPort}
 * and {@code PLAINTEXT://host:kafkaPort}.
 */
public record BrokerInfo(int id, String host, int port, int kafkaPort, int replicationPort) {
    /** No such listener. */
    public static final int NO_PORT = -1;
    /** The name of the kaen-log listener in the znode's {@code endpoints}. */
    public static final String KAENLOG_LISTENER = "KAENLOG";
    /** The name of the Kafka listener: Kafka's default listener name. */
    public static final String KAFKA_LISTENER = "PLAINTEXT";
    /** The name of the listener brokers use for each other: followers fetch there, and only there. */
    public static final String REPLICATION_LISTENER = "REPLICATION";

    public BrokerInfo {
        if (id < 0) {
            throw new IllegalArgumentException("a broker id is >= 0: " + id);
        }
    }
}
