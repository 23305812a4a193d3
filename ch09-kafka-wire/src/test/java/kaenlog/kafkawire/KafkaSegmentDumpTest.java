package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.cli.Klog;
import kaenlog.demo.batch.DumpCommand;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xerial.snappy.Snappy;

/**
 * {@code klog dump} reads segments Kafka itself wrote: Kafka 4.1.1's own log ({@code UnifiedLog},
 * the class behind every partition of a Kafka broker) validates each batch as a leader does
 * ({@code appendAsLeader}: the CRC, every record inflated, offsets assigned) and writes its segment,
 * and chapter 1's dump command reads that file back, with each codec in each framing a client
 * sends it: kafka-clients' (gzip, xerial snappy, lz4 frames, zstd) and librdkafka's snappy, one raw
 * block, which Kafka accepts and keeps as it came.
 */
@Order(12)
@PassesOnSkeleton("klog dump and chapter 1's Compression are given code, and Kafka writes the segment:"
        + " no exercise of chapter 9 is on the path")
class KafkaSegmentDumpTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final int RECORDS = 200;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void klogDumpReadsTheSegmentKafkasOwnLogWroteFromKafkaClientsBatches(String codec) throws Exception {
        SimpleRecord[] records = new SimpleRecord[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            records[i] = new SimpleRecord(NOW + i, ("key-" + i % 10).getBytes(StandardCharsets.UTF_8),
                    ("value " + i + " that compresses, that compresses").getBytes(StandardCharsets.UTF_8));
        }
        Path segment = writtenByKafka(MemoryRecords.withRecords(kafkaCodec(codec), records));
        String dumped = dump(segment, codec);
        assertThat(dumped).as("%s: one batch, as kafka-clients built it and Kafka's log kept it", codec)
                .contains("baseOffset: 0 lastOffset: " + (RECORDS - 1) + " count: " + RECORDS)
                .contains("compresscodec: " + codec);
        assertThat(dumped).as("%s: the first and the last record, inflated", codec)
                .contains("| offset: 0 CreateTime: " + NOW + " keySize: 5")
                .contains("payload: value " + (RECORDS - 1) + " that compresses, that compresses");
    }

    /**
     * librdkafka (kcat) compresses snappy as one raw block without xerial's framing; Kafka's log
     * takes it (snappy-java's SnappyInputStream reads a raw block) and keeps the batch as it came
     * (compression.type=producer), so a Kafka segment written from kcat's batches holds raw snappy.
     */
    @Test
    void klogDumpReadsTheSegmentKafkasOwnLogWroteFromARawSnappyBatchAsLibrdkafkaSendsIt() throws Exception {
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < RECORDS; i++) {
            builder.append(NOW + i, null, "a line kcat read, then a line kcat read " + i);
        }
        ByteBuffer batch = rawSnappy(builder.build());
        Path segment = writtenByKafka(MemoryRecords.readableRecords(batch.duplicate()));
        byte[] stored = Files.readAllBytes(segment);
        assertThat(stored.length).as("Kafka's log kept the batch as it came: its size did not change")
                .isEqualTo(batch.remaining());
        assertThat(ByteBuffer.wrap(stored).get(BatchHeader.SIZE))
                .as("the stored records still start with the raw block's length, not xerial's magic (0x82)")
                .isEqualTo(batch.get(BatchHeader.SIZE));
        String dumped = dump(segment, "snappy (raw)");
        assertThat(dumped).as("klog dump reads Kafka's segment of librdkafka's snappy")
                .contains("count: " + RECORDS).contains("compresscodec: snappy")
                .contains("payload: a line kcat read, then a line kcat read " + (RECORDS - 1));
    }

    /** The batch's records as one raw snappy block (librdkafka's rd_kafka_snappy_compress_iov), CRC made right. */
    private static ByteBuffer rawSnappy(ByteBuffer plain) throws Exception {
        byte[] records = new byte[plain.limit() - BatchHeader.SIZE];
        plain.get(BatchHeader.SIZE, records);
        byte[] raw = Snappy.compress(records);
        ByteBuffer out = ByteBuffer.allocate(BatchHeader.SIZE + raw.length);
        out.put(plain.duplicate().position(0).limit(BatchHeader.SIZE)).put(raw).flip();
        short attributes = out.getShort(BatchHeader.ATTRIBUTES_OFFSET);
        out.putShort(BatchHeader.ATTRIBUTES_OFFSET, (short) ((attributes & ~BatchHeader.COMPRESSION_CODEC_MASK)
                | kaenlog.batch.Compression.SNAPPY.id()));
        out.putInt(BatchHeader.BATCH_LENGTH_OFFSET, out.limit() - BatchHeader.LOG_OVERHEAD);
        out.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(out));
        return out;
    }

    /** Appends the records through Kafka 4.1.1's own log, as a partition leader, and returns its segment file. */
    private Path writtenByKafka(MemoryRecords records) throws Exception {
        Path partition = dir.resolve("orders-0");
        KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        UnifiedLog log = UnifiedLog.create(partition.toFile(), new LogConfig(Map.of()), 0L, 0L, scheduler,
                new BrokerTopicStats(), Time.SYSTEM, 60_000, new ProducerStateManagerConfig(86_400_000, false),
                600_000, new LogDirFailureChannel(1), true, Optional.empty());
        try {
            log.appendAsLeader(records, 0);
            log.flush(false);
        } finally {
            log.close();
            scheduler.shutdown();
        }
        return partition.resolve("00000000000000000000.log");
    }

    /** {@code klog dump SEGMENT}: its output, after checking it succeeded and said nothing on stderr. */
    private static String dump(Path segment, String what) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new DumpCommand().run(List.of(segment.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String errors = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as("klog dump of Kafka's %s segment exits 0; it said:%n%s", what, errors).isEqualTo(Klog.OK);
        assertThat(errors).as("klog dump of Kafka's %s segment says nothing on stderr", what).isEmpty();
        return out.toString(StandardCharsets.UTF_8);
    }

    private static Compression kafkaCodec(String codec) {
        return switch (codec) {
            case "gzip" -> Compression.gzip().build();
            case "snappy" -> Compression.snappy().build();
            case "lz4" -> Compression.lz4().build();
            case "zstd" -> Compression.zstd().build();
            default -> Compression.NONE;
        };
    }
}
