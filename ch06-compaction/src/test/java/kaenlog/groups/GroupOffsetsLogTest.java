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
 * last records, at their original offsets, so reading back gives the same answer.
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

    private static List<RecordBatch> batchesOf(Segment segment) {
        try {
            return segment.batches();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
