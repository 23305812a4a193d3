package kaenlog.log;

import static kaenlog.log.LogFixtures.appendBatches;
import static kaenlog.log.LogFixtures.appendBytes;
import static kaenlog.log.LogFixtures.baseOffsets;
import static kaenlog.log.LogFixtures.copyDir;
import static kaenlog.log.LogFixtures.fileNames;
import static kaenlog.log.LogFixtures.flipByte;
import static kaenlog.log.LogFixtures.numbered;
import static kaenlog.log.LogFixtures.sizeOfBatch;
import static kaenlog.log.LogFixtures.truncate;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.testkit.Hex;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task 5: recovery by truncating the tail. A broker that crashes in the middle of a write leaves a
 * torn batch at the end of the active segment. Opening the log walks the active segment batch by
 * batch, validating each (lengths, magic, CRC), and cuts the file at the first batch that is torn
 * or corrupt: every complete batch before it survives, nothing after it does, and the log goes on
 * at the offset after the last good batch (Kafka's LogSegment.recover).
 *
 * <p>Opening is recovery's job in every case: a cleanly closed log reopens with every segment,
 * offset and byte as it was, and a closed segment's missing or damaged index is rebuilt from its
 * batches.
 *
 * <p>The crash is simulated exhaustively: for every byte position inside the last batch, a copy of
 * the log is cut there (or that byte is flipped) and reopened.
 */
@Order(5)
class RecoveryTest {
    private static final int BATCHES = 5;
    private static final int RECORDS = 2;
    private static final String FIRST_SEGMENT = "00000000000000000000.log";

    @TempDir
    Path dir;

    /** Writes five 2-record batches (offsets 0..9) into dir/source and closes the log. */
    private Path writeSource() throws IOException {
        Path source = dir.resolve("source");
        try (Log log = Log.open(source, LogConfig.defaults())) {
            appendBatches(log, BATCHES, RECORDS);
        }
        return source;
    }

    @Test
    void aLogCutAtAnyByteOfItsLastBatchKeepsEveryCompleteBatchAndGoesOnFromThere() throws IOException {
        Path source = writeSource();
        int size = sizeOfBatch(RECORDS);
        long lastStart = (long) (BATCHES - 1) * size;
        long lastBase = (long) (BATCHES - 1) * RECORDS;
        assertThat(Files.size(source.resolve(FIRST_SEGMENT))).as("setup: five whole batches").isEqualTo(BATCHES * size);

        for (long cut = lastStart; cut < lastStart + size; cut++) {
            Path copy = copyDir(source, dir.resolve("cut-" + cut));
            Path file = copy.resolve(FIRST_SEGMENT);
            truncate(file, cut);
            String crash = "file cut at byte " + cut + " (" + (cut - lastStart) + " of the last batch's " + size + ")";

            try (Log log = Log.open(copy, LogConfig.defaults())) {
                assertThat(log.logEndOffset())
                        .as("%s: the four complete batches survive and the torn one is gone, so the log ends where"
                                + " the last batch began: LEO %d", crash, lastBase)
                        .isEqualTo(lastBase);
                assertThat(Files.size(file))
                        .as("%s: recovery truncates the file to the end of the last good batch, byte %d: the torn"
                                + " bytes must not stay, or the next append would land behind garbage", crash, lastStart)
                        .isEqualTo(lastStart);
                assertThat(offsetsIn(log))
                        .as("%s: every record of the complete batches is still there", crash)
                        .containsExactlyElementsOf(LongStream.range(0, lastBase).boxed().toList());

                AppendInfo next = log.append(numbered(99, RECORDS));
                assertThat(next.firstOffset())
                        .as("%s: the log accepts a new append at LEO %d", crash, lastBase)
                        .isEqualTo(lastBase);
                assertThat(RecordBatch.decodeAll(ByteBuffer.wrap(Files.readAllBytes(file))))
                        .extracting(RecordBatch::baseOffset)
                        .as("%s: the whole file decodes again, the new batch right after the good ones", crash)
                        .containsExactly(0L, 2L, 4L, 6L, 8L);
            }
        }
    }

    /**
     * Every byte of the last batch from batchLength on is flipped, except partitionLeaderEpoch
     * (bytes 12..15). The CRC covers attributes..end (bytes 21..); a flip in batchLength, magic or
     * the crc itself is caught by the length and magic checks or by the CRC no longer matching.
     * baseOffset (0..7) and partitionLeaderEpoch (12..15) are the two fields the CRC deliberately
     * leaves out, because the leader rewrites them on every append without recomputing it (chapter
     * 1): a flip there is invisible to the checksum. A flipped baseOffset may still be caught by
     * the rule that offsets only grow, but not always (a larger offset looks legal), so those bytes
     * are not part of this exhaustive test.
     */
    @Test
    void aFlippedByteAnywhereTheChecksCanSeeMakesRecoveryCutTheLastBatch() throws IOException {
        Path source = writeSource();
        int size = sizeOfBatch(RECORDS);
        long lastStart = (long) (BATCHES - 1) * size;
        long lastBase = (long) (BATCHES - 1) * RECORDS;
        int checked = 0;

        for (int at = BatchHeader.BATCH_LENGTH_OFFSET; at < size; at++) {
            if (at >= BatchHeader.PARTITION_LEADER_EPOCH_OFFSET && at < BatchHeader.MAGIC_OFFSET) {
                continue;
            }
            Path copy = copyDir(source, dir.resolve("flip-" + at));
            Path file = copy.resolve(FIRST_SEGMENT);
            flipByte(file, (int) lastStart + at);
            String crash = "byte " + at + " (" + LogFixtures.fieldAt(at) + ") of the last batch flipped";

            try (Log log = Log.open(copy, LogConfig.defaults())) {
                assertThat(log.logEndOffset())
                        .as("%s: the batch no longer validates (length, magic or CRC-32C), so recovery cuts it:"
                                + " LEO %d", crash, lastBase)
                        .isEqualTo(lastBase);
                assertThat(Files.size(file))
                        .as("%s: the corrupt batch is truncated away, the file ends at byte %d", crash, lastStart)
                        .isEqualTo(lastStart);
                assertThat(log.append(numbered(99, RECORDS)).firstOffset())
                        .as("%s: appends go on at %d", crash, lastBase)
                        .isEqualTo(lastBase);
            }
            checked++;
        }
        assertThat(checked).as("every byte but the 12 of baseOffset and partitionLeaderEpoch was tried")
                .isEqualTo(size - 12);
    }

    /** What a crash can leave after the last complete batch. */
    enum Tail {
        SEVEN_BYTES_OF_GARBAGE,
        A_HUNDRED_RANDOM_BYTES,
        ZEROS_OF_A_PREALLOCATED_FILE,
        A_LENGTH_OF_TWO_GIGABYTES,
        AN_EARLIER_BATCH_AGAIN
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Tail.class)
    void bytesAfterTheLastValidBatchAreCut(Tail tail) throws IOException {
        Path source = writeSource();
        int size = sizeOfBatch(RECORDS);
        Path file = source.resolve(FIRST_SEGMENT);
        byte[] good = Files.readAllBytes(file);
        appendBytes(file, switch (tail) {
            case SEVEN_BYTES_OF_GARBAGE -> new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 1, 2, 3};
            case A_HUNDRED_RANDOM_BYTES -> {
                byte[] random = new byte[100];
                new Random(5).nextBytes(random);
                yield random;
            }
            case ZEROS_OF_A_PREALLOCATED_FILE -> new byte[4096];
            case A_LENGTH_OF_TWO_GIGABYTES -> ByteBuffer.allocate(200).putLong(10).putInt(Integer.MAX_VALUE)
                    .putInt(-1).put(BatchHeader.MAGIC).array();
            case AN_EARLIER_BATCH_AGAIN -> Arrays.copyOfRange(good, 0, size);
        });

        try (Log log = Log.open(source, LogConfig.defaults())) {
            assertThat(Files.size(file))
                    .as("%s: recovery cuts everything after the last valid batch (for a repeated earlier batch: its"
                            + " offsets go backwards, so it cannot belong to this log)", tail)
                    .isEqualTo(good.length);
            assertThat(Files.readAllBytes(file))
                    .as("%s: the valid batches are untouched", tail)
                    .isEqualTo(good);
            assertThat(log.logEndOffset())
                    .as("%s: all five batches survive: LEO 10", tail)
                    .isEqualTo(BATCHES * RECORDS);
            assertThat(log.append(numbered(99, RECORDS)).firstOffset())
                    .as("%s: the next append lands at 10, right after the valid batches", tail)
                    .isEqualTo(BATCHES * RECORDS);
        }
    }

    @Test
    void aTornFirstBatchOfTheActiveSegmentLeavesTheLogEndAtThatSegmentsBaseOffset() throws IOException {
        int size = sizeOfBatch(RECORDS);
        LogConfig config = LogConfig.defaults().withSegmentBytes(2 * size);
        Path active;
        List<Long> closedSizes = new ArrayList<>();
        try (Log log = Log.open(dir, config)) {
            appendBatches(log, BATCHES, RECORDS);
            assertThat(log.segments()).extracting(Segment::baseOffset).as("setup").containsExactly(0L, 4L, 8L);
            active = log.activeSegment().logFile();
            for (Segment s : log.segments().subList(0, 2)) {
                closedSizes.add(Files.size(s.logFile()));
            }
        }
        truncate(active, size / 2);

        try (Log log = Log.open(dir, config)) {
            assertThat(log.activeSegment().size())
                    .as("the active segment's only batch was torn: the segment is empty after recovery")
                    .isZero();
            assertThat(log.logEndOffset())
                    .as("an empty active segment ends where it begins: LEO = its base offset 8")
                    .isEqualTo(8);
            assertThat(log.segments().subList(0, 2).stream().map(s -> (long) s.size()).toList())
                    .as("the closed segments are untouched")
                    .isEqualTo(closedSizes);
            assertThat(log.append(numbered(99, RECORDS)).firstOffset())
                    .as("the next append gets offset 8, in the active segment")
                    .isEqualTo(8);
            assertThat(log.segments()).as("no new segment was needed").hasSize(3);
        }
    }

    private static List<Long> offsetsIn(Log log) throws IOException {
        List<Long> offsets = new ArrayList<>();
        for (Segment segment : log.segments()) {
            for (RecordBatch batch : segment.batches()) {
                batch.records().forEach(r -> offsets.add(r.offset()));
            }
        }
        return offsets;
    }

    @Test
    void aLogReopenedAfterCloseHasEverySegmentOffsetAndByte() throws IOException {
        int size = sizeOfBatch(2);
        LogConfig config = LogConfig.defaults().withSegmentBytes(3 * size);
        List<Long> bases;
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (Log log = Log.open(dir, config)) {
            appendBatches(log, 8, 2);
            bases = log.segments().stream().map(Segment::baseOffset).toList();
        }
        for (String name : fileNames(dir)) {
            files.put(name, Files.readAllBytes(dir.resolve(name)));
        }

        try (Log log = Log.open(dir, config)) {
            assertThat(log.segments()).extracting(Segment::baseOffset)
                    .as("the segments are found again from their file names")
                    .containsExactlyElementsOf(bases)
                    .containsExactly(0L, 6L, 12L);
            assertThat(log.logEndOffset()).as("16 records were written: LEO 16 again").isEqualTo(16);
            assertThat(log.highWatermark())
                    .as("with one replica everything on disk is committed: HW = LEO after a restart")
                    .isEqualTo(16);
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                byte[] now = Files.readAllBytes(dir.resolve(file.getKey()));
                assertThat(now)
                        .as("%s is byte for byte what was written: opening a clean log changes nothing%n%s",
                                file.getKey(), Hex.firstDifference(file.getValue(), now, i -> "byte " + i))
                        .isEqualTo(file.getValue());
            }
            List<Long> offsets = new ArrayList<>();
            for (Segment segment : log.segments()) {
                segment.batches().forEach(b -> b.records().forEach(r -> offsets.add(r.offset())));
            }
            assertThat(offsets)
                    .as("every record is still there, at its offset")
                    .containsExactlyElementsOf(LongStream.range(0, 16).boxed().toList());

            AppendInfo next = log.append(numbered(8, 2));
            assertThat(next.firstOffset())
                    .as("appending goes on at the log end offset: 16")
                    .isEqualTo(16);
        }
    }

    /** The three ways an index file can be wrong after a crash or a disk fault. */
    enum BrokenIndex {
        DELETED, FIVE_GARBAGE_BYTES, ENTRIES_THAT_DO_NOT_GROW
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(BrokenIndex.class)
    void aMissingOrCorruptIndexOfAClosedSegmentIsRebuiltOnOpenAndReadsStillWork(BrokenIndex broken) throws IOException {
        int batchSize = LogFixtures.sizeOfBatch(3);
        LogConfig config = new LogConfig(batchSize * 20, batchSize * 2);
        List<OffsetIndex.Entry> before;
        Path indexFile;
        List<AppendInfo> infos;
        try (Log log = Log.open(dir, config)) {
            infos = appendBatches(log, 50, 3);
            assertThat(log.segments()).as("20 batches a segment: 50 batches make 3 segments").hasSize(3);
            Segment closed = log.segments().get(0);
            before = closed.indexEntries();
            indexFile = closed.indexFile();
            assertThat(before).as("the closed segment's index has entries to lose").hasSizeGreaterThan(2);
        }

        switch (broken) {
            case DELETED -> Files.delete(indexFile);
            case FIVE_GARBAGE_BYTES -> Files.write(indexFile, new byte[] {1, 2, 3, 4, 5});
            case ENTRIES_THAT_DO_NOT_GROW -> Files.write(indexFile, ByteBuffer.allocate(16)
                    .putInt(10).putInt(900).putInt(5).putInt(1_000).array());
        }

        try (Log log = Log.open(dir, config)) {
            Segment closed = log.segments().get(0);
            assertThat(closed.indexEntries())
                    .as("%s: Log.open must not trust an index it cannot use (missing, a partial 8-byte entry, offsets"
                            + " that go backwards); it rebuilds it from the segment's batches, giving the same entries",
                            broken)
                    .containsExactlyElementsOf(before);
            assertThat(Files.size(closed.indexFile()))
                    .as("%s: the rebuilt index is on disk again, 8 bytes per entry", broken)
                    .isEqualTo((long) before.size() * OffsetIndex.ENTRY_SIZE);
            for (AppendInfo info : infos) {
                ByteBuffer read = log.read(info.lastOffset(), 1, FetchIsolation.LOG_END);
                assertThat(baseOffsets(read))
                        .as("%s: a read at offset %d finds the batch holding it through the rebuilt index", broken,
                                info.lastOffset())
                        .containsExactly(info.firstOffset());
            }
        }
    }
}
