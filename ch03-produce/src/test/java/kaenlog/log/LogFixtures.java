package kaenlog.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;

/**
 * What chapter 3's tests share: producer batches with known contents, byte copies, and file
 * surgery (copy a log directory, cut or flip a byte) for the crash tests. Uses chapter 1 only, so
 * a red test on the skeleton is red because of a chapter 3 TODO, never because of a fixture.
 */
public final class LogFixtures {
    /** The time every test starts at: time is a number passed in, never read from a clock. */
    public static final long T0 = 1_700_000_000_000L;

    private LogFixtures() {
    }

    /**
     * A producer's batch of {@code records} records, keys {@code tag-0..}, values {@code value-tag-0..},
     * timestamps T0, T0+1, ... Built at base offset 0, as a producer sends it.
     */
    public static ByteBuffer batch(String tag, int records) {
        return builder(tag, records).build();
    }

    public static BatchBuilder builder(String tag, int records) {
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < records; i++) {
            builder.append(T0 + i, tag + "-" + i, "value-" + tag + "-" + i);
        }
        return builder;
    }

    /** The bytes from position to limit, without moving the buffer. */
    public static byte[] bytesOf(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Every batch of a buffer (a read result, a whole segment file), decoded and CRC-checked. */
    public static List<RecordBatch> decodeAll(ByteBuffer buffer) {
        return RecordBatch.decodeAll(buffer.duplicate());
    }

    /** The base offsets of the batches of a buffer. */
    public static List<Long> baseOffsets(ByteBuffer buffer) {
        return decodeAll(buffer).stream().map(RecordBatch::baseOffset).toList();
    }

    /** Every record's offset, in order. */
    public static List<Long> recordOffsets(ByteBuffer buffer) {
        return decodeAll(buffer).stream().flatMap(b -> b.records().stream()).map(Record::offset).toList();
    }

    /** The name of the 61-byte header field that holds byte {@code i} of a batch (for hex diffs). */
    public static String fieldAt(int i) {
        if (i < BatchHeader.BATCH_LENGTH_OFFSET) {
            return "baseOffset";
        } else if (i < BatchHeader.PARTITION_LEADER_EPOCH_OFFSET) {
            return "batchLength";
        } else if (i < BatchHeader.MAGIC_OFFSET) {
            return "partitionLeaderEpoch";
        } else if (i < BatchHeader.CRC_OFFSET) {
            return "magic";
        } else if (i < BatchHeader.ATTRIBUTES_OFFSET) {
            return "crc";
        } else if (i < BatchHeader.LAST_OFFSET_DELTA_OFFSET) {
            return "attributes";
        } else if (i < BatchHeader.BASE_TIMESTAMP_OFFSET) {
            return "lastOffsetDelta";
        } else if (i < BatchHeader.MAX_TIMESTAMP_OFFSET) {
            return "baseTimestamp";
        } else if (i < BatchHeader.PRODUCER_ID_OFFSET) {
            return "maxTimestamp";
        } else if (i < BatchHeader.PRODUCER_EPOCH_OFFSET) {
            return "producerId";
        } else if (i < BatchHeader.BASE_SEQUENCE_OFFSET) {
            return "producerEpoch";
        } else if (i < BatchHeader.RECORD_COUNT_OFFSET) {
            return "baseSequence";
        } else if (i < BatchHeader.SIZE) {
            return "recordCount";
        }
        return "records";
    }

    /** Copies the files of a (closed) log directory into {@code to}, which is created. */
    public static Path copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.sorted().toList()) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
        return to;
    }

    /** The file names of a directory, sorted. */
    public static List<String> fileNames(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Makes a closed log look like one whose broker died before it ever flushed: no clean-shutdown
     * marker (so the next open recovers) and no recovery point (so it recovers every batch).
     */
    public static void crashed(Path logDir) throws IOException {
        Files.deleteIfExists(logDir.resolve(Log.CLEAN_SHUTDOWN_FILE));
        Files.deleteIfExists(logDir.resolve(Log.RECOVERY_POINT_FILE));
    }

    /** Cuts a file at {@code size} bytes, as a crash in the middle of a write leaves it. */
    public static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    /** Inverts every bit of byte {@code position} of a file. */
    public static void flipByte(Path file, int position) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[position] ^= (byte) 0xFF;
        Files.write(file, bytes);
    }

    /** Adds bytes at the end of a file. */
    public static void appendBytes(Path file, byte[] bytes) throws IOException {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }

    /**
     * Appends {@code count} batches of {@code recordsEach} records (tags b000, b001, ...: equal lengths, so
     * every batch has the size of {@link #sizeOfBatch}) and returns where they landed.
     */
    public static List<AppendInfo> appendBatches(Log log, int count, int recordsEach) throws IOException {
        List<AppendInfo> infos = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            infos.add(log.append(numbered(i, recordsEach)));
        }
        return infos;
    }

    /** Batch number {@code i} of {@link #appendBatches}. */
    public static ByteBuffer numbered(int i, int records) {
        return batch(String.format("b%03d", i), records);
    }

    /** The size in bytes of every batch {@link #appendBatches} writes with {@code records} records. */
    public static int sizeOfBatch(int records) {
        return numbered(0, records).remaining();
    }

    /** Byte {@code at} from the end of batch {@code i} of {@link LogFixtures#appendBatches}: inside its last record, covered by the CRC. */
    public static int insideLastRecordOf(int i, int size) {
        return i * size + size - 2;
    }
}
