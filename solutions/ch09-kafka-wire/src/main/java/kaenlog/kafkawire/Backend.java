package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.batch.BatchHeader;
import kaenlog.broker.Broker;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.OffsetCommitError;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.PartitionOffset;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * What the Kafka listener uses of the kaen-log broker beside it: the broker's own request path
 * ({@link Broker#handle}: the same handlers that answer kaen-log's port, so a Kafka produce is
 * judged by chapter 7's idempotence and written by chapter 3's log) and its partitions. There is
 * no second storage path: a Kafka request is translated into kaen-log's, answered, and the answer
 * translated back.
 *
 * <p>Names: Kafka's topic {@code orders}, partition 0, is kaen-log's partition {@code orders-0}.
 */
public final class Backend {
    private final Broker broker;

    public Backend(Broker broker) {
        this.broker = broker;
    }

    /**
     * kaen-log's partition name for Kafka's topic and partition ({@link PartitionNames#name}, the one
     * place that makes it); a name {@link #nameError} refuses is a {@link kaenlog.wire.MalformedMessageException}.
     */
    public static String partitionName(String topic, int partition) {
        return PartitionNames.name(topic, partition);
    }

    /**
     * Kafka's error for a topic and partition that can have no directory: INVALID_TOPIC_EXCEPTION (17)
     * for a topic name Kafka's {@code Topic.validate} refuses, UNKNOWN_TOPIC_OR_PARTITION (3) for a
     * partition number below 0 (or one too long for a directory name); NONE when it has a name.
     */
    public static short nameError(String topic, int partition) {
        if (PartitionNames.topicProblem(topic) != null) {
            return KafkaErrors.INVALID_TOPIC_EXCEPTION;
        }
        return PartitionNames.problem(topic, partition) == null ? KafkaErrors.NONE : KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    /** kaen-log's produce for one partition; empty for acks=0, which is never answered. */
    public Optional<ProduceResponse> produce(ProduceRequest request) throws IOException {
        return call(kaenlog.wire.ApiKeys.PRODUCE, request.encode()).map(ProduceResponse::decode);
    }

    /** kaen-log's fetch for one partition (it parks like any kaen-log fetch when there is nothing yet). */
    public FetchResponse fetch(FetchRequest request) throws IOException {
        return call(kaenlog.wire.ApiKeys.FETCH, request.encode()).map(FetchResponse::decode)
                .orElseThrow(() -> new IOException("the fetch handler gave no answer"));
    }

    /** Any other kaen-log request, by its kaen-log api key (chapter 7's INIT_PRODUCER_ID, say). */
    public Optional<byte[]> call(short kaenlogApiKey, byte[] body) throws IOException {
        return broker.handle(kaenlogApiKey, body);
    }

    /** The log start offset and high watermark of an existing partition. */
    public long[] startAndHighWatermark(String partition) throws IOException {
        return broker.existingPartition(partition)
                .orElseThrow(() -> new IOException("partition " + partition + " does not exist"))
                .locked(log -> new long[] {log.logStartOffset(), log.highWatermark()});
    }

    /**
     * A lookup by time in an existing partition (chapter 3's time index): the earliest record whose
     * timestamp is at or after {@code timestamp}, or for {@link ListOffsets#MAX_TIMESTAMP} the first
     * record holding the largest timestamp; empty when there is none below the high watermark (what a
     * consumer may fetch bounds what it is told, as Kafka's ReplicaManager does with lastFetchableOffset).
     */
    public Optional<kaenlog.log.Segment.TimestampAndOffset> offsetForTimestamp(String partition, long timestamp)
            throws IOException {
        return broker.existingPartition(partition)
                .orElseThrow(() -> new IOException("partition " + partition + " does not exist"))
                .locked(log -> (timestamp == ListOffsets.MAX_TIMESTAMP ? log.largestTimestamp()
                        : log.offsetForTimestamp(timestamp)).filter(found -> found.offset() < log.highWatermark()));
    }

    /**
     * Creates a topic Metadata was asked for: Kafka's {@code auto.create.topics.enable} (default true)
     * with {@code num.partitions} partitions (default 1), whole, and returns their count; 0 when the
     * broker's config forbids it or when the broker would hold more than {@code max.partitions}: then
     * nothing of the topic is left on disk.
     */
    public int autoCreate(String topic) throws IOException {
        if (!Boolean.parseBoolean(broker.configs().brokerValue(KafkaConfigKeys.AUTO_CREATE_TOPICS_ENABLE))) {
            return 0;
        }
        TopicStore.Result created = topicStore().create(topic, numPartitions(), false);
        if (created.error() == TopicError.POLICY_VIOLATION) {
            broker.refusedCreation(created.message());
        }
        return created.error() == TopicError.NONE ? created.partitions() : 0;
    }

    /** Kafka's {@code num.partitions}: a topic's partitions when its creator does not say (default 1). */
    public int numPartitions() {
        return (int) broker.configs().brokerLong(KafkaConfigKeys.NUM_PARTITIONS);
    }

    /** The broker's topics: created and deleted whole ({@link TopicStore}). */
    public TopicStore topicStore() {
        return new TopicStore(broker);
    }

    /**
     * The partitions this request used so far are done with: the broker may close them again to stay
     * under max.open.partitions. A Kafka request names many partitions; without this, one request
     * naming 10,000 of them would hold all 10,000 open (and 20,000 files) until it is answered.
     */
    public void partitionsDone() {
        broker.partitionsDone();
    }

    /**
     * Every topic with the partition numbers it has on disk, read from the data directory; internal
     * ones ({@code __}) left out. A topic's count is its highest number plus one: a number missing
     * below it is a hole ({@link TopicStore}), which Metadata answers with an error.
     */
    public Map<String, TreeSet<Integer>> topics() throws IOException {
        Map<String, TreeSet<Integer>> topics = new TreeMap<>();
        for (TopicStore.Topic t : topicStore().topics().values()) {
            TreeSet<Integer> present = new TreeSet<>();
            for (int p = 0; p < t.partitionCount(); p++) {
                if (t.has(p)) {
                    present.add(p);
                }
            }
            topics.put(t.name(), present);
        }
        return topics;
    }

    /** The partition of this kaen-log name, if it exists (looking creates nothing). */
    public Optional<kaenlog.broker.Partition> existingPartition(String name) throws IOException {
        return broker.existingPartition(name);
    }

    /** The broker's fetch.max.bytes: the most one Fetch answer carries (but for one batch). */
    public int fetchMaxBytes() {
        return (int) broker.configs().brokerLong(KafkaConfigKeys.FETCH_MAX_BYTES);
    }

    /**
     * True when the partition exists and its log is offline (it could not be opened, or a write to it
     * failed): Metadata then lists its one replica offline and gives it no leader.
     */
    public boolean isOffline(String topic, int partition) throws IOException {
        return broker.existingPartition(partitionName(topic, partition)).map(Partition::isOffline).orElse(false);
    }

    /** Looking creates nothing: only CreateTopics or Metadata's auto-create makes a partition on this port. */
    public boolean exists(String topic, int partition) throws IOException {
        if (PartitionNames.problem(topic, partition) != null) {
            return false; // no directory can hold it: topic 'alias' partition -5 is never 'alias-' partition 5
        }
        return broker.existingPartition(partitionName(topic, partition)).isPresent();
    }

    /**
     * The cluster this broker is a member of (chapter 10's, through chapter 3's {@link Leadership}
     * only: this chapter never names the cluster's classes); empty for a broker alone.
     */
    public Optional<Leadership.ClusterView> cluster() {
        return broker.leadership().cluster();
    }

    /**
     * Kafka's answer for a partition this broker has no log of ({@code ReplicaManager.getPartitionOrError}):
     * NOT_LEADER_OR_FOLLOWER when the cluster's metadata has it (another broker holds it: the client
     * asks Metadata again and goes there), UNKNOWN_TOPIC_OR_PARTITION when no one does.
     */
    public short missingPartitionError(String topic, int partition) {
        boolean known = cluster().flatMap(view -> view.partitions(topic))
                .map(partitions -> partitions.stream().anyMatch(p -> p.partition() == partition)).orElse(false);
        return known ? KafkaErrors.NOT_LEADER_OR_FOLLOWER : KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    /**
     * Before a consumer reads a partition this broker has (Fetch, ListOffsets): the leadership's
     * check, as chapter 3's fetch asks it ({@link Leadership#beforeFetch}, a consumer's fetch that
     * names the leader epoch the client believes in). NONE for a broker alone; in a cluster
     * FENCED_LEADER_EPOCH (74) or UNKNOWN_LEADER_EPOCH (75) when the epoch is older or newer than
     * this broker's, NOT_LEADER_OR_FOLLOWER (6) when it does not lead the partition. A negative
     * epoch is "not checked", as Kafka reads it (KIP-320).
     */
    public short readRefusal(String topic, int partition, long fetchOffset, int currentLeaderEpoch) {
        int epoch = currentLeaderEpoch < 0 ? FetchRequest.NO_LEADER_EPOCH : currentLeaderEpoch;
        FetchRequest asked = new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID, partitionName(topic, partition),
                fetchOffset, 0, 0, epoch);
        return KafkaErrors.of(broker.leadership().beforeFetch(asked, broker.nowMs()));
    }

    /**
     * The leader epoch of the batch at the log start of an existing partition (Kafka answers
     * ListOffsets' EARLIEST with its leader-epoch cache's first epoch, which is that batch's); -1
     * when the log holds no batch.
     */
    public int firstBatchLeaderEpoch(String partition) throws IOException {
        return broker.existingPartition(partition)
                .orElseThrow(() -> new IOException("partition " + partition + " does not exist"))
                .locked(log -> {
                    if (log.logEndOffset() <= log.logStartOffset()) {
                        return -1;
                    }
                    ByteBuffer first = log.read(log.logStartOffset(), 1, FetchIsolation.LOG_END);
                    return first.remaining() < BatchHeader.SIZE ? -1 : BatchHeader.readFrom(first).partitionLeaderEpoch();
                });
    }

    /** The broker's time (the group coordinator's deadlines are on it). */
    public long nowMs() {
        return broker.nowMs();
    }

    /** A broker config, as a number (chapter 9's group configs, say). */
    public long brokerLong(String name) {
        return broker.configs().brokerLong(name);
    }

    /** Waits for an answer another request or the broker's time completes; given up when the broker closes. */
    public <T> T await(java.util.concurrent.CompletableFuture<T> answer) {
        return broker.await(answer);
    }

    /**
     * One commit through chapter 6's group coordinator: the same records in the same
     * {@code __consumer_offsets} log as {@code klog consume --group}'s, so the two are one group;
     * its answer for each partition, in order.
     */
    public List<OffsetCommitError> commitOffsets(String group, List<PartitionOffset> offsets) throws IOException {
        return GroupCoordinator.of(broker).commit(broker, group, offsets);
    }

    /** Whether a commit may name this partition: it exists here, or in the cluster's metadata. */
    public boolean committable(String topic, int partition) throws IOException {
        return GroupCoordinator.partitionExists(broker, topic, partition);
    }

    /** Every latest commit of {@code group}, from the coordinator's memory (the offsets log is read once). */
    public SortedMap<OffsetCommitKey, CommittedOffset> committedOffsets(String group) throws IOException {
        return GroupCoordinator.of(broker).committed(broker, group);
    }

    /**
     * Chapter 6's coordinator asks {@code groups} how each group's offsets age, and tells it when a
     * group's last offset expired; {@code groups} asks it whether a group has offsets.
     */
    public ClassicGroups withOffsets(ClassicGroups.Limits limits, PrintStream log) {
        GroupCoordinator coordinator = GroupCoordinator.of(broker);
        ClassicGroups groups = new ClassicGroups(limits, broker.nowMs(), log, group -> {
            try {
                return coordinator.hasOffsets(broker, group);
            } catch (IOException unreadable) {
                return true; // the offsets cannot be read: keep the group
            }
        });
        coordinator.watch(groups.membership(broker::nowMs));
        return groups;
    }
}
