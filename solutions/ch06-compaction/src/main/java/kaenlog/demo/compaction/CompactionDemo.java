package kaenlog.demo.compaction;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.compaction.Cleaner;
import kaenlog.compaction.DeleteHorizon;
import kaenlog.compaction.Retention;
import kaenlog.compaction.RetentionConfig;
import kaenlog.compaction.SegmentSwap;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.GroupOffsetsLog;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.OffsetCommitValue;
import kaenlog.groups.PartitionOffset;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.log.Segment;

/**
 * {@code klog compaction-demo}: the consumer-group offsets log committed to many times and
 * compacted (the latest commit per key survives at its original offset, a tombstone goes after
 * {@code delete.retention.ms}); what compaction keeps for chapter 7; retention by time and size
 * moving the log start offset; and a swap crashed at every step. Every claim is checked. The
 * logs live in a temporary directory that is deleted at the end and never printed.
 */
public final class CompactionDemo implements Subcommand {
    private static final long SECOND = 1_000L;
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 24 * HOUR;

    @Override
    public String name() {
        return "compaction-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS] [--rounds N] [--delete-retention-ms MS]";
    }

    @Override
    public String summary() {
        return "chapter 6: retention and compaction that never move an offset; the consumer-group offsets log";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms", "rounds", "delete-retention-ms"), Set.of()).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        int rounds = flags.intValue("rounds", 4, 1, 9);
        long deleteRetentionMs = flags.longValue("delete-retention-ms", DAY, 0, 365 * DAY);
        Claims claims = new Claims();
        try (ScratchDir root = ScratchDir.create("kaenlog-ch06-")) {
            out.println("kaen-log chapter 6: forgetting, without moving an offset");
            out.println();
            offsetsLog(root.resolve("offsets"), rounds, nowMs, deleteRetentionMs, out, claims);
            producerFields(root.resolve("prices"), nowMs, out, claims);
            retention(root.resolve("clicks"), nowMs, out, claims);
            crashes(root.resolve("crash"), nowMs, out, claims);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    // ---- 1. the consumer-group offsets log ------------------------------------------------------

    private static void offsetsLog(Path dir, int rounds, long nowMs, long deleteRetentionMs, PrintStream out,
                                   Claims claims) throws IOException {
        out.println("1. The consumer-group offsets log (Kafka's __consumer_offsets, cleanup.policy=compact)");
        out.println("  Every commit appends one batch of keyed records: key (group, topic, partition), value the offset.");
        out.println("  Group billing reads orders-0 and orders-1, group audit reads orders-0; they commit " + rounds
                + " round(s),");
        out.println("  the log rolls after each round; then audit's offset is deleted (a tombstone) and billing");
        out.println("  commits once more.");
        out.println();
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            long t = nowMs;
            for (int r = 1; r <= rounds; r++) {
                offsets.commit("billing", billing(r), t);
                offsets.commit("audit", List.of(new PartitionOffset("orders", 0, 30L * r)), t + SECOND);
                log.roll();
                t += 10 * SECOND;
            }
            offsets.deleteOffset("audit", "orders", 0, t);
            offsets.commit("billing", billing(rounds + 1), t + SECOND);
            log.roll();

            SortedMap<Long, Record> before = records(log);
            SortedMap<OffsetCommitKey, CommittedOffset> committedBefore = offsets.committedOffsets();
            long logStart = log.logStartOffset();
            long logEnd = log.logEndOffset();
            out.println("  before compaction");
            printSegments(log, out);
            printCommits(before, out);

            long firstClean = t + 60 * SECOND;
            Cleaner cleaner = new Cleaner(deleteRetentionMs);
            cleaner.clean(log, firstClean);
            SortedMap<Long, Record> after = records(log);
            out.println("  after compaction at " + firstClean + " (now + " + (firstClean - nowMs) / SECOND + " s)");
            printSegments(log, out);
            printCommits(after, out);

            claims.check(unchangedWhereKept(before, after), "no surviving record changed offset, key or value");
            claims.check(after.keySet().equals(latestOffsetPerKey(before)),
                    "compaction kept exactly the latest record of every key (the tombstone included, for now)");
            claims.check(offsets.committedOffsets().equals(committedBefore),
                    "reading the log back gives the same committed offsets, from the same log offsets");
            claims.check(log.logStartOffset() == logStart && log.logEndOffset() == logEnd,
                    "compaction moves neither the log start offset nor the log end offset");
            out.println("  the segments below offset " + tombstoneSegment(log) + " are empty files now: kaen-log"
                    + " rewrites segment by segment;");
            out.println("  Kafka would merge small neighbours into one cleaned segment (groupSegmentsBySize)");
            List<Long> seen = consumerSees(log);
            out.println("  a consumer fetching from the log start offset " + log.logStartOffset() + " reads offsets "
                    + seen + ":");
            out.println("  the gaps are the commits that were superseded");
            claims.check(seen.equals(List.copyOf(after.keySet())), "a consumer sees exactly the surviving offsets");
            out.println();

            out.println("  committed offsets read back (the same before and after):");
            for (Map.Entry<OffsetCommitKey, CommittedOffset> e : offsets.committedOffsets().entrySet()) {
                out.printf("    %-22s offset %-4d from the record at log offset %d%n", e.getKey(),
                        e.getValue().value().offset(), e.getValue().logOffset());
            }
            long tombstone = after.entrySet().stream().filter(e -> e.getValue().isTombstone())
                    .mapToLong(Map.Entry::getKey).findFirst().orElseThrow();
            BatchHeader tombstoneBatch = headerHolding(log, tombstone);
            long horizon = DeleteHorizon.of(tombstoneBatch).orElseThrow();
            out.printf("    %-22s deleted: its tombstone at log offset %d stays until its delete horizon%n",
                    OffsetCommitKey.decode(after.get(tombstone).key()), tombstone);
            out.println("  the delete horizon " + horizon + " is the first cleaning's time + delete.retention.ms "
                    + deleteRetentionMs + ",");
            out.println("  stored in the tombstone's batch: attribute bit 0x40 set, baseTimestamp "
                    + tombstoneBatch.baseTimestamp());
            claims.check(horizon == firstClean + deleteRetentionMs,
                    "the first cleaning stamps the tombstone's batch with now + delete.retention.ms");
            out.println();

            cleaner.clean(log, horizon - 1);
            boolean keptBeforeHorizon = records(log).containsKey(tombstone);
            cleaner.clean(log, horizon);
            SortedMap<Long, Record> last = records(log);
            out.println("  cleaning again at " + (horizon - 1) + ": tombstone kept: " + yes(keptBeforeHorizon)
                    + "; at " + horizon + ": tombstone kept: " + yes(last.containsKey(tombstone)));
            out.println("  offsets left " + List.copyOf(last.keySet()) + "; the audit group has no committed offset,"
                    + " and none of its old commits came back");
            claims.check(keptBeforeHorizon && !last.containsKey(tombstone),
                    "a tombstone stays until its delete horizon and goes at it");
            claims.check(unchangedWhereKept(before, last) && offsets.committedOffsets().equals(committedBefore),
                    "after the tombstone went, nothing was resurrected and no offset moved");
            out.println();
        }
    }

    private static List<PartitionOffset> billing(int round) {
        return List.of(new PartitionOffset("orders", 0, 100L * round), new PartitionOffset("orders", 1, 40L * round));
    }

    private static void printCommits(SortedMap<Long, Record> records, PrintStream out) {
        out.printf("    %6s  %-22s  %s%n", "offset", "key", "value");
        for (Map.Entry<Long, Record> e : records.entrySet()) {
            Record r = e.getValue();
            String value = r.isTombstone() ? "tombstone (offset deleted)"
                    : "offset " + OffsetCommitValue.decode(r.value()).offset();
            out.printf("    %6d  %-22s  %s%n", e.getKey(), OffsetCommitKey.decode(r.key()), value);
        }
        out.println();
    }

    // ---- 2. what compaction keeps for chapter 7 ------------------------------------------------

    private static void producerFields(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("2. What compaction keeps for chapter 7: the producer fields of every batch");
        out.println("  Idempotent producers 1000 and 2000 write, then a plain writer overwrites apple, pear and plum.");
        out.println();
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.append(new BatchBuilder().producer(1000, (short) 0, 0)
                    .append(nowMs, "apple", "1").append(nowMs, "pear", "1").build());
            log.append(new BatchBuilder().producer(1000, (short) 0, 2).append(nowMs + SECOND, "plum", "1").build());
            log.append(new BatchBuilder().producer(2000, (short) 3, 7).append(nowMs + 2 * SECOND, "fig", "1")
                    .append(nowMs + 2 * SECOND, "apple", "2").append(nowMs + 2 * SECOND, "kiwi", "1").build());
            log.append(new BatchBuilder().append(nowMs + 3 * SECOND, "pear", "2")
                    .append(nowMs + 3 * SECOND, "plum", "2").append(nowMs + 3 * SECOND, "apple", "3").build());
            log.roll();
            List<RecordBatch> before = log.segments().get(0).batches();
            Map<Long, String> stateBefore = producerState(log);
            new Cleaner(DAY).clean(log, nowMs + 60 * SECOND);
            Map<Long, RecordBatch> after = new LinkedHashMap<>();
            log.segments().get(0).batches().forEach(b -> after.put(b.baseOffset(), b));

            out.printf("  %-7s %5s %9s %5s %9s   %s%n", "batch", "count", "producer", "epoch", "sequence", "after compaction");
            for (RecordBatch b : before) {
                BatchHeader h = b.header();
                out.printf("  %-7s %5d %9d %5d %9s   %s%n", h.baseOffset() + ".." + h.lastOffset(), h.recordCount(),
                        h.producerId(), h.producerEpoch(), h.baseSequence() + ".." + h.lastSequence(),
                        afterCompaction(b, after.get(b.baseOffset())));
            }
            out.println();
            Map<Long, String> stateAfter = producerState(log);
            out.println("  producer state rebuilt from the batch headers, as chapter 7 will:");
            stateAfter.forEach((pid, state) -> out.println("    producer " + pid + ": " + state));
            claims.check(stateAfter.equals(stateBefore), "the producer state rebuilt after compaction equals the one before");
            claims.check(after.values().stream().allMatch(b -> sameProducerFields(b.header(), before)),
                    "every surviving batch keeps its base and last offset, producer id, epoch and sequences");
            RecordBatch emptied = after.get(2L);
            claims.check(!after.containsKey(0L) && emptied != null && emptied.header().recordCount() == 0
                            && emptied.header().sizeInBytes() == BatchHeader.SIZE,
                    "an emptied batch goes, unless it is its producer's last: then a 61-byte header stays");
            out.println();
        }
    }

