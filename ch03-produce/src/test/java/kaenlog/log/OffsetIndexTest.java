package kaenlog.log;

import static kaenlog.log.LogFixtures.appendBatches;
import static kaenlog.log.LogFixtures.baseOffsets;
import static kaenlog.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import kaenlog.batch.RecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task 2: the sparse offset index. Kafka does not index every record: a segment's index gets an
 * entry only after more than {@code index.interval.bytes} (default 4096) of batches were written
 * since the last one, so it stays small enough to keep in memory. An entry is (the batch's LAST
 * offset, the position where the batch starts), added before the batch's own bytes are counted
 * (LogSegment.append), so the first batch of a segment never gets one: position 0 needs none.
 * A lookup finds the largest entry at or below the target; the reader scans forward from there.
 */
@Order(2)
class OffsetIndexTest {
    private static final int INTERVAL = LogConfig.DEFAULT_INDEX_INTERVAL_BYTES;

    @TempDir
    Path dir;

    /** Where each appended batch starts, its size and its last offset. */
    private record Placed(int position, int size, long lastOffset) {
    }

    @Test
    void withTheDefaultIntervalAnEntryIsWrittenOnlyAfterMoreThan4096BytesOfBatches() throws IOException {
        List<Placed> placed = new ArrayList<>();
        try (Segment segment = Segment.create(dir, 0, INTERVAL)) {
            long next = 0;
            for (int i = 0; i < 200; i++) {
                ByteBuffer batch = withOffset(batch("b" + i, 3), next);
                placed.add(new Placed(segment.size(), batch.remaining(), next + 2));
                segment.append(batch);
                next += 3;
            }
            List<OffsetIndex.Entry> entries = segment.indexEntries();

            assertThat(entries)
                    .as("Kafka's LogSegment.append rule: before writing a batch, if more than index.interval.bytes"
                            + " (4096) were written since the last entry, add (batch's last offset, batch's position)"
                            + " and restart the count; then count the batch's own bytes")
                    .containsExactlyElementsOf(expectedEntries(placed, INTERVAL));
            assertThat(entries.size())
                    .as("sparse on purpose: %d batches of about %d bytes get only a handful of entries, not one each",
                            placed.size(), placed.get(0).size())
                    .isBetween(2, placed.size() / 20);
            assertThat(entries.get(0).position())
                    .as("the first entry comes only after more than 4096 bytes of batches")
                    .isGreaterThan(INTERVAL);
            for (int i = 1; i < entries.size(); i++) {
                assertThat(entries.get(i).position() - entries.get(i - 1).position())
                        .as("entries %d and %d are more than index.interval.bytes apart", i - 1, i)
                        .isGreaterThan(INTERVAL);
            }
        }
    }

