package kaenlog.batch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * The inputs of chapter 1's properties, made by testkit's property engine: records with null,
 * empty and non-ASCII keys, values and headers; timestamps of every sign and order; fresh batches
 * with producer fields near their limits, every codec and offsets up to {@code Long.MAX_VALUE};
 * and batches as kafka-clients writes them, of every shape (fresh, compacted with gaps, emptied,
 * control, LogAppendTime). Each generator shrinks towards its simplest value: one record, no key,
 * offset 0, no producer.
 *
 * <p>Kept beside chapter 1's tests: later chapters' tests cannot see chapter 1's test classes (the
 * build shares no test code between chapters), so a later chapter builds its batches with chapter
 * 1's builder or kafka-clients.
 */
final class BatchGens {
    static final long NOW = 1_700_000_000_000L;
    /**
     * The shrink budget of a property over whole batches: each replay builds a batch with
     * kafka-clients (and compresses it), so a failure is told in seconds, not in the minute the
     * default budget could take.
     */
    static final int SHRINKS = 500;
    private static final byte V2 = org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2;

    private BatchGens() {
    }

    // ---------------------------------------------------------------- records

    /** One record as a producer hands it over. */
    record In(long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
        @Override
        public String toString() {
            return "{timestamp " + timestamp + ", key " + show(key) + ", value " + show(value) + ", headers "
                    + headers.stream().map(h -> kaenlog.testkit.property.Property.show(h.key()) + "=" + show(h.value()))
                            .collect(Collectors.joining(", ", "[", "]")) + "}";
        }
    }

    // Each generator is built once: building one (its edge values, its powers of two) costs far more than
    // drawing from it.
    private static final Gen<byte[]> SHORT_BYTES = Gens.bytes(1, 16);
    private static final Gen<byte[]> TEXT = Gens.utf8(1, 6);
    /** One in eight longer than 63 bytes, where a length takes two varint bytes. */
    private static final Gen<byte[]> PAYLOADS = Gens.nullOr(Gens.oneOf(Gens.constant(new byte[0]), TEXT, SHORT_BYTES,
            TEXT, SHORT_BYTES, TEXT, SHORT_BYTES, Gens.bytes(64, 80)), 5);
    private static final Gen<String> HEADER_KEYS = Gens.strings(0, 5);
    private static final Gen<List<RecordHeader>> HEADERS = Gens.lists(HEADER_KEYS.zip(PAYLOADS, RecordHeader::new),
            0, 3);
    private static final Gen<Long> CREATE_TIMES = Gens.oneOf(Gens.longs(NOW - 100_000, NOW + 100_000),
            Gens.elements(-1L, 0L, Long.MAX_VALUE), Gens.longs(0, Long.MAX_VALUE));
    private static final Gen<Long> ANY_TIMESTAMPS = Gens.oneOf(CREATE_TIMES, Gens.longs());
    private static final Gen<Integer> FEW = Gens.ints(1, 6);
    /** One batch in four past 64 records, where an offsetDelta takes two varint bytes. */
    private static final Gen<Integer> COUNTS = Gens.oneOf(FEW, FEW, FEW, Gens.ints(62, 70));

    /** A key, a value or a header value: null, empty, text over the whole of Unicode, any bytes, or long. */
    static Gen<byte[]> payloads() {
        return PAYLOADS;
    }

    /** A header key: any text, empty included (a header key is never null). */
    static Gen<String> headerKeys() {
        return HEADER_KEYS;
    }

    static Gen<List<RecordHeader>> headers() {
        return HEADERS;
    }

    /**
     * The timestamps a producer may give kafka-clients' builder: -1 (none), 0, around now in either
     * direction, and any other non-negative long (Kafka refuses other negative create times).
     */
    static Gen<Long> createTimes() {
        return CREATE_TIMES;
    }

    /** Timestamps of every sign: what a record's bytes may say, whoever wrote them. */
    static Gen<Long> anyTimestamps() {
        return ANY_TIMESTAMPS;
    }

    static Gen<In> ins(Gen<Long> timestamps) {
        return c -> new In(timestamps.generate(c), PAYLOADS.generate(c), PAYLOADS.generate(c), HEADERS.generate(c));
    }

    /** A record count: a few most often, and sometimes past 64, where an offsetDelta takes two varint bytes. */
    static Gen<Integer> counts() {
        return COUNTS;
    }

    // ---------------------------------------------------------------- fresh batches

    /** A fresh batch as a producer and a leader make it: its records, base offset, leader epoch, producer and codec. */
    record Spec(long baseOffset, int partitionLeaderEpoch, long producerId, short producerEpoch, int baseSequence,
                Compression codec, List<In> records) {
        @Override
        public String toString() {
            return records.size() + " record(s) " + firstFew(records, 3) + " at base offset " + baseOffset
                    + ", leader epoch " + partitionLeaderEpoch + ", producer " + producerId + " epoch " + producerEpoch
                    + " base sequence " + baseSequence + ", codec " + codec.displayName();
        }
    }