    private static String afterCompaction(RecordBatch before, RecordBatch after) {
        if (after == null) {
            return "removed: empty, not producer " + before.header().producerId() + "'s last batch (DELETE_EMPTY)";
        }
        BatchHeader h = after.header();
        if (h.recordCount() == 0) {
            return "kept as an empty " + h.sizeInBytes() + "-byte header: producer " + h.producerId()
                    + "'s last batch (RETAIN_EMPTY)";
        }
        if (h.recordCount() == before.header().recordCount()) {
            return "unchanged";
        }
        List<Long> offsets = after.records().stream().map(Record::offset).toList();
        return "count " + h.recordCount() + ", records " + offsets + ", still " + h.baseOffset() + ".."
                + h.lastOffset() + ", sequence " + h.baseSequence() + ".." + h.lastSequence();
    }

    /** What chapter 7 rebuilds: per producer, its epoch and the last batch's sequence and offset. */
    private static Map<Long, String> producerState(Log log) throws IOException {
        Map<Long, String> state = new TreeMap<>();
        for (Segment segment : log.segments()) {
            for (BatchHeader h : segment.headers()) {
                if (h.hasProducerId()) {
                    state.put(h.producerId(), "epoch " + h.producerEpoch() + ", last sequence " + h.lastSequence()
                            + " at offset " + h.lastOffset());
                }
            }
        }
        return state;
    }

