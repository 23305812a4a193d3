package kaenlog.log;

import static kaenlog.log.LogFixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordHeader;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a task: the real Kafka as the oracle for chapter 3's files. A segment's .log file is a plain
 * concatenation of v2 batches, so kafka-clients' own {@code FileRecords.open(file)} (what a Kafka
 * broker uses for its segments) must read every segment file this chapter writes, whole, with every
 * batch passing {@code ensureValid()} (size and CRC-32C) and every field, from the offsets the leader
 * assigned to each record's key, value and headers, equal to what was appended.
 */
@Order(20)
class FileRecordsOracleTest {
    private static final long SEED = 20_240_303L;
    private static final int BATCHES = 60;
    private static final long PRODUCER_ID = 1_000L;
    private static final short PRODUCER_EPOCH = 3;

    @TempDir
    Path dir;

    /** One record as appended. */
    private record Rec(long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
    }

    /** One batch as appended, with the offsets the leader gave it. */
    private record Appended(long baseOffset, long producerId, short producerEpoch, int baseSequence,
                            int leaderEpoch, List<Rec> records) {
    }

    @Test
    void kafkasFileRecordsReadsEverySegmentFileWholeWithEveryFieldAsAppended() throws IOException {
        Random random = new Random(SEED);
        List<Appended> appended = new ArrayList<>();
        LogConfig config = new LogConfig(1_024, 256);
        try (Log log = Log.open(dir, config)) {
            int sequence = 0;
            for (int i = 0; i < BATCHES; i++) {
                boolean idempotent = i % 3 != 0;
                List<Rec> records = randomRecords(random, i);
                BatchBuilder builder = new BatchBuilder();
                if (idempotent) {
                    builder.producer(PRODUCER_ID, PRODUCER_EPOCH, sequence);
                }
                records.forEach(r -> builder.append(r.timestamp(), r.key(), r.value(),
                        r.headers().toArray(RecordHeader[]::new)));
                int leaderEpoch = i % 4 == 0 ? BatchHeader.NO_PARTITION_LEADER_EPOCH : i / 4;
                AppendInfo info = log.append(builder.build(777), leaderEpoch);
                appended.add(new Appended(info.firstOffset(), idempotent ? PRODUCER_ID : -1,
                        idempotent ? PRODUCER_EPOCH : -1, idempotent ? sequence : -1, leaderEpoch, records));
                if (idempotent) {
                    sequence += records.size();
                }
            }
            assertThat(log.segments()).as("setup: segment.bytes 1024 spreads the batches over several segments")
                    .hasSizeGreaterThan(3);
        }

        List<Path> files = new ArrayList<>();
        for (String name : LogFixtures.fileNames(dir)) {
            if (name.endsWith(Segment.LOG_SUFFIX)) {
                files.add(dir.resolve(name));
            }
        }
        int next = 0;
        for (Path file : files) {
            String where = file.getFileName().toString();
            try (FileRecords kafka = FileRecords.open(file.toFile())) {
                assertThat((long) kafka.sizeInBytes())
                        .as("%s: Kafka sees the whole file", where)
                        .isEqualTo(Files.size(file));
                boolean first = true;
                int bytes = 0;
                for (FileChannelRecordBatch batch : kafka.batches()) {
                    assertThat(next).as("%s: no more batches than were appended", where).isLessThan(appended.size());
                    Appended expected = appended.get(next);
                    String context = where + " batch " + next + " (" + expected.records().size() + " records)";
                    assertThatNoException()
                            .as("%s: Kafka's ensureValid checks the batch size and the CRC-32C over attributes..end:"
                                    + " assigning offsets (and stamping the leader epoch) kept the CRC valid", context)
                            .isThrownBy(batch::ensureValid);
                    if (first) {
                        assertThat(Segment.parseBaseOffset(where, Segment.LOG_SUFFIX).orElseThrow())
                                .as("%s: the file is named by the base offset of its first batch", where)
                                .isEqualTo(batch.baseOffset());
                        first = false;
                    }
                    assertBatch(context, expected, batch);
                    bytes += batch.sizeInBytes();
                    next++;
                }
                assertThat((long) bytes)
                        .as("%s: the batches Kafka found cover the file exactly, no trailing bytes", where)
                        .isEqualTo(Files.size(file));
            }
        }
        assertThat(next).as("Kafka found every appended batch, across %d segment files", files.size())
                .isEqualTo(BATCHES);
    }

