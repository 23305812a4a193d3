package kaenlog.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.broker.TransactionalLogs;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.AbortedTxn;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.log.TransactionIndex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.storage.internals.log.CleanedTransactionMetadata;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 11: compaction keeps a log's transactions as Kafka's cleaner does. A cleaning stops below the
 * last stable offset (an open transaction's batches are never cleaned); the records of an aborted
 * transaction are discarded, and never hide a committed record of their key; a COMMIT or ABORT
 * marker stays while a batch of its transaction is left, an ABORT kept so with its {@code .txnindex}
 * entry; a marker whose transaction is gone stays until the delete horizon the first cleaning that
 * finds it so stamps (its time + {@code delete.retention.ms}), and goes at it. Kafka 4.1.1's own
 * {@code CleanedTransactionMetadata} judges every walk, and its own cleaner, run on a {@code UnifiedLog}
 * holding the same batches, every cleaning, byte for byte.
 */
@Order(11)
class CleanedTransactionsTest {
    private static final long A = 1000;
    private static final long B = 2000;
    private static final long C = 3000;
    private static final long T0 = TransactionalLogs.T0;
    private static final long DELETE_RETENTION_MS = 1000;

    @TempDir
    Path dir;

    private final Map<Long, Integer> sequences = new HashMap<>();
    /** Each producer's epoch: the coordinator's fence bumps it (its ABORT carries the new one). */
    private final Map<Long, Short> epochs = new HashMap<>();

    /** A batch of {@code producerId}, transactional or not, of records "key=value". */
    private void write(Log log, long producerId, boolean transactional, String... records) throws IOException {
        int sequence = sequences.merge(producerId, records.length, Integer::sum) - records.length;
        SimpleRecord[] simple = new SimpleRecord[records.length];
        for (int i = 0; i < records.length; i++) {
            String[] kv = records[i].split("=", 2);
            simple[i] = new SimpleRecord(T0, kv[0].getBytes(), kv[1].getBytes());
        }
        log.append((transactional
                ? MemoryRecords.withTransactionalRecords(0L, Compression.NONE, producerId, epoch(producerId),
                        sequence, 0, simple)
                : MemoryRecords.withIdempotentRecords(0L, Compression.NONE, producerId, epoch(producerId),
                        sequence, 0, simple)).buffer());
    }

    private short epoch(long producerId) {
        return epochs.getOrDefault(producerId, TransactionalLogs.EPOCH);
    }

    /**
     * The coordinator fences {@code producerId}: its open transaction aborted at the bumped epoch; the
     * producer that starts again with its transactional id is bumped once more (InitProducerId's retry)
     * and writes at that epoch from sequence 0.
     */
    private void fence(Log log, long producerId) throws IOException {
        short fenced = (short) (epoch(producerId) + 1);
        log.append(new EndTransactionMarker(kaenlog.batch.ControlRecordType.ABORT, 0).controlBatch(producerId, fenced, T0));
        epochs.put(producerId, (short) (fenced + 1));
        sequences.remove(producerId);
    }

    private static Cleaner.Result clean(Log log, long nowMs) throws IOException {
        return new Cleaner(DELETE_RETENTION_MS).clean(log, nowMs, Cleaner.Guard.NONE, Cleaner.Transactions.of(log));
    }

    /** Every batch of the first segment, as "offsets what [records]", a marker with its horizon if it has one. */
    private static List<String> firstSegment(Log log) throws IOException {
        List<String> batches = new ArrayList<>();
        for (RecordBatch batch : log.segments().get(0).batches()) {
            BatchHeader h = batch.header();
            if (h.isControl()) {
                OptionalLong horizon = DeleteHorizon.of(h);
                batches.add(h.baseOffset() + " " + (batch.records().isEmpty() ? "emptied marker"
                        : EndTransactionMarker.read(batch.records().get(0)).type()) + " of " + h.producerId()
                        + (horizon.isPresent() ? " until " + (horizon.getAsLong() - T0) : ""));
                continue;
            }
            List<String> records = new ArrayList<>();
            for (Record r : batch.records()) {
                records.add(new String(r.key()) + "=" + new String(r.value()));
            }
            batches.add(h.baseOffset() + ".." + h.lastOffset() + (h.isTransactional() ? " txn of " : " of ")
                    + h.producerId() + " " + records);
        }
        return batches;
    }

    /** Each marker of {@code segment}'s file as kafka-clients reads it: type, CRC, delete horizon. */
    private static List<String> kafkasMarkers(Segment segment) throws IOException {
        List<String> markers = new ArrayList<>();
        try (FileRecords records = FileRecords.open(segment.logFile().toFile(), false)) {
            for (var batch : records.batches()) {
                if (batch.isControlBatch()) {
                    markers.add(batch.baseOffset() + " " + ControlRecordType.parse(batch.iterator().next().key())
                            + (batch.isValid() ? " valid, " : " corrupt, ") + (batch.deleteHorizonMs().isPresent()
                            ? "horizon " + batch.deleteHorizonMs().getAsLong() : "no horizon"));
                }
            }
        }
        return markers;
    }

    private static List<AbortedTxn> txnIndex(Log log) throws IOException {
        return TransactionIndex.read(log.segments().get(0).txnIndexFile());
    }

    @Test
    void aCleaningStopsBelowTheLastStableOffsetAndNeverCleansAnOpenTransaction() throws Exception {
        Log log = TransactionalLogs.open(dir, 1 << 20);
        write(log, A, true, "k1=a1");          // 0: A's transaction opens
        write(log, C, false, "k1=c1");         // 1: a newer k1
        write(log, C, false, "k2=c2");         // 2
        log.roll();
        write(log, C, false, "k3=c3");         // 3, the active segment
        assertThat(log.lastStableOffset()).as("A's open transaction holds the last stable offset at its first offset")
                .isEqualTo(0);
        List<String> before = firstSegment(log);

        Cleaner.Result held = clean(log, T0 + 10);
        assertThat(firstSegment(log))
                .as("segment 0 lies below the high watermark (4) but not below the last stable offset (0): a cleaning stops"
                        + " at the last stable offset (Kafka's cleanableOffsets: \"we do not clean beyond the last stable"
                        + " offset\"), so an open transaction's batches are never cleaned: whether they are aborted is not"
                        + " known yet; cleaned: " + held.segments())
                .isEqualTo(before);

        TransactionalLogs.marker(log, A, false); // 4: A commits, the last stable offset moves to the high watermark
        clean(log, T0 + 20);
        assertThat(firstSegment(log))
                .as("once A committed, segment 0 is cleanable: A's k1 is older than C's and goes (its batch, A's last"
                        + " data, stays as an empty header), C's records stay")
                .containsExactly("0..0 txn of 1000 []", "1..1 of 3000 [k1=c1]", "2..2 of 3000 [k2=c2]");
        log.close();
    }

    @Test
    void anAbortedTransactionsRecordsGoAndItsAbortMarkerStaysUntilItsHorizonAfterThem() throws Exception {
        Log log = TransactionalLogs.open(dir, 1 << 20);
        write(log, A, true, "k1=a1", "k2=a2");  // 0..1 A's transaction
        write(log, B, true, "k1=b1");           // 2    B's transaction, to be aborted
        TransactionalLogs.marker(log, A, false); // 3 COMMIT A
        TransactionalLogs.marker(log, B, true);  // 4 ABORT B
        write(log, C, false, "k3=c1");          // 5
        log.roll();
        write(log, B, false, "k4=b2");          // 6, the active segment: B's last data
        List<AbortedTxn> entries = txnIndex(log);
        assertThat(entries).as("B's ABORT put its entry in segment 0's .txnindex").hasSize(1);

        clean(log, T0 + 1000);
        assertThat(firstSegment(log))
                .as("the first cleaning: B's aborted record goes (a read_committed consumer never reads it), and since"
                        + " aborted records are left out of the offset map, A's committed k1=a1 stays the latest k1;"
                        + " both markers stay, since the cleaning saw a batch of each one's transaction")
                .containsExactly("0..1 txn of 1000 [k1=a1, k2=a2]", "3 COMMIT of 1000", "4 ABORT of 2000",
                        "5..5 of 3000 [k3=c1]");
        assertThat(txnIndex(log))
                .as("an ABORT kept because the cleaning saw a batch of its transaction keeps its .txnindex entry")
                .isEqualTo(entries);
        assertThat(log.abortedTransactions(0, 7)).as("a read_committed fetch from 0 is still told of B's transaction")
                .containsExactly(new AbortedTransaction(B, 2));

        clean(log, T0 + 2000);
        assertThat(firstSegment(log))
                .as("the second cleaning finds no batch of B's transaction: its ABORT stays until a delete horizon,"
                        + " this cleaning's time + delete.retention.ms (2000 + 1000), stamped into the marker's batch;"
                        + " A's COMMIT stays while A's records do")
                .containsExactly("0..1 txn of 1000 [k1=a1, k2=a2]", "3 COMMIT of 1000", "4 ABORT of 2000 until 3000",
                        "5..5 of 3000 [k3=c1]");
        assertThat(txnIndex(log)).as("an ABORT whose transaction has no batch left loses its .txnindex entry").isEmpty();
        assertThat(kafkasMarkers(log.segments().get(0)))
                .as("kafka-clients' FileRecords reads the stamped marker as Kafka's cleaner writes one: a valid control"
                        + " batch whose delete horizon (attribute bit 0x40, the base timestamp) is the cleaning's time +"
                        + " delete.retention.ms")
                .containsExactly("3 COMMIT valid, no horizon", "4 ABORT valid, horizon " + (T0 + 3000));

        clean(log, T0 + 2999);
        assertThat(firstSegment(log)).as("one millisecond before its horizon the ABORT marker is kept")
                .contains("4 ABORT of 2000 until 3000");
        clean(log, T0 + 3000);
        assertThat(firstSegment(log))
                .as("a marker whose transaction is gone is removed by the first cleaning at or after its horizon")
                .containsExactly("0..1 txn of 1000 [k1=a1, k2=a2]", "3 COMMIT of 1000", "5..5 of 3000 [k3=c1]");
        log.close();

        Log reopened = TransactionalLogs.open(dir, 1 << 20);
        assertThat(reopened.abortedTransactions(0, 7)).as("the log rebuilt from the cleaned segments knows no aborted"
                + " transaction").isEmpty();
        assertThat(reopened.lastStableOffset()).as("nor an open one").isEqualTo(reopened.highWatermark());
        reopened.close();
    }

    @Test
    void aCommitMarkerStaysWhileARecordOfItsTransactionDoesThenUntilItsHorizon() throws Exception {
        Log log = TransactionalLogs.open(dir, 1 << 20);
        write(log, A, true, "k1=a1");           // 0 A's transaction
        TransactionalLogs.marker(log, A, false); // 1 COMMIT A
        write(log, C, false, "k1=c1");          // 2 a newer k1
        log.roll();
        write(log, A, false, "k9=a2");          // 3, the active segment: A's last data

        clean(log, T0 + 1000);
        assertThat(firstSegment(log))
                .as("A's k1 is older than C's and goes with its batch; A's COMMIT stays, since this cleaning saw a batch"
                        + " of its transaction (the batch it emptied)")
                .containsExactly("1 COMMIT of 1000", "2..2 of 3000 [k1=c1]");
        clean(log, T0 + 1500);
        assertThat(firstSegment(log))
                .as("the next cleaning finds no batch of A's transaction: its COMMIT stays until its horizon, 1500 +"
                        + " delete.retention.ms 1000")
                .containsExactly("1 COMMIT of 1000 until 2500", "2..2 of 3000 [k1=c1]");
        clean(log, T0 + 2500);
        assertThat(firstSegment(log)).as("at its horizon the COMMIT marker goes").containsExactly("2..2 of 3000 [k1=c1]");
        log.close();
    }

    @Test
    void aPlainBatchItsProducerWroteInsideAnAbortedTransactionIsNeverDiscarded() throws Exception {
        Log log = TransactionalLogs.open(dir, 1 << 20);
        write(log, A, true, "k1=a1");           // 0: A's transaction, to be aborted
        write(log, A, false, "k2=a2");          // 1: A writes outside it while it is open (kaen-log takes it)
        TransactionalLogs.marker(log, A, true);  // 2 ABORT A
        write(log, C, false, "k1=c1");          // 3
        log.roll();
        write(log, C, false, "k3=c2");          // 4, the active segment

        clean(log, T0 + 1000);
        assertThat(firstSegment(log))
                .as("only A's transactional batch belongs to its aborted transaction: a non-transactional batch is never"
                        + " discarded, even one A wrote between the transaction's first offset and its ABORT (Kafka's"
                        + " CleanedTransactionMetadata.onBatchRead answers false for every batch that is not"
                        + " transactional, and a read_committed consumer reads it); A's k2=a2 is its key's latest and"
                        + " stays, A's aborted k1=a1 goes, and the ABORT stays since this cleaning saw a batch of its"
                        + " transaction")
                .containsExactly("1..1 of 1000 [k2=a2]", "2 ABORT of 1000", "3..3 of 3000 [k1=c1]");
        log.close();
    }

    @Test
    void aFenceMarkerThatIsItsProducersLastRecordStaysAsAnEmptyHeaderForItsEpoch() throws Exception {
        Log log = TransactionalLogs.open(dir, 1 << 20);
        write(log, A, true, "k1=a1");           // 0: A's transaction at epoch 0
        fence(log, A);                          // 1: the coordinator fences A: ABORT at the bumped epoch 1
        write(log, C, false, "k2=c1");          // 2
        log.roll();
        write(log, C, false, "k3=c2");          // 3, the active segment

        clean(log, T0 + 1000);
        clean(log, T0 + 2000);
        clean(log, T0 + 3000);
        assertThat(firstSegment(log))
                .as("A's aborted record went at the first cleaning and its ABORT reached its horizon at the third; but"
                        + " the ABORT is A's last record and carries its newest epoch (1, after which A wrote no data):"
                        + " Kafka keeps such a marker as an empty header, since the fence needs that epoch")
                .containsExactly("1 emptied marker of 1000", "2..2 of 3000 [k2=c1]");
        log.close();

        Log reopened = TransactionalLogs.open(dir, 1 << 20);
        epochs.put(A, TransactionalLogs.EPOCH); // the zombie still writes at epoch 0, its next sequence 1
        sequences.put(A, 1);
        Throwable zombie = catchThrowable(() -> write(reopened, A, true, "k1=late"));
        assertThat(zombie).as("reopened, the log still knows A's epoch 1 from the emptied marker, and refuses a batch of"
                + " A's fenced epoch 0").isInstanceOf(ProduceRefusedException.class);
        reopened.close();
    }

    /** A producer's batch of one keyed record, its marker, or a roll of the segment. */
    record Action(long producerId, String what, String key) {
        @Override
        public String toString() {
            return what.equals("roll") ? "roll" : what + " of " + producerId + (key == null ? "" : " " + key);
        }
    }

    /**
     * Three producers write keyed records in transactions and outside them, commit and abort (or are
     * fenced: an ABORT at a bumped epoch, after which they write at the new epoch), and the segment
     * rolls; a transaction may be left open.
     */
    static Gen<List<Action>> histories() {
        return c -> {
            List<Action> actions = new ArrayList<>();
            java.util.Set<Long> open = new java.util.HashSet<>();
            for (int n = Gens.ints(1, 30).generate(c); n > 0; n--) {
                long producer = Gens.elements(A, B, C).generate(c);
                String key = "k" + Gens.ints(0, 3).generate(c);
                int action = Gens.ints(0, 5).generate(c);
                if (action == 0) {
                    actions.add(new Action(0, "roll", null));
                } else if (open.contains(producer) && action == 1 && Gens.ints(0, 3).generate(c) == 0) {
                    actions.add(new Action(producer, "fence", null));
                    open.remove(producer);
                } else if (open.contains(producer) && action == 1) {
                    actions.add(new Action(producer, Gens.booleans().generate(c) ? "ABORT" : "COMMIT", null));
                    open.remove(producer);
                } else if (open.contains(producer) || action != 2) {
                    open.add(producer);
                    actions.add(new Action(producer, "txn", key));
                } else {
                    actions.add(new Action(producer, "plain", key));
                }
            }
            return actions;
        };
    }

    private static String hex(Map<Long, ByteBuffer> batches) {
        StringBuilder text = new StringBuilder();
        batches.forEach((offset, bytes) -> text.append(offset).append(": ")
                .append(java.util.HexFormat.of().formatHex(bytes.array(), bytes.arrayOffset() + bytes.position(),
                        bytes.arrayOffset() + bytes.limit())).append('\n'));
        return text.toString();
    }

    private static Map<Long, ByteBuffer> ourBatches(Log log) throws IOException {
        Map<Long, ByteBuffer> batches = new java.util.TreeMap<>();
        for (Segment segment : log.segments()) {
            for (ByteBuffer bytes : Cleaner.rawBatches(segment)) {
                ByteBuffer copy = KafkaTransactionalLog.withLeaderEpoch(bytes);
                batches.put(BatchHeader.readFrom(copy.duplicate()).baseOffset(), copy);
            }
        }
        return batches;
    }

    private static List<AbortedTxn> ourIndexes(Log log) throws IOException {
        List<AbortedTxn> entries = new ArrayList<>();
        for (Segment segment : log.segments()) {
            entries.addAll(TransactionIndex.read(segment.txnIndexFile()));
        }
        return entries;
    }

    @Test
    void cleaningAfterCleaningLeavesTheBatchesAndIndexesKafkasCleanerLeaves() throws Exception {
        // each replay opens two logs and cleans them five times: shrinking stops after 100 (a learner waits seconds, not minutes)
        Property.forAll(histories()).tries(40).shrinkBudget(100).check(history -> {
            Path ours = Files.createTempDirectory(dir, "ours");
            Log log = TransactionalLogs.open(ours, 1 << 20);
            sequences.clear();
            epochs.clear();
            int value = 0;
            for (Action action : history) {
                switch (action.what()) {
                    case "roll" -> {
                        if (log.activeSegment().size() > 0) {
                            log.roll();
                        }
                    }
                    case "COMMIT", "ABORT" -> log.append(new EndTransactionMarker(action.what().equals("ABORT")
                            ? kaenlog.batch.ControlRecordType.ABORT : kaenlog.batch.ControlRecordType.COMMIT, 0)
                            .controlBatch(action.producerId(), epoch(action.producerId()), T0));
                    case "fence" -> fence(log, action.producerId());
                    default -> write(log, action.producerId(), action.what().equals("txn"), action.key() + "=v" + value++);
                }
            }
            try (KafkaTransactionalLog kafka = KafkaTransactionalLog.copyOf(log,
                    Files.createTempDirectory(dir, "kafka"), DELETE_RETENTION_MS)) {
                for (long now : new long[] {T0 + 1000, T0 + 2000, T0 + 2999, T0 + 3000, T0 + 5000}) {
                    clean(log, now);
                    kafka.clean(now);
                    String input = "the log written by " + history + ", cleaned again at " + (now - T0);
                    Judge.agree(input, "batches", hex(ourBatches(log)), "Cleaner.doClean leaves", hex(kafka.batches()),
                            "a cleaning stops below the last stable offset; an aborted transaction's batches go (a"
                                    + " producer's last one as an empty header); a marker stays while a batch of its"
                                    + " transaction is left, then until its delete horizon");
                    Judge.agree(input, ".txnindex entries", ourIndexes(log), "Cleaner.doClean keeps", kafka.abortedTxns(),
                            "an ABORT marker kept because a batch of its transaction is left keeps its entry; no other does");
                }
            } finally {
                log.close();
            }
        });
    }

    /** One batch of a generated walk: data (transactional or not) or a marker (emptied by a cleaning, or not). */
    record Step(long producerId, String kind, long offset, int count) {
        @Override
        public String toString() {
            return offset + (count > 1 ? ".." + (offset + count - 1) : "") + " " + kind + " of " + producerId;
        }
    }

    /** A walk: batches in offset order, the aborted transactions of the log, and where its segments begin. */
    record Walk(List<Step> steps, List<AbortedTxn> aborted, List<Integer> segmentStarts) {
    }

    /**
     * Three producers write transactions and plain batches; some transactions are aborted. Then a
     * cleaning may already have removed some data batches, and emptied some markers whose transaction
     * had no batch left (dropping their index entries), as Kafka's cleaner leaves a log.
     */
    static Gen<Walk> walks() {
        return c -> {
            List<Step> written = new ArrayList<>();
            List<AbortedTxn> aborted = new ArrayList<>();
            Map<Long, Long> open = new HashMap<>();
            long offset = 0;
            for (int n = Gens.ints(1, 25).generate(c); n > 0; n--) {
                long producer = Gens.elements(A, B, C).generate(c);
                int action = Gens.ints(0, 3).generate(c);
                if (open.containsKey(producer) && action == 0) {
                    boolean abort = Gens.booleans().generate(c);
                    long first = open.remove(producer);
                    if (abort) {
                        long lastStable = open.values().stream().mapToLong(Long::longValue).min().orElse(offset + 1);
                        aborted.add(new AbortedTxn(producer, first, offset, lastStable));
                    }
                    written.add(new Step(producer, abort ? "ABORT" : "COMMIT", offset, 1));
                    offset++;
                } else {
                    boolean transactional = open.containsKey(producer) || action != 3;
                    int count = Gens.ints(1, 3).generate(c);
                    if (transactional) {
                        open.putIfAbsent(producer, offset);
                    }
                    written.add(new Step(producer, transactional ? "txn data" : "data", offset, count));
                    offset += count;
                }
            }
            List<Step> steps = new ArrayList<>();
            Map<Long, Boolean> batchLeft = new HashMap<>();
            for (Step step : written) {
                int fate = Gens.ints(0, 5).generate(c);
                boolean marker = step.kind().equals("ABORT") || step.kind().equals("COMMIT");
                if (!marker && fate == 0) {
                    continue; // removed by an earlier cleaning
                }
                if (!marker) {
                    batchLeft.put(step.producerId(), batchLeft.getOrDefault(step.producerId(), false)
                            || step.kind().equals("txn data"));
                    steps.add(step);
                    continue;
                }
                // a cleaning empties a marker only once no batch of its transaction is left
                boolean emptied = fate == 0 && !batchLeft.getOrDefault(step.producerId(), false);
                batchLeft.remove(step.producerId());
                steps.add(emptied ? new Step(step.producerId(), "emptied marker", step.offset(), 1) : step);
                if (emptied) {
                    // and the cleaning that emptied it kept no .txnindex entry of its transaction
                    aborted.removeIf(txn -> txn.lastOffset() == step.offset());
                }
            }
            List<Integer> starts = new ArrayList<>(List.of(0));
            for (int i = 1; i < steps.size(); i++) {
                if (Gens.ints(0, 3).generate(c) == 0) {
                    starts.add(i);
                }
            }
            return new Walk(steps, aborted, starts);
        };
    }

    private static org.apache.kafka.common.record.RecordBatch kafkaBatch(Step step) {
        SimpleRecord[] records = new SimpleRecord[step.count()];
        for (int i = 0; i < step.count(); i++) {
            records[i] = new SimpleRecord(T0, ("k" + i).getBytes(), "v".getBytes());
        }
        MemoryRecords memory = switch (step.kind()) {
            case "txn data" -> MemoryRecords.withTransactionalRecords(step.offset(), Compression.NONE, step.producerId(),
                    (short) 0, 0, 0, records);
            case "data" -> MemoryRecords.withIdempotentRecords(step.offset(), Compression.NONE, step.producerId(),
                    (short) 0, 0, 0, records);
            case "emptied marker" -> {
                ByteBuffer empty = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
                DefaultRecordBatch.writeEmptyHeader(empty, (byte) 2, step.producerId(), (short) 0, -1, step.offset(),
                        step.offset(), 0, TimestampType.CREATE_TIME, T0, true, true);
                yield MemoryRecords.readableRecords(empty.flip());
            }
            default -> MemoryRecords.withEndTransactionMarker(step.offset(), T0, 0, step.producerId(), (short) 0,
                    new org.apache.kafka.common.record.EndTransactionMarker(step.kind().equals("ABORT")
                            ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 0));
        };
        return memory.batches().iterator().next();
    }

    private static String verdict(boolean control, boolean mayGo) {
        return control ? (mayGo ? "marker may go" : "marker kept") : (mayGo ? "discarded" : "cleaned by its keys");
    }

    @Test
    void everyBatchOfAWalkIsJudgedAsKafkasCleanedTransactionMetadataJudgesIt() throws Exception {
        Property.forAll(walks()).tries(300).check(walk -> {
            List<Step> steps = walk.steps();
            CleanedTransactionMetadata kafka = new CleanedTransactionMetadata();
            Path indexFile = Files.createTempFile(dir, "cleaned", ".txnindex");
            Files.delete(indexFile);
            var cleanedIndex = new org.apache.kafka.storage.internals.log.TransactionIndex(0, indexFile.toFile());
            kafka.setCleanedIndex(Optional.of(cleanedIndex));
            List<String> kafkas = new ArrayList<>();
            CleanedTransactions ours = new CleanedTransactions(walk.aborted(), T0);
            List<String> yours = new ArrayList<>();
            for (int s = 0; s < walk.segmentStarts().size(); s++) {
                int from = walk.segmentStarts().get(s);
                int to = s + 1 < walk.segmentStarts().size() ? walk.segmentStarts().get(s + 1) : steps.size();
                long base = steps.isEmpty() ? 0 : steps.get(from).offset();
                long next = to < steps.size() ? steps.get(to).offset()
                        : steps.isEmpty() ? 0 : steps.get(to - 1).offset() + steps.get(to - 1).count();
                List<org.apache.kafka.storage.internals.log.AbortedTxn> overlapping = new ArrayList<>();
                for (AbortedTxn txn : walk.aborted()) {
                    if (txn.lastOffset() >= base && txn.firstOffset() < next) {
                        overlapping.add(new org.apache.kafka.storage.internals.log.AbortedTxn(txn.producerId(),
                                txn.firstOffset(), txn.lastOffset(), txn.lastStableOffset()));
                    }
                }
                kafka.addAbortedTransactions(overlapping);
                ours.learn(base, next);
                for (Step step : steps.subList(from, to)) {
                    org.apache.kafka.common.record.RecordBatch batch = kafkaBatch(step);
                    boolean control = batch.isControlBatch();
                    kafkas.add(step + ": " + verdict(control, control ? kafka.onControlBatchRead(batch)
                            : kafka.onBatchRead(batch)));
                    ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                    batch.writeTo(bytes);
                    Cleaner.Verdict v = ours.judge(RecordBatch.decode(bytes.flip()));
                    yours.add(step + ": " + verdict(control, control ? v != Cleaner.Verdict.KEEP
                            : v == Cleaner.Verdict.DISCARD));
                }
            }
            String input = "the walk " + steps + " over segments starting at " + walk.segmentStarts()
                    + " with the aborted transactions " + walk.aborted();
            Judge.agree(input, "verdicts", yours, "CleanedTransactionMetadata gives", kafkas,
                    "a batch of an aborted transaction is discarded (the transaction is its producer's from its first"
                            + " offset on, until its ABORT); a marker stays while the walk saw a batch of its transaction"
                            + " since the one before, and may go once none is left (an emptied marker may go)");
            List<AbortedTxn> kafkasEntries = new ArrayList<>();
            for (var txn : cleanedIndex.allAbortedTxns()) {
                kafkasEntries.add(new AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(),
                        txn.lastStableOffset()));
            }
            cleanedIndex.close();
            Judge.agree(input, "kept .txnindex entries", ours.takeRetained(), "CleanedTransactionMetadata keeps",
                    kafkasEntries, "an ABORT marker kept because the walk saw a batch of its transaction keeps its"
                            + " transaction's .txnindex entry; no other does");
        });
    }
}