    private static boolean sameProducerFields(BatchHeader after, List<RecordBatch> before) {
        return before.stream().map(RecordBatch::header).anyMatch(h -> h.baseOffset() == after.baseOffset()
                && h.lastOffset() == after.lastOffset() && h.producerId() == after.producerId()
                && h.producerEpoch() == after.producerEpoch() && h.baseSequence() == after.baseSequence());
    }

    // ---- 3. retention ----------------------------------------------------------------------------

    private static void retention(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("3. Retention (cleanup.policy=delete) forgets whole segments, oldest first, never the active one");
        out.println();
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            for (int age = 5; age >= 0; age--) {
                long newest = nowMs - age * HOUR;
                log.append(new BatchBuilder().append(newest - 60 * SECOND, "user-" + age, "click")
                        .append(newest, "user-" + age, "click").build());
                if (age > 0) {
                    log.roll();
                }
            }
            printAges(log, nowMs, out);

            RetentionConfig threeHours = RetentionConfig.byTime(3 * HOUR);
            Retention.Result byTime = Retention.apply(log, threeHours, nowMs);
            out.println("  retention.ms " + threeHours.retentionMs() + " (3 h) at now:");
            printDeleted(byTime, out);
            out.println("  the segment whose newest record is exactly 3 h old stays: expired means older than"
                    + " retention.ms");
            claims.check(bases(byTime).equals(List.of(0L, 2L)) && log.logStartOffset() == 4,
                    "retention.ms deleted the two segments older than 3 h and moved the log start offset to 4");
            fetch(log, 0, out, claims);
            fetch(log, 4, out, claims);
            out.println();

            long segmentSize = log.segments().get(0).size();
            long sizeBefore = Retention.sizeInBytes(log);
            long limit = sizeBefore - segmentSize - segmentSize / 2;
            Retention.Result bySize = Retention.apply(log, RetentionConfig.bySize(limit), nowMs);
            out.println("  retention.bytes " + limit + " (the log holds " + sizeBefore + " bytes in segments of "
                    + segmentSize + "):");
            printDeleted(bySize, out);
            out.println("  the log now holds " + Retention.sizeInBytes(log) + " bytes: deleting one more segment would"
                    + " take it below " + limit);
            claims.check(bases(bySize).equals(List.of(4L)) && Retention.sizeInBytes(log) >= limit,
                    "retention.bytes deletes the oldest segments only while the log stays at or above the limit");

            Retention.Result tiny = Retention.apply(log, RetentionConfig.bySize(1), nowMs);
            out.println("  retention.bytes 1:");
            printDeleted(tiny, out);
            out.println("  the active segment " + Segment.fileName(log.activeSegment().baseOffset(), "")
                    + " stays although the log (" + Retention.sizeInBytes(log) + " bytes) is above the limit");
            claims.check(log.segments().size() == 1 && log.logStartOffset() == log.activeSegment().baseOffset(),
                    "retention never deletes the active segment");
            out.println();
        }
    }

    private static void printAges(Log log, long nowMs, PrintStream out) {
        out.printf("  %-20s  %-7s  %-13s  %s%n", "segment", "offsets", "newest record", "bytes");
        for (Segment s : log.segments()) {
            long hours = (nowMs - s.maxTimestamp()) / HOUR;
            String age = hours == 0 ? "now" : hours + " h ago";
            out.printf("  %-20s  %-7s  %-13s  %d%s%n", Segment.fileName(s.baseOffset(), ""),
                    s.baseOffset() + ".." + (s.nextOffset() - 1), age, s.size(),
                    s == log.activeSegment() ? "  (active)" : "");
        }
        out.println("  log start offset " + log.logStartOffset() + ", log end offset " + log.logEndOffset());
        out.println();
    }

    private static void printDeleted(Retention.Result result, PrintStream out) {
        for (Retention.Deletion d : result.deleted()) {
            out.println("    deleted " + Segment.fileName(d.baseOffset(), "") + " (offsets " + d.baseOffset() + ".."
                    + (d.nextOffset() - 1) + ", " + d.sizeInBytes() + " bytes) by " + d.reason());
        }
        out.println("    log start offset " + result.logStartOffsetBefore() + " -> " + result.logStartOffsetAfter());
    }

    private static List<Long> bases(Retention.Result result) {
        return result.deleted().stream().map(Retention.Deletion::baseOffset).toList();
    }

    private static void fetch(Log log, long offset, PrintStream out, Claims claims) throws IOException {
        try {
            List<Long> offsets = offsetsOf(log.read(offset, Integer.MAX_VALUE, FetchIsolation.HIGH_WATERMARK));
            out.println("  fetch at " + offset + ": records " + offsets);
            claims.check(offset >= log.logStartOffset() && offsets.get(0) == offset,
                    "a fetch at the log start offset reads from there");
        } catch (OffsetOutOfRangeException e) {
            out.println("  fetch at " + offset + ": refused, " + e.getMessage());
            claims.check(offset < log.logStartOffset(), "a fetch below the log start offset is an out-of-range error");
        }
    }

    // ---- 4. crash safety --------------------------------------------------------------------------

    /** Thrown by the demo's swap hook: the process "dies" at that step. */
    private static final class SimulatedCrash extends IOException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(SegmentSwap.Step step) {
            super("crashed after " + step);
        }
    }

    private static void crashes(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("4. A crash at every step of the swap leaves the old segment or the new one, whole");
        out.println("  segment 0 holds billing's commits at offsets 0, 1, 2; compaction keeps offset 2.");
        out.println();
        Path reference = dir.resolve("reference");
        byte[] oldBytes = crashableLog(reference, nowMs);
        try (Log log = Log.open(reference, LogConfig.defaults())) {
            new Cleaner(DAY).clean(log, nowMs + 60 * SECOND);
        }
        byte[] newBytes = Files.readAllBytes(reference.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)));
        out.printf("  %-24s %-36s %s%n", "crash after", "files of segment 0 left behind", "Log.open finds");
        for (SegmentSwap.Step step : SegmentSwap.Step.values()) {
            Path run = dir.resolve(step.name().toLowerCase(Locale.ROOT));
            crashableLog(run, nowMs);
            Log log = Log.open(run, LogConfig.defaults());
            try {
                new Cleaner(DAY, reached -> {
                    if (reached == step) {
                        throw new SimulatedCrash(step);
                    }
                }).clean(log, nowMs + 60 * SECOND);
            } catch (SimulatedCrash expected) {
                // the process died here; what is on disk is all that is left
            } finally {
                log.close();
            }
            String leftBehind = filesOfSegmentZero(run);
            try (Log reopened = Log.open(run, LogConfig.defaults())) {
                byte[] bytes = Files.readAllBytes(run.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)));
                boolean isOld = Arrays.equals(bytes, oldBytes);
                boolean isNew = Arrays.equals(bytes, newBytes);
                String found = (isOld ? "the old segment: offsets " : isNew ? "the new segment: offsets " : "a MIX: ")
                        + List.copyOf(records(reopened).keySet());
                out.printf("  %-24s %-36s %s%n", step, leftBehind, found);
                claims.check(isOld != isNew, "a crash after " + step + " leaves exactly the old or the new segment");
                claims.check(filesOfSegmentZero(run).equals(".index .log .timeindex"),
                        "after a crash after " + step + ", Log.open leaves no .cleaned or .swap file");
            }
        }
        out.println("  before the rename to .swap the old segment survives; from the rename on, the new one does");
        out.println();
    }

    /** A log whose segment 0 holds three commits of one key, closed; returns the segment's bytes. */
    private static byte[] crashableLog(Path dir, long nowMs) throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            GroupOffsetsLog offsets = new GroupOffsetsLog(log);
            for (int i = 1; i <= 3; i++) {
                offsets.commit("billing", List.of(new PartitionOffset("orders", 0, 100L * i)), nowMs + i * SECOND);
            }
            log.roll();
            log.flush();
        }
        return Files.readAllBytes(dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)));
    }

    private static String filesOfSegmentZero(Path dir) throws IOException {
        String prefix = Segment.fileName(0, "");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix))
                    .map(n -> n.substring(prefix.length())).sorted().collect(Collectors.joining(" "));
        }
    }

    // ---- shared -----------------------------------------------------------------------------------

    private static void printSegments(Log log, PrintStream out) throws IOException {
        out.printf("    %-20s  %7s  %7s  %5s  %s%n", "segment", "batches", "records", "bytes", "record offsets");
        for (Segment s : log.segments()) {
            List<RecordBatch> batches = s.batches();
            List<Long> offsets = batches.stream().flatMap(b -> b.records().stream()).map(Record::offset).toList();
            out.printf("    %-20s  %7d  %7d  %5d  %s%s%n", Segment.fileName(s.baseOffset(), ""), batches.size(),
                    offsets.size(), s.size(), offsets, s == log.activeSegment() ? "  (active)" : "");
        }
        out.println();
    }

    /** Every record still in the log, by offset. */
    public static SortedMap<Long, Record> records(Log log) throws IOException {
        SortedMap<Long, Record> records = new TreeMap<>();
        for (Segment segment : log.segments()) {
            for (RecordBatch batch : segment.batches()) {
                batch.records().forEach(r -> records.put(r.offset(), r));
            }
        }
        return records;
    }

    /** True when every record of {@code after} is, at the same offset, the record {@code before} had. */
    static boolean unchangedWhereKept(SortedMap<Long, Record> before, SortedMap<Long, Record> after) {
        return after.entrySet().stream().allMatch(e -> e.getValue().equals(before.get(e.getKey())));
    }

    /** The offset of every key's last record (a tombstone counts). */
    static Set<Long> latestOffsetPerKey(SortedMap<Long, Record> records) {
        Map<ByteBuffer, Long> latest = new LinkedHashMap<>();
        records.forEach((offset, r) -> latest.put(ByteBuffer.wrap(r.key()), offset));
        return new TreeSet<>(latest.values());
    }

    private static List<Long> consumerSees(Log log) throws IOException {
        return offsetsOf(log.read(log.logStartOffset(), Integer.MAX_VALUE, FetchIsolation.HIGH_WATERMARK));
    }

    private static List<Long> offsetsOf(ByteBuffer batches) {
        List<Long> offsets = new ArrayList<>();
        for (RecordBatch b : RecordBatch.decodeAll(batches)) {
            b.records().forEach(r -> offsets.add(r.offset()));
        }
        return offsets;
    }

    private static long tombstoneSegment(Log log) throws IOException {
        for (Segment segment : log.segments()) {
            if (segment.batches().stream().flatMap(b -> b.records().stream()).anyMatch(Record::isTombstone)) {
                return segment.baseOffset();
            }
        }
        throw new IllegalStateException("no segment holds a tombstone");
    }

    private static BatchHeader headerHolding(Log log, long offset) throws IOException {
        for (Segment segment : log.segments()) {
            for (BatchHeader h : segment.headers()) {
                if (h.baseOffset() <= offset && offset <= h.lastOffset()) {
                    return h;
                }
            }
        }
        throw new IllegalStateException("no batch holds offset " + offset);
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }
}
