package kaenlog.kafkawire;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import kaenlog.cli.Services;

/**
 * A later chapter's Kafka requests on this listener (chapter 11: the transactional producer's), found
 * with {@code ServiceLoader} ({@code META-INF/services/kaenlog.kafkawire.KafkaApiExtension}) so that
 * this chapter never names a later chapter's classes. It answers the {@link ApiKey}s marked
 * {@link ApiKey#laterChapter} that it lists, the transactional id's FindCoordinator (key type 1) and
 * InitProducerId with a transactional id; without one, those keys are not in ApiVersions' table and
 * a transactional id is refused as before. Each {@link KafkaApis} gets its own instances.
 */
public interface KafkaApiExtension {
    /** The later chapter's keys it answers. */
    Set<ApiKey> answers();

    /**
     * The response body to one request of a key it {@link #answers} (the header read already);
     * {@code groups} are this listener's classic groups (TxnOffsetCommit checks a member's generation).
     */
    byte[] answer(ApiKey key, KafkaReader in, short version, Backend backend, ClassicGroups groups) throws IOException;

    /**
     * FindCoordinator for a transactional id: the error and, when NONE, where its coordinator is; empty
     * when this extension does not coordinate transactions.
     */
    default Optional<Coordinator> transactionCoordinator(String transactionalId, Backend backend, Metadata.Node self)
            throws IOException {
        return Optional.empty();
    }

    /**
     * InitProducerId with a transactional id (its fields parsed already): the response body, or empty
     * when this extension does not coordinate transactions.
     */
    default Optional<byte[]> initProducerId(InitProducerIdApi.Request request, short version, Backend backend)
            throws IOException {
        return Optional.empty();
    }

    /**
     * Its own work at the broker's {@code nowMs}, on the Kafka listener's ticker, for the broker behind
     * {@code backend} (chapter 11: the coordinator aborts transactions past their timeout and sends
     * markers again; after a restart it takes up the transactions its log holds before any client
     * comes back). By default none.
     */
    default void tick(long nowMs, Backend backend) throws IOException {
    }

    /** FindCoordinator's answer for one key: an error, or NONE and the node. */
    record Coordinator(short error, Metadata.Node node) {
    }

    /** New instances of every extension on the classpath, by class name. */
    static List<KafkaApiExtension> load() {
        return Services.load(KafkaApiExtension.class);
    }

    /** Every key some extension on the classpath answers (asked once: the classpath does not change). */
    static Set<ApiKey> answeredKeys() {
        return Holder.KEYS;
    }

    /** The keys, loaded at the first question. */
    final class Holder {
        private static final Set<ApiKey> KEYS = load().stream().flatMap(e -> e.answers().stream())
                .collect(Collectors.toUnmodifiableSet());

        private Holder() {
        }
    }
}
