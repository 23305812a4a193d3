package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import kaenlog.broker.Broker;
import kaenlog.broker.FetchHandler;
import kaenlog.broker.FetchSlice;
import kaenlog.broker.Leadership;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.LogText;
import kaenlog.broker.Partition;
import kaenlog.broker.PartitionConfigs;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.OffsetCommitError;
import kaenlog.coordinator.OffsetsPlacement;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.PartitionOffset;
import kaenlog.log.Log;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * What the Kafka listener uses of the kaen-log broker beside it: the broker's own produce and fetch,
 * called with typed requests (the same code that answers kaen-log's port, so a Kafka produce is
 * judged by chapter 7's idempotence and written by chapter 3's log), and its partitions, each looked
 * up once per Kafka partition. There is no second storage path and no bytes in between: a Kafka
 * partition becomes one kaen-log request object, and its answer a Kafka one.
 *
 * <p>Whether this broker is alone or a member of chapter 10's cluster is its {@link Leadership}'s
 * business: this chapter asks it, and never names the cluster's classes.
 *
 * <p>Names: Kafka's topic {@code orders}, partition 0, is kaen-log's partition {@code orders-0}.
 */
public final class Backend {
    private final Broker broker;
    /**
     * In a cluster: the topics this member auto-created that its view of the cluster does not show yet,
     * with their partitions, counted against max.partitions until it does (guarded by itself).
     */
    private final Map<String, Integer> autoCreating = new HashMap<>();

    public Backend(Broker broker) {
        this.broker = broker;
    }

    /**
     * The broker itself, for a later chapter's requests ({@link KafkaApiExtension}: chapter 11's
     * coordinator keeps its state in the broker's partitions and appends its markers to them).
     */
    public Broker broker() {
        return broker;
    }

    /**
     * kaen-log's partition name for Kafka's topic and partition ({@link PartitionNames#name}, the one
     * place that makes it); a name {@link #nameError} refuses is a {@link kaenlog.wire.MalformedMessageException}.
     */
    public static String partitionName(String topic, int partition) {
        return PartitionNames.name(topic, partition);
    }

