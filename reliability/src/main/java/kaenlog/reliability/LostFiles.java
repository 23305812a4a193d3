package kaenlog.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Files deleted between a clean stop and a start (issue #23, finding 8): a real broker ({@code klog
 * serve} in its own JVM) acknowledges 300 records in segments of 70, is stopped cleanly, and one of
 * its files is taken away: the active {@code .log} (its {@code .index} kept), a middle segment, every
 * {@code .log}, or the whole partition directory, replaced by a file. Started again, the partition
 * must go offline with one line naming the missing offsets (or, for the directory, the start must
 * say that a partition-like entry is not a partition), refuse writes, and never hand an acknowledged
 * offset out again; started with {@code --accept-data-loss} it must serve what is left and go on past
 * the lost offsets.
 */
public final class LostFiles {
    static final String PARTITION = "lost-0";
    static final String OTHER = "other-0";
    private static final int BATCHES = 30;
    private static final int RECORDS_PER_BATCH = 10;
    /** Seven batches a segment: segments of 70 offsets, the active one [280, 300), as in the finding. */
    private static final int SEGMENT_BYTES = 7 * batch(0, new ArrayList<>()).remaining();
    private static final int READ_TIMEOUT_MS = 20_000;

    /** One kind of damage, a row of the report. */
    public enum Damage {
        ACTIVE_LOG_DELETED("active .log deleted, its .index kept"),
        MIDDLE_SEGMENT_DELETED("a middle segment deleted (.log, .index, .timeindex)"),
        EVERY_LOG_DELETED("every .log deleted"),
        FIRST_SEGMENT_DELETED("the first segment deleted (log start beyond disk)"),
        DIR_REPLACED_BY_FILE("partition directory replaced by a file");

        final String label;

        Damage(String label) {
            this.label = label;
        }

        /** The offsets [from, to) this damage takes from segments starting at {@code bases}, the log ending at {@code end}. */
        long[] lost(List<Long> bases, long end) {
            return switch (this) {
                case ACTIVE_LOG_DELETED -> new long[] {bases.get(bases.size() - 1), end};
                case MIDDLE_SEGMENT_DELETED -> new long[] {bases.get(1), bases.get(2)};
                case FIRST_SEGMENT_DELETED -> new long[] {0, bases.get(1)};
                case EVERY_LOG_DELETED, DIR_REPLACED_BY_FILE -> new long[] {0, end};
            };
        }
    }

    /**
     * What one damage did.
     *
     * @param acked            records acknowledged before the stop
     * @param readableOffline  acknowledged records read back at their offsets after a plain restart
     * @param readableAccepted the same after a restart with --accept-data-loss (-1: does not apply)
     * @param handedOutTwice   acknowledged offsets a produce after a restart was given again
     * @param line             the broker's one line about it (its data directory path left out)
     */
    public record Outcome(Damage damage, long acked, long readableOffline, long readableAccepted, long handedOutTwice,
                          String line, List<String> notes, List<String> problems) {
        public Outcome {
            notes = List.copyOf(notes);
            problems = List.copyOf(problems);
        }

        boolean ok() {
            return acked > 0 && handedOutTwice == 0 && problems.isEmpty();
        }
    }

    /** All the rows. */
    public record Result(List<Outcome> outcomes) implements TableFigures {
        public Result {
            outcomes = List.copyOf(outcomes);
        }

        public List<String> table() {
            List<String> lines = new ArrayList<>();
            String header = String.format("%-52s %6s %9s %9s %6s  %s", "files lost after a clean stop (finding 8)",
                    "acked", "readable", "accepted", "twice", "verdict");
            lines.add(header);
            lines.add("-".repeat(header.length() + 4));
            for (Outcome o : outcomes) {
                lines.add(String.format("%-52s %,6d %,9d %9s %,6d  %s", o.damage().label, o.acked(), o.readableOffline(),
                        o.readableAccepted() < 0 ? "-" : String.format("%,d", o.readableAccepted()), o.handedOutTwice(),
                        o.ok() ? "ok" : "FAILED"));
                lines.add("    logged: " + o.line());
            }
            lines.add("(readable: acknowledged records read back at their offsets after a plain restart, the partition"
                    + " offline; accepted: the same after klog serve --accept-data-loss " + PARTITION + "; twice:"
                    + " acknowledged offsets a produce after either restart was given again)");
            return lines;
        }

