package kaenlog.kafkawire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import kaenlog.broker.Leadership;

/**
 * A broker alone as Kafka's Metadata describes it: a cluster of one, node {@link Metadata#NODE_ID}
 * at the listener's address, its own controller, leader of every partition in its data directory at
 * leader epoch 0, each with itself as its one replica and its ISR. A partition whose log is offline,
 * or a hole below a topic's highest partition ({@link TopicStore}), has that replica offline and no
 * leader, as Kafka's MetadataCache answers a partition whose only replica is offline (it never
 * answers KAFKA_STORAGE_ERROR in Metadata): a client sends nothing for it and goes on with the others.
 *
 * <p>Every partition 0..N-1 is listed: a topic's count is its highest partition + 1, so a keyed
 * producer's murmur2(key) % N keeps N, and no record goes to the wrong partition. The data directory
 * is read once, at the first question.
 */
final class BrokerAlone implements Leadership.ClusterView {
    private final Metadata.Node self;
    private final Backend backend;
    private Map<String, TreeSet<Integer>> onDisk;

    BrokerAlone(Metadata.Node self, Backend backend) {
        this.self = self;
        this.backend = backend;
    }

    @Override
    public int brokerId() {
        return self.id();
    }

    @Override
    public List<Leadership.BrokerEndpoint> liveBrokers() {
        return List.of(new Leadership.BrokerEndpoint(self.id(), self.host(), self.port(), self.port()));
    }

    @Override
    public int controllerId() {
        return self.id();
    }

    @Override
    public List<String> topics() {
        return List.copyOf(onDisk().keySet());
    }

    @Override
    public Optional<List<Leadership.PartitionView>> partitions(String topic) {
        TreeSet<Integer> present = onDisk().get(topic);
        if (present == null) {
            return Optional.empty();
        }
        List<Leadership.PartitionView> views = new ArrayList<>();
        int count = present.isEmpty() ? 0 : present.last() + 1;
        for (int partition = 0; partition < count; partition++) {
            views.add(present.contains(partition) && !isOffline(topic, partition)
                    ? new Leadership.PartitionView(partition, self.id(), 0, List.of(self.id()), List.of(self.id()),
                            List.of())
                    : new Leadership.PartitionView(partition, -1, 0, List.of(self.id()), List.of(), List.of(self.id())));
        }
        return Optional.of(views);
    }

    private boolean isOffline(String topic, int partition) {
        try {
            return backend.isOffline(topic, partition);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            backend.partitionsDone();
        }
    }

    private Map<String, TreeSet<Integer>> onDisk() {
        if (onDisk == null) {
            try {
                onDisk = backend.topics();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return onDisk;
    }
}
