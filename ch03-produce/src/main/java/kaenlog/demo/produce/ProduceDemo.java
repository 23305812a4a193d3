package kaenlog.demo.produce;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Partition;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetIndex;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * {@code klog produce-demo}: chapter 3 in one run, in process (no ports): segments rolling under a
 * sparse index, acks changing only when a producer is answered, fetches parked until data or
 * their deadline, consumers stopping at the high watermark while followers read to the log end,
 * and a torn tail cut off at the next open. It works in a temporary directory that it deletes, and
 * every claim it prints is checked.
 */
public final class ProduceDemo implements Subcommand {
    private static final int INDEX_INTERVAL_BYTES = 100;
    private static final int MAX_BYTES = 1 << 20;

    @Override
    public String name() {
        return "produce-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS] [--records N (1..99, default 15)] [--segment-bytes N (100..1048576, default 512)]";
    }

    @Override
    public String summary() {
        return "chapter 3: segments and the sparse index, acks, parked fetches, HW vs LEO, a torn tail";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms", "records", "segment-bytes"), Set.of()).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        int records = flags.intValue("records", 15, 1, 99);
        int segmentBytes = flags.intValue("segment-bytes", 512, 100, 1 << 20);
        Claims claims = new Claims();
        try (ScratchDir tmp = ScratchDir.create("klog-produce-demo-")) {
            out.println("kaen-log chapter 3: storage, the produce path and the fetch path");
            out.println();
            rollingSegments(tmp.resolve("rolling-0"), records, segmentBytes, nowMs, out, claims);
            acks(tmp.resolve("acks-0"), nowMs, out, claims);
            parkedFetches(tmp.resolve("parked-0"), nowMs, out, claims);
            highWatermark(tmp.resolve("hw-0"), nowMs, out, claims);
            tornTail(tmp.resolve("torn-0"), nowMs, out, claims);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    // ---- 1. segments and the sparse index -------------------------------------------------------

    private static void rollingSegments(Path dir, int records, int segmentBytes, long nowMs, PrintStream out,
                                        Claims claims) throws IOException {
        LogConfig config = new LogConfig(segmentBytes, INDEX_INTERVAL_BYTES);
        int batchBytes;
        List<Segment> segments;
        long leo;
        try (Partition p = Partition.open("rolling-0", dir, config)) {
            for (int i = 0; i < records; i++) {
                produce(p, batch(nowMs, String.format("record %02d", i)), ProduceRequest.ACKS_LEADER, nowMs);
            }
            batchBytes = batch(nowMs, "record 00").remaining();
            segments = p.locked(log -> log.segments());
            leo = p.locked(log -> log.logEndOffset());
            out.println("1. Segments roll at segment.bytes " + segmentBytes + "; the offset index is sparse"
                    + " (index.interval.bytes " + INDEX_INTERVAL_BYTES + ")");
            out.println("  " + records + " batches of one record (" + batchBytes + " bytes each) appended to a new log");
            out.println();
            out.printf("  %-24s  %4s  %4s  %5s  %s%n", "segment file", "base", "next", "bytes",
                    "index entries (last offset -> byte)");
            int entries = 0;
            for (int i = 0; i < segments.size(); i++) {
                Segment s = segments.get(i);
                String name = s.logFile().getFileName().toString();
                entries += s.indexEntries().size();
                out.printf("  %-24s  %4d  %4d  %5d  %s%s%n", name, s.baseOffset(), s.nextOffset(), s.size(),
                        describe(s.indexEntries()), i == segments.size() - 1 ? "   (active)" : "");
                claims.check(Segment.parseBaseOffset(name, Segment.LOG_SUFFIX).orElse(-1) == s.baseOffset(),
                        "a segment file is named by its base offset, 20 digits");
                claims.check(s.size() <= segmentBytes, "no segment grows past segment.bytes");
                if (i > 0) {
                    claims.check(segments.get(i - 1).nextOffset() == s.baseOffset(),
                            "each segment starts where the previous one ends");
                }
            }
            int perSegment = segmentBytes / batchBytes;
            claims.check(segments.size() == (records + perSegment - 1) / perSegment,
                    "a new segment starts when the next batch would not fit");
            claims.check(leo == records, "the log end offset is the offset the next record gets");
            claims.check(entries < records, "the index is sparse: fewer entries than batches");
            out.println();
            out.println("  log end offset " + leo + ": the offset the next record will get (an empty log's is 0)");
            out.println("  " + entries + " index entries for " + records + " batches: one only after more than "
                    + INDEX_INTERVAL_BYTES + " bytes since the previous one");
            lookup(segments, Math.max(0, records * 2 / 3 - 1), out, claims);
        }
        out.println();
    }

    /** Finds an offset the way a read does: segment by base offset, nearest index entry, then a header scan. */
    private static void lookup(List<Segment> segments, long target, PrintStream out, Claims claims) throws IOException {
        Segment segment = segments.stream().filter(s -> s.baseOffset() <= target).reduce((a, b) -> b).orElseThrow();
        OffsetIndex.Entry nearest = new OffsetIndex.Entry(segment.baseOffset(), 0);
        for (OffsetIndex.Entry e : segment.indexEntries()) {
            if (e.offset() <= target) {
                nearest = e;
            }
        }
        int found = segment.positionOf(target);
        int scanned = 0;
        for (long at = nearest.position(); at <= found; at += segment.headerAt(at).sizeInBytes()) {
            scanned++;
        }
        BatchHeader header = segment.headerAt(found);
        out.println("  where is offset " + target + "? in " + segment.logFile().getFileName()
                + " (the largest base offset <= " + target + ");");
        out.println("    start at " + (nearest.position() == 0 && segment.indexEntries().stream()
                .noneMatch(e -> e.offset() <= target) ? "byte 0 (no index entry at or before it)"
                : "index entry " + nearest.offset() + " -> byte " + nearest.position())
                + ", read " + scanned + " batch header(s): offset " + target + " is in the batch at byte " + found);
        claims.check(header.baseOffset() <= target && target <= header.lastOffset(),
                "index lookup plus a short scan finds the batch holding the offset");
    }

    private static String describe(List<OffsetIndex.Entry> entries) {
        if (entries.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        entries.forEach(e -> parts.add(e.offset() + " -> " + e.position()));
        return String.join(", ", parts);
    }

    // ---- 2. acks ----------------------------------------------------------------------------------

    private static void acks(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("2. acks decide when the producer is answered, never what is written");
        out.println("  the same 3-record batch produced with acks 0, 1 and all; the replica gate says \"not yet\"");
        out.println("  until a follower has fetched past the batch");
        out.println();
        long[] followerHas = {0};
        try (Partition p = Partition.open("acks-0", dir, LogConfig.defaults())) {
            p.setReplicaGate(required -> followerHas[0] >= required);
            ByteBuffer batch = new BatchBuilder().append(nowMs, "k", "a").append(nowMs, "k", "b")
                    .append(nowMs, "k", "c").build();
            CompletableFuture<ProduceResponse> none = produce(p, batch, ProduceRequest.ACKS_NONE, nowMs);
            CompletableFuture<ProduceResponse> leader = produce(p, batch, ProduceRequest.ACKS_LEADER, nowMs);
            CompletableFuture<ProduceResponse> all = produce(p, batch, ProduceRequest.ACKS_ALL, nowMs);
            long allLast = p.locked(log -> log.logEndOffset()) - 1;
            out.printf("  %-4s  %-8s  %-11s  %s%n", "acks", "offsets", "answer due", "answered");
            out.printf("  %-4s  %-8s  %-11s  %s%n", "0", range(none.join()), due(none),
                    "never: the broker sends nothing back, the producer learns no offset");
            out.printf("  %-4s  %-8s  %-11s  %s%n", "1", range(leader.join()), due(leader),
                    "at once, after the leader's append");
            out.printf("  %-4s  %-8s  %-11s  %s%n", "all", (allLast - 2) + ".." + allLast, due(all), "later: waits for the replicas");
            claims.check(none.isDone() && leader.isDone() && !all.isDone(),
                    "acks 0 and 1 are due at once, acks=all waits for the replica gate");

            followerHas[0] = 9;
            p.fetch(new FetchRequest(2, "acks-0", 9, MAX_BYTES, 0), nowMs);
            ProduceResponse answered = all.getNow(null);
            out.println();
            out.println("  a follower fetches from offset 9, so it holds 0..8: the replica gate opens");
            out.println("    the acks=all produce is answered" + (answered == null ? ": not yet"
                    : " with offsets " + range(answered) + ", error " + answered.error()));
            claims.check(answered != null && answered.error() == ErrorCode.NONE && answered.baseOffset() == 6
                    && answered.lastOffset() == 8, "the follower's fetch releases the acks=all answer with offsets 6..8");

            List<ByteBuffer> written =
                    RecordBatch.sliceAll(p.locked(log -> log.read(0, MAX_BYTES, FetchIsolation.LOG_END)));
            List<String> crcs = written.stream().map(b -> String.format("0x%08x", BatchCrc.stored(b))).toList();
            boolean sameBytes = written.size() == 3 && written.stream()
                    .allMatch(b -> b.slice(8, b.remaining() - 8).equals(written.get(0).slice(8, b.remaining() - 8)));
            out.println("  on disk the three batches differ only in baseOffset (bytes 0..7)");
            out.println("    bytes 8 to the end identical: " + yes(sameBytes) + "; CRCs " + String.join(" ", crcs));
            claims.check(sameBytes, "acks never changes what is written: the batches differ only in baseOffset");

            CompletableFuture<ProduceResponse> late = p.produce(new ProduceRequest("acks-0", ProduceRequest.ACKS_ALL,
                    1000, batch.duplicate()), nowMs);
            out.println();
            out.println("  acks=all with timeoutMs 1000 at now: offsets 9..11 appended, answer pending");
            p.tick(nowMs + 999);
            out.println("    now+999 ms:  answered: " + yes(late.isDone()));
            boolean pendingAt999 = !late.isDone();
            p.tick(nowMs + 1000);
            ProduceResponse timedOut = late.getNow(null);
            long leo = p.locked(log -> log.logEndOffset());
            out.println("    now+1000 ms: answered " + (timedOut == null ? "-" : timedOut.error())
                    + ", yet offsets 9..11 stay in the log (log end offset " + leo + ")");
            out.println("  a timeout means \"not known to be replicated\", not \"not written\": a producer that retries");
            out.println("  writes the batch twice (chapter 7's idempotent producer is the fix)");
            claims.check(pendingAt999 && timedOut != null && timedOut.error() == ErrorCode.REQUEST_TIMED_OUT && leo == 12,
                    "an acks=all produce times out at its deadline and its records stay written");
        }
        out.println();
    }

    // ---- 3. parked fetches ------------------------------------------------------------------------

    private static void parkedFetches(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("3. A fetch with nothing to return is parked until data arrives or its max wait is over");
        try (Partition p = Partition.open("parked-0", dir, LogConfig.defaults())) {
            produce(p, new BatchBuilder().append(nowMs, "k", "x").append(nowMs, "k", "y").build(),
                    ProduceRequest.ACKS_LEADER, nowMs);
            out.println("  the log holds offsets 0..1; a consumer fetches from offset 2, max wait 500 ms, at now");
            CompletableFuture<FetchResponse> first = p.fetch(FetchRequest.consumer("parked-0", 2, MAX_BYTES, 500), nowMs);
            out.println("    parked: " + yes(!first.isDone()) + " (" + p.parkedFetchCount() + " parked fetch)");
            claims.check(!first.isDone() && p.parkedFetchCount() == 1, "a fetch at the log end is parked, not answered");

            produce(p, new BatchBuilder().append(nowMs + 100, "k", "z").append(nowMs + 100, "k", "w").build(),
                    ProduceRequest.ACKS_LEADER, nowMs + 100);
            FetchResponse woken = first.getNow(null);
            out.println("  now+100 ms: a producer appends offsets 2..3; the parked fetch is answered at once with "
                    + (woken == null ? "-" : offsets(woken)));
            claims.check(woken != null && offsets(woken).equals("offsets 2..3"),
                    "an append answers the parked fetch at once, with the new records");

            CompletableFuture<FetchResponse> second = p.fetch(FetchRequest.consumer("parked-0", 4, MAX_BYTES, 500),
                    nowMs + 100);
            out.println("  the consumer fetches from offset 4, max wait 500 ms, at now+100 ms: parked: "
                    + yes(!second.isDone()));
            p.tick(nowMs + 599);
            out.println("    now+599 ms: still parked: " + yes(!second.isDone()));
            boolean parkedAt599 = !second.isDone();
            p.tick(nowMs + 600);
            FetchResponse expired = second.getNow(null);
            out.println("    now+600 ms: answered at its deadline with " + (expired == null ? "-" : offsets(expired))
                    + ", error " + (expired == null ? "-" : expired.error()) + ", high watermark "
                    + (expired == null ? "-" : expired.highWatermark()));
            claims.check(parkedAt599 && expired != null && expired.error() == ErrorCode.NONE
                    && !expired.records().hasRemaining(), "a parked fetch expires empty exactly at its deadline");

            FetchResponse outOfRange = p.fetch(FetchRequest.consumer("parked-0", 9, MAX_BYTES, 500), nowMs + 600)
                    .getNow(null);
            out.println("  a fetch from offset 9, past the log end offset 4: "
                    + (outOfRange == null ? "parked" : outOfRange.error() + " at once") + ", an error, not a wait");
            claims.check(outOfRange != null && outOfRange.error() == ErrorCode.OFFSET_OUT_OF_RANGE,
                    "an offset past the log end is an error answered at once");
        }
        out.println();
    }

    // ---- 4. high watermark vs log end -------------------------------------------------------------

    private static void highWatermark(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("4. A consumer reads up to the high watermark, a follower up to the log end");
        try (Partition p = Partition.open("hw-0", dir, LogConfig.defaults())) {
            p.locked(log -> {
                log.stopEagerHighWatermark();
                return null;
            });
            for (int i = 0; i < 3; i++) {
                produce(p, new BatchBuilder().append(nowMs, "k", "v" + (2 * i)).append(nowMs, "k", "v" + (2 * i + 1))
                        .build(), ProduceRequest.ACKS_LEADER, nowMs);
            }
            p.updateHighWatermark(4);
            long leo = p.locked(log -> log.logEndOffset());
            out.println("  eager high watermark off (chapter 8 moves it by replication); 3 batches of 2 records:"
                    + " log end offset " + leo);
            out.println("  the high watermark set to 4: the followers are known to hold offsets 0..3");
            out.println();
            FetchResponse consumer = p.fetch(FetchRequest.consumer("hw-0", 0, MAX_BYTES, 0), nowMs).join();
            FetchResponse follower = p.fetch(new FetchRequest(2, "hw-0", 0, MAX_BYTES, 0), nowMs).join();
            out.printf("  %-18s  %9s  %-18s  %s%n", "who", "replicaId", "reads up to", "gets");
            out.printf("  %-18s  %9d  %-18s  %s%n", "consumer", -1, "high watermark " + consumer.highWatermark(),
                    offsets(consumer));
            out.printf("  %-18s  %9d  %-18s  %s%n", "follower (broker 2)", 2, "log end offset " + leo,
                    offsets(follower));
            claims.check(offsets(consumer).equals("offsets 0..3") && consumer.highWatermark() == 4,
                    "a consumer never sees records at or past the high watermark");
            claims.check(offsets(follower).equals("offsets 0..5"), "a follower reads everything up to the log end");

            CompletableFuture<FetchResponse> waiting = p.fetch(FetchRequest.consumer("hw-0", 4, MAX_BYTES, 500), nowMs);
            out.println();
            out.println("  a consumer fetches from offset 4, max wait 500 ms: parked: " + yes(!waiting.isDone())
                    + " (offsets 4..5 exist but are not committed)");
            boolean parked = !waiting.isDone();
            p.updateHighWatermark(6);
            FetchResponse released = waiting.getNow(null);
            out.println("  the high watermark moves to 6: the parked fetch is answered with "
                    + (released == null ? "-" : offsets(released)));
            claims.check(parked && released != null && offsets(released).equals("offsets 4..5"),
                    "moving the high watermark answers a consumer parked below the log end");
        }
        out.println();
    }

    // ---- 5. a torn tail ---------------------------------------------------------------------------

    private static void tornTail(Path dir, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("5. A crash in the middle of a write: the torn tail is cut off when the log is opened again");
        Path file = dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX));
        List<ByteBuffer> before;
        try (Partition p = Partition.open("torn-0", dir, LogConfig.defaults())) {
            for (int i = 0; i < 3; i++) {
                produce(p, new BatchBuilder().append(nowMs, "k", "t" + (2 * i)).append(nowMs, "k", "t" + (2 * i + 1))
                        .build(), ProduceRequest.ACKS_LEADER, nowMs);
            }
            before = RecordBatch.sliceAll(p.locked(log -> log.read(0, MAX_BYTES, FetchIsolation.LOG_END)));
        }
        long size = Files.size(file);
        int last = before.get(2).remaining();
        long lastStart = size - last;
        long kept = lastStart + last / 2;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(kept);
        }
        // A crash leaves no clean-shutdown marker; this one came before any flush, so no recovery point either.
        Files.delete(dir.resolve(Log.CLEAN_SHUTDOWN_FILE));
        Files.delete(dir.resolve(Log.RECOVERY_POINT_FILE));
        out.println("  3 batches of 2 records written: " + file.getFileName() + " is " + size + " bytes, log end offset 6");
        out.println("  a crash before any flush (no clean-shutdown marker, no recovery point), the last batch cut in half:");
        out.println("    " + (last / 2) + " of its " + last + " bytes kept, the file is " + kept + " bytes");
        List<String> brokerLog = new ArrayList<>();
        try (Partition p = Partition.open("torn-0", dir, LogConfig.defaults(), brokerLog::add)) {
            long recovered = Files.size(file);
            long leo = p.locked(log -> log.logEndOffset());
            List<ByteBuffer> after =
                    RecordBatch.sliceAll(p.locked(log -> log.read(0, MAX_BYTES, FetchIsolation.LOG_END)));
            boolean intact = after.size() == 2 && after.get(0).equals(before.get(0)) && after.get(1).equals(before.get(1))
                    && after.stream().allMatch(BatchCrc::isValid);
            out.println("  reopened: recovery checks every batch from the recovery point on and truncates at the torn one;");
            out.println("  the broker's log says what it cut:");
            brokerLog.forEach(line -> out.println("    " + line));
            claims.check(brokerLog.stream().anyMatch(line -> line.contains("recovery cut " + file.getFileName())),
                    "recovery after a crash says in the broker's log what it cut");
            out.println("    " + (kept - recovered) + " bytes cut, the file is " + recovered + " bytes, log end offset 6 -> "
                    + leo);
            out.println("    batches 0..1 and 2..3 intact (same bytes, CRC valid): " + yes(intact));
            claims.check(recovered == lastStart && leo == 4, "recovery cuts exactly the torn batch and moves the LEO back");
            claims.check(intact, "every complete batch before the torn one survives recovery");
            ProduceResponse again = produce(p, new BatchBuilder().append(nowMs, "k", "t4").append(nowMs, "k", "t5")
                    .build(), ProduceRequest.ACKS_LEADER, nowMs).join();
            out.println("  an append after recovery gets " + range(again) + ": the lost batch's offsets are given again"
                    + " (its producer was never answered)");
            claims.check(again.error() == ErrorCode.NONE && again.baseOffset() == 4 && again.lastOffset() == 5,
                    "after recovery the log appends at the recovered log end offset");
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static ByteBuffer batch(long nowMs, String value) {
        return new BatchBuilder().append(nowMs, null, value.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static CompletableFuture<ProduceResponse> produce(Partition p, ByteBuffer batch, short acks, long nowMs)
            throws IOException {
        return p.produce(new ProduceRequest(p.name(), acks, 30_000, batch.duplicate()), nowMs);
    }

    private static String offsets(FetchResponse response) {
        List<Record> records = new ArrayList<>();
        RecordBatch.decodeAll(response.records().duplicate()).forEach(b -> records.addAll(b.records()));
        if (records.isEmpty()) {
            return "no records";
        }
        return "offsets " + records.get(0).offset() + ".." + records.get(records.size() - 1).offset();
    }

    private static String range(ProduceResponse response) {
        return response.baseOffset() + ".." + response.lastOffset();
    }

    private static String due(CompletableFuture<?> answer) {
        return answer.isDone() ? "at once" : "not yet";
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }
}
