package kaenlog.groups;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import kaenlog.log.AppendInfo;

/**
 * The committed offsets of one offsets log, in memory: read from the log once, when the
 * coordinator takes the log over ({@link #load}, Kafka's {@code CoordinatorLoaderImpl} replaying
 * the partition), and from then on kept in step with what the coordinator itself writes: a commit
 * is appended first and remembered once it is in the log; an expired offset leaves a tombstone in
 * the log and is forgotten. OffsetFetch is answered from here, never by reading the log again
 * (Kafka's {@code OffsetMetadataManager} keeps {@code offsetsByGroup} the same way).
 *
 * <p>What it holds is counted ({@link #heldBytes}, an estimate: two bytes a character, and a fixed
 * cost per offset), so that the coordinator can refuse a commit that would hold too much. Not safe
 * for concurrent use: the coordinator calls it under the offsets partition's lock, but for
 * {@link #hasOffsets}, which any thread may ask.
 */
public final class CommittedOffsets {
    /** What one offset costs beyond its strings: the key, the value, the map's entry. */
    static final long OFFSET_OVERHEAD_BYTES = 160;

    private final SortedMap<OffsetCommitKey, CommittedOffset> committed = new TreeMap<>();
    /** Group -> how many offsets it has here: read by any thread. */
    private final Map<String, Integer> offsetsPerGroup = new ConcurrentHashMap<>();
    private long heldBytes;

    private CommittedOffsets() {
    }

    /**
     * Reads {@code log} once into memory: the replay of task 6 (GroupOffsetsLogTest), the last record
     * of each key winning.
     */
    public static CommittedOffsets load(GroupOffsetsLog log) throws IOException {
        CommittedOffsets offsets = new CommittedOffsets();
        log.committedOffsets().forEach(offsets::remember);
        return offsets;
    }

    /**
     * Appends one commit of {@code group} to {@code log} (one batch, {@link GroupOffsetsLog#commit})
     * and then remembers each of its offsets, with the log offset of its record. An append that
     * fails leaves memory as it was: memory never says what the log does not.
     */
    public void commit(GroupOffsetsLog log, String group, List<PartitionOffset> offsets, long nowMs)
            throws IOException {
        // BEGIN-SOLUTION ch06 task 6: a commit is remembered once it is in the log (GroupOffsetsLogTest)
        AppendInfo appended = log.commit(group, offsets, nowMs);
        long logOffset = appended.firstOffset();
        for (PartitionOffset p : offsets) {
            remember(new OffsetCommitKey(group, p.topic(), p.partition()),
                    new CommittedOffset(logOffset++, new OffsetCommitValue(p.offset(), p.metadata(), nowMs)));
        }
        // END-SOLUTION
    }

    /**
     * Expires every offset {@link OffsetExpiry#isExpired} at {@code nowMs}, its group's activity
     * given by {@code activityOf}: an expired offset leaves a tombstone in {@code log} (so that
     * reading the log again does not bring it back, and the cleaner removes its older records) and
     * is forgotten. Returns the keys it expired, in key order.
     */
    public List<OffsetCommitKey> expire(GroupOffsetsLog log, Function<String, GroupActivity> activityOf, long nowMs,
                                        long retentionMs) throws IOException {
        // BEGIN-SOLUTION ch06 task 6: an expired offset leaves a tombstone, then is forgotten (GroupOffsetsLogTest)
        List<OffsetCommitKey> expired = new ArrayList<>();
        for (Map.Entry<OffsetCommitKey, CommittedOffset> entry : committed.entrySet()) {
            GroupActivity activity = activityOf.apply(entry.getKey().group());
            if (OffsetExpiry.isExpired(entry.getValue().value(), activity, nowMs, retentionMs)) {
                expired.add(entry.getKey());
            }
        }
        if (!expired.isEmpty()) {
            log.deleteOffsets(expired, nowMs);
            expired.forEach(this::forget);
        }
        return expired;
        // END-SOLUTION
    }

    /**
     * Deletes those of {@code keys} that are committed here (Kafka's OffsetDelete and DeleteGroups):
     * their tombstones are appended to {@code log} first, then they are forgotten, as an expired
     * offset is. Returns the keys it deleted, in key order; a key with no commit writes nothing.
     */
    public List<OffsetCommitKey> delete(GroupOffsetsLog log, Collection<OffsetCommitKey> keys, long nowMs)
            throws IOException {
        List<OffsetCommitKey> present = new TreeSet<>(keys).stream().filter(committed::containsKey).toList();
        if (!present.isEmpty()) {
            log.deleteOffsets(present, nowMs);
            present.forEach(this::forget);
        }
        return present;
    }

