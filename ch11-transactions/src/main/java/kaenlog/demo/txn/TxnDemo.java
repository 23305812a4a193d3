package kaenlog.demo.txn;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.idem.Idempotence;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.txn.AddPartitionsRequest;
import kaenlog.txn.EndTxnRequest;
import kaenlog.txn.InitProducerIdRequest;
import kaenlog.txn.InitProducerIdResult;
import kaenlog.txn.LocalMarkers;
import kaenlog.txn.LocalTransactions;
import kaenlog.txn.MarkerChannel;
import kaenlog.txn.TransactionCoordinator;
import kaenlog.txn.TransactionLog;
import kaenlog.txn.TransactionResult;
import kaenlog.txn.TransactionState;
import kaenlog.txn.TransactionStateExtension;
import kaenlog.txn.TxnConfig;
import kaenlog.txn.TxnError;
import kaenlog.txn.TxnMarker;
import kaenlog.txn.TxnTransit;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * {@code klog txn-demo}: chapter 11's story on one broker, in process: a transaction committed
 * across three partitions, one aborted, a zombie fenced, the coordinator crashing between
 * PrepareCommit and its markers and finishing the commit after a restart, and a transaction left
 * open past its timeout, the last stable offset held at its first offset until the coordinator
 * aborts it.
 *
 * <p>The broker is chapter 3's, with every chapter's extensions, on a temporary directory that is
 * never printed; its port is never printed either. Time is the demo's own counter, from
 * {@code --now-ms}, handed to the coordinator and the batches as {@code nowMs}. What a consumer
 * reads is read from the partition's log as a fetch reads it: read_uncommitted to the high
 * watermark; read_committed to the last stable offset, dropping the records of the aborted
 * transactions the fetch names, as Kafka's consumer does. Every number printed is a claim checked
 * before the demo exits, so a wrong solution exits 1 instead of printing a wrong golden file.
 */
public final class TxnDemo implements Subcommand {
    static final long DEFAULT_NOW_MS = 1_700_000_000_000L;
    static final String APP = "orders-app";
    static final int TIMEOUT_MS = 60_000;
    static final int PARTITIONS = 3;
    private static final String TABLE = "  %-10s %5s %5s %5s   %-32s %14s   %16s%n";

    @Override
    public String name() {
        return "txn-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS]";
    }

