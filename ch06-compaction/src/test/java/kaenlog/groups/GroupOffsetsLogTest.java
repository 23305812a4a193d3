package kaenlog.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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
    void aCorruptKeyIsATypedErrorNamingTheField() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.append(new BatchBuilder().append(T0, new byte[] {0, 9, 'x'}, new byte[] {1}).build());
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            assertThatThrownBy(offsets::committedOffsets)
                    .as("a key whose group length says 9 bytes but holds 1 is corrupt: a CorruptOffsetRecordException"
                            + " naming key.group, never an index exception")
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
}