    /**
     * Memory learns a commit that another path appended (chapter 10's coordinator: the offsets
     * partition's leader, once the commit is replicated): {@code offsets}' records from log offset
     * {@code firstLogOffset} on. A key whose remembered record is later keeps it, as in the replay:
     * the later record wins, whichever commit was answered first.
     */
    public void appended(String group, List<PartitionOffset> offsets, long firstLogOffset, long nowMs) {
        long logOffset = firstLogOffset;
        for (PartitionOffset p : offsets) {
            rememberIfLater(new OffsetCommitKey(group, p.topic(), p.partition()),
                    new CommittedOffset(logOffset++, new OffsetCommitValue(p.offset(), p.metadata(), nowMs)));
        }
    }

    /**
     * Memory learns {@code offset} for {@code key} unless the record it remembers is later in the log
     * (chapter 11: a transaction's offset, materialised at its COMMIT marker, does not replace a
     * commit written after it; Kafka's {@code OffsetMetadataManager.replayEndTransactionMarker}).
     */
    public void rememberIfLater(OffsetCommitKey key, CommittedOffset offset) {
        CommittedOffset before = committed.get(key);
        if (before == null || before.logOffset() < offset.logOffset()) {
            remember(key, offset);
        }
    }

    /** Nothing committed yet: a later chapter's replay ({@link kaenlog.coordinator.OffsetsLoader}) fills it. */
    public static CommittedOffsets empty() {
        return new CommittedOffsets();
    }

    /** Memory forgets {@code keys}, whose tombstones another path appended. */
    public void deleted(Collection<OffsetCommitKey> keys) {
        keys.forEach(this::forget);
    }

    /** The latest commit of {@code key}, from memory. */
    public Optional<CommittedOffset> get(OffsetCommitKey key) {
        return Optional.ofNullable(committed.get(key));
    }

    /** Every latest commit of {@code group}, by topic and partition, from memory. */
    public SortedMap<OffsetCommitKey, CommittedOffset> ofGroup(String group) {
        SortedMap<OffsetCommitKey, CommittedOffset> ofGroup = new TreeMap<>();
        if (!offsetsPerGroup.containsKey(group)) {
            return ofGroup;
        }
        // the keys are sorted by group first: the group's run starts at (group, "", 0)
        for (Map.Entry<OffsetCommitKey, CommittedOffset> e : committed.tailMap(new OffsetCommitKey(group, "", 0))
                .entrySet()) {
            if (!e.getKey().group().equals(group)) {
                break;
            }
            ofGroup.put(e.getKey(), e.getValue());
        }
        return ofGroup;
    }

    /** Every latest commit, from memory. */
    public SortedMap<OffsetCommitKey, CommittedOffset> all() {
        return Collections.unmodifiableSortedMap(committed);
    }

    /** True when {@code group} has at least one committed offset here. Any thread may ask. */
    public boolean hasOffsets(String group) {
        return offsetsPerGroup.containsKey(group);
    }

    /** The groups with at least one committed offset. */
    public Set<String> groups() {
        return Collections.unmodifiableSet(offsetsPerGroup.keySet());
    }

    /** The bytes held in memory, an estimate ({@link #bytesOf}). */
    public long heldBytes() {
        return heldBytes;
    }

    /** What one offset of {@code key} with {@code metadata} holds in memory, an estimate. */
    public static long bytesOf(OffsetCommitKey key, String metadata) {
        return 2L * (key.group().length() + key.topic().length() + metadata.length()) + OFFSET_OVERHEAD_BYTES;
    }

    /** Memory learns a commit that is in the log. */
    public void remember(OffsetCommitKey key, CommittedOffset offset) {
        CommittedOffset before = committed.put(key, offset);
        if (before == null) {
            offsetsPerGroup.merge(key.group(), 1, Integer::sum);
        } else {
            heldBytes -= bytesOf(key, before.value().metadata());
        }
        heldBytes += bytesOf(key, offset.value().metadata());
    }

    /** Memory forgets an offset whose tombstone is in the log. */
    public void forget(OffsetCommitKey key) {
        CommittedOffset before = committed.remove(key);
        if (before == null) {
            return;
        }
        heldBytes -= bytesOf(key, before.value().metadata());
        offsetsPerGroup.computeIfPresent(key.group(), (group, count) -> count == 1 ? null : count - 1);
    }
}
