package kaenlog.topics;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ApiKeys;

/**
 * kaen-log's port for topics: the same {@link TopicStore} the Kafka port's CreateTopics, DeleteTopics
 * and Metadata use, so a topic made on one port is the same topic on the other.
 */
public final class TopicHandlers {
    private TopicHandlers() {
    }

    /** CREATE_TOPICS: partitions 0..N-1, whole or not at all. */
    public static final class Create implements RequestHandler {
        @Override
        public short apiKey() {
            return ApiKeys.CREATE_TOPICS;
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            TopicsMessages.Create request = TopicsMessages.Create.decode(body);
            return Optional.of(TopicsMessages.Answer.of(new TopicStore(broker)
                    .create(request.topic(), request.partitions(), false)).encode());
        }
    }

    /** DELETE_TOPICS: every partition closed and removed, the highest first. */
    public static final class Delete implements RequestHandler {
        @Override
        public short apiKey() {
            return ApiKeys.DELETE_TOPICS;
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            TopicsMessages.Named request = TopicsMessages.Named.decode(body);
            return Optional.of(TopicsMessages.Answer.of(new TopicStore(broker).delete(request.topic())).encode());
        }
    }

    /** DESCRIBE_TOPICS: one topic, or every one ("" ), with its count and any partition missing below it. */
    public static final class Describe implements RequestHandler {
        @Override
        public short apiKey() {
            return ApiKeys.DESCRIBE_TOPICS;
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            TopicsMessages.Named request = TopicsMessages.Named.decode(body);
            TopicStore store = new TopicStore(broker);
            if (request.topic().isEmpty()) {
                return Optional.of(new TopicsMessages.Described(TopicError.NONE,
                        List.copyOf(store.topics().values())).encode());
            }
            return Optional.of(store.topic(request.topic())
                    .map(t -> new TopicsMessages.Described(TopicError.NONE, List.of(t)))
                    .orElse(new TopicsMessages.Described(TopicError.UNKNOWN_TOPIC_OR_PARTITION, List.of())).encode());
        }
    }
}
