package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.batch.BatchHeader;
import kaenlog.log.Log;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seam with chapter 7. The idempotent producer's state is rebuilt from batch headers: per
 * producer id, the epoch and the last batch's sequence and offset. Compaction must leave those
 * headers able to say the same thing: every surviving batch keeps its offsets and producer fields
 * (chapter 1's preserving builder), and a producer's last batch survives even when it loses
 * every record (Kafka keeps it as an empty header, BatchRetention.RETAIN_EMPTY).
 */
@Order(8)
class ProducerStateSeamTest {
    @TempDir
    Path dir;

    /**
     * Producer 1000 writes 0..1 and 2..2, producer 2000 writes 3..5, a plain writer overwrites
     * apple, pear and plum at 6..8, producer 3000 writes 9..10 (its sequence wraps from
     * Integer.MAX_VALUE to 0); all closed. Producer 1000 loses every
     * record, producer 2000 its middle one.
     */
    private Log log() throws IOException {
        Log log = LogFixture.open(dir);
        LogFixture.putIdempotent(log, 1000, (short) 0, 0, T0, "apple", "1", "pear", "1");
        LogFixture.putIdempotent(log, 1000, (short) 0, 2, T0, "plum", "1");
        LogFixture.putIdempotent(log, 2000, (short) 3, 7, T0, "fig", "1", "apple", "2", "kiwi", "1");
        LogFixture.put(log, T0, "pear", "2", "plum", "2", "apple", "3");
        log.roll();
        LogFixture.putIdempotent(log, 3000, (short) 1, Integer.MAX_VALUE, T0, "melon", "1", "grape", "1");
        log.roll();
        return log;
    }

    /** What chapter 7 rebuilds: producer id -> "epoch e, sequences first..last at offsets first..last" of its last batch. */
    static Map<Long, String> producerState(List<BatchHeader> headers) {
        Map<Long, String> state = new TreeMap<>();
        for (BatchHeader h : headers) {
            if (h.hasProducerId()) {
                state.put(h.producerId(), "epoch " + h.producerEpoch() + ", sequences " + h.baseSequence() + ".."
                        + h.lastSequence() + " at offsets " + h.baseOffset() + ".." + h.lastOffset());
            }
        }
        return state;
    }

    private static String producerFields(BatchHeader h) {
        return "offsets " + h.baseOffset() + ".." + h.lastOffset() + ", producer " + h.producerId() + " epoch "
                + h.producerEpoch() + ", sequences " + h.baseSequence() + ".." + h.lastSequence()
                + ", leader epoch " + h.partitionLeaderEpoch() + ", transactional " + h.isTransactional();
    }

    @Test
    void everySurvivingBatchKeepsItsOffsetsAndProducerFields() throws IOException {
        try (Log log = log()) {
            Map<Long, String> before = new TreeMap<>();
            LogFixture.headers(log).forEach(h -> before.put(h.baseOffset(), producerFields(h)));
            new Cleaner(24 * HOUR).clean(log, T0 + HOUR);

            for (BatchHeader after : LogFixture.headers(log)) {
                assertThat(producerFields(after))
                        .as("the batch at %d after compaction: base and last offset, producer id, epoch, sequences, leader"
                                + " epoch and transactional bit are the original's (the 'On Compaction' rule)",
                                after.baseOffset())
                        .isEqualTo(before.get(after.baseOffset()));
            }
        }
    }

    @Test
    void producerStateRebuiltFromTheCompactedLogIsTheStateBefore() throws IOException {
        try (Log log = log()) {
            Map<Long, String> before = producerState(LogFixture.headers(log));
            new Cleaner(24 * HOUR).clean(log, T0 + HOUR);
            assertThat(producerState(LogFixture.headers(log)))
                    .as("rebuilding producer state from the compacted headers must give what the original log gave,"
                            + " or a restarted broker would answer a retry with OUT_OF_ORDER_SEQUENCE instead of"
                            + " DUPLICATE (chapter 7)")
                    .isEqualTo(before);
        }
        try (Log reopened = LogFixture.open(dir)) {
            assertThat(producerState(LogFixture.headers(reopened)))
                    .as("and so does the compacted log after a restart")
                    .containsEntry(1000L, "epoch 0, sequences 2..2 at offsets 2..2")
                    .containsEntry(2000L, "epoch 3, sequences 7..9 at offsets 3..5")
                    .containsEntry(3000L, "epoch 1, sequences " + Integer.MAX_VALUE + "..0 at offsets 9..10");
        }
    }

    @Test
    void aProducersEmptiedLastBatchStaysAsAHeader() throws IOException {
        try (Log log = log()) {
            new Cleaner(24 * HOUR).clean(log, T0 + HOUR);
            BatchHeader plum = LogFixture.headers(log).stream().filter(h -> h.baseOffset() == 2).findFirst()
                    .orElseThrow(() -> new AssertionError("batch 2..2, producer 1000's last, must survive compaction"));
            assertThat(plum.recordCount()).as("its only record (plum) was overwritten: no record left").isZero();
            assertThat(plum.sizeInBytes()).as("it is a bare 61-byte header").isEqualTo(BatchHeader.SIZE);
            assertThat(plum.lastSequence())
                    .as("which still tells chapter 7 that producer 1000's last sequence is 2").isEqualTo(2);
        }
    }

    @Test
    void anEmptiedBatchThatIsNotItsProducersLastGoes() throws IOException {
        try (Log log = log()) {
            new Cleaner(24 * HOUR).clean(log, T0 + HOUR);
            assertThat(LogFixture.headers(log)).extracting(BatchHeader::baseOffset)
                    .as("batch 0..1 (producer 1000, apple and pear both overwritten) goes: a later batch of the same"
                            + " producer (2..2) carries its state (DELETE_EMPTY); the others stay")
                    .containsExactly(2L, 3L, 6L, 9L);
        }
    }

    @Test
    void aBatchThatLosesItsMiddleRecordKeepsItsSequenceRange() throws IOException {
        try (Log log = log()) {
            new Cleaner(24 * HOUR).clean(log, T0 + HOUR);
            assertThat(LogFixture.show(log))
                    .as("producer 2000's apple at 4 was overwritten; fig at 3 and kiwi at 5 stay, and their batch still"
                            + " says sequences 7..9 (checked by everySurvivingBatchKeepsItsOffsetsAndProducerFields)")
                    .containsExactly("3:fig=1", "5:kiwi=1", "6:pear=2", "7:plum=2", "8:apple=3", "9:melon=1",
                            "10:grape=1");
        }
    }
}
