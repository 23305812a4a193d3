package kaenlog.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.Cleaner;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 6: the consumer-group offsets log (Kafka's {@code __consumer_offsets}). Groups commit by
 * appending keyed records, key (group, topic, partition); reading the log back from the start, the
 * last record of each key wins and a tombstone removes the key. Compaction keeps exactly those
 * last records, at their original offsets, so reading back gives the same answer. The coordinator
 * reads the log once and keeps the offsets in memory ({@link CommittedOffsets}): a commit is
 * remembered once it is in the log, an offset expires {@code offsets.retention.minutes} after its
 * clock started ({@link OffsetExpiry}: its commit, or the moment its group became Empty, never
 * while the group has members) and leaves a tombstone.
 */
@Order(6)
class GroupOffsetsLogTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final OffsetCommitKey BILLING_0 = new OffsetCommitKey("billing", "orders", 0);
    private static final OffsetCommitKey BILLING_1 = new OffsetCommitKey("billing", "orders", 1);
    private static final OffsetCommitKey AUDIT_0 = new OffsetCommitKey("audit", "orders", 0);

    @TempDir
    Path dir;

    private static List<PartitionOffset> orders(long offset0, long offset1) {
        return List.of(new PartitionOffset("orders", 0, offset0), new PartitionOffset("orders", 1, offset1));
    }

    /** key -> "offset@logOffset", the whole answer in one readable string per key. */
    private static Map<OffsetCommitKey, String> summary(SortedMap<OffsetCommitKey, CommittedOffset> committed) {
        return committed.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                e -> e.getValue().value().offset() + "@" + e.getValue().logOffset(), (a, b) -> a, TreeMap::new));
    }

    @Test
    void readingTheLogBackGivesEachKeysLatestCommitAndWhereItIs() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 3)), T0 + 1);
            offsets.commit("billing", orders(20, 14), T0 + 2);

            assertThat(summary(offsets.committedOffsets()))
                    .as("billing's second commit (log offsets 3, 4) replaces its first (0, 1); audit's only commit"
                            + " is at 2: each answer is 'committed offset @ log offset of its record'")
                    .containsExactly(Map.entry(AUDIT_0, "3@2"), Map.entry(BILLING_0, "20@3"), Map.entry(BILLING_1, "14@4"));
        }
    }

    @Test
    void aCommitOfSeveralPartitionsIsOneBatchOfKeyedRecords() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            assertThat(offsets.committedOffsets().values()).extracting(c -> c.value().commitTimestamp())
                    .as("both partitions' offsets carry the commit's time").containsOnly(T0);
            List<RecordBatch> batches = log.activeSegment().batches();
            assertThat(batches).as("one commit request is one batch: appended whole or not at all").hasSize(1);
            assertThat(batches.get(0).records()).extracting(r -> OffsetCommitKey.decode(r.key()))
                    .as("one record per partition, keyed (group, topic, partition)").containsExactly(BILLING_0, BILLING_1);
        }
    }

    @Test
    void aTombstoneRemovesTheKeyAndALaterCommitBringsItBack() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 3)), T0);
            offsets.deleteOffset("audit", "orders", 0, T0 + 1);
            assertThat(offsets.committedOffsets())
                    .as("the tombstone at 1 (key, null value) deletes audit's offset: nothing is committed").isEmpty();

            offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 9)), T0 + 2);
            assertThat(summary(offsets.committedOffsets()))
                    .as("a commit after the tombstone is the key's latest record again").containsExactly(Map.entry(AUDIT_0, "9@2"));
        }
    }

    @Test
    void compactionKeepsExactlyTheLatestCommitPerKeyAtItsOriginalOffset() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            for (int round = 1; round <= 5; round++) {
                offsets.commit("billing", orders(10L * round, 7L * round), T0 + round);
                offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 3L * round)), T0 + round);
                log.roll();
            }
            SortedMap<OffsetCommitKey, CommittedOffset> before = offsets.committedOffsets();

            new Cleaner(86_400_000L).clean(log, T0 + 60_000);

            assertThat(offsets.committedOffsets())
                    .as("reading the compacted log back gives the same commits, from the same log offsets")
                    .isEqualTo(before);
            List<Long> left = log.segments().stream().flatMap(s -> batchesOf(s).stream())
                    .flatMap(b -> b.records().stream()).map(Record::offset).toList();
            assertThat(left)
                    .as("15 commit records went in, 3 keys; compaction keeps exactly each key's last record (12, 13, 14)"
                            + " and nothing else")
                    .containsExactly(12L, 13L, 14L);
        }
    }

    @Test
    void aCommitInAnOlderSegmentIsFoundAsWellAsOneInTheActiveSegment() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            log.roll();
            offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 3)), T0 + 1);
            log.roll();

            assertThat(summary(offsets.committedOffsets()))
                    .as("billing committed in segment 0, audit in segment 2, and the active segment is empty: the log"
                            + " is replayed from its first segment to its end, not only the segment it appends to")
                    .containsExactly(Map.entry(AUDIT_0, "3@2"), Map.entry(BILLING_0, "10@0"), Map.entry(BILLING_1, "7@1"));
        }
    }

    @Test
    void theCommittedOffsetsSurviveARestart() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            offsets.commit("billing", orders(11, 8), T0 + 1);
        }
        try (Log reopened = Log.open(dir, LogConfig.defaults())) {
            assertThat(summary(new GroupOffsetsLog(reopened).committedOffsets()))
                    .as("a coordinator that takes the log over rebuilds the commits by replaying it")
                    .containsExactly(Map.entry(BILLING_0, "11@2"), Map.entry(BILLING_1, "8@3"));
        }
    }

    @Test
    void aRecordWithoutAKeyIsSkipped() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            log.append(new BatchBuilder().append(T0, (byte[]) null, new byte[] {1, 2, 3}).build());
            assertThatCode(offsets::committedOffsets)
                    .as("the record at 2 has no key: a record without a key is skipped, not decoded (there is no key to"
                            + " decode, and no partition it could commit for)")
                    .doesNotThrowAnyException();
            assertThat(summary(offsets.committedOffsets()))
                    .as("the record at 2 has no key: it commits nothing and names no partition, so a record without a"
                            + " key is skipped (not decoded) and the commits at 0 and 1 are read back as they are")
                    .containsExactly(Map.entry(BILLING_0, "10@0"), Map.entry(BILLING_1, "7@1"));
        }
    }

    @Test
    void aGroupsMetadataRecordIsNotTakenForAnOffset() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            log.append(GroupOffsetsLog.groupMetadataBatch("billing", new byte[] {0, 3, 0, 8}, T0));
            log.append(GroupOffsetsLog.groupMetadataBatch("audit", null, T0));
            offsets.commit("billing", orders(11, 8), T0 + 1);
            SortedMap<OffsetCommitKey, CommittedOffset> committed = new TreeMap<>();
            assertThatCode(() -> committed.putAll(offsets.committedOffsets()))
                    .as("the records at 2 and 3 are a group's metadata and its tombstone (GroupMetadataKey, chapter 9's"
                            + " members and generation): the offsets log holds two kinds of record, and a group's"
                            + " metadata is skipped (GroupMetadataKey.isGroupMetadata), not decoded as an offset's key")
                    .doesNotThrowAnyException();
            assertThat(summary(committed))
                    .as("a group's metadata record and its tombstone are skipped, not taken for an offset: only the"
                            + " commits at 4 and 5 are each key's latest")
                    .containsExactly(Map.entry(BILLING_0, "11@4"), Map.entry(BILLING_1, "8@5"));
        }
    }

    /**
     * Kafka's {@code GroupCoordinatorShard.replay} hands a group's metadata record to
     * {@code GroupMetadataManager.replay}, whose tombstone removes the group alone; offsets are replayed
     * only from offset records ({@code OffsetMetadataManager.replay}). Kafka 4.1 writes such a tombstone
     * while the group's offsets live on when a classic group becomes a consumer group
     * ({@code GroupMetadataManager.convertToConsumerGroup}: the classic group's tombstone, no offset's).
     */
    @Test
    void aGroupsMetadataTombstoneLeavesTheGroupsOffsetsToTheirOwnTombstones() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            offsets.commit("billing", orders(10, 7), T0);
            offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 3)), T0);
            log.append(GroupOffsetsLog.groupMetadataBatch("billing", new byte[] {0, 3, 0, 8}, T0 + 1));
            log.append(GroupOffsetsLog.groupMetadataBatch("billing", null, T0 + 2));
            assertThat(summary(offsets.committedOffsets()))
                    .as("the record at 4 is billing's metadata tombstone (Kafka 4.1 writes one, and keeps the offsets,"
                            + " when a classic group becomes a consumer group): it is skipped like any group's metadata,"
                            + " since a tombstone removes its own key only, and billing's offsets at 0 and 1 go only by"
                            + " tombstones of their own keys")
                    .containsExactly(Map.entry(AUDIT_0, "3@2"), Map.entry(BILLING_0, "10@0"), Map.entry(BILLING_1, "7@1"));
        }
    }

    @Test
    @PassesOnSkeleton("given code: the key of a group's metadata (chapter 9's record), which the replay only skips")
    void aGroupsMetadataKeyNeverCollidesWithAnOffsetKey() {
        Property.forAll(Gens.strings(0, 40).zip(Gens.strings(0, 40), List::of))
                .tries(200).check(pair -> {
                    byte[] metadata = new GroupMetadataKey(pair.get(0)).encode();
                    byte[] offset = new OffsetCommitKey(pair.get(0), pair.get(1), 0).encode();
                    assertThat(GroupMetadataKey.isGroupMetadata(metadata))
                            .as("a group's metadata key is told apart from an offset's").isTrue();
                    assertThat(GroupMetadataKey.isGroupMetadata(offset))
                            .as("an offset's key (group %s) is never taken for a group's metadata", pair.get(0))
                            .isFalse();
                    assertThat(Arrays.equals(metadata, offset)).as("the two kinds of key never collide").isFalse();
                    assertThat(GroupMetadataKey.decode(metadata).group()).isEqualTo(pair.get(0));
                });
    }

    @Test
    void aCorruptKeyIsATypedErrorNamingTheField() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.append(new BatchBuilder().append(T0, new byte[] {0, 9, 'x'}, new byte[] {1}).build());
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            assertThat(catchThrowable(offsets::committedOffsets))
                    .as("a key whose group length says 9 bytes but holds 1 is corrupt: a CorruptOffsetRecordException"
                            + " naming key.group, never an index exception, and never skipped as if it were not there")
                    .isInstanceOf(CorruptOffsetRecordException.class)
                    .hasMessageContaining("key.group");
        }
    }

    private static final long RETENTION_MS = OffsetExpiry.DEFAULT_RETENTION_MINUTES * 60_000;
    private static final OffsetCommitValue COMMITTED_AT_T0 = new OffsetCommitValue(42, "", T0);

    @Test
    void aStandaloneGroupsOffsetExpiresRetentionAfterItsCommitAndNotAMillisecondBefore() {
        assertThat(OffsetExpiry.isExpired(COMMITTED_AT_T0, GroupActivity.STANDALONE, T0 + RETENTION_MS - 1,
                RETENTION_MS))
                .as("a group without members (assign(), kcat, klog consume --group): its offset committed at T0 is"
                        + " kept until T0 + offsets.retention.minutes (7 days)").isFalse();
        assertThat(OffsetExpiry.isExpired(COMMITTED_AT_T0, GroupActivity.STANDALONE, T0 + RETENTION_MS,
                RETENTION_MS))
                .as("expired at exactly T0 + retention: Kafka's rule is now - commitTimestamp >= retention, not >")
                .isTrue();
    }

    @Test
    void anEmptyGroupsOffsetsExpireRetentionAfterItBecameEmptyWhenEverTheyWereCommitted() {
        long emptySince = T0 + 10 * 86_400_000L;
        GroupActivity empty = new GroupActivity.EmptySince(emptySince);
        assertThat(OffsetExpiry.isExpired(COMMITTED_AT_T0, empty, emptySince + RETENTION_MS - 1, RETENTION_MS))
                .as("the group's consumers committed at T0 and stayed 10 days; it became Empty at T0 + 10 d: its"
                        + " offsets are kept 7 days from then (Kafka's currentStateTimestamp), though their commit"
                        + " is 17 days old").isFalse();
        assertThat(OffsetExpiry.isExpired(COMMITTED_AT_T0, empty, emptySince + RETENTION_MS, RETENTION_MS))
                .as("7 days after the group became Empty its offsets expire").isTrue();
        OffsetCommitValue lateCommit = new OffsetCommitValue(42, "", emptySince + 86_400_000L);
        assertThat(OffsetExpiry.isExpired(lateCommit, empty, emptySince + RETENTION_MS, RETENTION_MS))
                .as("an offset committed while the group was already Empty (an admin's reset, say) expires with the"
                        + " others: the clock is the group's, not the commit's").isTrue();
    }

    @Test
    void aGroupWithMembersKeepsItsOffsets() {
        assertThat(OffsetExpiry.isExpired(COMMITTED_AT_T0, GroupActivity.ACTIVE, T0 + 100 * RETENTION_MS,
                RETENTION_MS))
                .as("a group with members keeps its offsets however old their commit: its consumers may simply"
                        + " have had nothing new to commit").isFalse();
    }

    @Test
    void aCommitIsRememberedWithTheLogOffsetOfItsRecord() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsetsLog = new GroupOffsetsLog(log);
            offsetsLog.commit("audit", List.of(new PartitionOffset("orders", 0, 3)), T0);
            CommittedOffsets offsets = CommittedOffsets.load(offsetsLog);
            offsets.commit(offsetsLog, "billing", List.of(new PartitionOffset("orders", 0, 10, "host-1"),
                    new PartitionOffset("orders", 1, 7)), T0 + 1);

            assertThat(offsets.get(BILLING_0)).as("billing's commit is answered from memory, with its metadata, its"
                    + " time and the log offset of its record (1: audit's record is at 0)")
                    .contains(new CommittedOffset(1, new OffsetCommitValue(10, "host-1", T0 + 1)));
            assertThat(offsets.get(BILLING_1).map(CommittedOffset::logOffset)).contains(2L);
            assertThat(summary(offsetsLog.committedOffsets())).as("and it is in the log: a restart reads it back")
                    .containsEntry(BILLING_0, "10@1").containsEntry(BILLING_1, "7@2");
        }
    }

    @Test
    void theOffsetsAreReadFromTheLogOnceThenFromMemory() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsetsLog = new GroupOffsetsLog(log);
            offsetsLog.commit("billing", orders(10, 7), T0);
            CommittedOffsets offsets = CommittedOffsets.load(offsetsLog);
            offsetsLog.commit("billing", orders(99, 99), T0 + 1); // behind the coordinator's back

            assertThat(offsets.get(BILLING_0).map(c -> c.value().offset()))
                    .as("memory answers what was loaded and what the coordinator wrote since, never by reading the"
                            + " log again (Kafka's OffsetFetch: 0.003 s with the log read per request became 0.96 s)")
                    .contains(10L);
        }
    }

    @Test
    void aCommitTheLogRefusesIsNotRemembered() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults().withSegmentBytes(1024))) {
            GroupOffsetsLog offsetsLog = new GroupOffsetsLog(log);
            CommittedOffsets offsets = CommittedOffsets.load(offsetsLog);
            offsets.commit(offsetsLog, "billing", List.of(new PartitionOffset("orders", 0, 10)), T0);
            List<PartitionOffset> tooLarge = List.of(new PartitionOffset("orders", 0, 11, "m".repeat(2_000)));

            assertThatThrownBy(() -> offsets.commit(offsetsLog, "billing", tooLarge, T0 + 1))
                    .as("a batch larger than the log's segment.bytes is refused by the log")
                    .isInstanceOf(kaenlog.log.BatchTooLargeException.class);
            assertThat(offsets.get(BILLING_0).map(c -> c.value().offset()))
                    .as("the append failed, so memory still says 10: memory never says what the log does not (a"
                            + " restart would read 10 back)").contains(10L);
        }
    }

    @Test
    void anExpiredOffsetLeavesATombstoneAndIsForgotten() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsetsLog = new GroupOffsetsLog(log);
            CommittedOffsets offsets = CommittedOffsets.load(offsetsLog);
            offsets.commit(offsetsLog, "audit", List.of(new PartitionOffset("orders", 0, 3)), T0);
            offsets.commit(offsetsLog, "billing", orders(10, 7), T0);
            long endBefore = log.logEndOffset();

            List<OffsetCommitKey> expired = offsets.expire(offsetsLog,
                    group -> group.equals("audit") ? GroupActivity.STANDALONE : GroupActivity.ACTIVE,
                    T0 + RETENTION_MS, RETENTION_MS);

            assertThat(expired).as("audit is standalone and its commit is 7 days old; billing has members")
                    .containsExactly(AUDIT_0);
            assertThat(offsets.get(AUDIT_0)).as("an expired offset is forgotten: OffsetFetch answers -1").isEmpty();
            assertThat(offsets.hasOffsets("audit")).as("audit has no offset left").isFalse();
            assertThat(offsets.get(BILLING_0)).as("billing's offsets stay").isPresent();
            List<RecordBatch> batches = log.activeSegment().batches();
            Record last = batches.get(batches.size() - 1).records().get(0);
            assertThat(last.isTombstone() && OffsetCommitKey.decode(last.key()).equals(AUDIT_0))
                    .as("an expired offset leaves a tombstone of its key, as Kafka writes one: reading the log again"
                            + " (a restart) must not bring audit's offset back, and the cleaner drops its older"
                            + " records").isTrue();
            assertThat(log.logEndOffset()).as("one tombstone, nothing else").isEqualTo(endBefore + 1);
            assertThat(summary(CommittedOffsets.load(offsetsLog).all()))
                    .as("the log read again after the expiry: audit's offset stays gone")
                    .containsOnlyKeys(BILLING_0, BILLING_1);
        }
    }

    private static List<RecordBatch> batchesOf(Segment segment) {
        try {
            return segment.batches();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- Kafka judges: any history of commits, deletions, rolls and cleanings -------------------

    /** One step of a history: a commit of several partitions, a deletion (tombstone), a roll or a cleaning. */
    sealed interface Step permits Commit, Delete, Roll, Clean, Meta {
    }

    record Commit(String group, List<Entry> entries) implements Step {
        @Override
        public String toString() {
            return "commit " + show(group) + " " + entries;
        }
    }

    record Entry(String topic, int partition, long offset, String metadata) {
        @Override
        public String toString() {
            return show(topic) + "-" + partition + " at " + offset + (metadata.isEmpty() ? "" : " metadata " + show(metadata));
        }
    }

    record Delete(String group, String topic, int partition) implements Step {
        @Override
        public String toString() {
            return "delete " + show(group) + " " + show(topic) + "-" + partition;
        }
    }

    record Roll() implements Step {
        @Override
        public String toString() {
            return "roll";
        }
    }

    /** Compaction at this many ms after T0 (delete.retention.ms is 1000 here, so tombstones go at later cleanings). */
    record Clean(long atMs) implements Step {
        @Override
        public String toString() {
            return "clean at T0+" + atMs;
        }
    }

    /** A group's metadata record (chapter 9's), or its tombstone: the replay skips both. */
    record Meta(String group, boolean tombstone) implements Step {
        @Override
        public String toString() {
            return (tombstone ? "group metadata tombstone of " : "group metadata of ") + show(group);
        }
    }

    private static String show(String s) {
        return Property.show(s);
    }

    /** Group and topic names from a small pool (so keys repeat), the empty string and text outside ASCII among them. */
    private static Gen<String> names(String... more) {
        return c -> c.oneIn(6) ? Gens.strings(0, 4).generate(c) : more[c.belowInt(more.length)];
    }

    static Gen<List<Step>> histories() {
        Gen<String> groups = names("billing", "audit", "");
        Gen<String> topics = names("orders", "\u00e9v\u00e9nements");
        Gen<Integer> partitions = c -> c.oneIn(8) ? Gens.ints(0, Integer.MAX_VALUE).generate(c) : c.belowInt(3);
        Gen<Step> step = c -> switch (c.belowInt(9)) {
            case 0, 1, 2, 3 -> new Commit(groups.generate(c), Gens.lists(c2 -> new Entry(topics.generate(c2),
                    partitions.generate(c2), Gens.longs().generate(c2), c2.oneIn(4) ? Gens.strings(0, 5).generate(c2) : ""),
                    1, 3).generate(c));
            case 4, 5 -> new Delete(groups.generate(c), topics.generate(c), partitions.generate(c));
            case 6 -> new Roll();
            case 7 -> new Meta(groups.generate(c), c.oneIn(3));
            default -> new Clean(Gens.longs(0, 3_000).generate(c));
        };
        return Gens.lists(step, 1, 12);
    }

    /** Kafka's bytes of a message at version 0: its generated writer, as __consumer_offsets holds them (version prefix aside). */
    private static byte[] kafkaBytes(Message message) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer out = ByteBuffer.allocate(message.size(cache, (short) 0));
        message.write(new ByteBufferAccessor(out), cache, (short) 0);
        return out.array();
    }

    @Test
    void readingBackAgreesWithKafkasOffsetCommitRecordsReplayed() throws IOException {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(histories()).tries(40).shrinkBudget(kaenlog.compaction.LogShapes.SHRINKS).check(history -> {
                try (Log log = Log.open(scratch.newDir(), LogConfig.defaults())) {
                    Cleaner cleaner = new Cleaner(1_000);
                    for (Step step : history) {
                        if (step instanceof Commit commit) {
                            BatchBuilder batch = new BatchBuilder();
                            for (Entry e : commit.entries()) {
                                batch.append(T0, kafkaBytes(new org.apache.kafka.coordinator.group.generated.OffsetCommitKey()
                                        .setGroup(commit.group()).setTopic(e.topic()).setPartition(e.partition())),
                                        kafkaBytes(new org.apache.kafka.coordinator.group.generated.OffsetCommitValue()
                                                .setOffset(e.offset()).setMetadata(e.metadata()).setCommitTimestamp(T0)));
                            }
                            log.append(batch.build());
                        } else if (step instanceof Delete delete) {
                            log.append(new BatchBuilder().append(T0,
                                    kafkaBytes(new org.apache.kafka.coordinator.group.generated.OffsetCommitKey()
                                            .setGroup(delete.group()).setTopic(delete.topic()).setPartition(delete.partition())),
                                    null).build());
                        } else if (step instanceof Meta meta) {
                            log.append(GroupOffsetsLog.groupMetadataBatch(meta.group(),
                                    meta.tombstone() ? null : new byte[] {0, 3, 0, 8}, T0));
                        } else if (step instanceof Roll) {
                            log.roll();
                        } else if (step instanceof Clean clean) {
                            cleaner.clean(log, T0 + clean.atMs());
                        }
                    }
                    Judge.Outcome yours = Judge.Outcome.of(() -> {
                        Map<String, String> committed = new TreeMap<>();
                        new GroupOffsetsLog(log).committedOffsets().forEach((key, c) -> committed.put(
                                key(key.group(), key.topic(), key.partition()), c.value().offset() + " metadata "
                                        + show(c.value().metadata()) + " from log offset " + c.logOffset()));
                        return committed;
                    });
                    Judge.agree("this history of the offsets log", "committed offsets", yours,
                            "OffsetCommitKey/OffsetCommitValue readers, replayed as OffsetMetadataManager.replay does (modelled"
                                    + " here), give", new Judge.Outcome(kafkaReplay(log), null),
                            "replay every segment's batches from the first: a later record of a key replaces the earlier one, a"
                                    + " tombstone removes the key, and each answer keeps the log offset of its record");
                }
            });
        }
    }

    /** The log's segment files read by kafka-clients' FileRecords, each record decoded by Kafka's generated readers. */
    private static Map<String, String> kafkaReplay(Log log) throws IOException {
        Map<String, String> committed = new TreeMap<>();
        for (Segment segment : log.segments()) {
            try (FileRecords records = FileRecords.open(segment.logFile().toFile())) {
                for (FileChannelRecordBatch batch : records.batches()) {
                    for (org.apache.kafka.common.record.Record record : batch) {
                        if (record.key().duplicate().getShort() == -1) {
                            // a group's metadata (kaen-log's key: -1, then the group; Kafka's: key version 2):
                            // Kafka's replay hands it to GroupMetadataManager, never to the offsets
                            continue;
                        }
                        var key = new org.apache.kafka.coordinator.group.generated.OffsetCommitKey(
                                new ByteBufferAccessor(record.key()), (short) 0);
                        String k = key(key.group(), key.topic(), key.partition());
                        if (record.value() == null) {
                            committed.remove(k);
                        } else {
                            var value = new org.apache.kafka.coordinator.group.generated.OffsetCommitValue(
                                    new ByteBufferAccessor(record.value()), (short) 0);
                            committed.put(k, value.offset() + " metadata " + show(value.metadata()) + " from log offset "
                                    + record.offset());
                        }
                    }
                }
            }
        }
        return committed;
    }

    private static String key(String group, String topic, int partition) {
        return "(" + show(group) + ", " + show(topic) + ", " + partition + ")";
    }
}
