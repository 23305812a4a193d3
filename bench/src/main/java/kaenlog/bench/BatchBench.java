package kaenlog.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import static org.apache.kafka.common.record.RecordBatch.CURRENT_MAGIC_VALUE;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Encoding and decoding one batch: kaen-log's chapter 1 against kafka-clients' MemoryRecords on
 * identical records (same keys, values, timestamps; no compression; the bytes are identical, as
 * chapter 1's oracle test proves).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BatchBench {
    /** "records x value bytes": 100 x 1 KiB, and a single small record. */
    @Param({"100x1024", "1x100"})
    public String shape;

    private Inputs inputs;
    private ByteBuffer encoded;

    @Setup
    public void setUp() {
        inputs = Inputs.of(shape);
        encoded = kaenEncode();
    }

    @Benchmark
    public ByteBuffer encodeKaen() {
        return kaenEncode();
    }

    @Benchmark
    public ByteBuffer encodeKafka() {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(estimate()), CURRENT_MAGIC_VALUE,
                Compression.NONE, TimestampType.CREATE_TIME, 0L);
        for (int i = 0; i < inputs.size(); i++) {
            builder.append(inputs.timestamps[i], inputs.keys[i], inputs.values[i]);
        }
        return builder.build().buffer();
    }

    @Benchmark
    public void decodeKaen(Blackhole hole) {
        RecordBatch batch = RecordBatch.decode(encoded.duplicate());
        for (Record record : batch.records()) {
            hole.consume(record.offset());
            hole.consume(record.key());
            hole.consume(record.value());
        }
    }

    /** The broker's path (chapter 3's append): every check decode makes, no record copied out. */
    @Benchmark
    public BatchHeader validateKaen() {
        return RecordBatch.validate(encoded.duplicate());
    }

    @Benchmark
    public void decodeKafka(Blackhole hole) {
        for (var batch : MemoryRecords.readableRecords(encoded.duplicate()).batches()) {
            batch.ensureValid();
            for (org.apache.kafka.common.record.Record record : batch) {
                hole.consume(record.offset());
                hole.consume(record.key());
                hole.consume(record.value());
            }
        }
    }

    private ByteBuffer kaenEncode() {
        return inputs.kaenLogBatch();
    }

    private int estimate() {
        int bytes = 61;
        for (int i = 0; i < inputs.size(); i++) {
            bytes += inputs.keys[i].length + inputs.values[i].length + 32;
        }
        return bytes;
    }
}
