package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.ProducerAppendInfo;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 5: rebuild the producer state when a log is opened, from the batch headers of the active
 * segment only. kaen-log has no snapshot file: this scan is all that carries dedup across a restart.
 */
@Order(5)
class RebuildProducerStateTest {
    private static final short EPOCH = 0;
    private static final long NOW_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;

    static IdempotentAppend send(Log log, ProducerState state, long pid, short epoch, int first, int last)
            throws IOException {
        List<String> values = new java.util.ArrayList<>();
        for (int s = first; s <= last; s++) {
            values.add(String.format("pid %d seq %d %s", pid, s, ".".repeat(60)));
        }
        return Idempotence.appendIdempotent(log, state, Idempotence.producerBatch(pid, epoch, first, values, NOW_MS));
    }

    /** Every producer's window, as text, for comparing states. */
    static Map<Long, String> windows(ProducerState state) {
        Map<Long, String> windows = new TreeMap<>();
        for (long pid : state.producerIds()) {
            ProducerStateEntry entry = state.get(pid).orElseThrow();
            windows.put(pid, "epoch " + entry.producerEpoch() + " " + entry.window());
        }
        return windows;
    }

    @Test
    void aReopenedLogRebuildsTheSameWindows() throws IOException {
        Path partition = dir.resolve("orders-0");
        ProducerState before = new ProducerState();
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            int[][] demo = {{0, 1}, {2, 3}, {4, 5}, {6, 6}, {7, 9}, {10, 10}, {11, 11}, {12, 12}, {13, 13}, {14, 14}};
            for (int[] range : demo) {
                send(log, before, 1000L, EPOCH, range[0], range[1]);
            }
            send(log, before, 1001L, (short) 3, 0, 2);
            log.append(new BatchBuilder().append(NOW_MS, "k", "a plain batch").build());
        }

