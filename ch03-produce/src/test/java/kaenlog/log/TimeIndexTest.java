package kaenlog.log;

import static kaenlog.log.LogFixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a task: the time index is given code (lookups by time: Kafka's ListOffsets by timestamp,
 * {@code klog consume --from-time}). Checks its layout and rule against a model of Kafka's
 * LogSegment.append, the lookup against a scan of every record, the rebuild from the log when the
 * file is missing or fails its sanity check, and, as the oracle, Kafka's own DumpLogSegments
 * reading our {@code .index} and {@code .timeindex} files.
 */
@Order(21)
class TimeIndexTest {
    private static final long SEED = 20_251_201L;
    private static final int BATCHES = 120;
    private static final LogConfig CONFIG = new LogConfig(4_096, 256);

    @TempDir
    Path dir;

    /** One record as appended: its offset and timestamp. */
    private record Rec(long offset, long timestamp) {
    }

    /**
     * Batches of 1 to 4 records whose timestamps mostly grow but sometimes go back (producers'
     * clocks differ: CreateTime is the producer's), some with a timestamp far ahead.
     */
    private List<Rec> appendRandomBatches(Log log, Random random) throws IOException {
        List<Rec> records = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < BATCHES; i++) {
            int n = 1 + random.nextInt(4);
            BatchBuilder builder = new BatchBuilder();
            List<Long> timestamps = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                clock += random.nextInt(20);
                long ts = random.nextInt(5) == 0 ? clock - random.nextInt(200) : clock;
                if (random.nextInt(40) == 0) {
                    ts = clock + 1_000;
                }
                timestamps.add(ts);
                builder.append(ts, "k" + i, "value-" + i + "-" + r + "-" + "x".repeat(random.nextInt(40)));
            }
            AppendInfo info = log.append(builder.build());
            for (int r = 0; r < n; r++) {
                records.add(new Rec(info.firstOffset() + r, timestamps.get(r)));
            }
        }
        return records;
    }

    @Test
    void everyTimeIndexEntryIsWrittenWithAnOffsetIndexEntryWhenTheLargestTimestampGrew() throws IOException {
        try (Log log = Log.open(dir, CONFIG)) {
            appendRandomBatches(log, new Random(SEED));
            List<Segment> segments = log.segments();
            assertThat(segments).as("setup: segment.bytes 4096 spreads the batches over several segments")
                    .hasSizeGreaterThan(3);
            for (Segment segment : segments) {
                String where = segment.timeIndexFile().getFileName().toString();
                List<TimeIndex.Entry> expected = kafkasRule(segment, segment != log.activeSegment());
                assertThat(segment.timeIndexEntries())
                        .as("%s: an entry (largest timestamp so far, last offset of the batch that reached it) with"
                                + " each offset index entry whose largest timestamp is above the last entry's, and"
                                + " one more when the segment was rolled (Kafka's LogSegment.append and"
                                + " onBecomeInactiveSegment)", where)
                        .isEqualTo(expected);
                assertThat(Files.size(segment.timeIndexFile()))
                        .as("%s: 12 bytes an entry on disk (timestamp int64, relative offset int32)", where)
                        .isEqualTo(12L * expected.size());
                ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(segment.timeIndexFile()));
                for (TimeIndex.Entry entry : expected) {
                    assertThat(new TimeIndex.Entry(file.getLong(), segment.baseOffset() + file.getInt()))
                            .as("%s: the entry as Kafka's TimeIndex reads it", where).isEqualTo(entry);
                }
            }
        }
    }

    /** Kafka's rule, replayed over the segment's batch headers and its offset index. */
    private static List<TimeIndex.Entry> kafkasRule(Segment segment, boolean rolled) throws IOException {
        List<TimeIndex.Entry> entries = new ArrayList<>();
        List<Integer> indexed = segment.indexEntries().stream().map(OffsetIndex.Entry::position).toList();
        long largest = BatchHeader.NO_TIMESTAMP;
        long offsetOfLargest = segment.baseOffset();
        int position = 0;
        for (BatchHeader header : segment.headers()) {
            if (header.maxTimestamp() > largest) {
                largest = header.maxTimestamp();
                offsetOfLargest = header.lastOffset();
            }
            if (indexed.contains(position) && (entries.isEmpty() || largest > entries.get(entries.size() - 1).timestamp())) {
                entries.add(new TimeIndex.Entry(largest, offsetOfLargest));
            }
            position += header.sizeInBytes();
        }
        if (rolled && (entries.isEmpty() || largest > entries.get(entries.size() - 1).timestamp())) {
            entries.add(new TimeIndex.Entry(largest, offsetOfLargest));
        }
        return entries;
    }

    @Test
    void offsetForTimestampIsTheEarliestOffsetWhoseTimestampIsAtOrAfterTheTarget() throws IOException {
        try (Log log = Log.open(dir, CONFIG)) {
            List<Rec> records = appendRandomBatches(log, new Random(SEED + 1));
            assertLookupsMatchAScan(log, records, "after the appends");
            long cut = records.get(records.size() * 2 / 3).offset();
            log.truncateTo(cut);
            List<Rec> kept = records.stream().filter(r -> r.offset() < log.logEndOffset()).toList();
            assertLookupsMatchAScan(log, kept, "after truncating to offset " + cut);
        }
        try (Log log = Log.open(dir, CONFIG)) {
            assertThat(log.offsetForTimestamp(Long.MAX_VALUE)).as("a target newer than every record: empty").isEmpty();
        }
    }

    private static void assertLookupsMatchAScan(Log log, List<Rec> records, String when) throws IOException {
        long min = records.stream().mapToLong(Rec::timestamp).min().orElseThrow();
        long max = records.stream().mapToLong(Rec::timestamp).max().orElseThrow();
        for (long target = min - 2; target <= max + 2; target++) {
            long t = target;
            Optional<Rec> scan = records.stream().filter(r -> r.timestamp() >= t).findFirst();
            Optional<Segment.TimestampAndOffset> found = log.offsetForTimestamp(target);
            assertThat(found.map(f -> new Rec(f.offset(), f.timestamp())))
                    .as("%s: offsetForTimestamp(%d) is the first record, in offset order, whose timestamp is >= %d"
                            + " (Kafka's ListOffsets by timestamp); empty past the newest", when, target, target)
                    .isEqualTo(scan);
        }
        Rec newest = records.stream().filter(r -> r.timestamp() == max).findFirst().orElseThrow();
        assertThat(log.largestTimestamp().map(f -> new Rec(f.offset(), f.timestamp())))
                .as("%s: the largest timestamp is found at the first record holding it (ListOffsets -3)", when)
                .contains(newest);
    }

    @Test
    void aMissingOrDamagedTimeIndexIsRebuiltFromTheLogAsAppendingWroteIt() throws IOException {
        try (Log log = Log.open(dir, CONFIG)) {
            appendRandomBatches(log, new Random(SEED + 2));
        }
        Map<String, byte[]> written = timeIndexes();
        assertThat(written).as("setup: several segments, each with a time index").hasSizeGreaterThan(3);
        List<String> names = new ArrayList<>(written.keySet());
        Files.delete(dir.resolve(names.get(0)));
        LogFixtures.truncate(dir.resolve(names.get(1)), written.get(names.get(1)).length - 5);
        ByteBuffer backwards = ByteBuffer.wrap(written.get(names.get(2)).clone());
        backwards.putLong(12, 0L); // the second entry's timestamp below the first's
        Files.write(dir.resolve(names.get(2)), backwards.array());
        try (Log log = Log.open(dir, CONFIG)) {
            assertThat(log.openEvents()).as("a time index that fails its sanity check is reported rebuilt")
                    .anyMatch(e -> e.contains("time index " + names.get(1)) && e.contains("rebuilt"))
                    .anyMatch(e -> e.contains("time index " + names.get(2)) && e.contains("rebuilt"));
        }
        Map<String, byte[]> rebuilt = timeIndexes();
        for (String name : names) {
            assertThat(rebuilt.get(name)).as("%s after the reopen: byte for byte what appending wrote", name)
                    .isEqualTo(written.get(name));
        }
    }

    private Map<String, byte[]> timeIndexes() throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        for (String name : LogFixtures.fileNames(dir)) {
            if (name.endsWith(Segment.TIME_INDEX_SUFFIX)) {
                files.put(name, Files.readAllBytes(dir.resolve(name)));
            }
        }
        return new java.util.TreeMap<>(files);
    }

    @Test
    void kafkasDumpLogSegmentsReadsOurIndexAndTimeIndexWithoutAMismatch() throws Exception {
        List<TimeIndex.Entry> ours = new ArrayList<>();
        List<OffsetIndex.Entry> oursOffsets = new ArrayList<>();
        try (Log log = Log.open(dir, CONFIG)) {
            appendRandomBatches(log, new Random(SEED + 3));
            for (Segment segment : log.segments()) {
                ours.addAll(segment.timeIndexEntries());
                oursOffsets.addAll(segment.indexEntries());
            }
        }
        List<String> files = new ArrayList<>();
        for (String name : LogFixtures.fileNames(dir)) {
            if (name.endsWith(Segment.TIME_INDEX_SUFFIX) || name.endsWith(Segment.INDEX_SUFFIX)) {
                files.add(dir.resolve(name).toString());
            }
        }
        String output = dumpLogSegments(files);
        assertThat(output)
                .as("DumpLogSegments checks every .index entry against the batch at its position and every"
                        + " .timeindex entry against the batch at its offset (that batch's last offset, its largest"
                        + " record timestamp, growing timestamps); its output:%n%s", output)
                .doesNotContain("Mismatches in")
                .doesNotContain("Found timestamp mismatch")
                .doesNotContain("Found out of order timestamp")
                .doesNotContain("not found")
                .doesNotContain("Exception");
        List<String> timeLines = output.lines().filter(l -> l.startsWith("timestamp: ")).toList();
        assertThat(timeLines).as("Kafka reads our time index entries as we wrote them")
                .isNotEmpty().isEqualTo(ours.stream().map(e -> "timestamp: " + e.timestamp() + " offset: " + e.offset()).toList());
        List<String> offsetLines = output.lines().filter(l -> l.startsWith("offset: ")).toList();
        assertThat(offsetLines).as("Kafka reads our offset index entries as we wrote them")
                .isNotEmpty().isEqualTo(oursOffsets.stream().map(e -> "offset: " + e.offset() + " position: " + e.position()).toList());
    }

    /** kafka.tools.DumpLogSegments --files ..., in its own JVM (it prints with Scala's Console); its output. */
    private static String dumpLogSegments(List<String> files) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "kafka.tools.DumpLogSegments", "--files",
                String.join(",", files)));
        Process dump = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = dump.getInputStream().readAllBytes();
        assertThat(dump.waitFor(120, TimeUnit.SECONDS)).as("DumpLogSegments finished").isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void aSegmentCutBackCountsBytesForItsNextOffsetIndexEntryFromZeroAsKafkaDoes() throws IOException {
        int size = LogFixtures.batch("b0", 3).remaining();
        int interval = size + size / 2; // an entry once two batches were written since the last one
        try (Segment segment = Segment.create(dir, 0, interval)) {
            for (int i = 0; i < 5; i++) {
                ByteBuffer batch = LogFixtures.batch("b" + i, 3);
                kaenlog.batch.RecordBatch.assignBaseOffset(batch, 3L * i);
                segment.append(batch);
            }
            segment.truncateTo(6);
            ByteBuffer again = LogFixtures.batch("b2", 3);
            kaenlog.batch.RecordBatch.assignBaseOffset(again, 6);
            segment.append(again);
            assertThat(segment.indexEntries())
                    .as("five batches of %d bytes (index.interval.bytes %d: an entry at the third, byte %d), cut back to"
                            + " offset 6 (two batches kept, the entry gone), one batch appended: no entry, as Kafka's"
                            + " LogSegment.truncateTo restarts the count at 0; counting the two batches kept would index it"
                            + " at once", size, interval, 2 * size)
                    .isEmpty();
        }
    }
}