    /** The first few of a list, in a line: a failure names a batch of seventy records by its first three. */
    static String firstFew(List<?> list, int few) {
        if (list.size() <= few) {
            return list.toString();
        }
        return list.subList(0, few).toString().replaceFirst("]$", ", ... " + (list.size() - few) + " more]");
    }

    /** Fresh batches uncompressed (the simplest) or with any of Kafka's four codecs. */
    static Gen<Spec> specs() {
        return SPECS;
    }

    /** Half the batches compressed, with each of Kafka's four codecs. */
    private static final Gen<Compression> CODECS = Gens.oneOf(Gens.constant(Compression.NONE),
            Gens.elements(Compression.GZIP, Compression.SNAPPY, Compression.LZ4, Compression.ZSTD));

    private static final Gen<In> CREATED = ins(CREATE_TIMES);
    private static final Gen<Long> OFFSETS = Gens.longs(0, Long.MAX_VALUE);
    private static final Gen<Integer> LEADER_EPOCHS = Gens.oneOf(Gens.constant(-1), Gens.ints(0, Integer.MAX_VALUE));
    private static final Gen<Integer> PRODUCER_EPOCHS = Gens.ints(0, Short.MAX_VALUE);
    private static final Gen<Integer> SEQUENCES = Gens.oneOf(Gens.ints(0, Integer.MAX_VALUE),
            Gens.ints(Integer.MAX_VALUE - 150, Integer.MAX_VALUE));
    private static final Gen<Spec> SPECS = specs(CODECS);

    /**
     * A spec's decisions are drawn before its records, so that shrinking the records (the bulk of
     * the draws) leaves the codec, the offsets and the producer where they were.
     */
    static Gen<Spec> specs(Gen<Compression> codecs) {
        return c -> {
            Compression codec = codecs.generate(c);
            long base = OFFSETS.generate(c);
            int leaderEpoch = LEADER_EPOCHS.generate(c);
            long producerId = -1;
            short epoch = -1;
            int sequence = -1;
            if (c.oneIn(2)) {
                producerId = OFFSETS.generate(c);
                epoch = (short) (int) PRODUCER_EPOCHS.generate(c);
                sequence = SEQUENCES.generate(c);
            }
            List<In> records = Gens.listOf(COUNTS, i -> CREATED).generate(c);
            // The last offset must fit a long: a base offset past Long.MAX_VALUE - (count - 1) is that bound.
            long baseOffset = Math.min(base, Long.MAX_VALUE - (records.size() - 1));
            return new Spec(baseOffset, leaderEpoch, producerId, epoch, sequence, codec, records);
        };
    }

    /** kaen-log's builder given the spec. */
    static BatchBuilder builderFor(Spec spec) {
        BatchBuilder builder = new BatchBuilder().partitionLeaderEpoch(spec.partitionLeaderEpoch())
                .compression(spec.codec());
        if (spec.producerId() != -1) {
            builder.producer(spec.producerId(), spec.producerEpoch(), spec.baseSequence());
        }
        for (In r : spec.records()) {
            builder.append(r.timestamp(), r.key(), r.value(), r.headers().toArray(RecordHeader[]::new));
        }
        return builder;
    }

    /** kafka-clients' MemoryRecordsBuilder given the same spec, as a producer (CreateTime) and leader build it. */
    static ByteBuffer kafkaBuild(Spec spec) {
        return kafkaBuild(spec, TimestampType.CREATE_TIME, false);
    }

    static ByteBuffer kafkaBuild(Spec spec, TimestampType type, boolean transactional) {
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(ByteBuffer.allocate(256), V2, kafkaCodec(spec.codec()),
                type, spec.baseOffset(), type == TimestampType.LOG_APPEND_TIME ? NOW : -1, spec.producerId(),
                spec.producerEpoch(), spec.baseSequence(), transactional, false, spec.partitionLeaderEpoch(),
                Integer.MAX_VALUE);
        for (In r : spec.records()) {
            builder.append(r.timestamp(), r.key(), r.value(), kafkaHeaders(r.headers()));
        }
        return builder.build().buffer();
    }

    static org.apache.kafka.common.compress.Compression kafkaCodec(Compression codec) {
        return switch (codec) {
            case NONE -> org.apache.kafka.common.compress.Compression.NONE;
            case GZIP -> org.apache.kafka.common.compress.Compression.gzip().build();
            case SNAPPY -> org.apache.kafka.common.compress.Compression.snappy().build();
            case LZ4 -> org.apache.kafka.common.compress.Compression.lz4().build();
            case ZSTD -> org.apache.kafka.common.compress.Compression.zstd().build();
        };
    }

