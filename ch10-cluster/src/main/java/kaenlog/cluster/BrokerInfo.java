package kaenlog.cluster;

/**
 * What a broker registers under {@code /brokers/ids/N}: its id and where to reach it. kaen-log has
 * two listeners, chapter 3's own protocol on {@code port} (the one followers fetch from) and, when
 * chapter 9's is on, Kafka's protocol on {@code kafkaPort} (-1: none). They are registered as
 * Kafka registers listeners: {@code KAENLOG://host:port} and {@code PLAINTEXT://host:kafkaPort}.
 */
public record BrokerInfo(int id, String host, int port, int kafkaPort) {
    /** No Kafka listener. */
    public static final int NO_PORT = -1;
    /** The name of the kaen-log listener in the znode's {@code endpoints}. */
    public static final String KAENLOG_LISTENER = "KAENLOG";
    /** The name of the Kafka listener: Kafka's default listener name. */
    public static final String KAFKA_LISTENER = "PLAINTEXT";

    public BrokerInfo {
        if (id < 0) {
            throw new IllegalArgumentException("a broker id is >= 0: " + id);
        }
    }
}
