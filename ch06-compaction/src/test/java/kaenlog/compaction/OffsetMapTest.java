package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.T0;
import static kaenlog.compaction.LogFixture.bytes;
import static kaenlog.compaction.LogFixture.decoded;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CompactedBatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.LogShapes.LogShape;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 3: the cleaner's first pass, the offset map. Read oldest first, every keyed record
 * overwrites its key's entry, so the map ends holding each key's latest offset (Kafka's
 * {@code buildOffsetMap}); it also remembers the last offset it covered.
 */
@Order(3)
class OffsetMapTest {
    @TempDir
    Path dir;

    @Test
    void eachKeyMapsToTheOffsetOfItsLatestRecord() {
        OffsetMap map = OffsetMap.of(List.of(
                decoded(0, T0, "apple", "1", "pear", "1"),
                decoded(2, T0, "apple", "2"),
                decoded(3, T0, "plum", "1", "apple", "3")));

        assertThat(map.get(bytes("apple")))
                .as("apple was written at 0, 2 and 4: its latest record is at 4").isEqualTo(4L);
        assertThat(map.get(bytes("pear"))).as("pear was written once, at 1").isEqualTo(1L);
        assertThat(map.get(bytes("plum"))).as("plum was written once, at 3").isEqualTo(3L);
        assertThat(map.size()).as("three distinct keys").isEqualTo(3);
    }

    @Test
    void aKeyTheMapHasNotSeenAnswersMinusOne() {
        OffsetMap map = OffsetMap.of(List.of(decoded(0, T0, "apple", "1")));
        assertThat(map.get(bytes("kiwi")))
                .as("an unknown key answers -1 (Kafka's OffsetMap.get), lower than any offset").isEqualTo(-1L);
    }

    @Test
    void aTombstoneIsTheLatestRecordOfItsKeyLikeAnyOther() {
        OffsetMap map = OffsetMap.of(List.of(decoded(0, T0, "apple", "1"), decoded(1, T0, "apple", null)));
        assertThat(map.get(bytes("apple")))
                .as("the tombstone at 1 is apple's latest record: the map does not care about values, only keys")
                .isEqualTo(1L);
    }

    @Test
    void aRecordWithoutAKeyIsNotMapped() {
        RecordBatch keyless = RecordBatch.decode(new BatchBuilder()
                .append(T0, (byte[]) null, bytes("no key")).append(T0, bytes("apple"), bytes("1")).build(0));
        OffsetMap map = OffsetMap.of(List.of(keyless));
        assertThat(map.size())
                .as("only apple is mapped: a record without a key has nothing to be the latest of").isEqualTo(1);
        assertThat(map.get(bytes("apple"))).as("apple at 1").isEqualTo(1L);
    }

    @Test
    void theMapCoversUpToTheLastBatchsLastOffset() {
        RecordBatch original = decoded(10, T0, "a", "1", "b", "2", "c", "3");
        RecordBatch compacted = RecordBatch.decode(new CompactedBatchBuilder(original.header())
                .retain(original.records().get(0)).build());
        OffsetMap map = OffsetMap.of(List.of(decoded(0, T0, "x", "1"), compacted));

        assertThat(map.latestOffset())
                .as("the last batch spans 10..12 although only offset 10 is left in it (compaction keeps a batch's"
                        + " last offset): the map covers up to 12, Kafka's map.updateLatestOffset(batch.lastOffset())")
                .isEqualTo(12L);
    }

    @Test
    void anEmptyBatchStillMovesTheLatestOffset() {
        RecordBatch original = decoded(10, T0, "a", "1", "b", "2");
        RecordBatch emptied = RecordBatch.decode(new CompactedBatchBuilder(original.header()).build());
        OffsetMap map = OffsetMap.of(List.of(decoded(0, T0, "x", "1"), emptied));
        assertThat(map.latestOffset())
                .as("the last batch spans 10..11 and holds no record (an empty header a cleaning kept for its producer):"
                        + " the map still covers up to its lastOffset 11, an empty compacted batch included")
                .isEqualTo(11L);
    }

    @Test
    void anEmptyMapCoversNothing() {
        OffsetMap map = OffsetMap.of(List.of());
        assertThat(map.latestOffset()).as("no batch, no covered offset: -1").isEqualTo(-1L);
        assertThat(map.size()).as("and no key").isZero();
    }

