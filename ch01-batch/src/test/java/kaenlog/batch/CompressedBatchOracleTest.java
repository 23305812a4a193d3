package kaenlog.batch;

import static kaenlog.batch.KafkaBatches.kaenLogView;
import static kaenlog.batch.KafkaBatches.onlyBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

/**
 * Compressed batches against the real Kafka, for each of its four codecs: kafka-clients reads,
 * CRC-checks and inflates every batch kaen-log compresses, kaen-log decodes every batch
 * kafka-clients compresses, and a batch that inflates past {@link Compression#MAX_INFLATED_BYTES}
 * (a zip bomb) is a {@link CorruptBatchException} naming its codec. Compression is given code
 * ({@link Compression}); these tests run after the chapter's tasks, on the builder and decoder the
 * tasks wrote.
 */
@Order(12)
class CompressedBatchOracleTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long SEED = 20_251_201L;

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void kafkaReadsValidatesAndInflatesEveryBatchKaenLogCompresses(Compression codec) {
        Random random = new Random(SEED + codec.id());
        for (int i = 0; i < 50; i++) {
            String context = codec.displayName() + ", seed " + (SEED + codec.id()) + ", batch " + i;
            BatchBuilder builder = new BatchBuilder().compression(codec);
            if (i % 3 == 0) {
                builder.producer(4000L + i, (short) 1, i * 10);
            }
            int count = 1 + random.nextInt(40);
            for (int r = 0; r < count; r++) {
                builder.append(NOW + random.nextInt(1000), r % 7 == 0 ? null : bytes("key-" + random.nextInt(100)),
                        r % 11 == 0 ? null : bytes("value " + "x".repeat(random.nextInt(200))),
                        r % 5 == 0 ? new RecordHeader[] {RecordHeader.of("h", "v" + r)} : new RecordHeader[0]);
            }
            ByteBuffer ours = builder.build();
            RecordBatch.assignBaseOffset(ours, 1000L * i);
            List<Record> expected = RecordBatch.decode(ours.duplicate()).records();

            MutableRecordBatch kafka = onlyBatch(MemoryRecords.readableRecords(ours.duplicate()), context);
            assertThatNoException()
                    .as("%s: Kafka's ensureValid checks the CRC-32C over attributes..end, which in a compressed"
                            + " batch covers the compressed bytes", context)
                    .isThrownBy(kafka::ensureValid);
            assertThat(kafka.compressionType())
                    .as("%s: attribute bits 0-2 carry the codec id (gzip 1, snappy 2, lz4 3, zstd 4)", context)
                    .isEqualTo(CompressionType.forId(codec.id()));
            assertThat(kafka.countOrNull()).as("%s: recordCount stays in the plain header", context).isEqualTo(count);
            assertThat(kaenLogView(kafka))
                    .as("%s: every record, as kafka-clients inflates the stream (its framing for %s)", context,
                            codec.displayName())
                    .containsExactlyElementsOf(expected);
            assertThat(expected).as("%s: what we decode is what we appended", context).hasSize(count);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void kaenLogDecodesEveryBatchKafkaClientsCompresses(Compression codec) {
        List<SimpleRecord> records = new ArrayList<>();
        for (int r = 0; r < 500; r++) {
            records.add(new SimpleRecord(NOW + r, r % 9 == 0 ? null : bytes("user-" + (r % 13)),
                    bytes("clicked " + r + " " + "abc".repeat(r % 50)),
                    new Header[] {new org.apache.kafka.common.header.internals.RecordHeader("n", bytes("" + r))}));
        }
        MemoryRecords kafka = MemoryRecords.withIdempotentRecords(kafkaCompression(codec), 7000L, (short) 2, 41,
                records.toArray(SimpleRecord[]::new));
        String context = codec.displayName() + " batch of 500 records from MemoryRecords.withIdempotentRecords";
        MutableRecordBatch kafkaBatch = onlyBatch(kafka, context);
        assertThat(kafkaBatch.sizeInBytes())
                .as("%s: kafka-clients really compressed it (it is smaller than the records)", context)
                .isLessThan(records.stream().mapToInt(r -> r.value().remaining()).sum());

        ByteBuffer in = kafka.buffer().duplicate();
        RecordBatch ours = RecordBatch.decode(in);
        assertThat(in.position()).as("%s: decode moves past the whole compressed batch", context)
                .isEqualTo(kafkaBatch.sizeInBytes());
        assertThat(Compression.of(ours.header())).as("%s: the codec of attribute bits 0-2", context).isEqualTo(codec);
        assertThat(ours.header().producerId()).as("%s: the plain header's producer id", context).isEqualTo(7000L);
        assertThat(ours.header().lastSequence()).as("%s: last sequence 41 + 499", context).isEqualTo(540);
        assertThat(ours.records())
                .as("%s: every record, inflated by kaen-log, as kafka-clients reads it", context)
                .containsExactlyElementsOf(kaenLogView(kafkaBatch));
        assertThat(RecordBatch.validate(kafka.buffer().duplicate()))
                .as("%s: validate (the broker's append check) accepts it and returns its header", context)
                .isEqualTo(ours.header());
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aZipBombIsACorruptBatchNamingItsCodecNotAnOutOfMemoryError(Compression codec) {
        // One record's worth of header, then 16 MiB of zeros as the "records": it compresses to a batch
        // a broker would take by size, and inflates to 16 times the limit.
        ByteBuffer plain = new BatchBuilder().append(NOW, "k", "v").build();
        ByteBuffer bomb = ByteBuffer.allocate(BatchHeader.SIZE + 16 * 1024 * 1024);
        bomb.put(plain.duplicate().limit(BatchHeader.SIZE)).position(0);
        ByteBuffer batch = Compression.compress(bomb, codec);
        assertThat(batch.remaining())
                .as("the %s bomb is smaller than the limit itself: its size alone does not give it away",
                        codec.displayName())
                .isLessThan(Compression.MAX_INFLATED_BYTES);

        CorruptBatchException e = catchThrowableOfType(CorruptBatchException.class,
                () -> RecordBatch.decode(batch.duplicate()));
        assertThat(e).as("a %s batch inflating past %d bytes is corrupt input, never an OutOfMemoryError",
                codec.displayName(), Compression.MAX_INFLATED_BYTES).isNotNull();
        assertThat(e.field()).as("the records are what is wrong").isEqualTo("records");
        assertThat(e.getMessage()).as("the error names the codec and the limit")
                .contains(codec.displayName()).contains(String.valueOf(Compression.MAX_INFLATED_BYTES));
        assertThat(catchThrowableOfType(CorruptBatchException.class, () -> RecordBatch.validate(batch.duplicate())))
                .as("the broker's validate stops the %s bomb the same way", codec.displayName()).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void garbageWhereTheCompressedRecordsShouldBeIsACorruptBatch(Compression codec) {
        ByteBuffer good = new BatchBuilder().compression(codec).append(NOW, "k", "v").build();
        ByteBuffer garbage = good.duplicate();
        for (int i = BatchHeader.SIZE; i < garbage.limit(); i++) {
            garbage.put(i, (byte) (garbage.get(i) ^ 0x5a));
        }
        garbage.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(garbage));
        CorruptBatchException e = catchThrowableOfType(CorruptBatchException.class,
                () -> RecordBatch.decode(garbage.duplicate()));
        assertThat(e).as("%s: bytes that do not inflate (CRC recomputed) are a corrupt batch", codec.displayName())
                .isNotNull();
        assertThat(e.getMessage()).as("it names the codec").contains(codec.displayName());
    }

    /**
     * librdkafka (kcat) compresses snappy as ONE raw snappy block, without xerial's framing: Kafka
     * reads that too (snappy-java's SnappyInputStream falls back to a raw block when the bytes do not
     * start with xerial's 16-byte header, or are shorter than it), so kaen-log must, and a block
     * shorter than the header is raw whatever its first bytes.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 500})
    void aSnappyBatchOfOneRawBlockAsLibrdkafkaSendsItIsReadAsKafkaReadsIt(int count) throws Exception {
        ByteBuffer plain = plainBatch(count);
        byte[] raw = Snappy.compress(recordsOf(plain));
        ByteBuffer batch = withSnappyRecords(plain, raw);
        String context = "a batch of " + count + " record(s) whose records are one raw snappy block of " + raw.length
                + " bytes";
        MutableRecordBatch kafka = onlyBatch(MemoryRecords.readableRecords(batch.duplicate()), context);
        assertThatNoException().as("%s: Kafka's CRC check", context).isThrownBy(kafka::ensureValid);
        List<Record> kafkaReads = kaenLogView(kafka);
        assertThat(kafkaReads).as("%s: Kafka reads every record of it", context).hasSize(count);
        assertThat(RecordBatch.decode(batch.duplicate()).records())
                .as("%s: kaen-log inflates it as Kafka does, record for record (it is snappy without xerial's"
                        + " framing, which Kafka accepts)", context)
                .containsExactlyElementsOf(kafkaReads);
        assertThat(RecordBatch.validate(batch.duplicate()).recordCount())
                .as("%s: the broker's validate accepts it", context).isEqualTo(count);
    }

    /** Several xerial streams one after the other read as one, in Kafka (SnappyInputStream) and here. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void snappyStreamsWrittenOneAfterTheOtherAreReadAsOneAsKafkaReadsThem(int streams) throws Exception {
        ByteBuffer plain = plainBatch(300);
        byte[] records = recordsOf(plain);
        ByteArrayOutputStream concatenated = new ByteArrayOutputStream();
        int step = records.length / streams;
        for (int s = 0; s < streams; s++) {
            int from = s * step;
            int to = s == streams - 1 ? records.length : from + step;
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            try (SnappyOutputStream out = new SnappyOutputStream(one)) {
                out.write(records, from, to - from);
            }
            concatenated.write(one.toByteArray());
        }
        ByteBuffer batch = withSnappyRecords(plain, concatenated.toByteArray());
        String context = streams + " xerial snappy streams written one after the other";
        List<Record> kafkaReads = kaenLogView(onlyBatch(MemoryRecords.readableRecords(batch.duplicate()), context));
        assertThat(kafkaReads).as("%s: Kafka reads all 300 records", context).hasSize(300);
        assertThat(RecordBatch.decode(batch.duplicate()).records())
                .as("%s: a chunk length that reads as the magic's first four bytes starts the next stream's header,"
                        + " which is skipped, as SnappyInputStream skips it", context)
                .containsExactlyElementsOf(kafkaReads);
    }

    @Test
    void aRawSnappyBlockThatClaimsMoreThanTheLimitIsACorruptBatchBeforeItsBufferExists() {
        ByteBuffer plain = plainBatch(1);
        // a raw block is its uncompressed length (a varint) and then its elements: claim 16 MiB
        byte[] lying = {(byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 0x00};
        CorruptBatchException e = catchThrowableOfType(CorruptBatchException.class,
                () -> RecordBatch.decode(withSnappyRecords(plain, lying)));
        assertThat(e).as("a raw snappy block claiming 16 MiB is refused from its length alone").isNotNull();
        assertThat(e.getMessage()).as("it names the codec and the limit").contains("snappy")
                .contains(String.valueOf(Compression.MAX_INFLATED_BYTES));
    }

    private static ByteBuffer plainBatch(int count) {
        BatchBuilder builder = new BatchBuilder();
        for (int r = 0; r < count; r++) {
            builder.append(NOW + r, r % 4 == 0 ? null : bytes("key-" + r % 10),
                    bytes("value " + r + " " + "snappy ".repeat(r % 20)));
        }
        return builder.build();
    }

    private static byte[] recordsOf(ByteBuffer plain) {
        byte[] records = new byte[plain.limit() - BatchHeader.SIZE];
        plain.get(BatchHeader.SIZE, records);
        return records;
    }

    /** The plain batch's header, codec snappy, followed by {@code compressed}; length and CRC made right. */
    private static ByteBuffer withSnappyRecords(ByteBuffer plain, byte[] compressed) {
        ByteBuffer out = ByteBuffer.allocate(BatchHeader.SIZE + compressed.length);
        out.put(plain.duplicate().position(0).limit(BatchHeader.SIZE)).put(compressed).flip();
        short attributes = out.getShort(BatchHeader.ATTRIBUTES_OFFSET);
        out.putShort(BatchHeader.ATTRIBUTES_OFFSET, (short) ((attributes & ~BatchHeader.COMPRESSION_CODEC_MASK)
                | Compression.SNAPPY.id()));
        out.putInt(BatchHeader.BATCH_LENGTH_OFFSET, out.limit() - BatchHeader.LOG_OVERHEAD);
        out.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(out));
        return out;
    }

    private static org.apache.kafka.common.compress.Compression kafkaCompression(Compression codec) {
        return switch (codec) {
            case GZIP -> org.apache.kafka.common.compress.Compression.gzip().build();
            case SNAPPY -> org.apache.kafka.common.compress.Compression.snappy().build();
            case LZ4 -> org.apache.kafka.common.compress.Compression.lz4().build();
            case ZSTD -> org.apache.kafka.common.compress.Compression.zstd().build();
            case NONE -> org.apache.kafka.common.compress.Compression.NONE;
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
