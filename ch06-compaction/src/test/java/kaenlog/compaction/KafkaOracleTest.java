package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real-Kafka oracle: every segment the cleaner writes must be read whole and valid by
 * kafka-clients' own {@code FileRecords} (the class a broker serves segments with), and Kafka
 * must see in it what kaen-log sees: offsets, producer fields, record count, keys, values,
 * timestamps, and the delete horizon (KIP-534) where the cleaner stamped one.
 */
@Order(9)
class KafkaOracleTest {
    static final long DELETE_RETENTION_MS = 24 * HOUR;

    @TempDir
    Path dir;

    /** Plain and idempotent batches, overwritten keys, a tombstone; two closed segments and an active one. */
    private Log log() throws IOException {
        Log log = LogFixture.open(dir);
        LogFixture.putIdempotent(log, 1000, (short) 0, 0, T0, "apple", "1", "pear", "1");
        LogFixture.putIdempotent(log, 1000, (short) 0, 2, T0 + 5, "plum", "1");
        LogFixture.putIdempotent(log, 2000, (short) 3, 7, T0 + 10, "fig", "1", "apple", "2", "kiwi", "1");
        log.roll();
        LogFixture.put(log, T0 + 20, "pear", "2", "plum", null, "apple", "3");
        LogFixture.put(log, T0 + 30, "kiwi", null);
        log.roll();
        LogFixture.put(log, T0 + 40, "fig", "2");
        return log;
    }

    @Test
    void kafkaReadsEveryCompactedSegmentWholeAndValid() throws IOException {
        try (Log log = log()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            int batches = assertKafkaAgrees(log);
            assertThat(batches).as("the check looked at the surviving batches").isPositive();
        }
    }

    @Test
    void kafkaSeesTheDeleteHorizonTheCleanerStamped() throws IOException {
        try (Log log = log()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            List<Long> horizons = new ArrayList<>();
            for (Segment segment : log.segments()) {
                try (FileRecords records = FileRecords.open(segment.logFile().toFile())) {
                    for (FileChannelRecordBatch batch : records.batches()) {
                        batch.deleteHorizonMs().ifPresent(horizons::add);
                    }
                }
            }
            assertThat(horizons)
                    .as("the two batches keeping tombstones (plum at 7, kiwi at 9) carry the horizon first cleaning +"
                            + " delete.retention.ms, and Kafka's DefaultRecordBatch.deleteHorizonMs() reads it")
                    .containsExactly(T0 + HOUR + DELETE_RETENTION_MS, T0 + HOUR + DELETE_RETENTION_MS);
        }
    }

    @Test
    void kafkaSeesAnEmptiedBatchAsAnEmptyBatchThatKeepsItsProducersSequence() throws IOException {
        try (Log log = log()) {
            new Cleaner(DELETE_RETENTION_MS).clean(log, T0 + HOUR);
            try (FileRecords records = FileRecords.open(log.segments().get(0).logFile().toFile())) {
                FileChannelRecordBatch plum = null;
                for (FileChannelRecordBatch batch : records.batches()) {
                    if (batch.baseOffset() == 2) {
                        plum = batch;
                    }
                }
                assertThat(plum).as("batch 2..2, producer 1000's last, emptied, must still be in the file").isNotNull();
                assertThat(plum.countOrNull()).as("Kafka counts no record in it").isZero();
                assertThat(plum.producerId() + "/" + plum.lastSequence())
                        .as("and reads producer 1000's last sequence 2 from it").isEqualTo("1000/2");
            }
        }
    }

    @Test
    void kafkaReadsTheLogAgainAfterTheTombstonesWent() throws IOException {
        try (Log log = log()) {
            Cleaner cleaner = new Cleaner(DELETE_RETENTION_MS);
            cleaner.clean(log, T0 + HOUR);
            cleaner.clean(log, T0 + HOUR + DELETE_RETENTION_MS);
            assertKafkaAgrees(log);
            assertThat(LogFixture.show(log))
                    .as("at the horizon both tombstones are gone")
                    .noneMatch(s -> s.endsWith("=null"));
        }
    }

    /** Reads every segment with FileRecords and compares it batch by batch with kaen-log's decoding. */
    private static int assertKafkaAgrees(Log log) throws IOException {
        int count = 0;
        for (Segment segment : log.segments()) {
            Path file = segment.logFile();
            List<RecordBatch> ours = segment.batches();
            int bytes = 0;
            int i = 0;
            try (FileRecords records = FileRecords.open(file.toFile())) {
                for (FileChannelRecordBatch kafka : records.batches()) {
                    kafka.ensureValid();
                    bytes += kafka.sizeInBytes();
                    assertThat(i).as("Kafka finds more batches in %s than kaen-log", file.getFileName())
                            .isLessThan(ours.size());
                    assertSameBatch(kafka, ours.get(i), file);
                    i++;
                }
            }
            assertThat(bytes)
                    .as("Kafka's batches in %s add up to the whole file: nothing torn or trailing", file.getFileName())
                    .isEqualTo(Files.size(file));
            assertThat(i).as("Kafka finds as many batches in %s as kaen-log", file.getFileName()).isEqualTo(ours.size());
            count += i;
        }
        return count;
    }

    private static void assertSameBatch(FileChannelRecordBatch kafka, RecordBatch ours, Path file) {
        BatchHeader h = ours.header();
        String where = file.getFileName() + " batch " + h.baseOffset();
        assertThat(kafka.baseOffset() + ".." + kafka.lastOffset()).as("%s: offsets", where)
                .isEqualTo(h.baseOffset() + ".." + h.lastOffset());
        assertThat(kafka.producerId() + "/" + kafka.producerEpoch() + "/" + kafka.baseSequence() + ".."
                + kafka.lastSequence()).as("%s: producer id / epoch / sequences", where)
                .isEqualTo(h.producerId() + "/" + h.producerEpoch() + "/" + h.baseSequence() + ".." + h.lastSequence());
        assertThat(kafka.countOrNull()).as("%s: record count", where).isEqualTo(h.recordCount());
        assertThat(kafka.maxTimestamp()).as("%s: maxTimestamp", where).isEqualTo(h.maxTimestamp());
        OptionalLong horizon = DeleteHorizon.of(h);
        assertThat(kafka.deleteHorizonMs()).as("%s: delete horizon", where).isEqualTo(horizon);
        List<String> kafkaRecords = new ArrayList<>();
        kafka.forEach(r -> kafkaRecords.add(r.offset() + "@" + r.timestamp() + ":" + text(r.key()) + "=" + text(r.value())));
        List<String> ourRecords = ours.records().stream()
                .map(r -> r.offset() + "@" + r.timestamp() + ":" + Record.show(r.key()) + "=" + Record.show(r.value()))
                .toList();
        assertThat(kafkaRecords).as("%s: records (offset@timestamp:key=value) as Kafka reads them", where)
                .isEqualTo(ourRecords);
    }

    private static String text(ByteBuffer bytes) {
        return bytes == null ? "null" : StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
    }
}
