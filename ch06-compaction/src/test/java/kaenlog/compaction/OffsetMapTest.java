package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.T0;
import static kaenlog.compaction.LogFixture.bytes;
import static kaenlog.compaction.LogFixture.decoded;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.CompactedBatchBuilder;
import kaenlog.batch.RecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 3: the cleaner's first pass, the offset map. Read oldest first, every keyed record
 * overwrites its key's entry, so the map ends holding each key's latest offset (Kafka's
 * {@code buildOffsetMap}); it also remembers the last offset it covered.
 */
@Order(3)
class OffsetMapTest {
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
}