    /**
     * Kafka's error for a topic and partition no client may produce to, known before anything is
     * looked up: INVALID_TOPIC_EXCEPTION (17) for a topic name Kafka's {@code Topic.validate} refuses
     * or one of the broker's own ({@code __...}: Kafka's "Cannot append to internal topic"),
     * UNKNOWN_TOPIC_OR_PARTITION (3) for a partition number below 0 (or one too long for a directory
     * name); NONE otherwise.
     */
    public static short nameError(String topic, int partition) {
        if (PartitionNames.topicProblem(topic) != null) {
            return KafkaErrors.INVALID_TOPIC_EXCEPTION;
        }
        if (PartitionNames.problem(topic, partition) != null) {
            return KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return PartitionNames.isInternal(topic) ? KafkaErrors.INVALID_TOPIC_EXCEPTION : KafkaErrors.NONE;
    }

    /**
     * One partition's answer to a Kafka produce, in Kafka's error code: the offset of its first record
     * and the partition's log start offset after the write (both -1 unless written).
     */
    public record Produced(short errorCode, long baseOffset, long logStartOffset) {
        static Produced error(short kafkaError) {
            return new Produced(kafkaError, -1, -1);
        }
    }

    /**
     * One partition of a Kafka produce through the produce this broker's own port answers with
     * (chapter 7's, on this classpath): the partition is looked up once, and only one that exists is
     * written (Kafka creates partitions by CreateTopics or Metadata's auto-create alone); a missing
     * one is the leadership's answer ({@link Leadership#missingPartition}), acks other than 0, 1 and
     * -1 are INVALID_REQUIRED_ACKS. Empty for acks=0, which is never answered. The partition is done with
     * once answered (under max.open.partitions the broker may close it again).
     */
    public Optional<Produced> produce(String partition, short acks, int timeoutMs, ByteBuffer records)
            throws IOException {
        try {
            Optional<Partition> found = broker.existingPartition(partition);
            if (found.isEmpty()) {
                return Optional.of(Produced.error(KafkaErrors.of(broker.leadership().missingPartition(partition))));
            }
            ProduceRequest request;
            try {
                request = new ProduceRequest(partition, acks, timeoutMs, records);
            } catch (MalformedMessageException badAcks) {
                // Kafka's ReplicaManager.appendRecords: acks other than 0, 1 and -1 is INVALID_REQUIRED_ACKS for
                // every partition that exists (a missing one is answered above, as Kafka's KafkaApis answers it first)
                return Optional.of(Produced.error(KafkaErrors.INVALID_REQUIRED_ACKS));
            }
            Optional<ProduceResponse> answer = broker.produceHandler().answer(request, found.get(), broker);
            if (answer.isEmpty()) {
                return Optional.empty();
            }
            ProduceResponse r = answer.get();
            long logStart = r.baseOffset() >= 0 ? found.get().locked(Log::logStartOffset) : -1;
            return Optional.of(new Produced(KafkaErrors.of(r.error()), r.baseOffset(), logStart));
        } finally {
            broker.partitionsDone();
        }
    }

    /**
     * One partition's read for a Kafka fetch, at once: chapter 3's ({@link FetchHandler#read}: the
     * leadership's check with the client's leader epoch, one lookup, the records as file ranges).
     * The partition is done with once read; the slice keeps its segment files open until sent.
     */
    public FetchSlice read(FetchRequest request, boolean minOneMessage) throws IOException {
        try {
            return FetchHandler.read(request, minOneMessage, broker);
        } finally {
            broker.partitionsDone();
        }
    }

    /**
     * Chapter 3's wait for a fetch that found nothing ({@link FetchHandler#readOrPark}): parked on
     * {@code parkOn}'s partition until data or the deadline, then read again.
     */
    public <R extends FetchHandler.Read> R readOrPark(FetchHandler.Reader<R> reader, FetchRequest parkOn)
            throws IOException {
        return FetchHandler.readOrPark(reader, parkOn, broker);
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
     * Creates a topic Metadata was asked for: Kafka's {@code auto.create.topics.enable} (default true)
     * with {@code num.partitions} partitions (default 1), whole, and returns their count; 0 when the
     * broker's config forbids it or when the broker would hold more than {@code max.partitions}: then
     * nothing of the topic is left on disk. In a cluster ({@link ClusterTopics}) any member writes the
     * topic's znodes, {@code default.replication.factor} (1) replicas each, and does not wait for the
     * controller to elect its leaders: Kafka 3.9 in ZooKeeper mode did the same
     * ({@code DefaultAutoTopicCreationManager.createTopicsInZk}, timeout 0), and answered the topic
     * LEADER_NOT_AVAILABLE until its brokers learnt of it; one that a racing request created first
     * counts as created too (Kafka's TOPIC_ALREADY_EXISTS there is LEADER_NOT_AVAILABLE as well).
     */
    public int autoCreate(String topic) throws IOException {
        if (!Boolean.parseBoolean(broker.configs().brokerValue(KafkaConfigKeys.AUTO_CREATE_TOPICS_ENABLE))) {
            return 0;
        }
        Optional<ClusterTopics> cluster = clusterTopics();
        if (cluster.isPresent()) {
            int partitions = numPartitions();
            synchronized (autoCreating) { // one check and creation at a time: the count includes the last one
                if (TopicStore.shapeRefusal(topic, partitions).isPresent() || overMaxPartitions(topic, partitions)) {
                    return 0;
                }
                TopicStore.Result created = cluster.get().create(topic, partitions, TopicStore.REPLICATION_FACTOR,
                        List.of(), Map.of(), false, 0);
                if (created.error() == TopicError.NONE || created.error() == TopicError.REQUEST_TIMED_OUT) {
                    autoCreating.put(topic, partitions);
                }
                return switch (created.error()) {
                    case NONE, REQUEST_TIMED_OUT, TOPIC_ALREADY_EXISTS -> partitions;
                    default -> 0;
                };
            }
        }
        if (creationRefusal().isPresent()) {
            return 0;
        }
        TopicStore.Result created = topicStore().create(topic, numPartitions(), false);
        if (created.error() == TopicError.POLICY_VIOLATION) {
            broker.refusedCreation(created.message());
        }
        return created.error() == TopicError.NONE ? created.partitions() : 0;
    }

    /**
     * In a cluster, Metadata's auto-create is bounded by this broker's {@code max.partitions} counted over
     * the whole cluster ({@link #clusterPartitionsRefusal}). Kafka has no such bound.
     */
    private boolean overMaxPartitions(String topic, int more) {
        Optional<String> refusal = clusterPartitionsRefusal(topic, more);
        refusal.ifPresent(why -> broker.refusedCreation("topic " + topic + " not auto-created: " + why));
        return refusal.isPresent();
    }

    /**
     * Why {@code more} new partitions of {@code topic} may not be made in this broker's cluster, or empty
     * when they may: this broker's {@code max.partitions}, counted over the whole cluster (every topic's
     * partitions, as this broker reads the cluster, and those it auto-created that it has not read yet).
     * Any client may name new topics (Metadata's auto-create, CreateTopics, CreatePartitions), and each
     * partition is znodes and a log directory on some brokers. Kafka has no such bound.
     */
    public Optional<String> clusterPartitionsRefusal(String topic, int more) {
        long max = broker.configs().brokerLong(LogConfigKeys.MAX_PARTITIONS);
        Optional<Leadership.ClusterView> cluster = broker.leadership().cluster();
        long held = 0;
        if (cluster.isPresent()) {
            Leadership.ClusterView view = cluster.get();
            Set<String> known = Set.copyOf(view.topics());
            synchronized (autoCreating) {
                autoCreating.keySet().removeIf(known::contains);
                held = known.stream().mapToLong(t -> view.partitions(t).map(List::size).orElse(0)).sum()
                        + autoCreating.values().stream().mapToLong(Integer::longValue).sum();
            }
        }
        if (held + more <= max) {
            return Optional.empty();
        }
        return Optional.of("its " + more + " partition(s) would make the cluster's " + (held + more)
                + ", over max.partitions (" + max + ")");
    }

    /** {@link #clusterPartitionsRefusal} for {@code topic} grown to {@code count} partitions (CreatePartitions). */
    public Optional<String> clusterGrowthRefusal(String topic, int count) {
        int current = broker.leadership().cluster().flatMap(view -> view.partitions(topic)).map(List::size).orElse(0);
        return count > current ? clusterPartitionsRefusal(topic, count - current) : Optional.empty();
    }

    /** Kafka's {@code num.partitions}: a topic's partitions when its creator does not say (default 1). */
    public int numPartitions() {
        return (int) broker.configs().brokerLong(KafkaConfigKeys.NUM_PARTITIONS);
    }

    /** Why this broker creates no topic a client asks for (a member of a cluster), or empty when it does. */
    public Optional<String> creationRefusal() {
        return broker.leadership().creationRefusal();
    }

    /**
     * The cluster's topics when this broker is a member of one (chapter 10's leadership implements
     * {@link ClusterTopics}: its topics live in ZooKeeper), empty for a broker alone.
     */
    public Optional<ClusterTopics> clusterTopics() {
        return broker.leadership() instanceof ClusterTopics cluster ? Optional.of(cluster) : Optional.empty();
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

    /**
     * What this broker serves and as what (chapter 3's {@link Leadership}): everything, for a broker
     * alone; in chapter 10's cluster, what the cluster's metadata says.
     */
    public Leadership leadership() {
        return broker.leadership();
    }

    /**
     * The cluster this broker answers Metadata from: chapter 10's, as this broker last read it, or, for
     * a broker alone, a cluster of one read from its data directory ({@link BrokerAlone}), whose
     * clients reach it at {@code listener}.
     */
    public Leadership.ClusterView clusterView(Metadata.Node listener) {
        return broker.leadership().cluster().orElseGet(() -> new BrokerAlone(listener, this));
    }

    /** The partition of this kaen-log name, if it exists (looking creates nothing). */
    public Optional<Partition> existingPartition(String name) throws IOException {
        return broker.existingPartition(name);
    }

    /** The configs in force: the broker's, every partition's and every topic's own ({@link TopicConfigs}). */
    public PartitionConfigs configs() {
        return broker.configs();
    }

    /**
     * Replaces the own configs of each topic named, all or none, kept across a restart and in force at
     * once (chapter 3's {@link Broker#alterTopicConfigs}).
     */
    public void alterTopicConfigs(Map<String, Map<String, String>> changes) throws IOException {
        broker.alterTopicConfigs(changes);
    }

    /** The broker's data directory: its one log directory, in Kafka's words (DescribeLogDirs). */
    public java.nio.file.Path dataDir() {
        return broker.config().dataDir();
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

    /**
     * Whether this broker answers {@code group}'s requests now, in Kafka's codes (its
     * {@code validateGroupStatus}): NONE for a broker alone; in chapter 10's cluster
     * COORDINATOR_LOAD_IN_PROGRESS while it reads the group's offsets partition, NOT_COORDINATOR when
     * it does not lead that partition.
     */
    public short coordinatorError(String group) {
        return switch (placement().status(group)) {
            case NONE -> KafkaErrors.NONE;
            case LOAD_IN_PROGRESS -> KafkaErrors.COORDINATOR_LOAD_IN_PROGRESS;
            case NOT_COORDINATOR -> KafkaErrors.NOT_COORDINATOR;
        };
    }

    /** Chapter 6's placement (a cluster member's {@link OffsetsPlacement#NOT_JOINED} until it has joined). */
    private OffsetsPlacement placement() {
        return GroupCoordinator.of(broker).placement();
    }

    /**
     * Where clients reach the coordinator of {@code group} (FindCoordinator): {@code self} for a broker
     * alone; in chapter 10's cluster the live broker that leads the group's offsets partition, empty
     * while none does (or it has no Kafka port).
     */
    public Optional<Metadata.Node> coordinator(String group, Metadata.Node self) {
        return liveNode(placement().coordinatorId(group, self.id()), self);
    }

    /**
     * Where clients reach broker {@code id} on Kafka's protocol: {@code self} for this broker, a live
     * cluster member's registered Kafka port for another, empty for none (-1) or one without a Kafka port.
     */
    public Optional<Metadata.Node> liveNode(int id, Metadata.Node self) {
        if (id == self.id()) {
            return Optional.of(self);
        }
        return broker.leadership().cluster().flatMap(view -> view.liveBrokers().stream()
                .filter(b -> b.id() == id && b.kafkaPort() >= 0).findFirst())
                .map(b -> new Metadata.Node(b.id(), b.host(), b.kafkaPort()));
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
     * Whether {@code group}'s offset of the partition is pending (chapter 11: a transaction's, until its
     * marker), which OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT.
     */
    public boolean pendingOffset(String group, String topic, int partition) throws IOException {
        return GroupCoordinator.of(broker).isPending(broker, new OffsetCommitKey(group, topic, partition));
    }

    /**
     * Chapter 6's coordinator asks {@code groups} how each group's offsets age, and tells it when a
     * group's last offset expired; {@code groups} asks it which groups have offsets, and deletes them.
     */
    public ClassicGroups withOffsets(ClassicGroups.Limits limits, PrintStream log) {
        ClassicGroups groups = new ClassicGroups(limits, broker.nowMs(), log, committedGroups());
        try {
            GroupCoordinator.of(broker).watch(broker, groups.membership(broker::nowMs));
        } catch (IOException unreadable) {
            broker.trouble(GroupCoordinator.OFFSETS_PARTITION, "the groups' metadata was not read: "
                    + unreadable.getMessage() + " (their members rejoin)");
        }
        return groups;
    }

    /**
     * A group's metadata record's append, answered in Kafka's words ({@code GroupMetadataManager.storeGroup}):
     * too few replicas COORDINATOR_NOT_AVAILABLE, no longer the leader NOT_COORDINATOR, not replicated in
     * time REBALANCE_IN_PROGRESS. A record over the offsets partition's max.message.bytes (a group whose
     * members' metadata and assignments, bounded by max.group.bytes, add up to more) is not written and
     * the group goes on unstored, with a line: Kafka answers UNKNOWN_SERVER_ERROR and rebalances, again
     * and again; here such a group is Stable on this coordinator, and its members rejoin on the next.
     */
    private short stored(String group, byte[] value, OffsetCommitError error) {
        return switch (error) {
            case NONE -> KafkaErrors.NONE;
            case BATCH_TOO_LARGE -> {
                broker.trouble("group-metadata-too-large", "kafka: group " + LogText.quote(group) + "'s metadata ("
                        + (value == null ? 0 : value.length) + " bytes) is over the offsets partition's"
                        + " max.message.bytes: not stored (its members rejoin on another coordinator)");
                yield KafkaErrors.NONE;
            }
            case NOT_COORDINATOR, STORAGE_ERROR -> KafkaErrors.NOT_COORDINATOR;
            case TIMED_OUT -> KafkaErrors.REBALANCE_IN_PROGRESS;
            default -> KafkaErrors.COORDINATOR_NOT_AVAILABLE;
        };
    }

    /** Chapter 6's committed offsets, as the classic groups ask for them. */
    private ClassicGroups.Offsets committedGroups() {
        GroupCoordinator coordinator = GroupCoordinator.of(broker);
        // one thread appends the groups' metadata records in the order the groups changed, so that the
        // last record of a group is its latest state; the groups' lock is not held while it waits. What
        // waits is bounded: one record per connection (a request that stores waits for its record) and
        // GroupStoreQueue.UNAWAITED_RECORDS more, and no more bytes than every group holds, max.group.bytes
        GroupStoreQueue stores = new GroupStoreQueue(
                (int) Math.min(Integer.MAX_VALUE, (long) broker.limits().maxConnections() + GroupStoreQueue.UNAWAITED_RECORDS),
                broker.configs().brokerLong(GroupConfigKeys.MAX_HELD_BYTES),
                line -> broker.trouble("group-store-queue", line));
        return new ClassicGroups.Offsets() {
            @Override
            public CompletableFuture<Short> storeGroup(String group, byte[] value) {
                return stores.submit(group, value == null ? 0 : value.length,
                        () -> stored(group, value, coordinator.storeGroup(broker, group, value)));
            }

            /** Nothing more is stored; what is on its way is written first (at most ten seconds). */
            @Override
            public void close() {
                stores.close();
            }

            @Override
            public boolean has(String group) {
                try {
                    return coordinator.hasOffsets(broker, group);
                } catch (IOException unreadable) {
                    return true; // the offsets cannot be read: keep the group
                }
            }

            @Override
            public Set<String> groups() {
                try {
                    return coordinator.groups(broker);
                } catch (IOException unreadable) {
                    return Set.of(); // listed again once they can be read
                }
            }

            @Override
            public boolean delete(String group, Map<String, Set<Integer>> partitions) {
                List<OffsetCommitKey> keys = partitions == null ? null : partitions.entrySet().stream()
                        .flatMap(t -> t.getValue().stream().map(p -> new OffsetCommitKey(group, t.getKey(), p)))
                        .toList();
                try {
                    coordinator.deleteOffsets(broker, group, keys);
                    return true;
                } catch (IOException e) {
                    broker.trouble(GroupCoordinator.partitionFor(group), "a deletion of a group's offsets failed: "
                            + e.getMessage());
                    return false;
                }
            }
        };
    }
}
