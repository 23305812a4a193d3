package kaenlog.coordinator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import kaenlog.broker.BackgroundTask;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;
import kaenlog.broker.MessageSizeLimit;
import kaenlog.broker.Partition;
import kaenlog.cli.Services;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.CommittedOffsets;
import kaenlog.groups.GroupActivity;
import kaenlog.groups.GroupOffsetsLog;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.OffsetExpiry;
import kaenlog.groups.PartitionOffset;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.logmanager.CleanupConfigs;
import kaenlog.wire.PartitionNames;

/**
 * The part of Kafka's group coordinator kaen-log has: committed offsets, kept in chapter 6's
 * {@link GroupOffsetsLog} on the broker's internal partition {@value #OFFSETS_PARTITION}, which Kafka
 * creates compacted ({@code cleanup.policy=compact}), so the cleaner keeps about one record per
 * (group, topic, partition). One instance per broker (a {@link BrokerExtension}, found by the
 * handlers through {@link BrokerContext#extension}): it reads an offsets partition once, the first
 * time it is needed ({@link #load}: Kafka loads a partition's groups when its broker becomes that
 * partition's leader), keeps it in memory ({@link CommittedOffsets}) and answers OffsetFetch from
 * there; {@link #unload} forgets it (Kafka: when the broker stops leading it).
 *
 * <p>What a client makes it keep is bounded: a commit names partitions that exist (Kafka's
 * UNKNOWN_TOPIC_OR_PARTITION otherwise, nothing written), metadata of at most
 * {@code offset.metadata.max.bytes} (4096, Kafka's), one batch of at most the partition's
 * {@code max.message.bytes}, and all commits together hold at most {@value #MAX_OFFSET_BYTES}.
 * Offsets expire after {@code offsets.retention.minutes} ({@link OffsetExpiry}), checked every
 * {@code offsets.retention.check.interval.ms} by a background task that writes their tombstones.
 */
public final class GroupCoordinator implements BrokerExtension {
    /** Kafka's internal topic of committed offsets. */
    public static final String OFFSETS_TOPIC = "__consumer_offsets";
    public static final String OFFSETS_PARTITION = OFFSETS_TOPIC + "-0";
    /**
     * Kafka's {@code offsets.topic.num.partitions} default: a broker alone uses partition 0 only;
     * chapter 10's cluster spreads the groups over as many partitions as it is configured with, at
     * most these, each one declared compacted here.
     */
    public static final int DEFAULT_OFFSETS_PARTITIONS = 50;
    /**
     * The offsets partition's segment.bytes. Kafka's {@code offsets.topic.segment.bytes} is 100 MiB;
     * kaen-log's is 1 MiB: its cleaner holds a segment's batches in memory while it rewrites it
     * (Kafka's streams them through a fixed buffer), and only closed segments are cleaned, so a log
     * of a few live keys is compacted after a megabyte of commits, not a hundred.
     */
    public static final String OFFSETS_SEGMENT_BYTES = Integer.toString(1024 * 1024);
    /** Kafka's name and default (10080 minutes, seven days). */
    public static final String RETENTION_MINUTES = "offsets.retention.minutes";
    /** What a cluster's expiry is told of a tombstone batch it will append after the partition's lock: no offsets yet. */
    private static final AppendInfo NOT_APPENDED_YET = new AppendInfo(-1, -1, 0);
    /** Kafka's name and default (600000 ms). */
    public static final String RETENTION_CHECK_INTERVAL_MS = "offsets.retention.check.interval.ms";
    /** Kafka's name and default (4096); Kafka compares the metadata's length in characters. */
    public static final String METADATA_MAX_BYTES = "offset.metadata.max.bytes";
    /** kaen-log's own: the bytes of committed offsets held in memory, all groups together. */
    public static final String MAX_OFFSET_BYTES = "max.committed.offset.bytes";