    static Header[] kafkaHeaders(List<RecordHeader> headers) {
        return headers.stream().map(h -> new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value()))
                .toArray(Header[]::new);
    }

    // ---------------------------------------------------------------- Kafka's batches of every shape

    /** Bytes kafka-clients wrote, and what they are, for a failure to say. */
    record Written(String shape, byte[] bytes) {
        ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes.clone());
        }

        @Override
        public String toString() {
            return shape + ", " + kaenlog.testkit.property.Property.show(bytes);
        }
    }

    /**
     * Batches as kafka-clients writes them: a producer's (every codec; idempotent, transactional or
     * neither), a leader's with LogAppendTime, a compacted one that kept some records (gaps, its
     * first or last offset gone) or none (an empty header), and a transaction marker (a control
     * batch).
     */
    static Gen<Written> kafkaBatches() {
        return Gens.oneOf(producerBatches(), compactedBatches(), controlBatches());
    }

    static Gen<Written> producerBatches() {
        return c -> {
            TimestampType type = c.oneIn(4) ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
            boolean inTransaction = c.oneIn(3);
            Spec spec = specs().generate(c);
            boolean transactional = spec.producerId() != -1 && inTransaction;
            return new Written("Kafka's " + (transactional ? "transactional " : "") + type + " batch of " + spec,
                    array(kafkaBuild(spec, type, transactional)));
        };
    }

    /** An original batch and which of its records compaction keeps (none: an empty header). */
    static Gen<Written> compactedBatches() {
        return c -> {
            boolean logAppendTime = c.oneIn(5);
            boolean inTransaction = c.oneIn(3);
            Spec spec = specs().generate(c);
            MutableRecordBatch original = onlyBatch(kafkaBuild(spec, logAppendTime ? TimestampType.LOG_APPEND_TIME
                    : TimestampType.CREATE_TIME, spec.producerId() != -1 && inTransaction));
            List<org.apache.kafka.common.record.Record> kept = new ArrayList<>();
            for (org.apache.kafka.common.record.Record r : original) {
                if (c.oneIn(2)) {
                    kept.add(r);
                }
            }
            List<Long> offsets = kept.stream().map(org.apache.kafka.common.record.Record::offset).toList();
            return new Written("Kafka's compaction of " + spec + " keeping offsets " + firstFew(offsets, 8),
                    array(kafkaRetained(original, kept)));
        };
    }

    /** A transaction marker, as a transaction coordinator has a leader write it. */
    static Gen<Written> controlBatches() {
        return c -> {
            long baseOffset = OFFSETS.generate(c);
            long timestamp = CREATE_TIMES.generate(c);
            int leaderEpoch = LEADER_EPOCHS.generate(c);
            long producerId = OFFSETS.generate(c);
            short epoch = (short) (int) PRODUCER_EPOCHS.generate(c);
            ControlRecordType type = c.oneIn(2) ? ControlRecordType.ABORT : ControlRecordType.COMMIT;
            int coordinatorEpoch = LEADER_EPOCHS.generate(c);
            return new Written("Kafka's " + type + " marker of producer " + producerId + " epoch " + epoch
                    + " at offset " + baseOffset, array(MemoryRecords.withEndTransactionMarker(baseOffset, timestamp,
                    leaderEpoch, producerId, epoch, new EndTransactionMarker(type, coordinatorEpoch)).buffer()));
        };
    }

    /**
     * What Kafka's cleaner writes for a batch it keeps {@code kept} of: MemoryRecords.filterTo's two
     * branches, with the calls of its buildRetainedRecordsInto (the original's codec, timestamp type,
     * base offset, producer fields and last offset) or, when nothing is kept,
     * DefaultRecordBatch.writeEmptyHeader. (filterTo also stamps a delete horizon on a batch that keeps
     * a tombstone, KIP-534: chapter 6's cleaner does that after chapter 1's builder, so this does not.)
     */
    static ByteBuffer kafkaRetained(org.apache.kafka.common.record.RecordBatch original,
                                    List<org.apache.kafka.common.record.Record> kept) {
        if (kept.isEmpty()) {
            ByteBuffer empty = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
            DefaultRecordBatch.writeEmptyHeader(empty, V2, original.producerId(), original.producerEpoch(),
                    original.baseSequence(), original.baseOffset(), original.lastOffset(),
                    original.partitionLeaderEpoch(), original.timestampType(), original.maxTimestamp(),
                    original.isTransactional(), original.isControlBatch());
            return empty.flip();
        }
        TimestampType type = original.timestampType();
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(ByteBuffer.allocate(256), V2,
                org.apache.kafka.common.compress.Compression.of(original.compressionType()).build(), type,
                original.baseOffset(), type == TimestampType.LOG_APPEND_TIME ? original.maxTimestamp() : -1,
                original.producerId(), original.producerEpoch(), original.baseSequence(), original.isTransactional(),
                original.isControlBatch(), original.partitionLeaderEpoch(), Integer.MAX_VALUE);
        kept.forEach(builder::append);
        builder.overrideLastOffset(original.lastOffset());
        return builder.build().buffer();
    }

    static MutableRecordBatch onlyBatch(ByteBuffer bytes) {
        return MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator().next();
    }

    static byte[] array(ByteBuffer buffer) {
        return BatchFields.bytesOf(buffer);
    }

    /** A payload in a line: its bytes in hex, the first 12 of a long one. */
    private static String show(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        return bytes.length <= 12 ? kaenlog.testkit.property.Property.show(bytes)
                : bytes.length + " bytes " + kaenlog.testkit.property.Property.show(java.util.Arrays.copyOf(bytes, 12))
                        + " ...";
    }
}
