package kaenlog.broker;

import java.io.IOException;

/**
 * Where a broker's producer ids come from, and which ids a produce may carry. Chapter 7: this
 * broker's own log of the ids it handed out ({@link InitProducerIdHandler}). Chapter 10: a cluster,
 * whose brokers take blocks of ids from ZooKeeper (Kafka's {@code /latest_producer_id_block}), so no
 * two brokers ever hand out the same id, and a new leader knows that an id it never issued itself
 * is still real: idempotence survives a failover only if the id does.
 */
public interface ProducerIds {
    /** The next producer id, written down before it is returned: never handed out twice, restarts included. */
    long issue(BrokerContext broker) throws IOException;

    /** True when {@code producerId} was handed out (by this broker or, in a cluster, by any). */
    boolean wasIssued(BrokerContext broker, long producerId) throws IOException;

    /**
     * The broker's source of ids: its {@link Leadership} when that hands out ids too (a cluster
     * member), else this broker's own log.
     */
    static ProducerIds of(BrokerContext broker) {
        return broker.leadership() instanceof ProducerIds cluster ? cluster : InitProducerIdHandler.LOCAL;
    }
}