        @Override
        public String title() {
            return "files lost after a clean stop";
        }

        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (Outcome o : outcomes) {
                lines.add(o.damage() + ": " + String.join("; ", o.notes()) + (o.problems().isEmpty() ? ""
                        : "; PROBLEMS: " + o.problems()));
            }
            return lines;
        }

        public boolean ok() {
            return outcomes.stream().allMatch(Outcome::ok);
        }
    }

    /** One acknowledged record: its offset and value. */
    private record Acked(long offset, String value) {
    }

    private LostFiles() {
    }

    public static Result run(Path root, BrokerProcess.Options options) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        for (Damage damage : Damage.values()) {
            outcomes.add(run(Files.createDirectories(root.resolve(damage.name().toLowerCase())), options, damage));
        }
        return new Result(outcomes);
    }

    static Outcome run(Path dir, BrokerProcess.Options options, Damage damage) throws IOException {
        BrokerProcess.Options opts = options.withSegmentBytes(SEGMENT_BYTES);
        List<String> notes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<Acked> acked = new ArrayList<>();
        try (BrokerProcess broker = BrokerProcess.start(dir, opts);
             BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
            for (int b = 0; b < BATCHES; b++) {
                List<String> values = new ArrayList<>();
                ProduceResponse r = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch(b, values));
                if (r.error() != ErrorCode.NONE) {
                    problems.add("setup: batch " + b + " was answered " + r.error());
                    break;
                }
                for (int i = 0; i < values.size(); i++) {
                    acked.add(new Acked(r.baseOffset() + i, values.get(i)));
                }
            }
            client.produce(OTHER, ProduceRequest.ACKS_ALL, batch(-1, new ArrayList<>()));
        }
        Path partition = dir.resolve(PARTITION);
        List<Long> bases = bases(partition);
        notes.add("segments before the damage: " + bases);
        long[] lost = damage.lost(bases, acked.size());
        String range = lost[0] + ".." + (lost[1] - 1);
        damage(partition, damage);
        long lastAcked = acked.isEmpty() ? -1 : acked.get(acked.size() - 1).offset();

        long twice = 0;
        String line;
        long readableOffline;
        try (BrokerProcess broker = BrokerProcess.start(dir, opts)) {
            String expected = damage == Damage.DIR_REPLACED_BY_FILE ? "not partitions" : PARTITION + " is offline";
            broker.awaitLog(l -> l.contains(expected), 10_000);
            List<String> said = broker.log().stream().filter(l -> l.contains(expected)).toList();
            line = said.isEmpty() ? "(nothing)" : withoutPath(said.get(0), dir);
            if (said.size() != 1) {
                problems.add("expected one line containing '" + expected + "', found " + said.size());
            } else if (damage != Damage.DIR_REPLACED_BY_FILE && !line.contains(range)) {
                problems.add("the offline line does not name the missing offsets " + range);
            } else if (damage == Damage.DIR_REPLACED_BY_FILE && !line.contains(PARTITION)) {
                problems.add("the start line does not name " + PARTITION);
            }
            try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
                readableOffline = readable(client, acked, notes, "plain restart");
                ProduceResponse next = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch(99, new ArrayList<>()));
                notes.add("plain restart: a produce is answered " + next.error()
                        + (next.error() == ErrorCode.NONE ? " at offset " + next.baseOffset() : ""));
                twice += givenAgain(next, lastAcked);
                if (next.error() == ErrorCode.NONE) {
                    problems.add("a produce to the damaged partition was written (offset " + next.baseOffset() + ")");
                }
                FetchResponse other = client.fetch(FetchRequest.consumer(OTHER, 0, 1 << 20, 0));
                if (other.error() != ErrorCode.NONE || !other.records().hasRemaining()) {
                    problems.add(OTHER + " must be served on: " + other.error());
                }
            }
        }

        long readableAccepted = -1;
        if (damage != Damage.DIR_REPLACED_BY_FILE) {
            try (BrokerProcess broker = BrokerProcess.start(dir, opts.plusServeArgs("--accept-data-loss", PARTITION));
                 BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), READ_TIMEOUT_MS)) {
                readableAccepted = readable(client, acked, notes, "--accept-data-loss");
                long expected = acked.stream().filter(a -> a.offset() < lost[0] || a.offset() >= lost[1])
                        .count();
                if (readableAccepted != expected) {
                    problems.add("accepted: " + readableAccepted + " records readable, " + expected + " expected");
                }
                ProduceResponse next = client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch(98, new ArrayList<>()));
                notes.add("--accept-data-loss: a produce gets " + next.error() + " at offset " + next.baseOffset());
                twice += givenAgain(next, lastAcked);
                if (next.error() != ErrorCode.NONE) {
                    problems.add("accepted: a produce must be written, not answered " + next.error());
                }
                broker.log().stream().filter(l -> l.contains("accepted")).findFirst()
                        .ifPresent(l -> notes.add("accepted: " + withoutPath(l, dir)));
            }
        }
        return new Outcome(damage, acked.size(), readableOffline, readableAccepted, twice, line, notes, problems);
    }

    private static long givenAgain(ProduceResponse next, long lastAcked) {
        return next.error() == ErrorCode.NONE && next.baseOffset() <= lastAcked ? lastAcked - next.baseOffset() + 1 : 0;
    }

    private static void damage(Path partition, Damage damage) throws IOException {
        List<Long> bases = bases(partition);
        switch (damage) {
            case ACTIVE_LOG_DELETED -> Files.delete(segmentFile(partition, bases.get(bases.size() - 1), Segment.LOG_SUFFIX));
            case MIDDLE_SEGMENT_DELETED -> deleteSegment(partition, bases.get(1));
            case FIRST_SEGMENT_DELETED -> deleteSegment(partition, bases.get(0));
            case EVERY_LOG_DELETED -> {
                for (long base : bases) {
                    Files.delete(segmentFile(partition, base, Segment.LOG_SUFFIX));
                }
            }
            case DIR_REPLACED_BY_FILE -> {
                try (Stream<Path> files = Files.walk(partition)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
                Files.writeString(partition, "not a partition any more\n");
            }
        }
    }

    private static void deleteSegment(Path partition, long base) throws IOException {
        for (String suffix : List.of(Segment.LOG_SUFFIX, Segment.INDEX_SUFFIX, Segment.TIME_INDEX_SUFFIX)) {
            Files.deleteIfExists(segmentFile(partition, base, suffix));
        }
    }

    private static Path segmentFile(Path partition, long base, String suffix) {
        return partition.resolve(Segment.fileName(base, suffix));
    }

    private static List<Long> bases(Path partition) throws IOException {
        try (Stream<Path> files = Files.list(partition)) {
            return files.map(p -> Segment.parseBaseOffset(p.getFileName().toString(), Segment.LOG_SUFFIX))
                    .filter(o -> o.isPresent()).map(o -> o.getAsLong()).sorted().toList();
        }
    }

    /** Acknowledged records read back at their own offsets by a consumer reading from the log start. */
    private static long readable(BrokerClient client, List<Acked> acked, List<String> notes, String when)
            throws IOException {
        Map<String, Long> found = new HashMap<>();
        long offset = 0;
        for (int fetches = 0; fetches < 10_000; fetches++) {
            FetchResponse r = client.fetch(FetchRequest.consumer(PARTITION, offset, 1 << 20, 0));
            if (r.error() == ErrorCode.OFFSET_OUT_OF_RANGE && offset < r.logStartOffset()) {
                offset = r.logStartOffset();
                continue;
            }
            if (r.error() != ErrorCode.NONE) {
                notes.add(when + ": a fetch at " + offset + " is answered " + r.error());
                break;
            }
            List<RecordBatch> batches = RecordBatch.decodeAll(r.records());
            if (batches.isEmpty()) {
                break;
            }
            for (RecordBatch batch : batches) {
                for (Record record : batch.records()) {
                    found.putIfAbsent(Record.show(record.value()), record.offset());
                }
                offset = batch.nextOffset();
            }
        }
        return acked.stream().filter(a -> Long.valueOf(a.offset()).equals(found.get(a.value()))).count();
    }

    /** A batch of distinct values, each remembered in {@code values}. */
    private static ByteBuffer batch(int serial, List<String> values) {
        BatchBuilder builder = new BatchBuilder();
        for (int r = 0; r < RECORDS_PER_BATCH; r++) {
            String value = String.format("b%03d-r%02d", serial, r);
            values.add(value);
            builder.append(1_700_000_000_000L, null, value.getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static String withoutPath(String line, Path dir) {
        return line.replace(dir.toString(), "<data>");
    }
}
