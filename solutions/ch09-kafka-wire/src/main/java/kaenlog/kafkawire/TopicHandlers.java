package kaenlog.kafkawire;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.Topics;

/**
 * kaen-log's port for topics ({@link Topics}): the same {@link TopicStore} the Kafka port's
 * CreateTopics, DeleteTopics and Metadata use, so a topic made on one port is the same topic on the
 * other.
 */
public final class TopicHandlers {
    private TopicHandlers() {
    }

    static Topics.Answer answer(TopicStore.Result result) {
        return new Topics.Answer(result.error().name(), result.message() == null ? "" : result.message(),
                result.partitions());
    }

    /** CREATE_TOPICS: partitions 0..N-1, whole or not at all. */
    public static final class Create implements RequestHandler {
        @Override
        public short apiKey() {
            return ApiKeys.CREATE_TOPICS;
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            Topics.Create request = Topics.Create.decode(body);
            return Optional.of(answer(new TopicStore(broker).create(request.topic(), request.partitions(), false))
                    .encode());
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
            Topics.Named request = Topics.Named.decode(body);
            return Optional.of(answer(new TopicStore(broker).delete(request.topic())).encode());
        }
    }

    /** DESCRIBE_TOPICS: one topic, or every one (""), with its count and any partition missing below it. */
    public static final class Describe implements RequestHandler {
        @Override
        public short apiKey() {
            return ApiKeys.DESCRIBE_TOPICS;
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            Topics.Named request = Topics.Named.decode(body);
            TopicStore store = new TopicStore(broker);
            List<TopicStore.Topic> found = request.topic().isEmpty() ? List.copyOf(store.topics().values())
                    : store.topic(request.topic()).map(List::of).orElse(List.of());
            String error = found.isEmpty() && !request.topic().isEmpty() ? TopicError.UNKNOWN_TOPIC_OR_PARTITION.name()
                    : Topics.NONE;
            return Optional.of(new Topics.Described(error, Metadata.NODE_ID, TopicStore.REPLICATION_FACTOR,
                    found.stream().map(t -> new Topics.Description(t.name(), t.partitionCount(), t.missing())).toList())
                    .encode());
        }
    }
}