    @Override
    public String summary() {
        return "chapter 11: a commit, an abort, a fenced zombie, a coordinator crash, a timeout";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms"), Set.of()).noPositional();
        long nowMs = flags.nowMs(DEFAULT_NOW_MS);
        Claims claims = new Claims();
        try (ScratchDir scratch = ScratchDir.create("klog-txn-demo")) {
            Run run = new Run(out, claims, scratch.resolve("data"), nowMs);
            try {
                run.all();
            } finally {
                run.stop();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    /** A producer as the demo drives it: its id and epoch, and the next sequence number per partition. */
    static final class Producer {
        final long producerId;
        final short epoch;
        private final Map<String, Integer> sequences = new TreeMap<>();

        Producer(InitProducerIdResult init) {
            this.producerId = init.producerId();
            this.epoch = init.producerEpoch();
        }

        /** The producer's next transactional batch of {@code values} to {@code partition}. */
        ByteBuffer batch(String partition, List<String> values, long nowMs) {
            int sequence = sequences.merge(partition, values.size(), Integer::sum) - values.size();
            return transactionalBatch(producerId, epoch, sequence, values, nowMs);
        }
    }

    /** A transactional producer's batch: chapter 1's layout with the transactional bit and the producer's fields. */
    static ByteBuffer transactionalBatch(long producerId, short epoch, int sequence, List<String> values, long nowMs) {
        List<Record> records = new ArrayList<>();
        for (String value : values) {
            records.add(new Record(records.size(), nowMs, null, value.getBytes(StandardCharsets.UTF_8), List.of()));
        }
        BatchHeader header = new BatchHeader(0, 0, BatchHeader.NO_PARTITION_LEADER_EPOCH, BatchHeader.MAGIC, 0,
                (short) BatchHeader.TRANSACTIONAL_FLAG_MASK, values.size() - 1, nowMs, nowMs, producerId, epoch,
                sequence, values.size());
        return BatchBuilder.encode(header, records);
    }

    /**
     * The coordinator's marker channel with a switch: until {@code crashed} is set, the markers go to the
     * partitions (chapter 11's {@link LocalMarkers}); then they go nowhere and are never reported, as if
     * the coordinator's process died right after it wrote the Prepare state.
     */
    static final class CrashableMarkers implements MarkerChannel {
        private final MarkerChannel inner;
        boolean crashed;
        int dropped;

        CrashableMarkers(MarkerChannel inner) {
            this.inner = inner;
        }

        @Override
        public void send(TxnMarker marker, long nowMs, Results results) {
            if (crashed) {
                dropped += marker.partitions().size();
                return;
            }
            inner.send(marker, nowMs, results);
        }
    }

    /** One run: the broker, its coordinator, the demo's time, and the claims checked so far. */
    private static final class Run {
        private final PrintStream out;
        private final Claims claims;
        private final Path data;
        private long now;
        private Broker broker;
        private CrashableMarkers markers;
        private TransactionCoordinator coordinator;

        Run(PrintStream out, Claims claims, Path data, long nowMs) {
            this.out = out;
            this.claims = claims;
            this.data = data;
            this.now = nowMs;
        }

        void all() throws IOException {
            start();
            Producer first = init(APP);
            commit(first);
            abort(first);
            Producer second = fence(first);
            crashBetweenPrepareAndMarkers(second);
            timeout(second);
        }

        void stop() {
            if (broker != null) {
                broker.close();
                broker = null;
            }
        }

        /** The broker (its log output dropped: it names a temporary directory), the topic, the coordinator. */
        private void start() throws IOException {
            broker = Broker.start(BrokerConfig.of(data).withTickMs(0).withStartNowMs(now),
                    new PrintStream(OutputStream.nullOutputStream()));
            for (int p = 0; p < PARTITIONS; p++) {
                broker.partition(orders(p));
            }
            markers = new CrashableMarkers(new LocalMarkers(broker::existingPartition));
            coordinator = LocalTransactions.start(broker, TxnConfig.defaults(), markers);
        }

        private Producer init(String transactionalId) {
            InitProducerIdResult result = coordinator.initProducerId(
                    new InitProducerIdRequest(transactionalId, TIMEOUT_MS), tick());
            claims.check(result.error() == TxnError.NONE, "InitProducerId for " + transactionalId + " is NONE, not "
                    + result.error());
            return new Producer(result);
        }

        // ---- 1. a commit ----

        private void commit(Producer app) throws IOException {
            out.println("== 1. A transaction commits across three partitions ==");
            out.println(APP + ": InitProducerId -> producer id " + app.producerId + ", epoch " + app.epoch
                    + " (transaction.timeout.ms " + TIMEOUT_MS + ")");
            claims.check(app.epoch == 0, "a new transactional id starts at epoch 0");
            TxnError added = add(app, 0, 1, 2);
            claims.check(added == TxnError.NONE, "AddPartitionsToTxn of orders-0..2 is NONE, not " + added);
            out.println("AddPartitionsToTxn orders-0, orders-1, orders-2 -> " + added + " · the transaction is "
                    + state(APP));
            for (int p = 0; p < PARTITIONS; p++) {
                send(app, p, "order-" + (2 * p), "order-" + (2 * p + 1));
            }
            out.println("two records to each partition; before the commit:");
            header();
            for (int p = 0; p < PARTITIONS; p++) {
                View v = view(p);
                row(p, v, "records of an open transaction");
                claims.check(v.lso == 0 && v.hw == 2, "orders-" + p + ": LSO held at the open transaction's first"
                        + " offset 0 while the HW is 2");
                claims.check(v.committed.isEmpty() && v.uncommitted.size() == 2, "orders-" + p
                        + ": read_committed reads nothing yet, read_uncommitted both records");
            }
            TxnError ended = end(app, TransactionResult.COMMIT);
            claims.check(ended == TxnError.NONE, "EndTxn COMMIT is NONE, not " + ended);
            out.println("EndTxn COMMIT -> " + ended + " · PrepareCommit written, a marker to each partition, then "
                    + state(APP));
            header();
            for (int p = 0; p < PARTITIONS; p++) {
                View v = view(p);
                row(p, v, v.lastBatch);
                claims.check(v.lastBatch.equals("COMMIT marker at 2, epoch 0"), "orders-" + p
                        + " ends with a COMMIT control batch at offset 2, not " + v.lastBatch);
                claims.check(v.lso == 3 && v.committed.size() == 2, "orders-" + p
                        + ": the marker makes the records stable: LSO 3, read_committed reads both");
            }
            List<String> states = stateLog(APP);
            out.println(stateLogName(APP) + " holds " + APP + "'s transitions, each written before it was answered:");
            out.println("  " + String.join(" -> ", states));
            claims.check(states.equals(List.of("Empty", "Ongoing", "PrepareCommit", "CompleteCommit")),
                    "the coordinator's log holds Empty, Ongoing, PrepareCommit, CompleteCommit");
            out.println("a marker is a control batch: it takes one offset, and a consumer never returns it as a record");
        }

        // ---- 2. an abort ----

        private void abort(Producer app) throws IOException {
            out.println();
            out.println("== 2. A transaction aborts: read_committed skips it ==");
            add(app, 0, 1);
            send(app, 0, "refund-0", "refund-1");
            send(app, 1, "refund-2");
            TxnError ended = end(app, TransactionResult.ABORT);
            claims.check(ended == TxnError.NONE, "EndTxn ABORT is NONE, not " + ended);
            out.println(APP + " writes 2 records to orders-0 and 1 to orders-1, then EndTxn ABORT -> " + ended
                    + " · " + state(APP));
            header();
            for (int p = 0; p < 2; p++) {
                View v = view(p);
                row(p, v, v.lastBatch);
                claims.check(v.lastBatch.equals("ABORT marker at " + (v.leo - 1) + ", epoch 0"), "orders-" + p
                        + " ends with an ABORT marker, not " + v.lastBatch);
                claims.check(v.committed.size() == 2 && v.uncommitted.size() == 2 + (p == 0 ? 2 : 1),
                        "orders-" + p + ": read_committed still reads the 2 committed records, read_uncommitted the"
                                + " aborted ones too");
                claims.check(v.aborted.equals(List.of(new AbortedTransaction(app.producerId, 3))),
                        "orders-" + p + "'s .txnindex names the aborted transaction: producer " + app.producerId
                                + " from offset 3");
            }
            out.println("each ABORT marker left an entry in its segment's .txnindex, and a read_committed fetch");
            out.println("names the aborted transactions it overlaps (producer id, first offset):");
            out.println("  orders-0 " + show(view(0).aborted) + " · orders-1 " + show(view(1).aborted));
            out.println("the consumer drops that producer's records from the first offset up to its ABORT marker:");
            out.println("the bytes are read, never shown");
            out.println("read_uncommitted on orders-0: " + view(0).uncommitted);
            out.println("read_committed on orders-0:   " + view(0).committed);
        }

        // ---- 3. a zombie ----

        private Producer fence(Producer zombie) throws IOException {
            out.println();
            out.println("== 3. A zombie is fenced ==");
            add(zombie, 2);
            send(zombie, 2, "late-0");
            long lateOffset = view(2).leo - 1;
            out.println("producer A (" + APP + ", epoch " + zombie.epoch + ") opens a transaction: 1 record to orders-2,"
                    + " at offset " + lateOffset);
            out.println("A stalls (a long GC pause); its replacement B starts with the same transactional.id:");
            out.printf("  %-3s %-28s %-6s %s%n", "who", "request", "epoch", "answer");
            InitProducerIdResult first = coordinator.initProducerId(new InitProducerIdRequest(APP, TIMEOUT_MS), tick());
            out.printf("  %-3s %-28s %-6s %s%n", "B", "InitProducerId", "-", first.error()
                    + " · A's transaction is aborted at epoch " + (zombie.epoch + 1));
            claims.check(first.error() == TxnError.CONCURRENT_TRANSACTIONS, "InitProducerId during A's open"
                    + " transaction answers CONCURRENT_TRANSACTIONS, not " + first.error());
            claims.check(state(APP).equals("CompleteAbort"), "the coordinator aborted A's open transaction first");
            InitProducerIdResult retried = coordinator.initProducerId(new InitProducerIdRequest(APP, TIMEOUT_MS), tick());
            out.printf("  %-3s %-28s %-6s %s%n", "B", "InitProducerId (retry)", "-", retried.error()
                    + " · producer id " + retried.producerId() + ", epoch " + retried.producerEpoch());
            claims.check(retried.error() == TxnError.NONE && retried.producerId() == zombie.producerId
                    && retried.producerEpoch() == zombie.epoch + 2, "B gets the same producer id at epoch "
                    + (zombie.epoch + 2) + ": one bump for the fence, one for B");
            Producer successor = new Producer(retried);
            TxnError addAgain = coordinator.addPartitions(new AddPartitionsRequest(APP, zombie.producerId, zombie.epoch,
                    Set.of(partition(0))), tick());
            out.printf("  %-3s %-28s %-6s %s%n", "A", "AddPartitionsToTxn orders-0", zombie.epoch, addAgain);
            TxnError commitLate = end(zombie, TransactionResult.COMMIT);
            out.printf("  %-3s %-28s %-6s %s%n", "A", "EndTxn COMMIT", zombie.epoch, commitLate);
            claims.check(addAgain == TxnError.PRODUCER_FENCED && commitLate == TxnError.PRODUCER_FENCED,
                    "the zombie's AddPartitionsToTxn and EndTxn at epoch " + zombie.epoch + " are PRODUCER_FENCED");
            long leoBefore = view(2).leo;
            String refused;
            try {
                send(zombie, 2, "late-1");
                refused = "written";
            } catch (ProduceRefusedException e) {
                refused = e.error().name();
            }
            out.printf("  %-3s %-28s %-6s %s%n", "A", "produce to orders-2", zombie.epoch, refused
                    + " (the partition's own check)");
            claims.check(refused.equals("INVALID_PRODUCER_EPOCH") && view(2).leo == leoBefore,
                    "the partition refuses the zombie's batch INVALID_PRODUCER_EPOCH and writes nothing");
            View v = view(2);
            out.println("orders-2 now: " + v.lastBatch + " · read_committed " + v.committed + " · A's late-0 never"
                    + " shows");
            claims.check(v.lastBatch.equals("ABORT marker at " + (lateOffset + 1) + ", epoch " + (zombie.epoch + 1))
                    && !v.committed.contains("late-0") && v.uncommitted.contains("late-0"),
                    "orders-2 ends with the fence's ABORT marker at epoch 1, and read_committed never reads late-0");
            out.println("PRODUCER_FENCED (90) is what the coordinator answers; Kafka's older request versions say");
            out.println("INVALID_PRODUCER_EPOCH (47) instead, the code the partition gives a batch of an old epoch");
            return successor;
        }

        // ---- 4. a crash between PrepareCommit and the markers ----

        private void crashBetweenPrepareAndMarkers(Producer app) throws IOException {
            out.println();
            out.println("== 4. The coordinator crashes between PrepareCommit and the markers ==");
            add(app, 0, 1);
            long first0 = view(0).leo;
            long first1 = view(1).leo;
            send(app, 0, "order-6");
            send(app, 1, "order-7");
            markers.crashed = true;
            TxnError ended = end(app, TransactionResult.COMMIT);
            out.println("B writes order-6 to orders-0 (offset " + first0 + ") and order-7 to orders-1 (offset " + first1
                    + "), then EndTxn COMMIT -> " + ended);
            out.println("PrepareCommit is written and answered: the outcome is decided. Then the coordinator dies:");
            out.println("its " + markers.dropped + " markers are never written (the demo drops them and stops the broker;"
                    + " only the logs remain)");
            claims.check(ended == TxnError.NONE && markers.dropped == 2, "EndTxn COMMIT is answered once PrepareCommit"
                    + " is written, and both markers were lost in the crash");
            List<String> before = stateLog(APP);
            claims.check(before.get(before.size() - 1).equals("PrepareCommit"), "the coordinator's log ends on"
                    + " PrepareCommit");
            header();
            for (int p = 0; p < 2; p++) {
                View v = view(p);
                row(p, v, "no marker: the transaction is open");
                long first = p == 0 ? first0 : first1;
                claims.check(v.lso == first && v.committed.size() == 2, "orders-" + p + ": LSO held at " + first
                        + ", the committed-but-unmarked record not readable yet");
            }
            stop();
            now += 1_000;
            start();
            List<String> after = stateLog(APP);
            out.println("the broker restarts; its coordinator replays " + stateLogName(APP) + ": " + APP
                    + "'s last record is " + before.get(before.size() - 1) + ",");
            out.println("a decision it must keep: it sends every marker (it cannot know which were written), then writes "
                    + after.get(after.size() - 1));
            claims.check(after.subList(after.size() - 2, after.size()).equals(List.of("PrepareCommit", "CompleteCommit")),
                    "after the restart the log ends PrepareCommit -> CompleteCommit");
            claims.check(state(APP).equals("CompleteCommit"), "the new coordinator holds CompleteCommit");
            header();
            for (int p = 0; p < 2; p++) {
                View v = view(p);
                row(p, v, v.lastBatch);
                claims.check(v.lastBatch.startsWith("COMMIT marker") && v.lso == v.leo && v.committed.size() == 3,
                        "orders-" + p + ": COMMIT marker written after the restart, its record readable");
            }
            out.println("from the crash to the markers the LSO held at the transaction's first offset:");
            out.println("no read_committed reader saw the transaction before its outcome was written in the partition");
        }

        // ---- 5. the timeout ----

        private void timeout(Producer app) throws IOException {
            out.println();
            out.println("== 5. An open transaction past its timeout is aborted by the coordinator ==");
            long start = tick();
            TxnError added = coordinator.addPartitions(new AddPartitionsRequest(APP, app.producerId, app.epoch,
                    Set.of(partition(1))), start);
            claims.check(added == TxnError.NONE && coordinator.transaction(APP).orElseThrow().txnStartTimestamp() == start,
                    "B opens a transaction on orders-1 at T: NONE, not " + added);
            long firstOffset = view(1).leo;
            send(app, 1, "order-8", "order-9");
            Producer plain = new Producer(coordinator.initProducerId(new InitProducerIdRequest(null, TIMEOUT_MS),
                    tick()));
            appendPlain(plain, 1, "audit-0", "audit-1", "audit-2");
            out.println("B opens a transaction at time T, writes 2 records to orders-1 at offset " + firstOffset
                    + " and stalls;");
            out.println("an idempotent producer, in no transaction, writes 3 more after them");
            out.printf("  %-10s %-15s %5s %5s %5s %16s   %s%n", "time", "coordinator", "LEO", "HW", "LSO",
                    "read_committed", "why");
            for (long after : new long[] {now - start, TIMEOUT_MS, TIMEOUT_MS + 1}) {
                now = start + after;
                coordinator.tick(now);
                View v = view(1);
                String note = after < TIMEOUT_MS ? "LSO held at the open transaction's first offset"
                        : after == TIMEOUT_MS ? "start + timeout = now: not past it yet"
                        : "aborted: ABORT marker at " + (v.leo - 1) + ", epoch " + v.last().header().producerEpoch();
                out.printf("  %-10s %-15s %5d %5d %5d %16d   %s%n", "T+" + after, state(APP), v.leo, v.hw, v.lso,
                        v.committed.size(), note);
                if (after <= TIMEOUT_MS) {
                    claims.check(state(APP).equals("Ongoing") && v.lso == firstOffset && v.hw == firstOffset + 5,
                            "at T+" + after + " the transaction is open and the LSO held at " + firstOffset
                                    + " while the HW is " + (firstOffset + 5));
                } else {
                    claims.check(state(APP).equals("CompleteAbort") && v.lso == v.leo, "past its timeout the"
                            + " transaction is aborted and the LSO reaches the log end");
                    claims.check(v.committed.containsAll(List.of("audit-0", "audit-1", "audit-2"))
                            && !v.committed.contains("order-8") && !v.committed.contains("order-9"),
                            "read_committed now reads the 3 idempotent records and never B's 2");
                }
            }
            out.println("until then read_committed stopped at offset " + firstOffset
                    + ": the 3 records after it waited too, though no transaction held them");
            TxnError late = end(app, TransactionResult.COMMIT);
            out.println("B wakes up: EndTxn COMMIT at epoch " + app.epoch + " -> " + late
                    + " · the timeout's abort bumped the epoch, as a fence does");
            claims.check(late == TxnError.PRODUCER_FENCED, "B's late commit is PRODUCER_FENCED, not " + late);
            out.println("read_committed on orders-1: " + view(1).committed);
        }

        // ---- the requests ----

        private TxnError add(Producer producer, int... partitions) {
            Set<TopicPartition> set = new HashSet<>();
            for (int p : partitions) {
                set.add(partition(p));
            }
            return coordinator.addPartitions(new AddPartitionsRequest(APP, producer.producerId, producer.epoch, set),
                    tick());
        }

        private TxnError end(Producer producer, TransactionResult result) {
            return coordinator.endTxn(new EndTxnRequest(APP, producer.producerId, producer.epoch, result), tick());
        }

        private void send(Producer producer, int partition, String... values) throws IOException {
            ByteBuffer batch = producer.batch(orders(partition), List.of(values), tick());
            broker.partition(orders(partition)).locked(log -> log.append(batch));
        }

        /** An idempotent batch outside any transaction (chapter 7's producer). */
        private void appendPlain(Producer producer, int partition, String... values) throws IOException {
            ByteBuffer batch = Idempotence.producerBatch(producer.producerId, producer.epoch, 0,
                    List.of(values), tick());
            broker.partition(orders(partition)).locked(log -> log.append(batch));
        }

        /** The demo's clock: one millisecond per request, so every record has its own time. */
        private long tick() {
            return now++;
        }

        private String state(String transactionalId) {
            return coordinator.transaction(transactionalId).map(TxnTransit::state).map(TransactionState::stateName)
                    .orElse("none");
        }

        private String stateLogName(String transactionalId) {
            return TransactionStateExtension.stateLogPartition(coordinator.partitionFor(transactionalId));
        }

        /** The states of {@code transactionalId} in its {@code __transaction_state} partition, oldest first. */
        private List<String> stateLog(String transactionalId) throws IOException {
            List<String> states = new ArrayList<>();
            for (RecordBatch batch : batches(stateLogName(transactionalId), FetchIsolation.LOG_END)) {
                for (Record record : batch.records()) {
                    if (TransactionLog.readKey(record.key()).orElse("").equals(transactionalId) && record.value() != null) {
                        states.add(TransactionLog.readValue(record.value()).state().stateName());
                    }
                }
            }
            return states;
        }

        private List<RecordBatch> batches(String partition, FetchIsolation isolation) throws IOException {
            return RecordBatch.decodeAll(broker.partition(partition).locked(log -> log.read(log.logStartOffset(),
                    Integer.MAX_VALUE, isolation)));
        }

        // ---- what a reader sees ----

        /** One partition as its readers see it. */
        private record View(long leo, long hw, long lso, String lastBatch, List<AbortedTransaction> aborted,
                            List<String> uncommitted, List<String> committed, RecordBatch last) {
        }

        private View view(int partition) throws IOException {
            String name = orders(partition);
            long[] offsets = broker.partition(name).locked(log -> new long[] {log.logEndOffset(), log.highWatermark(),
                    log.lastStableOffset(), log.logStartOffset()});
            List<AbortedTransaction> aborted = broker.partition(name).locked(log -> log.abortedTransactions(offsets[3],
                    offsets[2]));
            List<RecordBatch> all = batches(name, FetchIsolation.LOG_END);
            RecordBatch last = all.isEmpty() ? null : all.get(all.size() - 1);
            return new View(offsets[0], offsets[1], offsets[2], describe(last), aborted,
                    uncommitted(batches(name, FetchIsolation.HIGH_WATERMARK)),
                    committed(batches(name, FetchIsolation.TXN_COMMITTED), aborted), last);
        }

        private void header() {
            out.printf(TABLE, "partition", "LEO", "HW", "LSO", "last batch", "read_committed", "read_uncommitted");
        }

        private void row(int partition, View v, String note) {
            out.printf(TABLE, orders(partition), v.leo, v.hw, v.lso, note, v.committed.size(), v.uncommitted.size());
        }
    }

    /** read_uncommitted: every record below the high watermark; markers hold none a consumer sees. */
    static List<String> uncommitted(List<RecordBatch> batches) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : batches) {
            if (!batch.header().isControl()) {
                batch.records().forEach(r -> values.add(Record.show(r.value())));
            }
        }
        return values;
    }

    /**
     * read_committed, as Kafka's consumer reads a fetch answer (its {@code CompletedFetch}): an aborted
     * transaction named by the answer starts dropping its producer's transactional batches at its
     * first offset, and the producer's ABORT marker stops it.
     */
    static List<String> committed(List<RecordBatch> batches, List<AbortedTransaction> aborted) {
        List<AbortedTransaction> pending = new ArrayList<>(aborted);
        pending.sort((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
        Set<Long> dropping = new HashSet<>();
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : batches) {
            while (!pending.isEmpty() && pending.get(0).firstOffset() <= batch.lastOffset()) {
                dropping.add(pending.remove(0).producerId());
            }
            BatchHeader header = batch.header();
            if (header.isControl()) {
                if (EndTransactionMarker.read(batch.records().get(0)).type() == ControlRecordType.ABORT) {
                    dropping.remove(header.producerId());
                }
            } else if (!(header.isTransactional() && dropping.contains(header.producerId()))) {
                batch.records().forEach(r -> values.add(Record.show(r.value())));
            }
        }
        return values;
    }

    static String describe(RecordBatch batch) {
        if (batch == null) {
            return "(empty)";
        }
        if (batch.header().isControl()) {
            return EndTransactionMarker.read(batch.records().get(0)).type() + " marker at " + batch.baseOffset()
                    + ", epoch " + batch.header().producerEpoch();
        }
        return "records at " + batch.baseOffset() + ".." + batch.lastOffset();
    }

    static String show(List<AbortedTransaction> aborted) {
        List<String> shown = new ArrayList<>();
        for (AbortedTransaction txn : aborted) {
            shown.add("(" + txn.producerId() + ", " + txn.firstOffset() + ")");
        }
        return shown.toString();
    }

    static String orders(int partition) {
        return "orders-" + partition;
    }

    static TopicPartition partition(int partition) {
        return new TopicPartition("orders", partition);
    }
}
