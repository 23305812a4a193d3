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
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.storage.internals.log.LogFileUtils;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.OffsetPosition;
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
    void aSegmentOpenedAgainCountsBytesForItsNextEntryFromZeroAsKafkaDoes() throws IOException {
        int size = batch("b0", 3).remaining();
        int interval = size + size / 2; // an entry once two batches were written since the last one
        try (Segment segment = Segment.create(dir, 0, interval)) {
            for (int i = 0; i < 2; i++) {
                segment.append(withOffset(batch("b" + i, 3), 3L * i));
            }
        }
        try (Segment segment = Segment.open(dir, 0, interval, Long.MAX_VALUE, true, false, new ArrayList<>())) {
            for (int i = 2; i < 5; i++) {
                segment.append(withOffset(batch("b" + i, 3), 3L * i));
            }
            assertThat(segment.indexEntries())
                    .as("two batches (%d bytes) were in the segment when it was opened again: Kafka's LogSegment starts"
                            + " counting at 0 when it is opened, so the first entry is the fifth batch's (last offset 14,"
                            + " byte %d), after more than %d bytes appended since; counting the bytes already there"
                            + " would have indexed the third batch at once", 2 * size, 4 * size, interval)
                    .containsExactly(new OffsetIndex.Entry(14, 4 * size));
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

    private static final String SPARSE = "an entry (the batch's LAST offset, the byte where the batch starts) is added only"
            + " when MORE than index.interval.bytes were written since the last entry, checked before the batch's own bytes"
            + " are counted, and the count restarts at 0 (and when the segment is opened again); so a"
            + " segment's first batch never gets one";
    private static final String TRACKED = "each batch tracked moves the segment's next offset to the batch's last"
            + " offset + 1 (the offset the next record gets) and keeps the LARGEST timestamp of any batch, not the latest";
    private static final String LOOKUP = "a lookup answers the entry with the largest offset at or below the target (<=,"
            + " binary search over entries sorted by offset), or (base offset, 0) when every entry is above it";

    /** An index's entries, as offsets and positions that only grow, and the targets looked up in it. */
    private record Lookups(long baseOffset, List<OffsetIndex.Entry> entries, List<Long> targets) {
        @Override
        public String toString() {
            return "the index of base offset " + baseOffset + " with entries " + show(entries) + ", looked up at " + targets;
        }
    }

    /** An entry as the guide writes it: offset -> byte. */
    private static String show(OffsetIndex.Entry entry) {
        return entry.offset() + " -> byte " + entry.position();
    }

    private static List<String> show(List<OffsetIndex.Entry> entries) {
        return entries.stream().map(OffsetIndexTest::show).toList();
    }

    private static Gen<Lookups> lookups() {
        Gen<Long> bases = Gens.oneOf(Gens.constant(0L), Gens.longs(0, Long.MAX_VALUE / 2));
        Gen<List<int[]>> steps = Gens.lists(Gens.ints(1, 6).zip(Gens.ints(1, 5000), (o, p) -> new int[] {o, p}), 0, 40);
        return c -> {
            long base = bases.generate(c);
            List<OffsetIndex.Entry> entries = new ArrayList<>();
            long offset = base;
            int position = 0;
            for (int[] step : steps.generate(c)) {
                offset += step[0];
                position += step[1];
                entries.add(new OffsetIndex.Entry(offset, position));
            }
            long end = offset;
            List<Long> targets = Gens.lists(Gens.longs(Math.max(0, base - 2), end + 2), 1, 12).generate(c);
            return new Lookups(base, entries, targets);
        };
    }

    @Test
    void everyLookupAnswersWhatKafkasOffsetIndexAnswers() throws IOException {
        Path kafkaDir = java.nio.file.Files.createDirectories(dir.resolve("kafka"));
        Property.forAll(lookups()).tries(100).check(in -> {
            try (OffsetIndex yours = OffsetIndex.create(dir.resolve(Segment.fileName(in.baseOffset(), Segment.INDEX_SUFFIX)),
                    in.baseOffset())) {
                org.apache.kafka.storage.internals.log.OffsetIndex kafkas = new org.apache.kafka.storage.internals.log.OffsetIndex(
                        LogFileUtils.offsetIndexFile(kafkaDir.toFile(), in.baseOffset()), in.baseOffset(), 8 * 64);
                try {
                    for (OffsetIndex.Entry entry : in.entries()) {
                        yours.append(entry.offset(), entry.position());
                        kafkas.append(entry.offset(), entry.position());
                    }
                    for (long target : in.targets()) {
                        OffsetPosition kafka = kafkas.lookup(target);
                        Judge.agree("lookup(" + target + ") in the index of base offset " + in.baseOffset() + " with entries "
                                + show(in.entries()), "entry", () -> show(yours.lookup(target)), "OffsetIndex.lookup answers",
                                show(new OffsetIndex.Entry(kafka.offset, kafka.position)), LOOKUP);
                    }
                } finally {
                    kafkas.closeHandler();
                    kafkas.deleteIfExists();
                }
            }
        });
    }

    /**
     * A segment's batches (at their final offsets, from the base offset on), its index.interval.bytes, and whether
     * it is closed and opened again (a clean restart) after the first {@code at} of them.
     */
    private record Appends(long baseOffset, int interval, List<byte[]> batches, int at, boolean reopen) {
        @Override
        public String toString() {
            return "segment " + baseOffset + ", index.interval.bytes " + interval + ", batches " + LogGens.show(batches)
                    + (reopen ? ", closed and opened again after " + at : "");
        }
    }

    private static Gen<Appends> appends() {
        Gen<Integer> intervals = Gens.oneOf(Gens.elements(0, 1, INTERVAL), Gens.ints(0, 2_000));
        Gen<Long> bases = Gens.oneOf(Gens.constant(0L), Gens.longs(0, 1L << 40));
        Gen<List<byte[]>> logs = LogGens.logs(1, 24);
        // The batches are drawn last, so that shrinking them leaves the rest of the input where it was.
        return c -> {
            long base = bases.generate(c);
            int interval = intervals.generate(c);
            int at = Gens.ints(0, 24).generate(c);
            boolean reopen = Gens.booleans().generate(c);
            List<byte[]> batches = logs.generate(c);
            return new Appends(base, interval, batches, Math.min(at, batches.size()), reopen);
        };
    }

    /** A segment that batches are appended to, closed and opened again: yours or Kafka's. */
    private interface Indexed {
        void append(ByteBuffer batch, long lastOffset) throws IOException;

        void reopen() throws IOException;

        List<OffsetIndex.Entry> entries() throws IOException;

        /** The offset the next record gets, and the largest timestamp of any batch: what track keeps besides the index. */
        List<Long> nextOffsetAndMaxTimestamp() throws IOException;
    }

    /** What a run ends with: the index entries, the next offset and the largest timestamp. */
    private record Ended(List<OffsetIndex.Entry> entries, List<Long> nextOffsetAndMaxTimestamp) {
    }

    /** Runs {@code in} on a segment; returns its index entries, next offset and largest timestamp at the end. */
    private static Ended run(Appends in, Indexed segment) throws IOException {
        long next = in.baseOffset();
        for (int i = 0; i < in.batches().size(); i++) {
            if (i == in.at() && in.reopen()) {
                segment.reopen();
            }
            ByteBuffer batch = withOffset(LogGens.wrap(in.batches().get(i)), next);
            long last = next + RecordBatch.decode(batch.duplicate()).records().size() - 1;
            segment.append(batch, last);
            next = last + 1;
        }
        return new Ended(segment.entries(), segment.nextOffsetAndMaxTimestamp());
    }

    @Test
    void everySegmentIsIndexedWhereKafkasLogSegmentAppendIndexesIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir)) {
            Property.forAll(appends()).tries(40).shrinkBudget(LogGens.SHRINKS).check(in -> {
                Path mine = tries.newDir();
                Path kafkas = java.nio.file.Files.createDirectories(mine.resolve("kafka"));
                Segment[] yours = {null};
                // What your segment ends with, or the exception it threw on the way (told as your answer).
                Judge.Outcome yourEnd = Judge.Outcome.of(() -> {
                    try {
                        yours[0] = Segment.create(mine, in.baseOffset(), in.interval());
                        return run(in, new Indexed() {
                            @Override
                            public void append(ByteBuffer batch, long lastOffset) throws IOException {
                                yours[0].append(batch);
                            }

                            @Override
                            public void reopen() throws IOException {
                                yours[0].close();
                                yours[0] = null;
                                yours[0] = Segment.open(mine, in.baseOffset(), in.interval(), Long.MAX_VALUE, true, false,
                                        new ArrayList<>());
                            }

                            @Override
                            public List<OffsetIndex.Entry> entries() {
                                return yours[0].indexEntries();
                            }

                            @Override
                            public List<Long> nextOffsetAndMaxTimestamp() {
                                return List.of(yours[0].nextOffset(), yours[0].maxTimestamp());
                            }
                        });
                    } finally {
                        if (yours[0] != null) {
                            yours[0].close();
                        }
                    }
                });
                LogSegment[] kafka = {KafkaStorage.segment(kafkas, in.baseOffset(), in.interval())};
                Ended kafkasEnd;
                try {
                    kafkasEnd = run(in, new Indexed() {
                        @Override
                        public void append(ByteBuffer batch, long lastOffset) throws IOException {
                            kafka[0].append(lastOffset, MemoryRecords.readableRecords(batch));
                        }

                        @Override
                        public void reopen() throws IOException {
                            kafka[0].close();
                            kafka[0] = KafkaStorage.segment(kafkas, in.baseOffset(), in.interval());
                            // as Kafka's LogLoader does for the active segment: room for entries again
                            kafka[0].resizeIndexes(KafkaStorage.config(1 << 30, in.interval()).maxIndexSize);
                        }

                        @Override
                        public List<OffsetIndex.Entry> entries() throws IOException {
                            List<OffsetIndex.Entry> entries = new ArrayList<>();
                            for (int i = 0; i < kafka[0].offsetIndex().entries(); i++) {
                                OffsetPosition entry = kafka[0].offsetIndex().entry(i);
                                entries.add(new OffsetIndex.Entry(entry.offset, entry.position));
                            }
                            return entries;
                        }

                        @Override
                        public List<Long> nextOffsetAndMaxTimestamp() throws IOException {
                            return List.of(kafka[0].readNextOffset(), kafka[0].maxTimestampSoFar());
                        }
                    });
                } finally {
                    kafka[0].close();
                }
                Judge.agree(in.toString(), "index entries", yourEnd.refused() ? yourEnd
                        : show(((Ended) yourEnd.value()).entries()), "LogSegment.append writes", show(kafkasEnd.entries()),
                        SPARSE);
                Judge.agree(in.toString(), "next offset and largest timestamp", ((Ended) yourEnd.value())
                        .nextOffsetAndMaxTimestamp(), "LogSegment.readNextOffset and maxTimestampSoFar give",
                        kafkasEnd.nextOffsetAndMaxTimestamp(), TRACKED);
            });
        }
    }
}