    @Test
    void keysAreComparedByTheirBytes() {
        OffsetMap map = OffsetMap.of(List.of(decoded(0, T0, "apple", "1")));
        byte[] sameBytesOtherArray = "apple".getBytes(StandardCharsets.UTF_8);
        assertThat(map.get(sameBytesOtherArray))
                .as("a key is its bytes: another array holding the same bytes is the same key").isZero();
    }

    // ---- Kafka judges: any log, Kafka 4.1.1's Cleaner.buildOffsetMap over the same batches ------

    /** What the property tries: a log, cleaned once by Kafka's cleaner or not, and which segments to map. */
    record MapCase(LogShape log, boolean cleanedFirst, int fromSegment, int toSegment) {
        @Override
        public String toString() {
            return log + "\n    " + (cleanedFirst ? "cleaned once by Kafka's cleaner at T0+3600000, then " : "")
                    + "mapped from segment number " + fromSegment + " to before number " + toSegment;
        }
    }

    /** Logs with repeated keys, tombstones and keyless records; cleaned first half of the time (gaps, empty batches). */
    static Gen<MapCase> mapCases() {
        return c -> {
            LogShape log = LogShapes.logs(LogShapes::atT0).generate(c);
            int segments = log.segments().size();
            int from = c.belowInt(segments);
            int to = from + 1 + c.belowInt(segments - from);
            return new MapCase(log, c.oneIn(2), from, to);
        };
    }

    @Test
    void kafkasCleanerBuildsTheSameOffsetMapOfAnyLog() throws IOException {
        try (Scratch scratch = Scratch.in(dir); KafkaLog kafka = KafkaLog.open(scratch.dir("t-0"))) {
            Property.forAll(mapCases()).tries(60).shrinkBudget(LogShapes.SHRINKS).check(c -> {
                kafka.mirror(c.log().batchBytes());
                List<Long> bases = kafka.segmentBases();
                long activeBase = bases.get(bases.size() - 1);
                if (c.cleanedFirst()) {
                    kafka.clean(0, activeBase, activeBase, activeBase, T0 + LogFixture.HOUR, List.of());
                }
                List<List<ByteBuffer>> segments = kafka.segmentBatches();
                List<RecordBatch> mapped = new ArrayList<>();
                for (List<ByteBuffer> segment : segments.subList(c.fromSegment(), c.toSegment())) {
                    segment.forEach(bytes -> mapped.add(RecordBatch.decode(bytes.duplicate())));
                }
                long start = kafka.segmentBases().get(c.fromSegment());
                // Kafka's map ends where its caller says the dirty part ends: here, right after the last batch mapped
                long end = mapped.isEmpty() ? start : mapped.get(mapped.size() - 1).header().nextOffset();
                List<byte[]> keys = new ArrayList<>(List.of(LogShapes.KEYS));
                keys.add(bytes("never written"));

                Judge.Outcome yours = Judge.Outcome.of(() -> {
                    OffsetMap map = OffsetMap.of(mapped);
                    Map<String, Long> offsets = new LinkedHashMap<>();
                    keys.forEach(key -> offsets.put(LogShapes.text(key), map.get(key)));
                    return summary(offsets, map.latestOffset(), map.size());
                });
                KafkaLog.KafkaOffsetMap kafkas = kafka.buildOffsetMap(start, end, keys);
                Map<String, Long> kafkaOffsets = new LinkedHashMap<>();
                keys.forEach(key -> kafkaOffsets.put(LogShapes.text(key), kafkas.offsets().get(LogShapes.text(key))));
                Judge.agree("the offset map of these batches" + LogShapes.describe(mapped) + "\n   ", "map", yours,
                        "Cleaner.buildOffsetMap (a SkimpyOffsetMap) answers",
                        new Judge.Outcome(summary(kafkaOffsets, kafkas.latestOffset(), kafkas.size()), null),
                        "read oldest first, every keyed record overwrites its key's entry (a tombstone too: the map only"
                                + " looks at keys), a record without a key is not mapped, an unknown key is -1, and the map"
                                + " covers up to each batch's header lastOffset (not its last record's)");
            });
        }
    }

    /** The whole answer in one line: every key's offset, the latest offset, the number of keys. */
    private static String summary(Map<String, Long> offsets, long latestOffset, int keys) {
        return offsets + ", latest offset " + latestOffset + ", " + keys + " key(s)";
    }
}