        ProducerState rebuilt;
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            rebuilt = Idempotence.rebuildProducerState(log);
        }

        assertThat(rebuilt.producerIds())
                .as("the scan finds both producers that wrote to the active segment; the plain batch (producer id -1)"
                        + " belongs to nobody")
                .containsExactly(1000L, 1001L);
        assertThat(windows(rebuilt))
                .as("every window is rebuilt slot by slot, with the epoch the headers carry: the demo's "
                        + "[10..10 11..11 12..12 13..13 14..14] for producer 1000")
                .isEqualTo(windows(before))
                .containsEntry(1000L, "epoch 0 [10..10 11..11 12..12 13..13 14..14]");
        assertThat(rebuilt.get(1000L).orElseThrow().batches())
                .as("and each slot keeps all four numbers: lastSeq, lastOffset, offsetDelta, timestamp")
                .isEqualTo(before.get(1000L).orElseThrow().batches());
    }

    @Test
    void aResendAfterTheRestartIsStillADuplicateAndTheNextSequenceFollowsOn() throws IOException {
        Path partition = dir.resolve("orders-0");
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = new ProducerState();
            for (int seq = 10; seq <= 14; seq++) {
                send(log, state, 1000L, EPOCH, seq - 10, seq - 10);
            }
        }

        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = Idempotence.rebuildProducerState(log);

            assertThat(send(log, state, 1000L, EPOCH, 4, 4).verdict())
                    .as("after the restart the resend of the newest batch 4..4 is still a DUPLICATE at offset 4: "
                            + "the claim of the chapter survives the broker restart")
                    .isEqualTo(new Verdict.Duplicate(4L, 4L, NOW_MS));
            assertThat(send(log, state, 1000L, EPOCH, 5, 6).verdict())
                    .as("and the producer carries on at the expected 5")
                    .isEqualTo(new Verdict.Append());
            assertThat(log.logEndOffset())
                    .as("the duplicate wrote nothing, 5..6 wrote two records: LEO 7")
                    .isEqualTo(7L);
        }
    }

    @Test
    void onlyTheActiveSegmentIsScannedSoTheWindowShrinksFromFiveToOne() throws IOException {
        // The demo's edge 2: segment.bytes 256, one ~150-byte batch per segment.
        Path partition = dir.resolve("orders-1");
        LogConfig small = LogConfig.defaults().withSegmentBytes(256);
        ProducerState before = new ProducerState();
        try (Log log = Log.open(partition, small)) {
            for (int seq = 0; seq < 8; seq++) {
                send(log, before, 1000L, EPOCH, seq, seq);
            }
            assertThat(log.segments())
                    .as("every batch is over half of segment.bytes 256, so each rolled its own segment: 8 segments")
                    .hasSize(8);
        }

        ProducerState after;
        try (Log log = Log.open(partition, small)) {
            after = Idempotence.rebuildProducerState(log);
        }

        assertThat(before.get(1000L).orElseThrow().window())
                .as("before the restart the window holds the newest five")
                .isEqualTo("[3..3 4..4 5..5 6..6 7..7]");
        assertThat(after.get(1000L).orElseThrow().window())
                .as("after the restart only what the ACTIVE segment holds: 7..7 (the older segments are not scanned)")
                .isEqualTo("[7..7]");
    }

    @Test
    void aProducerWhoseBatchesAllRolledAwayMustStartOverAtZero() throws IOException {
        Path partition = dir.resolve("orders-1");
        LogConfig small = LogConfig.defaults().withSegmentBytes(256);
        try (Log log = Log.open(partition, small)) {
            ProducerState state = new ProducerState();
            send(log, state, 1000L, EPOCH, 0, 0);
            send(log, state, 2000L, EPOCH, 0, 0);
        }

        try (Log log = Log.open(partition, small)) {
            ProducerState state = Idempotence.rebuildProducerState(log);

            assertThat(state.producerIds())
                    .as("producer 1000's only batch rolled into the older segment: the scan does not find it")
                    .containsExactly(2000L);
            assertThat(send(log, state, 1000L, EPOCH, 0, 0).verdict())
                    .as("so its resend of 0..0 is not recognised: APPEND, a second copy (dedup covered it before "
                            + "the restart, not after)")
                    .isEqualTo(new Verdict.Append());
            assertThat(send(log, state, 1000L, EPOCH, 0, 0).verdict())
                    .as("from then on the new copy is in the window again: DUPLICATE at offset 2")
                    .isEqualTo(new Verdict.Duplicate(2L, 2L, NOW_MS));
        }
    }

    @Test
    void theFiveNewestBatchesOfTheActiveSegmentSurvive() throws IOException {
        Path partition = dir.resolve("orders-0");
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = new ProducerState();
            for (int seq = 0; seq < 7; seq++) {
                send(log, state, 1000L, EPOCH, seq, seq);
            }
        }

        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = Idempotence.rebuildProducerState(log);

            assertThat(state.get(1000L).orElseThrow().window())
                    .as("seven batches in the active segment: the scan records them oldest first, so the window "
                            + "evicts the first two exactly as it did live")
                    .isEqualTo("[2..2 3..3 4..4 5..5 6..6]");
            assertThat(state.get(1000L).orElseThrow().expectedFirstSeq())
                    .as("the next expected sequence is 7")
                    .isEqualTo(7);
        }
    }

    @Test
    void replayingHeadersSkipsPlainBatchesAndKeepsTheNewestFivePerProducer() {
        List<BatchHeader> headers = new java.util.ArrayList<>();
        long offset = 0;
        for (int seq = 0; seq < 7; seq++) {
            headers.add(header(offset++, 0, 1000L, EPOCH, seq));
            headers.add(header(offset++, 0, BatchHeader.NO_PRODUCER_ID, BatchHeader.NO_PRODUCER_EPOCH,
                    BatchHeader.NO_SEQUENCE));
        }
        headers.add(header(offset, 2, 2000L, (short) 4, 10));

        ProducerState state = Idempotence.rebuildProducerState(headers);

        assertThat(state.producerIds())
                .as("only headers with a producer id count: 1000 and 2000, never -1")
                .containsExactly(1000L, 2000L);
        assertThat(state.get(1000L).orElseThrow().batches())
                .as("producer 1000's seven batches leave the newest five, each from its header alone: lastSeq, "
                        + "lastOffset, lastOffsetDelta, maxTimestamp")
                .containsExactly(new BatchMetadata(2, 4L, 0, NOW_MS), new BatchMetadata(3, 6L, 0, NOW_MS),
                        new BatchMetadata(4, 8L, 0, NOW_MS), new BatchMetadata(5, 10L, 0, NOW_MS),
                        new BatchMetadata(6, 12L, 0, NOW_MS));
        assertThat(state.get(2000L).orElseThrow().window())
                .as("a header with baseSequence 10 and lastOffsetDelta 2 is the batch 10..12")
                .isEqualTo("[10..12]");
        assertThat(state.get(2000L).orElseThrow().producerEpoch())
                .as("with the epoch the header carries")
                .isEqualTo((short) 4);
    }

    /** A batch header as it sits in a segment (batchLength and crc do not matter to the scan). */
    static BatchHeader header(long baseOffset, int lastOffsetDelta, long pid, short epoch, int baseSequence) {
        return new BatchHeader(baseOffset, 100, -1, BatchHeader.MAGIC, 0, (short) 0, lastOffsetDelta, NOW_MS,
                NOW_MS, pid, epoch, baseSequence, lastOffsetDelta + 1);
    }

    @Test
    void anEmptyLogRebuildsAnEmptyState() throws IOException {
        try (Log log = Log.open(dir.resolve("empty-0"), LogConfig.defaults())) {
            assertThat(Idempotence.rebuildProducerState(log).isEmpty())
                    .as("no batch, no producer")
                    .isTrue();
        }
    }

    @Test
    void theRebuiltEpochIsTheOneTheHeadersCarry() throws IOException {
        Path partition = dir.resolve("orders-0");
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = new ProducerState();
            send(log, state, 1000L, (short) 7, 0, 1);
        }

        try (Log log = Log.open(partition, LogConfig.defaults())) {
            ProducerState state = Idempotence.rebuildProducerState(log);

            assertThat(state.get(1000L).orElseThrow().producerEpoch())
                    .as("the header of the batch says epoch 7, so the rebuilt entry has epoch 7")
                    .isEqualTo((short) 7);
            assertThat(send(log, state, 1000L, (short) 7, 0, 1).verdict())
                    .as("so a resend under epoch 7 is a DUPLICATE (under epoch 0 it would not be)")
                    .isEqualTo(new Verdict.Duplicate(0L, 1L, NOW_MS));
        }
    }

    @Test
    void aProducerWhoseEpochWasBumpedIsRebuiltWithTheNewestEpoch() {
        List<BatchHeader> headers = List.of(
                header(0, 0, 1000L, (short) 0, 0),
                header(1, 0, 1000L, (short) 1, 0));

        ProducerState state = Idempotence.rebuildProducerState(headers);

        assertThat(state.get(1000L).orElseThrow().producerEpoch())
                .as("the entry is created with the epoch of the producer's first header (0), but every later header "
                        + "sets it again: after a bump to epoch 1 the rebuilt producer is at epoch 1, or a resend of its "
                        + "epoch-1 batch would not be recognised as a duplicate (the duplicate check compares epochs)")
                .isEqualTo((short) 1);
    }

    // ---------------------------------------------------------------- Kafka judges: loading producers from a segment

    /** The headers a segment holds: producers' batches in sequence, epochs that change, plain batches between. */
    private static final long[] PIDS = {1000L, 1001L, 1002L, BatchHeader.NO_PRODUCER_ID};
    private static final Gen<Integer> BATCHES = Gens.ints(0, 16);

    private static Gen<List<BatchHeader>> segments() {
        return c -> {
            int[] next = new int[PIDS.length];
            short[] epochs = new short[PIDS.length];
            for (int p = 0; p < PIDS.length - 1; p++) {
                next[p] = KafkaProducerState.STARTS.generate(c);
                epochs[p] = KafkaProducerState.EPOCHS.generate(c);
            }
            List<BatchHeader> headers = new java.util.ArrayList<>();
            long offset = KafkaProducerState.OFFSETS.generate(c);
            int n = BATCHES.generate(c);
            for (int i = 0; i < n; i++) {
                int p = c.belowInt(PIDS.length);
                int size = KafkaProducerState.SIZES.generate(c);
                offset += KafkaProducerState.GAPS.generate(c);
                long timestamp = KafkaProducerState.TIMESTAMPS.generate(c);
                if (PIDS[p] == BatchHeader.NO_PRODUCER_ID) {
                    headers.add(new BatchHeader(offset, 100, -1, BatchHeader.MAGIC, 0, (short) 0, size - 1, timestamp,
                            timestamp, -1, (short) -1, -1, size));
                } else {
                    if (c.oneIn(6)) {
                        epochs[p] = KafkaProducerState.EPOCHS.generate(c);
                    }
                    // Now and then a batch compaction emptied: its header alone, recordCount 0 (chapter 1's
                    // preserving builder, Kafka's writeEmptyHeader), still the producer's last sequence.
                    boolean emptied = c.oneIn(6);
                    headers.add(new BatchHeader(offset, 100, -1, BatchHeader.MAGIC, 0, (short) 0, size - 1,
                            emptied ? BatchHeader.NO_TIMESTAMP : timestamp, timestamp, PIDS[p], epochs[p], next[p],
                            emptied ? 0 : size));
                    next[p] = BatchHeader.incrementSequence(next[p], size);
                }
                offset += size;
            }
            return headers;
        };
    }

    /**
     * Kafka loading producers from a log (UnifiedLog.loadProducersFromRecords): each batch with a
     * producer id through ProducerAppendInfo as a replica's append (AppendOrigin.REPLICATION), into
     * the producer's ProducerStateEntry; kaen-log's declared difference: a new epoch keeps the window.
     */
    private static Map<Long, KafkaProducerState.Window> kafkaLoads(List<BatchHeader> headers) {
        Map<Long, org.apache.kafka.storage.internals.log.ProducerStateEntry> entries = new TreeMap<>();
        for (BatchHeader h : headers) {
            if (!h.hasProducerId()) {
                continue;
            }
            org.apache.kafka.storage.internals.log.ProducerStateEntry current = KafkaProducerState.withEpoch(
                    entries.getOrDefault(h.producerId(), KafkaProducerState.entry(h.producerId(), h.producerEpoch())),
                    h.producerEpoch());
            ProducerAppendInfo append = new ProducerAppendInfo(new TopicPartition("orders", 0), h.producerId(),
                    current, AppendOrigin.REPLICATION, null);
            append.append(KafkaProducerState.batch(h.producerId(), h.producerEpoch(), h.baseSequence(),
                    h.lastSequence(), h.baseOffset(), h.maxTimestamp()), Optional.empty());
            current.update(append.toEntry()); // ProducerStateManager.update: the appended batch joins the window
            entries.put(h.producerId(), current);
        }
        Map<Long, KafkaProducerState.Window> windows = new TreeMap<>();
        entries.forEach((pid, entry) -> windows.put(pid, KafkaProducerState.Window.of(entry)));
        return windows;
    }

    private static Map<Long, KafkaProducerState.Window> yours(ProducerState state) {
        Map<Long, KafkaProducerState.Window> windows = new TreeMap<>();
        for (long pid : state.producerIds()) {
            windows.put(pid, KafkaProducerState.Window.of(state.get(pid).orElseThrow()));
        }
        return windows;
    }

    private static final String REPLAY = "replay headers oldest first: skip producer id -1, and put each other"
            + " header's four numbers (a header compaction emptied too) into its producer's window with the epoch the"
            + " header carries; the window's own eviction keeps the newest five";

    @Test
    void everyReplayOfHeadersRebuildsWhatKafkasLogLoadingRebuilds() {
        Property.forAll(segments()).show(RebuildProducerStateTest::show).check(headers -> Judge.agree(
                "the headers " + show(headers), "producers", () -> yours(Idempotence.rebuildProducerState(headers)),
                "ProducerAppendInfo (REPLICATION) loads", kafkaLoads(headers), REPLAY));
    }

    /** Batches appended to a log whose segments hold a few batches each, then the scan at open. */
    @Test
    void theScanAtOpenRebuildsTheActiveSegmentsProducersAsKafkaWould() throws IOException {
        // One log for every input, its segments a few batches each: each input's batches follow the last
        // one's, and the scan must see exactly the active segment's, whoever wrote them.
        try (Log log = Log.open(dir.resolve("scanned-0"), LogConfig.defaults().withSegmentBytes(400))) {
            List<BatchHeader> written = new java.util.ArrayList<>();
            Property.forAll(segments()).tries(40).shrinkBudget(300).show(headers -> headers.stream()
                    .map(h -> h.hasProducerId() ? "pid " + h.producerId() + " epoch " + h.producerEpoch() + " "
                            + KafkaProducerState.range(h.baseSequence(), h.lastSequence())
                            : "a plain batch of " + h.recordCount()).toList().toString()).check(headers -> {
                for (BatchHeader h : headers) {
                    BatchBuilder batch = new BatchBuilder();
                    if (h.hasProducerId()) {
                        batch.producer(h.producerId(), h.producerEpoch(), h.baseSequence());
                    }
                    for (int r = 0; r <= h.lastOffsetDelta(); r++) { // a producer writes what compaction may empty
                        batch.append(h.maxTimestamp(), null, "v" + r);
                    }
                    AppendInfo at = log.append(batch.build());
                    written.add(new BatchHeader(at.firstOffset(), h.batchLength(), -1, BatchHeader.MAGIC, 0, (short) 0,
                            h.lastOffsetDelta(), h.maxTimestamp(), h.maxTimestamp(), h.producerId(), h.producerEpoch(),
                            h.baseSequence(), h.lastOffsetDelta() + 1));
                }
                long active = log.activeSegment().baseOffset();
                List<BatchHeader> inActive = written.stream().filter(h -> h.baseOffset() >= active).toList();
                Judge.agree("a log of " + log.segments().size() + " segment(s) whose active one, from offset " + active
                                + ", holds " + show(inActive), "producers after the scan",
                        () -> yours(Idempotence.rebuildProducerState(log)), "ProducerAppendInfo loads, from the active"
                                + " segment's headers,", kafkaLoads(inActive), "at open, hand the replay the headers of"
                                + " the active segment only: the reason the window can shrink at a restart");
            });
        }
    }

    private static String show(List<BatchHeader> headers) {
        return headers.stream().map(RebuildProducerStateTest::show).toList().toString();
    }

    private static String show(BatchHeader h) {
        return h.hasProducerId() ? "pid " + h.producerId() + " epoch " + h.producerEpoch() + " "
                + KafkaProducerState.range(h.baseSequence(), h.lastSequence()) + " @" + h.baseOffset()
                + (h.recordCount() == 0 ? " (emptied by compaction)" : "") : "plain @" + h.baseOffset();
    }
}
