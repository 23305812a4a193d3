package kaenlog.batch;

import static kaenlog.batch.BatchFields.bytesOf;
import static kaenlog.batch.KafkaBatches.kaenLogView;
import static kaenlog.batch.KafkaBatches.onlyBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import kaenlog.testkit.Hex;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The real Kafka as the oracle. Chapter 1's batch format is Kafka's RecordBatch v2 byte for byte,
 * so the official client library (kafka-clients, test scope only) must read and CRC-check every
 * batch kaen-log writes, and kaen-log must decode every batch Kafka writes and, given the same
 * input, write exactly Kafka's bytes.
 *
 * <p>Random batches come from {@code new Random(seed)}: a failure names the seed and the batch
 * number, so it can be replayed. Everything uses CREATE_TIME and no compression, the only kind of
 * batch kaen-log writes.
 */
@Order(9)
class KafkaOracleTest {
    private static final int RANDOM_BATCHES = 1_000;
    private static final long SEED_OURS_TO_KAFKA = 20_240_101L;
    private static final long SEED_KAFKA_TO_OURS = 20_240_202L;
    private static final long SEED_COMPACTED = 20_240_303L;
    private static final long NOW = 1_700_000_000_000L;
    private static final byte MAGIC_V2 = org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2;
    private static final long KAFKA_NO_TIMESTAMP = org.apache.kafka.common.record.RecordBatch.NO_TIMESTAMP;

    // ---------------------------------------------------------------- our bytes -> Kafka

    @Test
    void kafkaReadsAndValidatesEveryRandomBatchKaenLogBuilds() {
        Random random = new Random(SEED_OURS_TO_KAFKA);
        for (int i = 0; i < RANDOM_BATCHES; i++) {
            Spec spec = randomSpec(random);
            String context = "seed " + SEED_OURS_TO_KAFKA + ", batch " + i + " (" + spec + ")";

            ByteBuffer ours = builderFor(spec).build();
            RecordBatch.assignBaseOffset(ours, spec.baseOffset());

            MutableRecordBatch kafka = onlyBatch(MemoryRecords.readableRecords(ours.duplicate()), context);
            assertThatNoException()
                    .as("%s: Kafka's ensureValid checks the size and the CRC-32C over attributes..end;"
                            + " a kaen-log batch must pass it", context)
                    .isThrownBy(kafka::ensureValid);
            long kafkasOwnCrc = onlyBatch(kafkaBuild(spec), context).checksum();
            assertSameHeader(context, View.expected(spec, kafkasOwnCrc, ours.remaining()), View.of(kafka));
            assertSameRecords(context, spec.expectedRecords(), kafka, spec.baseSequence());
        }
    }

    @Test
    void kafkaReadsAndValidatesEveryCompactedBatchIncludingEmptyOnesAndWritesTheSameBytes() {
        Random random = new Random(SEED_COMPACTED);
        int empty = 0;
        for (int i = 0; i < RANDOM_BATCHES; i++) {
            Compacted c = randomCompacted(random, i % 5 == 0);
            empty += c.retained().isEmpty() ? 1 : 0;
            String context = "seed " + SEED_COMPACTED + ", compacted batch " + i + " (" + c + ")";

            CompactedBatchBuilder builder = new CompactedBatchBuilder(c.original());
            c.retained().forEach(builder::retain);
            ByteBuffer ours = builder.build();

            MutableRecordBatch kafka = onlyBatch(MemoryRecords.readableRecords(ours.duplicate()), context);
            assertThatNoException()
                    .as("%s: Kafka's ensureValid must accept a batch the preserving builder wrote", context)
                    .isThrownBy(kafka::ensureValid);
            ByteBuffer kafkasBytes = kafkaCompacted(c);
            long kafkasCrc = onlyBatch(MemoryRecords.readableRecords(kafkasBytes.duplicate()), context).checksum();
            assertSameHeader(context, View.expected(c, kafkasCrc, ours.remaining()), View.of(kafka));
            assertSameRecords(context, c.retained(), kafka, c.original().baseSequence());
            assertSameBytes(context + ": compaction must write what Kafka writes (MemoryRecordsBuilder with"
                    + " overrideLastOffset, or DefaultRecordBatch.writeEmptyHeader when nothing is kept)",
                    kafkasBytes, ours);
        }
        assertThat(empty)
                .as("the random compacted batches must include empty ones (every record removed), "
                        + "the case chapter 7's producer-state rebuild depends on")
                .isGreaterThanOrEqualTo(RANDOM_BATCHES / 5);
    }

