package kaenlog.log;

import static kaenlog.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import kaenlog.batch.RecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        for (long base : new long[] {0, 8, 16}) {
            try (Segment segment = Segment.create(dir, base, 0)) {
                for (int i = 0; i < 4; i++) {
                    segment.append(withOffset(batch("s" + base + "-" + i, 2), base + 2L * i));
                }
                assertThat(segment.indexEntries())
                        .as("segment %d: no entry at position 0, the segment's first batch (a reader starts there"
                                + " anyway), but one for each of its 3 later batches (index.interval.bytes 0)", base)
                        .noneMatch(e -> e.position() == 0)
                        .hasSize(3);
            }
        }
    }

    @Test
    void exactlyIndexIntervalBytesSinceTheLastEntryIsNotYetMoreThanIt() throws IOException {
        int size = batch("b0", 3).remaining();
        List<Placed> placed = new ArrayList<>();
        try (Segment segment = Segment.create(dir, 0, 2 * size)) {
            for (int i = 0; i < 6; i++) {
                ByteBuffer batch = withOffset(batch("b" + i, 3), 3L * i);
                placed.add(new Placed(segment.size(), batch.remaining(), 3L * i + 2));
                segment.append(batch);
            }

            assertThat(segment.indexEntries())
                    .as("index.interval.bytes %d = two batches of %d bytes: before the third batch exactly %d bytes were"
                            + " written, which is not MORE than the interval (>, not >=), so the first entry is the"
                            + " fourth batch's (last offset 11, at byte %d); the count restarts there",
                            2 * size, size, 2 * size, 3 * size)
                    .containsExactly(new OffsetIndex.Entry(placed.get(3).lastOffset(), placed.get(3).position()));
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
