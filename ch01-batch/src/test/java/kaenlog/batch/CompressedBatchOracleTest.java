package kaenlog.batch;

import static kaenlog.batch.KafkaBatches.kaenLogView;
import static kaenlog.batch.KafkaBatches.onlyBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
