package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import kaenlog.batch.Record;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole cleaner on a real log, every retention and compaction task together: compaction never moves an offset, never
 * touches the active segment, keeps a tombstone until its delete horizon, and leaves a log that
 * reopens to the same records.
 */
@Order(7)
class CleanerTest {
    static final long DELETE_RETENTION_MS = 24 * HOUR;

    @TempDir
    Path dir;

    /** Two closed segments with overwritten keys, and an active segment. */
    private Log fruitLog() throws IOException {
        Log log = LogFixture.open(dir);
        LogFixture.put(log, T0, "apple", "1", "pear", "1");
        LogFixture.put(log, T0 + 1, "plum", "1", "apple", "2");
        log.roll();
        LogFixture.put(log, T0 + 2, "pear", "2", "fig", "1");
        LogFixture.put(log, T0 + 3, "apple", "3");
        log.roll();
        LogFixture.put(log, T0 + 4, "fig", "2", "fig", "3");
        return log;
    }

    @Test
    void aLogHoldingTransactionalBatchesWithoutTheirViewIsCleanedOnlyBelowTheFirstOfThem() throws IOException {
        try (Log log = LogFixture.open(dir)) {
            LogFixture.put(log, T0, "apple", "1", "pear", "1");
            LogFixture.put(log, T0 + 1, "apple", "2");
            log.roll();
            // a transaction's batch, as chapter 11 writes a transaction's offsets to __consumer_offsets
            log.append(org.apache.kafka.common.record.MemoryRecords.withTransactionalRecords(
                    org.apache.kafka.common.compress.Compression.NONE, 7L, (short) 0, 0,
                    new org.apache.kafka.common.record.SimpleRecord(T0 + 2, bytes("apple"), bytes("3"))).buffer());
            LogFixture.put(log, T0 + 3, "apple", "4", "pear", "2");
            log.roll();
            LogFixture.put(log, T0 + 4, "fig", "1");
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);

            assertThat(LogFixture.show(log))
                    .as("a cleaning with no view of the log's transactions (Cleaner.Transactions.NONE) stops below the"
                            + " first transactional batch (3): the first segment is cleaned (apple 1 goes, its key's"
                            + " latest there is 2), the second is left whole; cleaning it would let apple 4 replace a"
                            + " transaction's record whose fate only its marker tells")
                    .containsExactly("1:pear=1", "2:apple=2", "3:apple=3", "4:apple=4", "5:pear=2", "6:fig=1");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void compactionKeepsEachKeysLatestRecordAtItsOwnOffset() throws IOException {
        try (Log log = fruitLog()) {
            SortedMap<Long, Record> before = LogFixture.records(log);
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);

            assertThat(LogFixture.show(log))
                    .as("in the closed segments only plum (2), pear (4), fig (5) and apple (6) are their keys' latest;"
                            + " the active segment (7, 8) is untouched: every record left sits at the offset it was"
                            + " written at")
                    .containsExactly("2:plum=1", "4:pear=2", "5:fig=1", "6:apple=3", "7:fig=2", "8:fig=3");
            LogFixture.records(log).forEach((offset, record) -> assertThat(record)
                    .as("record at %d is the very record written there", offset).isEqualTo(before.get(offset)));
        }
    }

    @Test
    void theActiveSegmentIsNeitherCleanedNorMapped() throws IOException {
        try (Log log = fruitLog()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            assertThat(LogFixture.show(log))
                    .as("fig 1 at offset 5 stays although fig 2 and fig 3 follow in the active segment: the cleaner maps"
                            + " and rewrites only what lies below the active segment (Kafka's firstUncleanableOffset),"
                            + " and fig 2, superseded inside the active segment, stays too")
                    .contains("5:fig=1", "7:fig=2", "8:fig=3");
        }
    }

