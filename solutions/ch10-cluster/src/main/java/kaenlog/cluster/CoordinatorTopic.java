package kaenlog.cluster;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.IntUnaryOperator;
import kaenlog.broker.Broker;
import kaenlog.broker.Leadership;
import org.apache.zookeeper.KeeperException;

/**
 * An internal topic whose partitions' leaders are coordinators (given code): {@code __consumer_offsets}
 * for groups, and chapter 11's {@code __transaction_state} for transactional ids. Kafka's
 * {@code KafkaApis.getCoordinator} answers FindCoordinator from it: without the topic, the topic is
 * created and the answer is COORDINATOR_NOT_AVAILABLE; with it, the live leader of the key's partition.
 */
final class CoordinatorTopic {
    private CoordinatorTopic() {
    }

    /**
     * The live broker leading the partition {@code partitionFor} picks for the topic's partition count,
     * else -1; a missing topic is created by {@code create} first (and the answer is -1: the client asks again).
     */
    static int coordinatorId(Leadership.ClusterView view, String topic, IntUnaryOperator partitionFor, Runnable create) {
        List<Leadership.PartitionView> partitions = view.partitions(topic).orElse(List.of());
        if (partitions.isEmpty()) {
            create.run();
            return -1;
        }
        int partition = partitionFor.applyAsInt(partitions.size());
        return partitions.stream().filter(p -> p.partition() == partition).findFirst()
                .map(Leadership.PartitionView::leader)
                .filter(leader -> view.liveBrokers().stream().anyMatch(b -> b.id() == leader)).orElse(-1);
    }

    /**
     * Writes the topic's assignment and configs in ZooKeeper (Kafka's {@code AdminZkClient.createTopic},
     * the assignment of {@code klog topics --zookeeper}); the controller writes the first states. Kafka
     * creates an internal topic with its configured replication factor and refuses while fewer brokers
     * live ("Replication factor: 3 larger than available brokers: 2."): so does this broker, with one
     * rate-limited line naming {@code factorConfig}, and the clients keep asking.
     */
    static void create(Broker broker, ClusterLeadership leadership, Leadership.ClusterView view, String topic,
                       int count, int replicationFactor, String factorConfig, Map<String, String> configs) {
        List<Integer> live = view.liveBrokers().stream().map(Leadership.BrokerEndpoint::id).sorted().toList();
        try {
            SortedMap<Integer, List<Integer>> assignment = ReplicaAssignment.assign(live, count, replicationFactor);
            PartitionStateStore.createAssignment(leadership.session(), topic, assignment, configs);
            broker.trouble(topic, "cluster: broker " + leadership.brokerId() + " created " + topic + ": " + count
                    + " partitions, replication factor " + replicationFactor);
        } catch (KeeperException.NodeExistsException created) {
            // another broker created it first: its states come with the next metadata
        } catch (IllegalArgumentException tooFew) {
            broker.trouble(topic, "cluster: " + topic + " is not created: " + tooFew.getMessage() + " ("
                    + factorConfig + ")");
        } catch (IOException | KeeperException e) {
            broker.trouble(topic, "cluster: " + topic + " is not created: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
