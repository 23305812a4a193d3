package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
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
 * The seam between chapter 6 and chapter 7: compaction rewrites batches, and the restart scan reads
 * their headers. If compaction reset the producer fields to -1, or lost a batch's first or last
 * sequence when it removed records at its ends, the window could not be rebuilt (Kafka's
 * DefaultRecordBatch, "On Compaction"). This breaks at run time, not on paper, so it is run.
 */
@Order(6)
class CompactionSeamTest {
    private static final long PID = 1000L;
    private static final short EPOCH = 0;
    private static final long NOW_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /**
     * Producer 1000's batch firstSeq..firstSeq+2: keys user-a, order-N, user-b. The two user keys are
     * overwritten by every later batch, so compaction strips each older batch down to its middle
     * record: it loses its first AND its last record.
     */
    static IdempotentAppend send(Log log, ProducerState state, int firstSeq) throws IOException {
        BatchBuilder batch = new BatchBuilder().producer(PID, EPOCH, firstSeq)
                .append(NOW_MS, "user-a", "a@" + firstSeq)
                .append(NOW_MS, "order-" + (firstSeq + 1), "placed")
                .append(NOW_MS, "user-b", "b@" + firstSeq);
        return Idempotence.appendIdempotent(log, state, batch.build());
    }

    /** Ten batches in a closed segment, five in the active one; returns the live state. */
    static ProducerState fifteenBatches(Log log) throws IOException {
        ProducerState state = new ProducerState();
        for (int i = 0; i < 10; i++) {
            send(log, state, 3 * i);
        }
        log.roll();
        for (int i = 10; i < 15; i++) {
            send(log, state, 3 * i);
        }
        return state;
    }

    static List<String> ranges(List<BatchHeader> headers) {
        List<String> ranges = new ArrayList<>();
        for (BatchHeader h : headers) {
            BatchMetadata m = Idempotence.metadataOf(h);
            ranges.add("pid " + h.producerId() + " epoch " + h.producerEpoch() + " seq " + m.seqRange() + " offsets "
                    + m.firstOffset() + ".." + m.lastOffset());
        }
        return ranges;
    }

    @Test
    void compactionKeepsEveryFirstAndLastSequenceTheScanReads() throws IOException {
        try (Log log = Log.open(dir.resolve("orders-0"), LogConfig.defaults())) {
            fifteenBatches(log);
            Segment closed = log.segments().get(0);
            List<BatchHeader> before = closed.headers();
            int recordsBefore = closed.batches().stream().mapToInt(b -> b.records().size()).sum();

            new Cleaner(0).clean(log, NOW_MS);

            Segment compacted = log.segments().get(0);
            List<BatchHeader> after = compacted.headers();
            int recordsAfter = compacted.batches().stream().mapToInt(b -> b.records().size()).sum();
            assertThat(recordsAfter)
                    .as("compaction did remove records: the user-a and user-b of every older batch (30 -> 12)")
                    .isLessThan(recordsBefore)
                    .isEqualTo(12);
            assertThat(ranges(after))
                    .as("every rewritten batch keeps its producer id, epoch, first and last sequence and first and "
                            + "last offset, although it lost the records at both ends (chapter 1's preserving builder)")
                    .isEqualTo(ranges(before));
            assertThat(Idempotence.rebuildProducerState(after).get(PID).orElseThrow().batches())
                    .as("so the scan, pointed at the compacted segment, rebuilds the window it rebuilt before "
                            + "compaction, slot by slot")
                    .isEqualTo(Idempotence.rebuildProducerState(before).get(PID).orElseThrow().batches());
            for (RecordBatch batch : compacted.batches()) {
                for (Record record : batch.records()) {
                    String key = Record.show(record.key());
                    if (key.startsWith("order-")) {
                        assertThat(record.offset())
                                .as("compaction never moves an offset: %s was written at offset %s and stays there",
                                        key, key.substring(6))
                                .isEqualTo(Long.parseLong(key.substring(6)));
                    }
                }
            }
        }
    }

    @Test
    void aRestartAfterCompactionStillRebuildsTheWindow() throws IOException {
        Path partition = dir.resolve("orders-0");
        ProducerState live;
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            live = fifteenBatches(log);
            Cleaner.Result cleaned = new Cleaner(0).clean(log, NOW_MS);
            assertThat(cleaned.segments())
                    .as("the closed segment was compacted")
                    .hasSize(1);
        }

        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState rebuilt = Idempotence.rebuildProducerState(log);

            assertThat(rebuilt.get(PID).map(ProducerStateEntry::window))
                    .as("after compaction and a restart the window is rebuilt: [30..32 ... 42..44], as it was live")
                    .contains(live.get(PID).orElseThrow().window())
                    .contains("[30..32 33..35 36..38 39..41 42..44]");
            assertThat(send(log, rebuilt, 42).verdict())
                    .as("a resend of the newest batch 42..44 is still a DUPLICATE at offsets 42..44")
                    .isEqualTo(new Verdict.Duplicate(42L, 44L, NOW_MS));
            assertThat(send(log, rebuilt, 45).baseOffset())
                    .as("and the producer carries on at sequence 45, written at the log end offset 45: compaction "
                            + "moved no offset, so sequences and offsets still line up")
                    .isEqualTo(45L);
        }
    }
}