    @Test
    void compactionMovesNeitherTheLogStartOffsetNorTheLogEndOffset() throws IOException {
        try (Log log = fruitLog()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            assertThat(log.logStartOffset())
                    .as("offset 0 is gone but the log still starts at 0: compaction empties offsets, it does not"
                            + " forget the range (only retention moves the log start offset)")
                    .isZero();
            assertThat(log.logEndOffset()).as("and it still ends at 9").isEqualTo(9L);
            assertThat(LogFixture.records(log).firstKey())
                    .as("a consumer starting at 0 simply finds its first record at 2").isEqualTo(2L);
        }
    }

    @Test
    void aTombstoneOutlivesTheFirstCleaningAndGoesAtItsDeleteHorizon() throws IOException {
        try (Log log = LogFixture.open(dir)) {
            LogFixture.put(log, T0, "apple", "1", "pear", "1");
            LogFixture.put(log, T0 + 1, "apple", null);
            log.roll();
            Cleaner cleaner = new Cleaner(DELETE_RETENTION_MS);
            long first = T0 + HOUR;

            cleaner.clean(log, first);
            assertThat(LogFixture.show(log))
                    .as("first cleaning: apple 1 is gone, its tombstone stays (a consumer replaying the log must see"
                            + " the delete) and gets the horizon first + delete.retention.ms")
                    .containsExactly("1:pear=1", "2:apple=null");
            cleaner.clean(log, first + DELETE_RETENTION_MS - 1);
            assertThat(LogFixture.show(log)).as("a cleaning just before the horizon keeps it")
                    .containsExactly("1:pear=1", "2:apple=null");
            cleaner.clean(log, first + DELETE_RETENTION_MS);
            assertThat(LogFixture.show(log))
                    .as("a cleaning at the horizon drops it, and apple does not come back").containsExactly("1:pear=1");
        }
    }

    @Test
    void cleaningAnAlreadyCleanLogChangesNoByte() throws IOException {
        try (Log log = fruitLog()) {
            Cleaner cleaner = new Cleaner(DELETE_RETENTION_MS);
            cleaner.clean(log, T0 + HOUR);
            List<byte[]> once = segmentFiles(log);
            cleaner.clean(log, T0 + 2 * HOUR);
            List<byte[]> twice = segmentFiles(log);
            for (int i = 0; i < once.size(); i++) {
                assertThat(twice.get(i)).as("segment %d after a second cleaning: every batch kept whole is written"
                        + " back unchanged, so a clean log stays byte for byte the same", i).isEqualTo(once.get(i));
            }
        }
    }

    @Test
    void aCompactedLogReopensToTheSameRecords() throws IOException {
        List<String> cleaned;
        try (Log log = fruitLog()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            cleaned = LogFixture.show(log);
        }
        try (Log reopened = LogFixture.open(dir)) {
            assertThat(LogFixture.show(reopened))
                    .as("after a restart the log holds what compaction left: the swap is on disk, not only in memory")
                    .isEqualTo(cleaned);
        }
    }

    @Test
    void segmentsReachingTheHighWatermarkAreNotCleaned() throws IOException {
        try (Log log = fruitLog()) {
            log.stopEagerHighWatermark();
            log.updateHighWatermark(4);
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            assertThat(LogFixture.show(log))
                    .as("with the HW at 4 only segment 0..3 is cleanable, and its map sees apple only up to 3: apple 2"
                            + " at 3 stays there, and segment 4..6 is untouched (uncommitted records may still be"
                            + " truncated, so the cleaner leaves them alone)")
                    .containsExactly("1:pear=1", "2:plum=1", "3:apple=2", "4:pear=2", "5:fig=1", "6:apple=3",
                            "7:fig=2", "8:fig=3");
        }
    }

    private static List<byte[]> segmentFiles(Log log) throws IOException {
        List<byte[]> files = new ArrayList<>();
        for (Segment s : log.segments()) {
            files.add(Files.readAllBytes(s.logFile()));
        }
        return files;
    }
}