    /** Offsets partition -> its committed offsets, loaded. */
    private final Map<String, CommittedOffsets> loaded = new ConcurrentHashMap<>();
    private volatile GroupMembership membership = GroupMembership.NONE;
    private volatile OffsetsPlacement placement = OffsetsPlacement.ALONE;
    /** How a partition is read into memory: chapter 6's replay, or a later chapter's (chapter 11: transactions). */
    private final OffsetsLoader loader = Services.load(OffsetsLoader.class).stream().findFirst()
            .orElse(OffsetsLoader.PLAIN);

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(RETENTION_MINUTES, OffsetExpiry.DEFAULT_RETENTION_MINUTES, 1, Integer.MAX_VALUE,
                        ConfigKey.Scope.BROKER, 6, "minutes a committed offset is kept after its group became empty,"
                                + " or after its commit for a group without members (Kafka's default 10080)"),
                ConfigKey.whole(RETENTION_CHECK_INTERVAL_MS, 600_000, 1, Long.MAX_VALUE, ConfigKey.Scope.BROKER, 6,
                        "how often expired offsets are looked for (Kafka's default 600000)"),
                ConfigKey.whole(METADATA_MAX_BYTES, 4096, 0, 10_000, ConfigKey.Scope.BROKER, 6,
                        "the longest metadata a committed offset may carry, in characters (Kafka's default 4096)"),
                ConfigKey.whole(MAX_OFFSET_BYTES, 16L * 1024 * 1024, 1024, Long.MAX_VALUE, ConfigKey.Scope.BROKER, 6,
                        "bytes of committed offsets the coordinator holds in memory (kaen-log's own bound)"));
    }

    @Override
    public Map<String, Map<String, String>> internalPartitions() {
        Map<String, Map<String, String>> partitions = new TreeMap<>();
        for (int n = 0; n < DEFAULT_OFFSETS_PARTITIONS; n++) {
            partitions.put(OFFSETS_TOPIC + "-" + n, Map.of(CleanupConfigs.CLEANUP_POLICY, CleanupConfigs.COMPACT,
                    "segment.bytes", OFFSETS_SEGMENT_BYTES));
        }
        return partitions;
    }

    /** A cluster member's coordinator answers for no group until chapter 10 places the offsets at its join. */
    @Override
    public void opened(BrokerContext broker) {
        if (broker.leadership().cluster().isPresent()) {
            placement = OffsetsPlacement.NOT_JOINED;
        }
    }

    @Override
    public List<BackgroundTask> backgroundTasks() {
        return List.of(new OffsetsExpiryTask(this));
    }

    /** This broker's coordinator. */
    public static GroupCoordinator of(BrokerContext broker) {
        return broker.extension(GroupCoordinator.class).orElseThrow(() -> new IllegalStateException(
                "the group coordinator (chapter 6) is not registered in META-INF/services/kaenlog.broker.BrokerExtension"));
    }

    /**
     * The offsets partition that keeps {@code group}'s commits. Kafka hashes the group id over
     * {@code offsets.topic.num.partitions} (50) partitions of {@code __consumer_offsets}, each led
     * by a broker that is the coordinator of its groups; kaen-log's broker has one.
     */
    public static String partitionFor(String group) {
        return OFFSETS_PARTITION;
    }

    /**
     * From now on the groups' offsets live where {@code where} says (chapter 10's cluster: the leader
     * of the group's {@code __consumer_offsets} partition coordinates it).
     */
    public void placeIn(OffsetsPlacement where) {
        this.placement = where;
    }

    /** Where the groups' offsets live: {@link OffsetsPlacement#ALONE} unless a cluster said otherwise. */
    public OffsetsPlacement placement() {
        return placement;
    }

    /** The offsets partition of {@code group}, as the placement says. */
    private String offsetsPartition(String group) {
        return placement.partitionFor(group);
    }

    /**
     * Reads {@code partition} again from its log (chapter 10: this broker just became its leader, and
     * what it held before may be stale); until it is read, a group of it is not answered.
     */
    public void reload(Partition partition) throws IOException {
        loaded.remove(partition.name());
        handed.remove(partition.name());
        load(partition);
    }

    /**
     * From now on the groups' activity comes from {@code groups} (chapter 9's classic groups), and the
     * groups' metadata records of the partitions this broker coordinates go to them: a broker alone
     * reads its offsets partition now (a restarted one finds its groups' members where they were), a
     * cluster member hands over what it already loaded.
     */
    public void watch(BrokerContext broker, GroupMembership groups) throws IOException {
        this.membership = groups;
        for (String name : new TreeSet<>(placement.owned())) {
            Optional<Partition> existing = broker.existingPartition(name);
            if (existing.isEmpty()) {
                continue; // nothing committed nor stored yet: the partition is made at its first use, as before
            }
            Partition partition = existing.get();
            if (loaded.containsKey(name) && handed.add(name)) {
                groups.loaded(partition.locked(log -> new GroupOffsetsLog(log).groupMetadata()));
            } else {
                load(partition);
            }
        }
    }

    /** The loaded partitions whose groups' metadata went to {@link #membership}. */
    private final Set<String> handed = ConcurrentHashMap.newKeySet();

    /**
     * Reads {@code partition}'s offsets once (under its lock) and keeps them; the loaded ones after that.
     * A fresh read hands the groups' metadata records to the membership too (Kafka's {@code onGroupLoaded}),
     * once the partition's lock is released (chapter 9's groups take it to ask about offsets).
     */
    CommittedOffsets load(Partition partition) throws IOException {
        CommittedOffsets offsets = loaded.get(partition.name());
        if (offsets != null) {
            return offsets;
        }
        GroupMembership groups = membership;
        SortedMap<String, byte[]> metadata = new TreeMap<>();
        CommittedOffsets read = partition.locked(log -> {
            CommittedOffsets again = loaded.get(partition.name());
            if (again != null) {
                return again;
            }
            GroupOffsetsLog offsetsLog = new GroupOffsetsLog(log);
            CommittedOffsets fresh = loader.load(partition.name(), offsetsLog);
            if (groups != GroupMembership.NONE) {
                metadata.putAll(offsetsLog.groupMetadata());
                handed.add(partition.name());
            } else {
                handed.remove(partition.name());
            }
            loaded.put(partition.name(), fresh);
            return fresh;
        });
        if (!metadata.isEmpty()) {
            groups.loaded(metadata);
        }
        return read;
    }

    /**
     * Appends {@code group}'s metadata record ({@code value}, chapter 9's bytes), or its tombstone when
     * {@code value} is null, to the group's offsets partition as a commit is: to the log of a broker
     * alone, through the placement with acks=all in a cluster (Kafka's {@code storeGroup} appends it
     * with {@code requiredAcks = -1}). A record over the partition's max.message.bytes is refused.
     */
    public OffsetCommitError storeGroup(BrokerContext broker, String group, byte[] value) {
        String name = offsetsPartition(group);
        if (placement.status(group) != OffsetsPlacement.Status.NONE) {
            return OffsetCommitError.NOT_COORDINATOR;
        }
        if (GroupOffsetsLog.groupMetadataBytes(group, value) > MessageSizeLimit.maxMessageBytes(broker.configs(), name)) {
            return OffsetCommitError.BATCH_TOO_LARGE;
        }
        try {
            Partition partition = broker.partition(name);
            load(partition);
            return placement.append(broker, partition, GroupOffsetsLog.groupMetadataBatch(group, value, broker.nowMs()))
                    .error();
        } catch (IOException e) {
            broker.trouble(name, "a group's metadata was not written: " + name + ": " + e.getMessage());
            return OffsetCommitError.STORAGE_ERROR;
        }
    }

    /**
     * Forgets what was loaded of {@code partition}: the next use reads it again. The groups' members
     * of that partition go too (Kafka's {@code onGroupUnloaded}): another broker coordinates them now.
     */
    public void unload(String partition) {
        loaded.remove(partition);
        handed.remove(partition);
        loader.unloaded(partition);
        OffsetsPlacement where = placement;
        membership.unloaded(group -> where.partitionFor(group).equals(partition));
    }

    /** This broker's {@link OffsetsLoader}: chapter 6's, or the one a later chapter registered. */
    public OffsetsLoader loader() {
        return loader;
    }

    /** What a later chapter does with {@code group}'s offsets partition, under its lock. */
    @FunctionalInterface
    public interface OffsetsWork<T> {
        T run(String partition, Log log, CommittedOffsets offsets) throws IOException;
    }

    /**
     * Runs {@code work} on {@code group}'s offsets partition, loaded, under its lock (chapter 11
     * writes a transaction's offsets there, and materialises them at its marker). A broker alone
     * only: in chapter 10's cluster a write must go through the placement.
     */
    public <T> T withOffsetsOf(BrokerContext broker, String group, OffsetsWork<T> work) throws IOException {
        return withOffsetsPartition(broker, offsetsPartition(group), work);
    }

    /** The same, on the offsets partition named {@code name} (chapter 11: the one a marker was written to). */
    public <T> T withOffsetsPartition(BrokerContext broker, String name, OffsetsWork<T> work) throws IOException {
        if (!placement.alone()) {
            throw new IOException("a later chapter's offsets are written on a broker alone only");
        }
        Partition partition = broker.partition(name);
        CommittedOffsets offsets = load(partition);
        return partition.locked(log -> work.run(partition.name(), log, offsets));
    }

    /** Whether {@code key} has an offset pending ({@link OffsetsLoader#isPending}): OffsetFetch's require_stable. */
    public boolean isPending(BrokerContext broker, OffsetCommitKey key) throws IOException {
        if (placement.status(key.group()) != OffsetsPlacement.Status.NONE) {
            return false;
        }
        Partition partition = broker.partition(offsetsPartition(key.group()));
        load(partition);
        return partition.locked(log -> loader.isPending(partition.name(), key));
    }

    // ---- commits ------------------------------------------------------------------------------------

    /**
     * One commit of {@code group}, the coordinator's answer for each of its partitions (in order):
     * the valid ones that exist are written as one batch, or none of them is.
     */
    public List<OffsetCommitError> commit(BrokerContext broker, String group, List<PartitionOffset> offsets)
            throws IOException {
        List<OffsetCommitError> answers = new ArrayList<>(Collections.nCopies(offsets.size(), OffsetCommitError.NONE));
        List<PartitionOffset> valid = new ArrayList<>();
        List<Integer> validAt = new ArrayList<>();
        long maxMetadata = broker.configs().brokerLong(METADATA_MAX_BYTES);
        for (int i = 0; i < offsets.size(); i++) {
            OffsetCommitError error = check(broker, group, offsets.get(i), maxMetadata);
            answers.set(i, error);
            if (error == OffsetCommitError.NONE) {
                valid.add(offsets.get(i));
                validAt.add(i);
            }
        }
        if (valid.isEmpty()) {
            return answers;
        }
        OffsetCommitError written = write(broker, group, valid);
        validAt.forEach(i -> answers.set(i, written));
        return answers;
    }

    private static OffsetCommitError check(BrokerContext broker, String group, PartitionOffset p, long maxMetadata)
            throws IOException {
        if (group.isEmpty() || p.offset() < 0 || p.topic().isEmpty()) {
            return OffsetCommitError.INVALID;
        }
        if (!partitionExists(broker, p.topic(), p.partition())) {
            return OffsetCommitError.UNKNOWN_PARTITION;
        }
        return p.metadata().length() > maxMetadata ? OffsetCommitError.METADATA_TOO_LARGE : OffsetCommitError.NONE;
    }

    /**
     * Kafka answers a commit for a topic or partition its metadata does not have
     * UNKNOWN_TOPIC_OR_PARTITION and writes nothing for it ({@code KafkaApis.handleOffsetCommitRequest}):
     * here, a partition this broker holds, or one its cluster's metadata names.
     */
    public static boolean partitionExists(BrokerContext broker, String topic, int partition) throws IOException {
        if (PartitionNames.problem(topic, partition) != null) {
            return false;
        }
        if (broker.existingPartition(PartitionNames.name(topic, partition)).isPresent()) {
            return true;
        }
        return broker.leadership().cluster().flatMap(view -> view.partitions(topic))
                .map(all -> all.stream().anyMatch(p -> p.partition() == partition)).orElse(false);
    }

    private OffsetCommitError write(BrokerContext broker, String group, List<PartitionOffset> valid) {
        String name = offsetsPartition(group);
        if (GroupOffsetsLog.commitBytes(group, valid) > MessageSizeLimit.maxMessageBytes(broker.configs(), name)) {
            return OffsetCommitError.BATCH_TOO_LARGE;
        }
        long maxBytes = broker.configs().brokerLong(MAX_OFFSET_BYTES);
        long nowMs = broker.nowMs();
        if (placement.status(group) != OffsetsPlacement.Status.NONE) {
            return OffsetCommitError.NOT_COORDINATOR; // looking the partition up would create it here
        }
        try {
            Partition partition = broker.partition(name);
            CommittedOffsets offsets = load(partition);
            if (!placement.alone()) {
                return writeReplicated(broker, partition, offsets, group, valid, maxBytes, nowMs);
            }
            return partition.locked(log -> {
                if (offsets.heldBytes() + growth(offsets, group, valid) > maxBytes) {
                    return OffsetCommitError.COORDINATOR_FULL;
                }
                offsets.commit(new GroupOffsetsLog(log), group, valid, nowMs);
                return OffsetCommitError.NONE;
            });
        } catch (IOException e) {
            broker.trouble(name, "a commit of group's offsets failed: " + name + ": " + e.getMessage());
            return OffsetCommitError.STORAGE_ERROR;
        }
    }

    /**
     * A commit in chapter 10's cluster: appended by the offsets partition's leader through the
     * placement, and remembered only once it is committed (Kafka's {@code storeOffsets}: the cache is
     * updated in the append's callback), so that no OffsetFetch answers an offset a failover may lose.
     */
    private OffsetCommitError writeReplicated(BrokerContext broker, Partition partition, CommittedOffsets offsets,
                                              String group, List<PartitionOffset> valid, long maxBytes, long nowMs)
            throws IOException {
        boolean full = partition.locked(log -> offsets.heldBytes() + growth(offsets, group, valid) > maxBytes);
        if (full) {
            return OffsetCommitError.COORDINATOR_FULL;
        }
        OffsetsPlacement.Appended appended = placement.append(broker, partition,
                GroupOffsetsLog.commitBatch(group, valid, nowMs));
        if (appended.error() == OffsetCommitError.NONE) {
            partition.locked(log -> {
                offsets.appended(group, valid, appended.firstOffset(), nowMs);
                return null;
            });
        }
        return appended.error();
    }

    /** How many more bytes memory holds once {@code valid} is remembered. */
    private static long growth(CommittedOffsets offsets, String group, List<PartitionOffset> valid) {
        long growth = 0;
        Map<OffsetCommitKey, String> latest = new HashMap<>();
        for (PartitionOffset p : valid) {
            latest.put(new OffsetCommitKey(group, p.topic(), p.partition()), p.metadata());
        }
        for (Map.Entry<OffsetCommitKey, String> e : latest.entrySet()) {
            growth += CommittedOffsets.bytesOf(e.getKey(), e.getValue());
            Optional<CommittedOffset> before = offsets.get(e.getKey());
            if (before.isPresent()) {
                growth -= CommittedOffsets.bytesOf(e.getKey(), before.get().value().metadata());
            }
        }
        return growth;
    }

    // ---- fetches ------------------------------------------------------------------------------------

    /** The latest commit of {@code key}, from memory. */
    public Optional<CommittedOffset> committed(BrokerContext broker, OffsetCommitKey key) throws IOException {
        if (placement.status(key.group()) != OffsetsPlacement.Status.NONE) {
            return Optional.empty(); // another broker coordinates it (chapter 9 answers NOT_COORDINATOR first)
        }
        Partition partition = broker.partition(offsetsPartition(key.group()));
        CommittedOffsets offsets = load(partition);
        return partition.locked(log -> offsets.get(key));
    }

    /** Every latest commit of {@code group}, from memory. */
    public SortedMap<OffsetCommitKey, CommittedOffset> committed(BrokerContext broker, String group)
            throws IOException {
        if (placement.status(group) != OffsetsPlacement.Status.NONE) {
            return new TreeMap<>(); // another broker coordinates it (chapter 9 answers NOT_COORDINATOR first)
        }
        Partition partition = broker.partition(offsetsPartition(group));
        CommittedOffsets offsets = load(partition);
        return partition.locked(log -> offsets.ofGroup(group));
    }

    /** True when {@code group} has a committed offset (no lock once its partition is loaded). */
    public boolean hasOffsets(BrokerContext broker, String group) throws IOException {
        String name = offsetsPartition(group);
        if (!placement.owns(name)) {
            return false; // another broker coordinates it: its offsets are not this broker's to answer for
        }
        CommittedOffsets offsets = loaded.get(name);
        return (offsets != null ? offsets : load(broker.partition(name))).hasOffsets(group);
    }

    /** Every group with a committed offset, from memory (OffsetFetch's groups, and ListGroups' that only committed). */
    public SortedSet<String> groups(BrokerContext broker) throws IOException {
        SortedSet<String> groups = new TreeSet<>();
        for (String name : new TreeSet<>(placement.owned())) {
            Partition partition = broker.partition(name);
            CommittedOffsets offsets = load(partition);
            partition.locked(log -> groups.addAll(offsets.groups()));
        }
        return groups;
    }

    // ---- deletions ----------------------------------------------------------------------------------

    /**
     * Deletes {@code group}'s offsets of {@code keys}, or all of them when {@code keys} is null
     * (Kafka's OffsetDelete, and DeleteGroups' {@code deleteAllOffsets}): a tombstone each, then
     * forgotten. A key the group never committed writes nothing. Returns how many it deleted.
     */
    public int deleteOffsets(BrokerContext broker, String group, Collection<OffsetCommitKey> keys) throws IOException {
        if (placement.status(group) != OffsetsPlacement.Status.NONE) {
            throw new IOException("this broker does not coordinate group " + group + " now");
        }
        Partition partition = broker.partition(offsetsPartition(group));
        CommittedOffsets offsets = load(partition);
        long nowMs = broker.nowMs();
        if (!placement.alone()) {
            List<OffsetCommitKey> present = partition.locked(log -> new TreeSet<>(
                    keys != null ? keys : offsets.ofGroup(group).keySet()).stream()
                    .filter(key -> offsets.get(key).isPresent()).toList());
            if (present.isEmpty()) {
                return 0;
            }
            OffsetsPlacement.Appended appended = placement.append(broker, partition,
                    GroupOffsetsLog.tombstoneBatch(present, nowMs));
            if (appended.error() != OffsetCommitError.NONE) {
                throw new IOException("the tombstones of " + group + "'s offsets were not replicated: " + appended.error());
            }
            partition.locked(log -> {
                offsets.deleted(present);
                return null;
            });
            return present.size();
        }
        return partition.locked(log -> offsets.delete(new GroupOffsetsLog(log),
                keys != null ? keys : offsets.ofGroup(group).keySet(), nowMs).size());
    }

    // ---- expiry -------------------------------------------------------------------------------------

    /**
     * Expires the offsets of {@code partition} at {@code nowMs} (Kafka's {@code cleanupGroupMetadata}).
     * The groups' activity is asked outside the partition's lock (chapter 9's groups have a lock of
     * their own, and take this one to ask whether a group has offsets); a group that commits for
     * the first time in between is left for the next round. Returns what it did, if anything.
     */
    Optional<String> expire(Partition partition, long nowMs, long retentionMs) throws IOException {
        OffsetsPlacement where = placement;
        if (!where.owns(partition.name())) {
            return Optional.empty(); // chapter 10: a follower's copy, or a partition still loading
        }
        CommittedOffsets offsets = load(partition);
        List<String> groups = partition.locked(log -> new ArrayList<>(new TreeSet<>(offsets.groups())));
        Map<String, GroupActivity> activity = new HashMap<>();
        GroupMembership groupsNow = membership;
        for (String group : groups) {
            activity.put(group, groupsNow.activity(group));
        }
        // In a cluster the tombstones are appended by the partition's leader once the lock is released
        // (the leader's append takes its replica's lock, which is taken before the partition's), and
        // without waiting for the followers, as Kafka's are: one lost with its leader is written again
        // by the next leader, which loads the offset and finds it expired too.
        List<ByteBuffer> tombstones = new ArrayList<>();
        List<OffsetCommitKey> expired = partition.locked(log -> offsets.expire(where.alone() ? new GroupOffsetsLog(log)
                : new GroupOffsetsLog(log, batch -> {
                    tombstones.add(batch);
                    return NOT_APPENDED_YET;
                }), group -> activity.getOrDefault(group, GroupActivity.ACTIVE), nowMs, retentionMs));
        for (ByteBuffer batch : tombstones) {
            where.appendUnacknowledged(partition, batch);
        }
        if (expired.isEmpty()) {
            return Optional.empty();
        }
        TreeSet<String> touched = new TreeSet<>();
        expired.forEach(key -> touched.add(key.group()));
        for (String group : touched) {
            if (!offsets.hasOffsets(group)) {
                groupsNow.offsetsExpired(group);
            }
        }
        return Optional.of("expired " + expired.size() + " committed offset(s) of " + touched.size() + " group(s)"
                + " (" + RETENTION_MINUTES + " " + retentionMs / 60_000 + "), a tombstone each");
    }
}
