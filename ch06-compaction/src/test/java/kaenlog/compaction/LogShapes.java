package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.T0;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Compression;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.batch.RecordHeader;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.testkit.property.Choices;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;

/**
 * Logs as the chapter's properties generate them: segments of batches, each batch a few records with
 * keys from a small pool (so that keys repeat), tombstones, records without a key, idempotent producers,
 * every codec, timestamps spread over hours. The last segment is the active one. Built the same way into a
 * kaen-log log and, by {@link KafkaLog}, into Kafka's.
 */
public final class LogShapes {
    /**
     * The replays a property that builds logs may shrink a failure with ({@code Property.shrinks}): each costs
     * milliseconds, so a failure is shown within seconds, its input shrunk less far than a cheap property's.
     */
    public static final int SHRINKS = 300;

    private LogShapes() {
    }

    /** One record: a null key is a record without a key, a null value a tombstone. */
    record RecordShape(byte[] key, byte[] value, long timestamp, boolean header) {
        @Override
        public String toString() {
            return text(key) + "=" + text(value) + "@" + at(timestamp) + (header ? " (header h=x)" : "");
        }
    }

    /** One batch: its records, the producer that wrote it (-1: none) and its codec. */
    record BatchShape(List<RecordShape> records, long producerId, Compression codec) {
        @Override
        public String toString() {
            return (producerId >= 0 ? "producer " + producerId + " " : "")
                    + (codec != Compression.NONE ? codec.displayName() + " " : "") + records;
        }
    }

    /**
     * Segments of batches, oldest first; the last one is the active segment. {@code indexIntervalBytes} is the
     * kaen-log log's index interval (0: every batch gets index and time-index entries).
     */
    record LogShape(List<List<BatchShape>> segments, int indexIntervalBytes) {
        int recordCount() {
            return segments.stream().flatMap(List::stream).mapToInt(b -> b.records().size()).sum();
        }

        /** The batches with their offsets, as {@link #build} lays them out: one list per segment. */
        List<List<ByteBuffer>> batchBytes() {
            Map<Long, Integer> sequences = new HashMap<>();
            List<List<ByteBuffer>> out = new ArrayList<>();
            long offset = 0;
            for (List<BatchShape> segment : segments) {
                List<ByteBuffer> batches = new ArrayList<>();
                for (BatchShape shape : segment) {
                    // leader epoch 0: Kafka's follower append records it in its leader-epoch cache, which refuses -1
                    BatchBuilder builder = new BatchBuilder().compression(shape.codec()).partitionLeaderEpoch(0);
                    if (shape.producerId() >= 0) {
                        int sequence = sequences.getOrDefault(shape.producerId(), 0);
                        builder.producer(shape.producerId(), (short) 0, sequence);
                        sequences.put(shape.producerId(), sequence + shape.records().size());
                    }
                    for (RecordShape r : shape.records()) {
                        builder.append(r.timestamp(), r.key(), r.value(),
                                r.header() ? new RecordHeader[] {RecordHeader.of("h", "x")} : new RecordHeader[0]);
                    }
                    batches.add(builder.build(offset));
                    offset += shape.records().size();
                }
                out.add(batches);
            }
            return out;
        }

        /** The same log with its high watermark at {@code highWatermark} (no longer moved by appends). */
        Log build(Path dir, long highWatermark) throws IOException {
            Log built = build(dir);
            built.stopEagerHighWatermark();
            built.updateHighWatermark(highWatermark);
            return built;
        }

        /** A kaen-log log in {@code dir} holding these segments (appended, rolled after each but the last). */
        Log build(Path dir) throws IOException {
            Log log = Log.open(dir, LogConfig.defaults().withIndexIntervalBytes(indexIntervalBytes));
            List<List<ByteBuffer>> batches = batchBytes();
            for (int i = 0; i < batches.size(); i++) {
                for (ByteBuffer batch : batches.get(i)) {
                    log.append(batch);
                }
                if (i < batches.size() - 1) {
                    log.roll();
                }
            }
            return log;
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            long offset = 0;
            for (int i = 0; i < segments.size(); i++) {
                List<BatchShape> segment = segments.get(i);
                s.append("\n    ").append(i == segments.size() - 1 ? "active segment " : "segment ").append(offset)
                        .append(":");
                for (BatchShape batch : segment) {
                    long last = offset + batch.records().size() - 1;
                    s.append("\n      batch ").append(offset).append("..").append(last).append(" ").append(batch);
                    offset = last + 1;
                }
            }
            return s.toString();
        }
    }

    /** A key or value as the failures show it: text in quotes, bytes that are not printable UTF-8 in hex, null. */
    static String text(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        String decoded = new String(bytes, StandardCharsets.UTF_8);
        boolean printable = java.util.Arrays.equals(decoded.getBytes(StandardCharsets.UTF_8), bytes)
                && decoded.codePoints().allMatch(cp -> cp >= 0x20 && cp != 0x7f);
        return printable ? kaenlog.testkit.property.Property.show(decoded) : "0x" + java.util.HexFormat.of().formatHex(bytes);
    }