    @Test
    void anEntryNamesTheBatchsLastOffsetAndTheBatchsStartPosition() throws IOException {
        try (Segment segment = Segment.create(dir, 0, 0)) {
            List<OffsetIndex.Entry> expected = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ByteBuffer batch = withOffset(batch("b" + i, 4), 4L * i);
                if (i > 0) {
                    expected.add(new OffsetIndex.Entry(4L * i + 3, segment.size()));
                }
                segment.append(batch);
            }

            assertThat(segment.indexEntries())
                    .as("with index.interval.bytes 0 every batch but the first is indexed; each entry is the batch's"
                            + " LAST offset (7, 11, 15, ... for 4-record batches, not its base offset 4, 8, 12, ...) with"
                            + " the position where the batch starts, as Kafka's LogSegment.append writes largestOffset")
                    .containsExactlyElementsOf(expected);
            for (OffsetIndex.Entry entry : segment.indexEntries()) {
                assertThat(segment.headerAt(entry.position()).lastOffset())
                        .as("the batch starting at position %d ends at offset %d, the entry's offset", entry.position(),
                                entry.offset())
                        .isEqualTo(entry.offset());
            }
        }
    }

    @Test
    void theFirstBatchOfEverySegmentIsNeverIndexed() throws IOException {
        int batchSize = LogFixtures.sizeOfBatch(2);
        LogConfig config = new LogConfig(batchSize * 4, 0);
        try (Log log = Log.open(dir, config)) {
            appendBatches(log, 14, 2);
            assertThat(log.segments()).as("4 batches a segment: 14 batches need 4 segments").hasSize(4);
            for (Segment segment : log.segments()) {
                assertThat(segment.indexEntries())
                        .as("segment %d: no entry at position 0, the segment's first batch (a reader starts there"
                                + " anyway), but one for each later batch (index.interval.bytes 0)", segment.baseOffset())
                        .noneMatch(e -> e.position() == 0)
                        .hasSize(segment.headers().size() - 1);
            }
        }
    }

    @Test
    void aLookupReturnsTheLargestEntryAtOrBelowTheTargetOrTheSegmentStart() throws IOException {
        try (OffsetIndex index = OffsetIndex.create(dir.resolve(Segment.fileName(100, Segment.INDEX_SUFFIX)), 100)) {
            assertThat(index.lookup(150))
                    .as("an empty index sends the reader to the start of the segment: (base offset 100, position 0)")
                    .isEqualTo(new OffsetIndex.Entry(100, 0));
            index.append(105, 4_200);
            index.append(111, 8_400);
            index.append(120, 12_700);

            assertThat(index.lookup(100))
                    .as("target 100 is below the first entry (105): start at the segment start (100, 0)")
                    .isEqualTo(new OffsetIndex.Entry(100, 0));
            assertThat(index.lookup(104))
                    .as("target 104 is below the first entry (105): start at the segment start (100, 0)")
                    .isEqualTo(new OffsetIndex.Entry(100, 0));
            assertThat(index.lookup(105))
                    .as("target 105 equals an entry: that entry (<=, not <)")
                    .isEqualTo(new OffsetIndex.Entry(105, 4_200));
            assertThat(index.lookup(110))
                    .as("target 110 lies between 105 and 111: the entry below it, (105, 4200)")
                    .isEqualTo(new OffsetIndex.Entry(105, 4_200));
            assertThat(index.lookup(111))
                    .as("target 111 equals the middle entry")
                    .isEqualTo(new OffsetIndex.Entry(111, 8_400));
            assertThat(index.lookup(120))
                    .as("target 120 equals the last entry")
                    .isEqualTo(new OffsetIndex.Entry(120, 12_700));
            assertThat(index.lookup(10_000))
                    .as("a target past every entry: the last entry, (120, 12700)")
                    .isEqualTo(new OffsetIndex.Entry(120, 12_700));
        }
    }

    @Test
    void theBinarySearchAgreesWithALinearScanForEveryTargetOnAThousandEntries() throws IOException {
        long base = 5_000;
        Random random = new Random(42);
        List<OffsetIndex.Entry> entries = new ArrayList<>();
        try (OffsetIndex index = OffsetIndex.create(dir.resolve(Segment.fileName(base, Segment.INDEX_SUFFIX)), base)) {
            long offset = base;
            int position = 0;
            for (int i = 0; i < 1_000; i++) {
                offset += 1 + random.nextInt(5);
                position += 1 + random.nextInt(300);
                index.append(offset, position);
                entries.add(new OffsetIndex.Entry(offset, position));
            }
            for (long target = base; target <= offset + 3; target++) {
                assertThat(index.lookup(target))
                        .as("lookup(%d) on 1000 entries (seed 42): the largest entry with offset <= %d, or (%d, 0)"
                                + " when none is; a binary search must find exactly what a linear scan finds",
                                target, target, base)
                        .isEqualTo(linearLookup(entries, base, target));
            }
        }
    }

    /** The three ways an index file can be wrong after a crash or a disk fault. */
    enum BrokenIndex {
        DELETED, FIVE_GARBAGE_BYTES, ENTRIES_THAT_DO_NOT_GROW,
        /** Still sorted, still inside the segment, and wrong: the entry's batch does not end at that offset. */
        AN_ENTRY_WITH_A_LOWERED_OFFSET
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(BrokenIndex.class)
    void aMissingOrCorruptIndexOfAClosedSegmentIsRebuiltOnOpenAndReadsStillWork(BrokenIndex broken) throws IOException {
        int batchSize = LogFixtures.sizeOfBatch(3);
        LogConfig config = new LogConfig(batchSize * 20, batchSize * 2);
        List<OffsetIndex.Entry> before;
        Path indexFile;
        List<AppendInfo> infos;
        try (Log log = Log.open(dir, config)) {
            infos = appendBatches(log, 50, 3);
            assertThat(log.segments()).as("20 batches a segment: 50 batches make 3 segments").hasSize(3);
            Segment closed = log.segments().get(0);
            before = closed.indexEntries();
            indexFile = closed.indexFile();
            assertThat(before).as("the closed segment's index has entries to lose").hasSizeGreaterThan(2);
        }

        switch (broken) {
            case DELETED -> Files.delete(indexFile);
            case FIVE_GARBAGE_BYTES -> Files.write(indexFile, new byte[] {1, 2, 3, 4, 5});
            case ENTRIES_THAT_DO_NOT_GROW -> Files.write(indexFile, ByteBuffer.allocate(16)
                    .putInt(10).putInt(900).putInt(5).putInt(1_000).array());
            case AN_ENTRY_WITH_A_LOWERED_OFFSET -> {
                ByteBuffer entries = ByteBuffer.wrap(Files.readAllBytes(indexFile));
                int lowered = entries.getInt(0) + 1; // between the first entry's offset and the second's
                entries.putInt(OffsetIndex.ENTRY_SIZE, lowered);
                Files.write(indexFile, entries.array());
            }
        }

        try (Log log = Log.open(dir, config)) {
            Segment closed = log.segments().get(0);
            assertThat(closed.indexEntries())
                    .as("%s: Log.open must not trust an index it cannot use (missing, a partial 8-byte entry, offsets"
                            + " that go backwards, an entry whose batch does not end at its offset); it rebuilds it from the segment's batches, giving the same entries",
                            broken)
                    .containsExactlyElementsOf(before);
            assertThat(Files.size(closed.indexFile()))
                    .as("%s: the rebuilt index is on disk again, 8 bytes per entry", broken)
                    .isEqualTo((long) before.size() * OffsetIndex.ENTRY_SIZE);
            for (AppendInfo info : infos) {
                ByteBuffer read = log.read(info.lastOffset(), 1, FetchIsolation.LOG_END);
                assertThat(baseOffsets(read))
                        .as("%s: a read at offset %d finds the batch holding it through the rebuilt index", broken,
                                info.lastOffset())
                        .containsExactly(info.firstOffset());
            }
        }
    }

    private static List<OffsetIndex.Entry> expectedEntries(List<Placed> placed, int interval) {
        List<OffsetIndex.Entry> expected = new ArrayList<>();
        int sinceLastEntry = 0;
        for (Placed p : placed) {
            if (sinceLastEntry > interval) {
                expected.add(new OffsetIndex.Entry(p.lastOffset(), p.position()));
                sinceLastEntry = 0;
            }
            sinceLastEntry += p.size();
        }
        return expected;
    }

    private static OffsetIndex.Entry linearLookup(List<OffsetIndex.Entry> entries, long base, long target) {
        OffsetIndex.Entry found = new OffsetIndex.Entry(base, 0);
        for (OffsetIndex.Entry e : entries) {
            if (e.offset() <= target) {
                found = e;
            }
        }
        return found;
    }

    /** A producer batch moved to its final offsets, as the leader would write it. */
    private static ByteBuffer withOffset(ByteBuffer batch, long baseOffset) {
        RecordBatch.assignBaseOffset(batch, baseOffset);
        return batch;
    }
}
