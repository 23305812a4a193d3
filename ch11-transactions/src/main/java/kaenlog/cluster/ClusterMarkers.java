package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import kaenlog.broker.Leadership;
import kaenlog.broker.PartitionConfigs;
import kaenlog.kafkawire.KafkaErrors;
import kaenlog.kafkawire.WriteTxnMarkers;
import kaenlog.txn.MarkerChannel;
import kaenlog.txn.TxnMarker;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.PartitionNames.TopicPartition;
import kaenlog.wire.WireConnection;
import org.apache.zookeeper.KeeperException;

/**
 * The markers of a cluster's coordinator (given code; Kafka's {@code TransactionMarkerChannelManager}):
 * each partition's leader, as the metadata last read names it, is sent one WriteTxnMarkers for the
 * partitions it leads, on its inter-broker listener (the {@code REPLICATION} endpoint it registered;
 * this broker's own partitions too, as Kafka's channel sends to the local broker), from a thread of
 * its own: the coordinator, which calls {@link #send} under its lock, never waits on a socket. Each
 * partition is reported with the leader's answer; one without a leader, or whose leader cannot be
 * reached or answers an error, is reported failed, and the coordinator sends it again at its next
 * tick (Kafka's channel retries on its own). A partition of a topic no longer in the metadata counts as
 * written (Kafka skips a deleted topic's partitions).
 */
final class ClusterMarkers implements MarkerChannel, Closeable {
    private final ClusterLeadership leadership;
    private final int readTimeoutMs;
    private final ExecutorService sender;

    ClusterMarkers(ClusterLeadership leadership, PartitionConfigs configs) {
        this.leadership = leadership;
        this.readTimeoutMs = (int) configs.brokerLong(ClusterConfigKeys.REPLICA_SOCKET_TIMEOUT_MS);
        this.sender = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "klog-txn-markers-" + leadership.brokerId());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public void send(TxnMarker marker, long nowMs, Results results) {
        Leadership.ClusterView view = leadership.cluster().orElseThrow();
        Map<Integer, List<TopicPartition>> byLeader = new TreeMap<>();
        for (TopicPartition partition : marker.partitions()) {
            Optional<Leadership.PartitionView> state = view.partitions(partition.topic()).flatMap(all -> all.stream()
                    .filter(p -> p.partition() == partition.partition()).findFirst());
            if (state.isEmpty()) {
                results.written(marker, partition); // its topic was deleted: nothing to end there
            } else if (state.get().leader() < 0) {
                results.failed(marker, partition, partition.name() + " has no leader");
            } else {
                byLeader.computeIfAbsent(state.get().leader(), x -> new ArrayList<>()).add(partition);
            }
        }
        byLeader.forEach((leader, partitions) -> {
            TxnMarker some = marker.only(partitions);
            try {
                sender.execute(() -> deliver(leader, some, results));
            } catch (RejectedExecutionException closed) {
                partitions.forEach(p -> results.failed(marker, p, "the broker is stopping"));
            }
        });
    }

    /** One WriteTxnMarkers to {@code leader}, each partition reported with its answer. */
    private void deliver(int leader, TxnMarker marker, Results results) {
        Map<TopicPartition, Short> errors;
        try (WireConnection connection = connect(leader)) {
            byte[] answer = connection.call(ApiKeys.WRITE_TXN_MARKERS, WriteTxnMarkers.request(List.of(marker)));
            List<Map<TopicPartition, Short>> all = WriteTxnMarkers.parseResponse(answer);
            errors = all.isEmpty() ? Map.of() : all.get(0);
        } catch (IOException | RuntimeException e) {
            marker.partitions().forEach(p -> results.failed(marker, p, "broker " + leader + ": " + e.getMessage()));
            return;
        }
        for (TopicPartition partition : marker.partitions()) {
            short error = errors.getOrDefault(partition, KafkaErrors.UNKNOWN_SERVER_ERROR);
            if (error == KafkaErrors.NONE) {
                results.written(marker, partition);
            } else {
                results.failed(marker, partition, "broker " + leader + " answered error " + error);
            }
        }
    }

    /** A connection to {@code leader}'s inter-broker listener, found in its registration. */
    private WireConnection connect(int leader) throws IOException {
        try {
            BrokerInfo info = BrokerRegistration.read(leadership.session(), leader)
                    .orElseThrow(() -> new IOException("broker " + leader + " is not registered"));
            if (info.replicationPort() == BrokerInfo.NO_PORT) {
                throw new IOException("broker " + leader + " registered no " + BrokerInfo.REPLICATION_LISTENER
                        + " listener");
            }
            return WireConnection.connect(info.host(), info.replicationPort(), readTimeoutMs);
        } catch (KeeperException e) {
            throw new IOException("reading broker " + leader + "'s registration: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void close() {
        sender.shutdownNow();
    }
}
