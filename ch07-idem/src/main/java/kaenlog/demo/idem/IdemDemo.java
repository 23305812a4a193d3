package kaenlog.demo.idem;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.idem.BatchMetadata;
import kaenlog.idem.Idempotence;
import kaenlog.idem.IdempotentAppend;
import kaenlog.idem.ProducerState;
import kaenlog.idem.ProducerStateEntry;
import kaenlog.idem.Verdict;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;

/**
 * {@code klog idem-demo}: the idempotent producer on one partition, in eight sections: the three
 * delivery semantics, the window filling, a lost ack and its resend, a gap, the window overflowing,
 * a broker restart, the two edges dedup cannot reach, and the transactions this chapter only draws.
 *
 * <p>Everything runs in-process on a temporary directory that is deleted at the end and never
 * printed; time is {@code --now-ms}. Every number the demo prints is also a claim it checks, so a
 * broken solution exits 1 instead of printing a wrong golden file.
 */
public final class IdemDemo implements Subcommand {
    static final long DEFAULT_NOW_MS = 1_700_000_000_000L;
    /** Producer ids are non-negative longs; the demo also uses pid + 1. */
    static final long MAX_PID = Long.MAX_VALUE - 1;
    static final int MAX_FIRST_SEQ = 50;
    static final int MAX_BATCH_RECORDS = 100;
    /** The edge-2 partition: small enough that every single-record batch rolls a segment. */
    static final int SMALL_SEGMENT_BYTES = 256;
    static final int SMALL_SEGMENT_BATCHES = 8;
    /** Edge 2's values are this long, so one batch is over half of 256 bytes and two never share a segment. */
    static final int SMALL_SEGMENT_VALUE_BYTES = 80;
    private static final short EPOCH = 0;
    private static final String ROW = "  %9s   %-40s%11s   %s%n";

    @Override
    public String name() {
        return "idem-demo";
    }

    @Override
    public String usage() {
        return "[--pid PID] [--seq FIRST..LAST] [--resend] [--now-ms MS]";
    }

    @Override
    public String summary() {
        return "chapter 7: the idempotent producer's five-batch window, duplicates, gaps, restart";
    }

    /** A batch's sequence range from {@code --seq FIRST..LAST}. */
    record SeqRange(int first, int last) {
        static SeqRange parse(String text) throws UsageException {
            String[] parts = text.split("\\.\\.", -1);
            if (parts.length != 2 || !parts[0].matches("\\d+") || !parts[1].matches("\\d+")) {
                throw new UsageException("--seq takes FIRST..LAST (two whole numbers), not '" + text + "'");
            }
            long first = atMost18Digits(parts[0]);
            long last = atMost18Digits(parts[1]);
            if (first > MAX_FIRST_SEQ) {
                throw new UsageException("--seq " + text + ": FIRST must be at most " + MAX_FIRST_SEQ + ", not " + parts[0]);
            }
            if (last < first) {
                throw new UsageException("--seq " + text + ": LAST must not be below FIRST");
            }
            if (last - first + 1 > MAX_BATCH_RECORDS) {
                throw new UsageException("--seq " + text + ": a batch of at most " + MAX_BATCH_RECORDS + " records");
            }
            return new SeqRange((int) first, (int) last);
        }

        /** The number, or Long.MAX_VALUE for one too long to be a long: either way it fails the bounds above. */
        private static long atMost18Digits(String digits) {
            return digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits);
        }

        int count() {
            return last - first + 1;
        }