    // ---------------------------------------------------------------- Kafka's bytes -> us

    @Test
    void aPlainKafkaBatchDecodesFieldForFieldAndBatchBuilderWritesTheSameBytes() {
        List<In> records = List.of(in(NOW, "user-a", "clicked 1"), in(NOW + 5, "user-b", "clicked 2"),
                in(NOW + 2, "user-c", "clicked 3"));
        assertKaenLogReadsAndRewrites("MemoryRecords.withRecords (plain producer)",
                MemoryRecords.withRecords(Compression.NONE, simple(records)), plain(0, records));
    }

    @Test
    void anIdempotentKafkaBatchKeepsItsProducerIdEpochAndSequences() {
        List<In> records = List.of(in(NOW, "k1", "v1"), in(NOW + 1, "k2", "v2"), in(NOW + 2, "k3", "v3"));
        assertKaenLogReadsAndRewrites("MemoryRecords.withIdempotentRecords(pid 1000, epoch 3, baseSequence 7)",
                MemoryRecords.withIdempotentRecords(Compression.NONE, 1000L, (short) 3, 7, simple(records)),
                new Spec(0, -1, 1000L, (short) 3, 7, records));
    }

    @Test
    void aKafkaBatchWithHeadersIncludingANullHeaderValueDecodesAndRebuildsIdentically() {
        List<In> records = List.of(
                new In(NOW, bytes("order-1"), bytes("paid"), List.of(RecordHeader.of("trace-id", "abc123"),
                        RecordHeader.of("empty", ""), RecordHeader.of("no-value", null))),
                new In(NOW + 1, bytes("order-2"), bytes("shipped"),
                        List.of(RecordHeader.of("ключ", "значение"))));
        assertKaenLogReadsAndRewrites("MemoryRecords.withRecords with record headers",
                MemoryRecords.withRecords(Compression.NONE, simple(records)), plain(0, records));
    }

    @Test
    void aKafkaRecordWithANullKeyDecodesAsANullKeyNotAnEmptyOne() {
        List<In> records = List.of(new In(NOW, null, bytes("keyless"), List.of()), in(NOW + 1, "", "empty key"));
        assertKaenLogReadsAndRewrites("MemoryRecords.withRecords with a null key and an empty key",
                MemoryRecords.withRecords(Compression.NONE, simple(records)), plain(0, records));
    }

    @Test
    void aKafkaTombstoneDecodesAsANullValue() {
        List<In> records = List.of(in(NOW, "user-a", "v1"), new In(NOW + 1, bytes("user-a"), null, List.of()),
                in(NOW + 2, "user-b", ""));
        assertKaenLogReadsAndRewrites("MemoryRecords.withRecords with a tombstone (null value)",
                MemoryRecords.withRecords(Compression.NONE, simple(records)), plain(0, records));
    }

    @Test
    void aKafkaBatchWhoseSequenceWrapsPastIntegerMaxValueEndsAtSequenceZero() {
        int baseSequence = Integer.MAX_VALUE - 1;
        List<In> records = List.of(in(NOW, "a", "1"), in(NOW + 1, "b", "2"), in(NOW + 2, "c", "3"));
        MemoryRecords kafka = MemoryRecords.withIdempotentRecords(Compression.NONE, 42L, (short) 0, baseSequence,
                simple(records));
        assertKaenLogReadsAndRewrites("withIdempotentRecords(baseSequence Integer.MAX_VALUE - 1, 3 records)", kafka,
                new Spec(0, -1, 42L, (short) 0, baseSequence, records));
        RecordBatch ours = RecordBatch.decode(kafka.buffer());
        assertThat(ours.header().lastSequence())
                .as("sequences run MAX_VALUE - 1, MAX_VALUE, 0: after Integer.MAX_VALUE comes 0 "
                        + "(DefaultRecordBatch.incrementSequence), never a negative sequence")
                .isZero();
    }

