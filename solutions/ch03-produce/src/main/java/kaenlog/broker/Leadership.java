package kaenlog.broker;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import kaenlog.batch.BatchHeader;
import kaenlog.log.Log;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Which partitions this broker serves, and as what: Kafka's {@code ReplicaManager} asks it before
 * every produce and fetch ({@code getPartitionOrError}: NOT_LEADER_OR_FOLLOWER). A broker alone
 * ({@link #ALONE}, chapters 3 to 9) leads every partition it holds and refuses nothing; chapter
 * 10's cluster gives the broker one that knows, per partition, the leader and its epoch from
 * ZooKeeper, and where a follower's fetch teaches the leader that follower's log end (chapter 8).
 *
 * <p>The broker is given its leadership before it listens ({@link BrokerConfig#withLeadership}),
 * so no request is ever served by a broker that does not know yet what it may serve.
 */
public interface Leadership {
    /** One broker leading every partition it holds: nothing refused, produces create partitions. */
    Leadership ALONE = new Leadership() {
    };

    /**
     * A produce's append, run by {@link #produce} while this broker may take it, as the leader of
     * {@code leaderEpoch}: the log stamps every batch it appends with that epoch
     * ({@code Log.append(batch, leaderEpoch)}, Kafka's {@code appendAsLeader}), -1 stamping none.
     */
    @FunctionalInterface
    interface Append {
        CompletableFuture<ProduceResponse> run(int leaderEpoch) throws IOException;
    }

    /**
     * Runs a produce's {@code append} (chapter 3's path: the produce's own checks, then the log
     * appends and the answer waits as acks says) if this broker may take it, else answers why not:
     * NOT_LEADER_OR_FOLLOWER, or NOT_ENOUGH_REPLICAS for acks=all under {@code min.insync.replicas}
     * (checked BEFORE the append, chapter 8). The check and the append run under one guard no change
     * of role passes (Kafka's {@code Partition.appendRecordsToLeader}: both under the read side of
     * {@code leaderIsrUpdateLock}), at the leader epoch it leads with, and the partition is looked up
     * once for both: a produce checked while this broker led is never written after it stopped
     * leading. A broker alone just appends, with no epoch (one replica has none).
     */
    default CompletableFuture<ProduceResponse> produce(ProduceRequest request, Append append) throws IOException {
        return append.run(BatchHeader.NO_PARTITION_LEADER_EPOCH);
    }

    /**
     * Before a fetch is read: NONE to go on, else the answer (NOT_LEADER_OR_FOLLOWER,
     * FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH). A follower's fetch is where its leader learns the
     * follower's log end offset, from the fetch offset, before it reads (chapter 8).
     */
    default ErrorCode beforeFetch(FetchRequest request, long nowMs) {
        return ErrorCode.NONE;
    }

    /**
     * Before any other read of a partition for a client (ListOffsets): NONE, or the fetch's answers
     * (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH for the epoch the client believes in,
     * {@code currentLeaderEpoch}, {@link FetchRequest#NO_LEADER_EPOCH} when it names none;
     * NOT_LEADER_OR_FOLLOWER).
     */
    default ErrorCode readRefusal(String partition, int currentLeaderEpoch) {
        return ErrorCode.NONE;
    }

    /**
     * The answer for a client's request naming a partition this broker holds no log of (Kafka's
     * {@code ReplicaManager.getPartitionOrError}): UNKNOWN_PARTITION for a broker alone; a member of
     * a cluster answers NOT_LEADER_OR_FOLLOWER when the cluster's metadata has the partition (another
     * broker holds it: the client asks again who does).
     */
    default ErrorCode missingPartition(String partition) {
        return ErrorCode.UNKNOWN_PARTITION;
    }

    /**
     * Why this broker creates no partition a client asks for (a produce naming a new one, a topic
     * created through chapter 9's ports), or empty when it does. A broker alone does. In a cluster a
     * partition exists where the controller's assignment puts it, never where a client happens to
     * write or ask.
     */
    default Optional<String> creationRefusal() {
        return Optional.empty();
    }

    /** Why this broker deletes no topic a client names (chapter 9's ports), or empty when it does. */
    default Optional<String> deletionRefusal() {
        return Optional.empty();
    }

    /**
     * Why this broker makes no change a client asks of an existing topic (its configs, chapter 9's
     * AlterConfigs; its log start, DeleteRecords), or empty when it does. A broker alone does; so does a
     * member of chapter 10's cluster, whose topic configs are written where every replica reads them
     * and whose log starts move on the leader, its followers following.
     */
    default Optional<String> topicChangeRefusal() {
        return Optional.empty();
    }

    /** The leader epoch this broker leads {@code partition} at, as ListOffsets answers LATEST: 0 for a broker alone. */
    default int leaderEpoch(String partition) {
        return 0;
    }

    /**
     * The leader epoch of the batch at {@code log}'s start, as ListOffsets answers EARLIEST (Kafka:
     * its leader-epoch cache's first epoch). A broker alone leads every partition at epoch 0 from its
     * first offset; a cluster's leaders stamp every batch with their epoch.
     */
    default int earliestLeaderEpoch(Log log) throws IOException {
        return 0;
    }

    /** The cluster as this broker knows it, for Kafka's Metadata; empty for a broker alone. */
    default Optional<ClusterView> cluster() {
        return Optional.empty();
    }

    /** A live broker and where clients reach it: kaen-log's port, and Kafka's ({@code kafkaPort} -1: none). */
    record BrokerEndpoint(int id, String host, int port, int kafkaPort) {
    }

    /**
     * One partition as the cluster's metadata holds it: its leader (-1: none, the partition is
     * offline), the leader epoch, the assigned replicas in assignment order, the ISR, and the
     * assigned replicas that are not live.
     */
    record PartitionView(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                         List<Integer> offlineReplicas) {
    }

    /** What Kafka's MetadataCache answers Metadata from. */
    interface ClusterView {
        /** This broker's id in the cluster: the one answering. */
        int brokerId();

        /** The live brokers, by id. */
        List<BrokerEndpoint> liveBrokers();

        /** The controller's broker id, or -1 when there is none. */
        int controllerId();

        /** Every topic with an assignment, sorted. */
        List<String> topics();

        /** A topic's partitions by number, or empty when the cluster has no such topic. */
        Optional<List<PartitionView>> partitions(String topic);
    }
}