        @Override
        public String toString() {
            return first + ".." + last;
        }
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("pid", "seq", "now-ms"), Set.of("resend")).noPositional();
        long pid = flags.longValue("pid", 1000, 0, MAX_PID);
        SeqRange seq = SeqRange.parse(flags.string("seq", "7..9"));
        boolean resend = flags.has("resend");
        long nowMs = flags.nowMs(DEFAULT_NOW_MS);
        try (ScratchDir dir = ScratchDir.create("kaenlog-ch07-")) {
            Claims claims = new Claims();
            new Run(out, claims, dir.path(), pid, seq, resend, nowMs).all();
            out.println();
            out.println("self-checks: " + claims.held() + " held");
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One run of the demo: the partition orders-0, its producer state, and the claims checked so far. */
    private static final class Run {
        private final PrintStream out;
        private final Claims claims;
        private final Path root;
        private final long pid;
        private final SeqRange seq;
        private final boolean resend;
        private final long nowMs;
        private Log orders;
        private ProducerState state = new ProducerState();

        Run(PrintStream out, Claims claims, Path root, long pid, SeqRange seq, boolean resend, long nowMs) {
            this.out = out;
            this.claims = claims;
            this.root = root;
            this.pid = pid;
            this.seq = seq;
            this.resend = resend;
            this.nowMs = nowMs;
        }

        void all() throws IOException {
            orders = Log.open(root.resolve("orders-0"), LogConfig.defaults());
            try {
                threeMeanings();
                fillTheWindow();
                ackLost();
                gap();
                windowOverflow();
                restart();
                twoEdges();
                transactions();
            } finally {
                orders.close();
            }
        }

        private void threeMeanings() {
            out.println("== Three meanings of delivery ==");
            out.printf("  %-15s %s%n", "at most once", "a message may be lost, but is never delivered twice");
            out.printf("  %-15s %s%n", "at least once", "a message is never lost, but may be delivered twice");
            out.printf("  %-15s %s%n", "exactly once", "a message is processed once and only once");
            out.println("the first two speak of *delivery*, the third of *processing* · the difference is not about words");
        }

        /** The batches before {@code --seq}: pairs from 0, the last one shorter if need be, then FIRST..LAST. */
        private List<SeqRange> batchesUpToTheFlag() {
            List<SeqRange> batches = new ArrayList<>();
            for (int first = 0; first < seq.first(); first += 2) {
                batches.add(new SeqRange(first, Math.min(first + 1, seq.first() - 1)));
            }
            batches.add(seq);
            return batches;
        }

        private void fillTheWindow() throws IOException {
            out.println();
            out.println("== Dedup window · " + ProducerStateEntry.NUM_BATCHES_TO_RETAIN
                    + " batches per producer per partition ==");
            out.println("producer id " + pid + " · producer epoch " + EPOCH);
            out.printf(ROW, "seq sent", "verdict", "base_offset", "window afterwards");
            for (SeqRange batch : batchesUpToTheFlag()) {
                long expectedBase = orders.logEndOffset();
                IdempotentAppend result = send(pid, batch);
                out.printf(ROW, batch, result.verdict().label(), result.baseOffset(), window(pid));
                claims.check(result.verdict() instanceof Verdict.Append && result.baseOffset() == expectedBase,
                        "batch " + batch + " is APPEND at base offset " + expectedBase);
            }
            out.println("log end offset " + orders.logEndOffset());
            claims.check(orders.logEndOffset() == seq.last() + 1L,
                    "one producer from sequence 0 on a fresh partition: offsets equal sequences, LEO " + (seq.last() + 1));
            claims.check(entry(pid).batches().size() == Math.min(batchesUpToTheFlag().size(),
                    ProducerStateEntry.NUM_BATCHES_TO_RETAIN), "the window holds at most five batches");
        }

        private void ackLost() throws IOException {
            long leoBefore = orders.logEndOffset();
            out.println();
            if (!resend) {
                out.println("== The ack came back · the producer does not resend seq " + seq + " ==");
                out.println("nothing resent (run with --resend to lose the ack)");
                out.println("log end offset " + orders.logEndOffset() + " (unchanged)");
                claims.check(orders.logEndOffset() == leoBefore, "no resend, no write");
                return;
            }
            out.println("== Ack lost · the producer resends seq " + seq + " ==");
            IdempotentAppend result = send(pid, seq);
            Verdict.Duplicate duplicate = result.verdict() instanceof Verdict.Duplicate d ? d : null;
            claims.check(duplicate != null, "the resent " + seq + " is a DUPLICATE, not " + result.verdict().label());
            out.printf("%-13s %s%n", "verdict", "DUPLICATE · original offsets " + duplicate.firstOffset() + ".."
                    + duplicate.lastOffset());
            out.printf("%-13s %s%n", "timestamp", duplicate.timestamp() + " (the first write's, from the window)");
            out.printf("%-13s %s%n", "base_offset", result.baseOffset());
            out.println("log end offset " + orders.logEndOffset() + " (unchanged)");
            out.println("a duplicate is not an error: the broker answers success with the original offsets");
            out.println("and writes nothing to disk · the whole append path is skipped");
            claims.check(orders.logEndOffset() == leoBefore,
                    "the log end offset did not move on a duplicate: it stays " + leoBefore);
            claims.check(duplicate.firstOffset() == seq.first() && duplicate.lastOffset() == seq.last()
                    && result.baseOffset() == seq.first(), "the duplicate is answered with the original offsets " + seq);
            claims.check(duplicate.timestamp() == nowMs,
                    "the duplicate is answered with the first write's timestamp, --now-ms " + nowMs);
        }

        private void gap() throws IOException {
            long leoBefore = orders.logEndOffset();
            int expected = entry(pid).expectedFirstSeq();
            int skipTo = expected + 3;
            out.println();
            out.println("== Gap · three sequence numbers skipped ==");
            IdempotentAppend result = send(pid, new SeqRange(skipTo, skipTo));
            out.printf("%-13s %s%n", "verdict", describe(result.verdict()));
            out.println("log end offset " + orders.logEndOffset() + " (unchanged)");
            out.println("a gap means a write that went missing, not one that came twice");
            out.println("so dedup turns a silent loss into a loud error");
            out.println("which may be worth more than the dedup itself");
            claims.check(result.verdict().equals(new Verdict.OutOfOrderSequenceNumber(expected, skipTo)),
                    "the gap is OUT_OF_ORDER_SEQUENCE_NUMBER expected " + expected + " got " + skipTo);
            claims.check(orders.logEndOffset() == leoBefore && result.baseOffset() == -1,
                    "an out-of-order batch writes nothing (base_offset -1, LEO stays " + leoBefore + ")");
        }

        private void windowOverflow() throws IOException {
            int next = entry(pid).expectedFirstSeq();
            long firstOffset = orders.logEndOffset();
            for (int i = 0; i < ProducerStateEntry.NUM_BATCHES_TO_RETAIN; i++) {
                IdempotentAppend result = send(pid, new SeqRange(next + i, next + i));
                claims.check(result.verdict() instanceof Verdict.Append && result.baseOffset() == firstOffset + i,
                        "single-record batch " + (next + i) + " is APPEND at offset " + (firstOffset + i));
            }
            int last = next + ProducerStateEntry.NUM_BATCHES_TO_RETAIN - 1;
            out.println();
            out.println("== Window overflow · an evicted batch is no longer deduplicated ==");
            out.println("five more batches " + next + ".." + next + " to " + last + ".." + last + " appended at offsets "
                    + firstOffset + " to " + (orders.logEndOffset() - 1) + " · log end offset " + orders.logEndOffset());
            out.println("window now " + window(pid));
            int expected = entry(pid).expectedFirstSeq();
            IdempotentAppend result = send(pid, seq);
            out.println((resend ? "resend seq " + seq + " once more" : "a late retry of seq " + seq) + " → "
                    + describe(result.verdict()));
            out.println("this 5 is the same number as the cap on max.in.flight.requests.per.connection");
            out.println("with more than five in flight, an old batch can leave the window before its ack comes back");
            claims.check(result.verdict().equals(new Verdict.OutOfOrderSequenceNumber(expected, seq.first())),
                    seq + " fell out of the window: OUT_OF_ORDER expected " + expected + " got " + seq.first());
        }

        private void restart() throws IOException {
            List<BatchMetadata> before = entry(pid).batches();
            orders.close();
            orders = Log.open(orders.dir(), LogConfig.defaults());
            state = Idempotence.rebuildProducerState(orders);
            out.println();
            out.println("== Broker restart · state rebuilt by scanning the last segment ==");
            out.println("producer ids found by the scan " + state.producerIds());
            out.println("window found by the scan " + window(pid));
            claims.check(state.producerIds().equals(List.of(pid)), "the scan finds producer " + pid + " only");
            claims.check(state.get(pid).map(ProducerStateEntry::batches).orElse(List.of()).equals(before),
                    "the rebuilt window equals the window before the restart, slot by slot");
            BatchMetadata newest = before.get(before.size() - 1);
            SeqRange newestRange = new SeqRange(newest.firstSeq(), newest.lastSeq());
            long leoBefore = orders.logEndOffset();
            IdempotentAppend result = send(pid, newestRange);
            out.println("resend seq " + newestRange + " after the restart → " + describe(result.verdict()));
            claims.check(result.verdict() instanceof Verdict.Duplicate d && d.firstOffset() == newest.firstOffset()
                    && d.lastOffset() == newest.lastOffset() && orders.logEndOffset() == leoBefore,
                    "after the restart the resend of " + newestRange + " is still a DUPLICATE and writes nothing");
        }

        private void twoEdges() throws IOException {
            out.println();
            out.println("== Two edges dedup cannot reach ==");
            newProducerId();
            smallSegments();
        }

        private void newProducerId() throws IOException {
            long newPid = pid + 1;
            long leoBefore = orders.logEndOffset();
            SeqRange fromZero = new SeqRange(0, seq.count() - 1);
            IdempotentAppend result = Idempotence.appendIdempotent(orders, state,
                    Idempotence.producerBatch(newPid, EPOCH, 0, payload(seq), nowMs));
            out.println("1. a restarted process gets a new producer id");
            out.println("   the same payload sent with pid " + newPid + " seq " + fromZero.first() + " → "
                    + result.verdict().label());
            out.println("   base_offset " + result.baseOffset() + " · the same records are written to the log again,"
                    + " as new ones");
            out.println("   so dedup covers one session, not the payload");
            claims.check(result.verdict() instanceof Verdict.Append && result.baseOffset() == leoBefore,
                    "pid " + newPid + " seq 0 is APPEND at the log end offset " + leoBefore);
            claims.check(valuesAt(result.baseOffset(), seq.count()).equals(valuesAt(seq.first(), seq.count())),
                    "the log now holds the payload of " + seq + " twice");
            claims.check(eachSequenceOnce(orders, pid, entry(pid).expectedFirstSeq()),
                    "the log holds each of producer " + pid + "'s sequences exactly once");
        }

        private void smallSegments() throws IOException {
            Path dir = root.resolve("orders-1");
            LogConfig small = LogConfig.defaults().withSegmentBytes(SMALL_SEGMENT_BYTES);
            ProducerState smallState = new ProducerState();
            List<BatchMetadata> before;
            int segments;
            try (Log log = Log.open(dir, small)) {
                for (int s = 0; s < SMALL_SEGMENT_BATCHES; s++) {
                    String value = padded("order-" + s);
                    IdempotentAppend result = Idempotence.appendIdempotent(log, smallState,
                            Idempotence.producerBatch(pid, EPOCH, s, List.of(value), nowMs));
                    claims.check(result.verdict() instanceof Verdict.Append, "edge 2: batch " + s + " is APPEND");
                }
                before = smallState.get(pid).orElseThrow().batches();
                segments = log.segments().size();
            }
            ProducerState rebuilt;
            try (Log log = Log.open(dir, small)) {
                rebuilt = Idempotence.rebuildProducerState(log);
            }
            String windowBefore = smallState.get(pid).orElseThrow().window();
            String windowAfter = rebuilt.get(pid).map(ProducerStateEntry::window).orElse("[]");
            int sizeAfter = rebuilt.get(pid).map(e -> e.batches().size()).orElse(0);
            out.println("2. the scan at open sees only what the last segment still holds");
            out.println("   " + SMALL_SEGMENT_BATCHES + " batches written to a partition with segment.bytes = "
                    + SMALL_SEGMENT_BYTES + " · segments " + segments);
            out.println("   window before restart " + windowBefore);
            out.println("   window after restart " + windowAfter);
            out.println("   narrowed from " + before.size() + " to " + sizeAfter + " · a producer whose batches rolled");
            out.println("   into an older segment is no longer deduplicated after a restart, though it was before");
            claims.check(segments == SMALL_SEGMENT_BATCHES, "every batch of edge 2 rolled its own segment");
            claims.check(before.size() == ProducerStateEntry.NUM_BATCHES_TO_RETAIN,
                    "before the restart the window is full with five batches");
            claims.check(sizeAfter < before.size(), "the window after the restart is narrower than before");
            claims.check(sizeAfter == 1 && rebuilt.get(pid).orElseThrow().batches().get(0).equals(before.get(4)),
                    "the active segment holds one batch: the window after the restart is the newest batch only");
        }

        private void transactions() {
            long leo = orders.logEndOffset();
            long hw = orders.highWatermark();
            out.println();
            out.println("== Transactions · drawn, not built ==");
            out.println("dedup is not exactly-once · transactions need a coordinator");
            out.println("an internal topic named __transaction_state and control records in the user's partition");
            out.println("all of that sits one layer above the replication of chapter 8");
            out.println("three dividing lines once transactions exist: LEO >= HW >= LSO");
            out.printf("  %-4s %s%n", "LEO", "the offset the next record is written at");
            out.printf("  %-4s %s%n", "HW", "the committed line · read_uncommitted reads up to here");
            out.printf("  %-4s %s%n", "LSO", "the first offset of the oldest open transaction, else the HW · read_committed reads up to here");
            out.println("kaen-log builds the first two lines and only names the third");
            out.println("orders-0 now: LEO " + leo + " · HW " + hw + " (one replica: the HW follows the LEO) · LSO not built");
            out.println("control records carry their type in the key: ABORT = 0, COMMIT = 1"
                    + " (ControlRecordType.java; KIP-98's prose swaps them)");
            out.println("Kafka's error codes: 45 OUT_OF_ORDER_SEQUENCE_NUMBER answers a gap;"
                    + " 46 DUPLICATE_SEQUENCE_NUMBER is thrown by no broker path");
            out.println("and exactly-once was never a property of delivery · it is a property of the result");
            out.println("at a destination that can deduplicate · charging a card or sending an SMS is not covered");
            claims.check(leo >= hw && hw >= orders.logStartOffset(), "LEO >= HW on orders-0");
        }

        private IdempotentAppend send(long producerId, SeqRange batch) throws IOException {
            return Idempotence.appendIdempotent(orders, state,
                    Idempotence.producerBatch(producerId, EPOCH, batch.first(), payload(batch), nowMs));
        }

        private ProducerStateEntry entry(long producerId) {
            return state.get(producerId).orElseGet(() -> new ProducerStateEntry(EPOCH));
        }

        private String window(long producerId) {
            return entry(producerId).window();
        }

        /** The values of {@code count} records from {@code offset} on orders-0. */
        private List<String> valuesAt(long offset, int count) throws IOException {
            List<String> values = new ArrayList<>();
            for (Segment segment : orders.segments()) {
                for (RecordBatch batch : segment.batches()) {
                    for (Record record : batch.records()) {
                        if (record.offset() >= offset && record.offset() < offset + count) {
                            values.add(Record.show(record.value()));
                        }
                    }
                }
            }
            return values;
        }
    }

    /** The values a batch carries: one per sequence, so a duplicate written by mistake would show. */
    static List<String> payload(SeqRange batch) {
        List<String> values = new ArrayList<>();
        for (int s = batch.first(); s <= batch.last(); s++) {
            values.add("order-" + s);
        }
        return values;
    }

    static String padded(String value) {
        StringBuilder s = new StringBuilder(value);
        while (s.length() < SMALL_SEGMENT_VALUE_BYTES) {
            s.append('.');
        }
        return s.toString();
    }

    /** How the demo prints a verdict: its name and, for the two that are not APPEND, its numbers. */
    static String describe(Verdict verdict) {
        if (verdict instanceof Verdict.Duplicate d) {
            return "DUPLICATE · original offsets " + d.firstOffset() + ".." + d.lastOffset();
        }
        if (verdict instanceof Verdict.OutOfOrderSequenceNumber o) {
            return "OUT_OF_ORDER_SEQUENCE_NUMBER · expected " + o.expected() + " got " + o.got();
        }
        return verdict.label();
    }

    /** True when producer {@code pid}'s batches in the log carry the sequences 0..nextSeq-1, each once. */
    static boolean eachSequenceOnce(Log log, long pid, int nextSeq) throws IOException {
        int[] seen = new int[nextSeq];
        for (Segment segment : log.segments()) {
            for (RecordBatch batch : segment.batches()) {
                if (batch.header().producerId() != pid) {
                    continue;
                }
                for (Record record : batch.records()) {
                    long s = batch.header().baseSequence() + (record.offset() - batch.baseOffset());
                    if (s < 0 || s >= nextSeq) {
                        return false;
                    }
                    seen[(int) s]++;
                }
            }
        }
        for (int count : seen) {
            if (count != 1) {
                return false;
            }
        }
        return true;
    }
}