    @Test
    void aKafkaBatchWithAnExplicitBaseOffsetAndLeaderEpochDecodesAndRebuildsIdentically() {
        long baseOffset = 1_234_567L;
        int leaderEpoch = 17;
        List<In> records = List.of(in(NOW + 10, "k", "first"), in(NOW, "k", "second"), in(NOW + 20, "j", "third"));
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(256), MAGIC_V2, Compression.NONE,
                TimestampType.CREATE_TIME, baseOffset, KAFKA_NO_TIMESTAMP, leaderEpoch);
        records.forEach(r -> builder.append(r.timestamp(), r.key(), r.value(), kafkaHeaders(r)));
        assertKaenLogReadsAndRewrites("MemoryRecords.builder(baseOffset 1234567, partitionLeaderEpoch 17)",
                builder.build(), new Spec(baseOffset, leaderEpoch, -1, (short) -1, -1, records));
    }

    @Test
    void aTransactionalKafkaBatchDecodesWithItsTransactionalFlag() {
        List<In> records = List.of(in(NOW, "k", "in a transaction"));
        MemoryRecords kafka = MemoryRecords.withTransactionalRecords(Compression.NONE, 77L, (short) 1, 0,
                simple(records));
        MutableRecordBatch kafkaBatch = onlyBatch(kafka, "withTransactionalRecords");
        RecordBatch ours = RecordBatch.decode(kafka.buffer());
        assertSameHeader("withTransactionalRecords(pid 77)", View.of(kafkaBatch), View.of(ours.header()));
        assertThat(ours.header().isTransactional())
                .as("attributes bit 4 (0x10) marks a transactional batch; chapter 7 reads it")
                .isTrue();
    }

    @Test
    void everyRandomKafkaBatchDecodesFieldForFieldAndBatchBuilderWritesTheSameBytes() {
        Random random = new Random(SEED_KAFKA_TO_OURS);
        for (int i = 0; i < RANDOM_BATCHES; i++) {
            Spec spec = randomSpec(random);
            assertKaenLogReadsAndRewrites("seed " + SEED_KAFKA_TO_OURS + ", batch " + i + " (" + spec + ")",
                    kafkaBuild(spec), spec);
        }
    }

    /** Kafka's bytes decoded by kaen-log agree with Kafka's own reading, and BatchBuilder writes the same bytes. */
    private static void assertKaenLogReadsAndRewrites(String context, MemoryRecords kafka, Spec sameInput) {
        MutableRecordBatch kafkaBatch = onlyBatch(kafka, context);
        ByteBuffer kafkaBytes = kafka.buffer();
        ByteBuffer in = kafkaBytes.duplicate();
        RecordBatch ours = RecordBatch.decode(in);
        assertThat(in.position())
                .as("%s: decode moves the position past exactly one batch of %d bytes (batchLength + 12)",
                        context, kafkaBatch.sizeInBytes())
                .isEqualTo(kafkaBatch.sizeInBytes());
        assertSameHeader(context, View.of(kafkaBatch), View.of(ours.header()));
        assertThat(ours.records())
                .as("%s: every record (offset = baseOffset + offsetDelta, timestamp = baseTimestamp +"
                        + " timestampDelta, key, value, headers; null stays null) as Kafka reads it", context)
                .containsExactlyElementsOf(kaenLogView(kafkaBatch));
        assertSameBytes(context + ": BatchBuilder given the same records, offsets, epoch and producer fields must"
                + " write exactly kafka-clients' bytes", kafkaBytes,
                builderFor(sameInput).build(sameInput.baseOffset()));
    }

    // ---------------------------------------------------------------- assertions

    private static void assertSameHeader(String context, View expected, View actual) {
        assertThat(actual.baseOffset()).as("%s: baseOffset (bytes 0..7), the first record's offset", context)
                .isEqualTo(expected.baseOffset());
        assertThat(actual.lastOffset())
                .as("%s: lastOffset = baseOffset + lastOffsetDelta (bytes 23..26); compaction keeps the original",
                        context)
                .isEqualTo(expected.lastOffset());
        assertThat(actual.partitionLeaderEpoch())
                .as("%s: partitionLeaderEpoch (bytes 12..15), -1 until a leader stamps it", context)
                .isEqualTo(expected.partitionLeaderEpoch());
        assertThat(actual.magic()).as("%s: magic (byte 16) is 2 for RecordBatch v2", context)
                .isEqualTo(expected.magic());
        assertThat(actual.producerId())
                .as("%s: producerId (bytes 43..50), -1 when no idempotent producer wrote the batch", context)
                .isEqualTo(expected.producerId());
        assertThat(actual.producerEpoch())
                .as("%s: producerEpoch (bytes 51..52), -1 without an idempotent producer", context)
                .isEqualTo(expected.producerEpoch());
        assertThat(actual.baseSequence())
                .as("%s: baseSequence (bytes 53..56), -1 without an idempotent producer", context)
                .isEqualTo(expected.baseSequence());
        assertThat(actual.lastSequence())
                .as("%s: lastSequence = baseSequence + lastOffsetDelta, wrapping past Integer.MAX_VALUE to 0"
                        + " (DefaultRecordBatch.incrementSequence); -1 stays -1", context)
                .isEqualTo(expected.lastSequence());
        assertThat(actual.count()).as("%s: recordCount (bytes 57..60)", context).isEqualTo(expected.count());
        assertThat(actual.maxTimestamp())
                .as("%s: maxTimestamp (bytes 35..42) is the largest record timestamp under CREATE_TIME"
                        + " (an empty compacted batch keeps the original's)", context)
                .isEqualTo(expected.maxTimestamp());
        assertThat(actual.transactional()).as("%s: isTransactional is attributes bit 4 (0x10)", context)
                .isEqualTo(expected.transactional());
        assertThat(actual.control()).as("%s: isControlBatch is attributes bit 5 (0x20)", context)
                .isEqualTo(expected.control());
        assertThat(actual.sizeInBytes())
                .as("%s: the batch is batchLength (bytes 8..11) + 12 bytes long", context)
                .isEqualTo(expected.sizeInBytes());
        assertThat(actual.checksum())
                .as("%s: crc (bytes 17..20) is the CRC-32C of attributes..end, the one Kafka computes for the same"
                        + " records, checked last so that a wrong field above is named first (unsigned, as Kafka"
                        + " reports it)", context)
                .isEqualTo(expected.checksum());
    }

    private static void assertSameRecords(String context, List<Record> expected, MutableRecordBatch kafka,
                                          int baseSequence) {
        assertThat(kaenLogView(kafka))
                .as("%s: Kafka reads every record back (offset, timestamp, key, value, headers; null stays null)",
                        context)
                .containsExactlyElementsOf(expected);
        List<Integer> sequences = new ArrayList<>();
        List<Integer> expectedSequences = new ArrayList<>();
        for (org.apache.kafka.common.record.Record r : kafka) {
            sequences.add(r.sequence());
            expectedSequences.add(sequenceAt(baseSequence, r.offset() - kafka.baseOffset()));
        }
        assertThat(sequences)
                .as("%s: a record's sequence is baseSequence + offsetDelta modulo 2^31 (-1 without a producer)",
                        context)
                .isEqualTo(expectedSequences);
    }

    /**
     * Compares the bytes with the CRC masked first: any other difference also changes the CRC, so
     * the message names the field that differs, not the checksum that follows from it.
     */
    private static void assertSameBytes(String what, ByteBuffer expected, ByteBuffer actual) {
        byte[] want = bytesOf(expected);
        byte[] got = bytesOf(actual);
        byte[] wantMasked = withoutCrc(want);
        byte[] gotMasked = withoutCrc(got);
        assertThat(gotMasked)
                .as(() -> what + " (crc bytes 17..20 masked to 00 here); "
                        + Hex.firstDifference(wantMasked, gotMasked, KafkaOracleTest::fieldAt))
                .isEqualTo(wantMasked);
        assertThat(got).as(() -> what + "; " + Hex.firstDifference(want, got, KafkaOracleTest::fieldAt))
                .isEqualTo(want);
    }

    private static byte[] withoutCrc(byte[] bytes) {
        byte[] masked = bytes.clone();
        for (int i = BatchHeader.CRC_OFFSET; i < Math.min(masked.length, BatchHeader.ATTRIBUTES_OFFSET); i++) {
            masked[i] = 0;
        }
        return masked;
    }

    /** The header fields both libraries expose, read through Kafka's API or kaen-log's. */
    private record View(long baseOffset, long lastOffset, int partitionLeaderEpoch, byte magic, long checksum,
                        long producerId, short producerEpoch, int baseSequence, int lastSequence, Integer count,
                        long maxTimestamp, boolean transactional, boolean control, int sizeInBytes) {
        static View of(org.apache.kafka.common.record.RecordBatch b) {
            return new View(b.baseOffset(), b.lastOffset(), b.partitionLeaderEpoch(), b.magic(), b.checksum(),
                    b.producerId(), b.producerEpoch(), b.baseSequence(), b.lastSequence(), b.countOrNull(),
                    b.maxTimestamp(), b.isTransactional(), b.isControlBatch(), b.sizeInBytes());
        }

        static View of(BatchHeader h) {
            return new View(h.baseOffset(), h.lastOffset(), h.partitionLeaderEpoch(), h.magic(), h.crcUnsigned(),
                    h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence(), h.recordCount(),
                    h.maxTimestamp(), h.isTransactional(), h.isControl(), h.sizeInBytes());
        }

        /** What a fresh batch must say, worked out from the input alone (not from either library's reading). */
        static View expected(Spec s, long checksum, int size) {
            int delta = s.records().size() - 1;
            return new View(s.baseOffset(), s.baseOffset() + delta, s.partitionLeaderEpoch(), MAGIC_V2, checksum,
                    s.producerId(), s.producerEpoch(), s.baseSequence(), sequenceAt(s.baseSequence(), delta),
                    s.records().size(), s.records().stream().mapToLong(In::timestamp).max().orElseThrow(), false,
                    false, size);
        }

        static View expected(Compacted c, long checksum, int size) {
            BatchHeader o = c.original();
            long maxTimestamp = c.retained().isEmpty() ? o.maxTimestamp()
                    : c.retained().stream().mapToLong(Record::timestamp).max().orElseThrow();
            return new View(o.baseOffset(), o.baseOffset() + o.lastOffsetDelta(), o.partitionLeaderEpoch(), MAGIC_V2,
                    checksum, o.producerId(), o.producerEpoch(), o.baseSequence(),
                    sequenceAt(o.baseSequence(), o.lastOffsetDelta()), c.retained().size(), maxTimestamp,
                    (o.attributes() & 0x10) != 0, false, size);
        }
    }

    /** Sequence arithmetic written out independently: modulo 2^31, so Integer.MAX_VALUE is followed by 0. */
    private static int sequenceAt(int baseSequence, long delta) {
        return baseSequence == -1 ? -1 : (int) ((baseSequence + delta) % (1L << 31));
    }

    // ---------------------------------------------------------------- inputs

    /** One record as a producer hands it over. */
    private record In(long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
        @Override
        public String toString() {
            return "ts=" + timestamp + " key=" + show(key) + " value=" + show(value) + " headers="
                    + headers.stream().map(h -> h.key() + "=" + show(h.value()))
                            .collect(Collectors.joining(",", "[", "]"));
        }
    }

    /** A fresh batch: its records and where the leader put it. */
    private record Spec(long baseOffset, int partitionLeaderEpoch, long producerId, short producerEpoch,
                        int baseSequence, List<In> records) {
        List<Record> expectedRecords() {
            List<Record> out = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                In r = records.get(i);
                out.add(new Record(baseOffset + i, r.timestamp(), r.key(), r.value(), r.headers()));
            }
            return out;
        }

        @Override
        public String toString() {
            return "baseOffset=" + baseOffset + " partitionLeaderEpoch=" + partitionLeaderEpoch + " producerId="
                    + producerId + " producerEpoch=" + producerEpoch + " baseSequence=" + baseSequence + " records="
                    + records.stream().map(In::toString).collect(Collectors.joining("; ", "[", "]"));
        }
    }

    /** A batch as compaction rewrites it: the original header and the records it keeps. */
    private record Compacted(BatchHeader original, List<Record> retained) {
        @Override
        public String toString() {
            return "original=" + original + " retained offsets="
                    + retained.stream().map(r -> "" + r.offset()).collect(Collectors.joining(",", "[", "]"));
        }
    }

    private static Spec plain(long baseOffset, List<In> records) {
        return new Spec(baseOffset, -1, -1, (short) -1, -1, records);
    }

    private static In in(long timestamp, String key, String value) {
        return new In(timestamp, bytes(key), bytes(value), List.of());
    }

    private static Spec randomSpec(Random r) {
        int count = 1 + r.nextInt(20);
        long baseOffset = switch (r.nextInt(3)) {
            case 0 -> r.nextInt(1_000);
            case 1 -> (r.nextLong() & Long.MAX_VALUE) / 2;
            default -> Long.MAX_VALUE - (count - 1) - r.nextInt(1_000); // the last offset still fits a long
        };
        int leaderEpoch = r.nextBoolean() ? -1 : r.nextInt(Integer.MAX_VALUE);
        long producerId = -1;
        short producerEpoch = -1;
        int baseSequence = -1;
        if (r.nextBoolean()) {
            producerId = r.nextBoolean() ? r.nextInt(10_000) : r.nextLong() & Long.MAX_VALUE;
            producerEpoch = (short) r.nextInt(Short.MAX_VALUE + 1);
            baseSequence = r.nextInt(3) == 0 ? Integer.MAX_VALUE - r.nextInt(20) : r.nextInt(Integer.MAX_VALUE);
        }
        long base = NOW + r.nextInt(1_000_000);
        List<In> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(new In(randomTimestamp(r, base), randomBytes(r), randomBytes(r), randomHeaders(r)));
        }
        return new Spec(baseOffset, leaderEpoch, producerId, producerEpoch, baseSequence, List.copyOf(records));
    }

    private static Compacted randomCompacted(Random r, boolean keepNothing) {
        Spec spec = randomSpec(r);
        int lastOffsetDelta = spec.records().size() - 1;
        boolean transactional = spec.producerId() != -1 && r.nextInt(3) == 0;
        long maxTimestamp = spec.records().stream().mapToLong(In::timestamp).max().orElseThrow();
        BatchHeader original = new BatchHeader(spec.baseOffset(), 0, spec.partitionLeaderEpoch(), BatchHeader.MAGIC,
                0, (short) (transactional ? 0x10 : 0), lastOffsetDelta, spec.records().get(0).timestamp(),
                maxTimestamp, spec.producerId(), spec.producerEpoch(), spec.baseSequence(), spec.records().size());
        List<Record> retained = new ArrayList<>();
        double keep = r.nextDouble();
        for (Record record : spec.expectedRecords()) {
            if (!keepNothing && r.nextDouble() < keep) {
                retained.add(record);
            }
        }
        return new Compacted(original, List.copyOf(retained));
    }

    /** Kafka accepts CREATE_TIME timestamps >= 0 and -1 (no timestamp). */
    private static long randomTimestamp(Random r, long base) {
        return switch (r.nextInt(20)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> (r.nextLong() & Long.MAX_VALUE) >>> r.nextInt(40);
            default -> base + r.nextInt(200_000) - 100_000;
        };
    }

    private static byte[] randomBytes(Random r) {
        int kind = r.nextInt(20);
        if (kind < 3) {
            return null;
        }
        int length = kind == 3 ? 0 : kind == 4 ? 128 + r.nextInt(300) : 1 + r.nextInt(40);
        byte[] bytes = new byte[length];
        r.nextBytes(bytes);
        return bytes;
    }

    private static List<RecordHeader> randomHeaders(Random r) {
        String[] alphabet = {"a", "b", "z", "-", "_", "é", "キ", "0"};
        List<RecordHeader> headers = new ArrayList<>();
        int count = r.nextInt(4);
        for (int h = 0; h < count; h++) {
            StringBuilder key = new StringBuilder();
            int length = r.nextInt(9);
            for (int c = 0; c < length; c++) {
                key.append(alphabet[r.nextInt(alphabet.length)]);
            }
            headers.add(new RecordHeader(key.toString(), randomBytes(r)));
        }
        return List.copyOf(headers);
    }

    // ---------------------------------------------------------------- the two libraries

    private static BatchBuilder builderFor(Spec spec) {
        BatchBuilder builder = new BatchBuilder().partitionLeaderEpoch(spec.partitionLeaderEpoch());
        if (spec.producerId() != -1) {
            builder.producer(spec.producerId(), spec.producerEpoch(), spec.baseSequence());
        }
        for (In r : spec.records()) {
            builder.append(r.timestamp(), r.key(), r.value(), r.headers().toArray(RecordHeader[]::new));
        }
        return builder;
    }

    private static MemoryRecords kafkaBuild(Spec spec) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(256), MAGIC_V2, Compression.NONE,
                TimestampType.CREATE_TIME, spec.baseOffset(), KAFKA_NO_TIMESTAMP, spec.producerId(),
                spec.producerEpoch(), spec.baseSequence(), false, spec.partitionLeaderEpoch());
        for (In r : spec.records()) {
            builder.append(r.timestamp(), r.key(), r.value(), kafkaHeaders(r));
        }
        return builder.build();
    }

    /** What Kafka's MemoryRecords.buildRetainedRecordsInto writes for the same compaction. */
    private static ByteBuffer kafkaCompacted(Compacted c) {
        BatchHeader o = c.original();
        boolean transactional = (o.attributes() & 0x10) != 0;
        long lastOffset = o.baseOffset() + o.lastOffsetDelta();
        if (c.retained().isEmpty()) {
            ByteBuffer empty = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
            DefaultRecordBatch.writeEmptyHeader(empty, MAGIC_V2, o.producerId(), o.producerEpoch(), o.baseSequence(),
                    o.baseOffset(), lastOffset, o.partitionLeaderEpoch(), TimestampType.CREATE_TIME, o.maxTimestamp(),
                    transactional, false);
            return empty.flip();
        }
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(ByteBuffer.allocate(256), MAGIC_V2, Compression.NONE,
                TimestampType.CREATE_TIME, o.baseOffset(), KAFKA_NO_TIMESTAMP, o.producerId(), o.producerEpoch(),
                o.baseSequence(), transactional, false, o.partitionLeaderEpoch(), Integer.MAX_VALUE);
        for (Record r : c.retained()) {
            builder.appendWithOffset(r.offset(), r.timestamp(), r.key(), r.value(),
                    r.headers().stream().map(KafkaOracleTest::kafkaHeader).toArray(Header[]::new));
        }
        builder.overrideLastOffset(lastOffset);
        return builder.build().buffer();
    }

    private static SimpleRecord[] simple(List<In> records) {
        return records.stream().map(r -> new SimpleRecord(r.timestamp(), r.key(), r.value(), kafkaHeaders(r)))
                .toArray(SimpleRecord[]::new);
    }

    private static Header[] kafkaHeaders(In r) {
        return r.headers().stream().map(KafkaOracleTest::kafkaHeader).toArray(Header[]::new);
    }

    private static Header kafkaHeader(RecordHeader h) {
        return new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value());
    }

    // ---------------------------------------------------------------- small helpers

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static String show(byte[] bytes) {
        return bytes == null ? "null" : bytes.length + "B";
    }

    /** The header field at byte {@code i}, for byte-difference messages. */
    static String fieldAt(int i) {
        int[] starts = {0, 8, 12, 16, 17, 21, 23, 27, 35, 43, 51, 53, 57, 61};
        String[] names = {"baseOffset", "batchLength", "partitionLeaderEpoch", "magic", "crc", "attributes",
            "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence",
            "recordCount"};
        for (int f = 0; f < names.length; f++) {
            if (i < starts[f + 1]) {
                return names[f] + ", byte " + (i - starts[f]) + " of the field";
            }
        }
        return "records, byte " + (i - BatchHeader.SIZE) + " after the 61-byte header";
    }
}