    /** A timestamp as the failures show it: relative to the tests' T0, in milliseconds. */
    static String at(long timestamp) {
        if (timestamp == -1) {
            return "no timestamp";
        }
        long d = timestamp - T0;
        return d == 0 ? "T0" : d > 0 ? "T0+" + d : "T0" + d;
    }

    static final byte[][] KEYS = {bytes("a"), bytes("b"), bytes("c"), new byte[0], bytes("\u00e9\u2603"),
            {(byte) 0xff, 0x00}};

    /** A key from a small pool (so that keys repeat: the empty key and non-UTF-8 bytes are keys too), or none. */
    static Gen<byte[]> keys() {
        return c -> c.oneIn(8) ? null : KEYS[c.belowInt(KEYS.length)];
    }

    /** A value of a few bytes, or null (a tombstone) one time in five. */
    static Gen<byte[]> values() {
        return Gens.nullOr(Gens.bytes(0, 6), 5);
    }

    /** Mostly no codec; each of Kafka's four one time in twelve. */
    static Gen<Compression> codecs() {
        return c -> c.oneIn(3) ? Compression.values()[c.belowInt(Compression.values().length)] : Compression.NONE;
    }

    /**
     * A log of 1 to 5 closed segments and an active one, 1 to 3 batches each, 1 to 4 records per batch.
     * {@code timestamps} gives each record's timestamp from its segment's number (0 = oldest).
     */
    static Gen<LogShape> logs(TimestampGen timestamps) {
        return c -> {
            int closed = 1 + c.belowInt(5);
            List<List<BatchShape>> segments = new ArrayList<>();
            for (int s = 0; s <= closed; s++) {
                List<BatchShape> batches = new ArrayList<>();
                int count = 1 + c.belowInt(4);
                for (int b = 0; b < count; b++) {
                    batches.add(batch(c, s, closed, b, timestamps));
                }
                segments.add(batches);
            }
            int interval = c.oneIn(2) ? LogConfig.DEFAULT_INDEX_INTERVAL_BYTES : c.oneIn(2) ? 0 : 1 + c.belowInt(200);
            return new LogShape(segments, interval);
        };
    }

    private static BatchShape batch(Choices c, int segment, int closed, int batch, TimestampGen timestamps) {
        long producer = c.oneIn(3) ? 1000 + c.belowInt(2) : -1;
        Compression codec = codecs().generate(c);
        int count = 1 + c.belowInt(4);
        boolean keyless = c.oneIn(8); // a batch a cleaning empties at once (a record without a key goes)
        List<RecordShape> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(new RecordShape(keyless ? null : keys().generate(c), values().generate(c),
                    timestamps.timestamp(c, segment, closed, batch, i), c.oneIn(6)));
        }
        return new BatchShape(records, producer, codec);
    }

    /** A record's timestamp, from its segment's age; {@code batch} is its batch's place in the segment, {@code index} its own in the batch. */
    @FunctionalInterface
    interface TimestampGen {
        long timestamp(Choices c, int segment, int closed, int batch, int index);
    }

    /**
     * Segments roughly oldest first, an hour apart (now and then out of order, or in the future); inside a
     * segment later batches mostly newer, up to 15 minutes apart (so a segment's first batch is older than its
     * newest record); now and then a record without a timestamp (-1) after the batch's first one.
     */
    static long spreadOverHours(Choices c, int segment, int closed, int batch, int index) {
        if (index > 0 && c.oneIn(8)) {
            return -1;
        }
        long hoursOld = c.oneIn(6) ? Gens.longs(-2, 8).generate(c) : closed - segment;
        long minute = 60_000;
        long inSegment = c.oneIn(5) ? Gens.longs(0, 60 * minute).generate(c) : batch * 15 * minute
                + Gens.longs(0, 14 * minute).generate(c);
        return T0 - hoursOld * LogFixture.HOUR - LogFixture.HOUR + inSegment;
    }

    /** Every record at T0 + its segment's number (cleaning does not look at time, retention does not look at keys). */
    static long atT0(Choices c, int segment, int closed, int batch, int index) {
        return T0 + segment;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Batches as a failure shows them: offsets, producer, delete horizon and every record left. */
    static String describe(List<RecordBatch> batches) {
        if (batches.isEmpty()) {
            return "\n      (no batch)";
        }
        StringBuilder s = new StringBuilder();
        for (RecordBatch batch : batches) {
            s.append("\n      ").append(describe(batch));
        }
        return s.toString();
    }

    static String describe(RecordBatch batch) {
        BatchHeader h = batch.header();
        StringBuilder s = new StringBuilder("batch ").append(h.baseOffset()).append("..").append(h.lastOffset());
        if (h.hasProducerId()) {
            s.append(" producer ").append(h.producerId()).append(" sequences ").append(h.baseSequence()).append("..")
                    .append(h.lastSequence());
        }
        if (h.compressionCodec() != 0) {
            s.append(" ").append(Compression.of(h).displayName());
        }
        DeleteHorizon.of(h).ifPresent(horizon -> s.append(" delete horizon ").append(at(horizon)));
        s.append(batch.records().isEmpty() ? " (empty)" : "").append(batch.records().stream()
                .map(r -> r.offset() + " " + text(r.key()) + "=" + text(r.value()))
                .collect(Collectors.joining(", ", " [", "]")));
        return s.toString();
    }
}
