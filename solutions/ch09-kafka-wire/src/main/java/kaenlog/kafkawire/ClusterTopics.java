package kaenlog.kafkawire;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster's topics, changed as Kafka 3.9's brokers changed them in ZooKeeper mode (chapter 10's
 * cluster, whose leadership implements this; this chapter never names it): CreateTopics,
 * CreatePartitions and DeleteTopics answered by the controller alone (NOT_CONTROLLER elsewhere, and
 * the client asks Metadata who it is), topic configs changed by any broker. A broker alone has its
 * topics on its own disk instead ({@link TopicStore}). Every answer is a {@link TopicStore.Result}
 * in Kafka's codes; a write is answered once this broker's metadata shows it done, or
 * REQUEST_TIMED_OUT after {@code timeoutMs} (Kafka's delayed create and delete operations).
 */
public interface ClusterTopics {
    /** True while this broker is the cluster's controller: only the controller creates and deletes. */
    boolean isController();

    /**
     * Creates {@code topic}: {@code assignment} the partitions' replicas, partition by partition (empty:
     * {@code partitions} of {@code replicationFactor} replicas placed as Kafka places them), with its
     * own {@code configs}, already checked by the caller. {@code validateOnly}: checked, nothing written.
     */
    TopicStore.Result create(String topic, int partitions, int replicationFactor, List<List<Integer>> assignment,
                             Map<String, String> configs, boolean validateOnly, int timeoutMs) throws IOException;

    /** Grows {@code topic} to {@code count} partitions; {@code assignment}: the new ones' replicas, or null. */
    TopicStore.Result createPartitions(String topic, int count, List<List<Integer>> assignment, boolean validateOnly,
                                       int timeoutMs) throws IOException;

    /** Marks {@code topic} for deletion; answered once the controller deleted it, as this broker reads the cluster. */
    TopicStore.Result delete(String topic, int timeoutMs) throws IOException;

    /** {@code topic}'s own configs, or empty when the cluster has no such topic. */
    Optional<Map<String, String>> configs(String topic) throws IOException;

    /** Replaces {@code topic}'s own configs (checked by the caller): every broker of the cluster applies them. */
    void alterConfigs(String topic, Map<String, String> configs) throws IOException;
}