    private static void assertBatch(String context, Appended expected, FileChannelRecordBatch batch) {
        int count = expected.records().size();
        assertThat(batch.magic()).as("%s: magic 2 (RecordBatch v2)", context).isEqualTo((byte) 2);
        assertThat(batch.baseOffset())
                .as("%s: the base offset the leader assigned (the producer sent 777)", context)
                .isEqualTo(expected.baseOffset());
        assertThat(batch.lastOffset())
                .as("%s: last offset = base offset + lastOffsetDelta (%d records)", context, count)
                .isEqualTo(expected.baseOffset() + count - 1);
        assertThat(batch.countOrNull()).as("%s: recordCount", context).isEqualTo(count);
        assertThat(batch.partitionLeaderEpoch())
                .as("%s: partitionLeaderEpoch as stamped by the leader (-1 when none was given)", context)
                .isEqualTo(expected.leaderEpoch());
        assertThat(batch.producerId())
                .as("%s: producerId (-1 for a plain batch, %d for the idempotent producer)", context, PRODUCER_ID)
                .isEqualTo(expected.producerId());
        assertThat(batch.producerEpoch()).as("%s: producerEpoch", context).isEqualTo(expected.producerEpoch());
        assertThat(batch.baseSequence()).as("%s: baseSequence", context).isEqualTo(expected.baseSequence());
        assertThat(batch.isCompressed()).as("%s: kaen-log writes no compression", context).isFalse();

        List<Record> records = new ArrayList<>();
        batch.iterator().forEachRemaining(records::add);
        assertThat(records).as("%s: every record is there", context).hasSize(count);
        for (int i = 0; i < count; i++) {
            Record actual = records.get(i);
            Rec want = expected.records().get(i);
            String at = context + " record " + i;
            assertThat(actual.offset())
                    .as("%s: offset = base offset + offsetDelta", at)
                    .isEqualTo(expected.baseOffset() + i);
            assertThat(actual.timestamp()).as("%s: timestamp", at).isEqualTo(want.timestamp());
            assertThat(bytes(actual.key())).as("%s: key (null stays null)", at).isEqualTo(want.key());
            assertThat(bytes(actual.value())).as("%s: value (null is a tombstone)", at).isEqualTo(want.value());
            assertThat(Arrays.stream(actual.headers()).map(h -> new RecordHeader(h.key(), h.value())).toList())
                    .as("%s: headers, in order", at)
                    .isEqualTo(want.headers());
            if (expected.baseSequence() >= 0) {
                assertThat(actual.sequence())
                        .as("%s: sequence = baseSequence + offsetDelta", at)
                        .isEqualTo(expected.baseSequence() + i);
            }
        }
    }

    /** 1 to 5 records with keys, values or headers sometimes null or missing. */
    private static List<Rec> randomRecords(Random random, int batch) {
        int n = 1 + random.nextInt(5);
        List<Rec> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = random.nextInt(6) == 0 ? null : utf8("key-" + batch + "-" + random.nextInt(10));
            byte[] value = random.nextInt(8) == 0 ? null : utf8("value-" + batch + "-" + i + "-" + "x".repeat(random.nextInt(30)));
            List<RecordHeader> headers = new ArrayList<>();
            for (int h = random.nextInt(3); h > 0; h--) {
                headers.add(new RecordHeader("h" + h, random.nextBoolean() ? null : utf8("hv" + random.nextInt(100))));
            }
            records.add(new Rec(T0 + batch * 10L + random.nextInt(10), key, value, headers));
        }
        return records;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        return buffer == null ? null : LogFixtures.bytesOf(buffer);
    }
}
