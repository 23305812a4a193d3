package kaenlog.log;

import static kaenlog.log.LogFixtures.appendBatches;
import static kaenlog.log.LogFixtures.appendBytes;
import static kaenlog.log.LogFixtures.baseOffsets;
import static kaenlog.log.LogFixtures.copyDir;
import static kaenlog.log.LogFixtures.crashed;
import static kaenlog.log.LogFixtures.fileNames;
import static kaenlog.log.LogFixtures.flipByte;
import static kaenlog.log.LogFixtures.numbered;
import static kaenlog.log.LogFixtures.sizeOfBatch;
import static kaenlog.log.LogFixtures.truncate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

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
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Assumptions;
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

    /**
     * Writes five 2-record batches (offsets 0..9) into dir/source and leaves the log as a crash
     * before any flush would: no clean-shutdown marker, no recovery point.
     */
    private Path writeSource() throws IOException {
        Path source = dir.resolve("source");
        try (Log log = Log.open(source, LogConfig.defaults())) {
            appendBatches(log, BATCHES, RECORDS);
        }
        crashed(source);
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
        crashed(dir);
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

    /**
     * Recovery rebuilds the index as it walks: every batch it keeps is tracked as an append tracks
     * it, so a read after a crash starts near its batch instead of scanning the segment from byte 0.
     */
    @Test
    void recoveryRebuildsTheIndexOfTheBatchesItKeeps() throws IOException {
        int size = sizeOfBatch(RECORDS);
        LogConfig config = LogConfig.defaults().withIndexIntervalBytes(0);
        List<OffsetIndex.Entry> beforeTheCrash;
        try (Log log = Log.open(dir, config)) {
            appendBatches(log, BATCHES, RECORDS);
            beforeTheCrash = log.activeSegment().indexEntries();
        }
        assertThat(beforeTheCrash).as("setup: index.interval.bytes 0, an entry for every batch but the first")
                .hasSize(BATCHES - 1);
        crashed(dir);
        truncate(dir.resolve(FIRST_SEGMENT), (long) (BATCHES - 1) * size + size / 2);

        try (Log log = Log.open(dir, config)) {
            assertThat(log.logEndOffset()).as("setup: the torn last batch is cut").isEqualTo((BATCHES - 1) * RECORDS);
            assertThat(log.activeSegment().indexEntries())
                    .as("recovery rebuilds the index on the way: each batch it keeps is tracked as an append would"
                            + " track it (track(header, position, true)), so the index holds again the entries of the"
                            + " whole batches 2..3, 4..5 and 6..7 (a segment's first batch gets none), and none for the"
                            + " torn one it cut")
                    .containsExactlyElementsOf(beforeTheCrash.subList(0, BATCHES - 2));
        }
    }

    // Task 5 (RecoveryTest), found by mutation testing (bench/mutation): recover() reports what it cut.

    @Test
    void recoverReturnsHowManyBytesItCut() throws IOException {
        Path source = writeSource();
        try (Log log = Log.open(source, LogConfig.defaults())) {
            Segment active = log.activeSegment();
            long good = Files.size(active.logFile());
            appendBytes(active.logFile(), new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 50, 1}); // a torn 13-byte tail

            assertThat(active.recover())
                    .as("the file holds %d good bytes and a torn tail of 13: recover() truncates to the last good batch"
                            + " and returns the bytes it cut (file size - where the good batches end), the figure a"
                            + " broker logs after a crash", good)
                    .isEqualTo(13L);
            assertThat(Files.size(active.logFile()))
                    .as("and the file is back to its %d good bytes", good)
                    .isEqualTo(good);
            assertThat(active.recover())
                    .as("a second recover() finds nothing to cut: 0")
                    .isZero();
        }
    }

    /**
     * After an unclean shutdown only the batches from the recovery point on are checked: a flush
     * moved it to 80, so a flipped byte in batch 50 is kept (reported when read) and one in batch
     * 90 is cut with everything after it, and the broker's log says exactly what: file, byte,
     * offsets, how many batches.
     */
    @Test
    void afterAnUncleanShutdownRecoveryStartsAtTheRecoveryPointAndSaysWhatItCut() throws IOException {
        int size = sizeOfBatch(1);
        Path crash = dir.resolve("crash");
        try (Log log = Log.open(dir.resolve("live"), LogConfig.defaults())) {
            appendBatches(log, 80, 1);
            log.flush();
            assertThat(log.recoveryPoint()).as("a flush moves the recovery point to the log end offset").isEqualTo(80);
            for (int i = 80; i < 100; i++) {
                log.append(numbered(i, 1));
            }
            copyDir(log.dir(), crash); // what a SIGKILL leaves: the files as written, no clean-shutdown marker
        }
        Path file = crash.resolve(FIRST_SEGMENT);
        flipByte(file, LogFixtures.insideLastRecordOf(50, size));
        flipByte(file, LogFixtures.insideLastRecordOf(90, size));

        try (Log log = Log.open(crash, LogConfig.defaults())) {
            assertThat(log.logEndOffset())
                    .as("batch 90 (past the recovery point 80) fails its CRC: recovery cuts it and the rest, LEO 90")
                    .isEqualTo(90);
            assertThat(Files.size(file)).as("the file ends where batch 90 began").isEqualTo(90L * size);
            assertThat(log.openEvents())
                    .as("the cut is reported: the file, the byte, how many batches with which offsets")
                    .anyMatch(line -> line.contains("recovery cut " + FIRST_SEGMENT + " at byte " + 90 * size)
                            && line.contains("10 whole batch(es) with offsets 90..99"));
            assertThatCode(() -> log.read(50, Integer.MAX_VALUE, FetchIsolation.LOG_END))
                    .as("batch 50 is below the recovery point: flushed, acknowledged, not cut; its damage is"
                            + " reported when it is read")
                    .isInstanceOf(CorruptRecordException.class);
            assertThat(LogFixtures.recordOffsets(log.read(51, Integer.MAX_VALUE, FetchIsolation.LOG_END)))
                    .as("51..89 are all there").containsExactlyElementsOf(LongStream.range(51, 90).boxed().toList());
        }
    }

    /**
     * Issue case 2, as an older broker left it: a write failed half-way (no space) and a roll came
     * after it, so a closed segment ends in part of a batch. No clean shutdown, no recovery point:
     * recovery checks every segment and cuts that tail, which no producer was ever told was written.
     */
    @Test
    void aTornTailInAClosedSegmentIsCutAndTheLogStaysReadable() throws IOException {
        int size = sizeOfBatch(1);
        LogConfig config = LogConfig.defaults().withSegmentBytes(3 * size);
        try (Log log = Log.open(dir, config)) {
            appendBatches(log, 6, 1);
            assertThat(log.segments()).extracting(Segment::baseOffset).as("setup").containsExactly(0L, 3L);
        }
        crashed(dir);
        Path closed = dir.resolve(FIRST_SEGMENT);
        byte[] half = Arrays.copyOf(Files.readAllBytes(closed), size / 2);
        appendBytes(closed, half);

        try (Log log = Log.open(dir, config)) {
            assertThat(Files.size(closed)).as("the half batch after the closed segment's last one is cut")
                    .isEqualTo(3L * size);
            assertThat(log.openEvents()).as("and the cut is reported")
                    .anyMatch(line -> line.contains("recovery cut " + FIRST_SEGMENT + " at byte " + 3 * size));
            assertThat(LogFixtures.recordOffsets(log.read(0, Integer.MAX_VALUE, FetchIsolation.LOG_END)))
                    .as("every acknowledged record is readable at its offset")
                    .containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
            assertThat(log.append(numbered(6, 1)).firstOffset()).as("and appends go on at 6").isEqualTo(6);
        }
    }


    private static final String RECOVERY = "after a crash every batch from the recovery point on is checked in order"
            + " (whole, its length, magic, CRC and records valid, its offsets following the batch before it) and the"
            + " file is cut at the first that is torn or fails: every batch before it is kept, none after it; the"
            + " index is rebuilt from the kept batches by the append's rule";

    /** A segment's batches, its index.interval.bytes, and the damage a crash and the disk did to its file. */
    private record Crash(List<byte[]> batches, int interval, int again, Gens.Faults faults, boolean lastBatchOnly) {
        @Override
        public String toString() {
            return "a segment of " + LogGens.show(batches) + " (index.interval.bytes " + interval + ")"
                    + (again < 0 ? "" : ", batch " + again + " written again at its end,") + " damaged by "
                    + faults.faults() + (lastBatchOnly ? " in its last batch" : "");
        }
    }

    /** Segments of a few batches; sometimes an earlier batch written again at the end (a stale block); faults. */
    private static Gen<Crash> crashes() {
        Gen<Integer> intervals = Gens.elements(0, 100, 4096);
        return c -> {
            List<byte[]> batches = LogGens.logs(1, 10).generate(c);
            int again = Gens.oneOf(Gens.constant(-1), Gens.ints(0, batches.size() - 1)).generate(c);
            return new Crash(batches, intervals.generate(c), again, Gens.faults().generate(c), Gens.booleans().generate(c));
        };
    }

    /** The bytes recovery cut, as the log's open events say it ("recovery cut F at byte N: C byte(s)..."); 0 when none. */
    private static long bytesCut(List<String> events) {
        long cut = 0;
        for (String event : events) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("recovery cut \\S+ at byte \\d+: (\\d+) byte")
                    .matcher(event);
            if (m.find()) {
                cut += Long.parseLong(m.group(1));
            }
        }
        return cut;
    }

    @Test
    void everyCrashIsRecoveredAsKafkasLogSegmentRecoverCutsIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir)) {
            Property.forAll(crashes()).tries(30).shrinkBudget(LogGens.SHRINKS).check(in -> {
                Path logDir = tries.newDir();
                LogConfig config = new LogConfig(LogConfig.DEFAULT_SEGMENT_BYTES, in.interval());
                int lastStart = 0;
                try (Log log = Log.open(logDir, config)) {
                    for (byte[] batch : in.batches()) {
                        lastStart = log.activeSegment().size();
                        log.append(LogGens.wrap(batch), 0); // Kafka's log holds no batch without a leader epoch
                    }
                }
                crashed(logDir);
                Path file = logDir.resolve(FIRST_SEGMENT);
                byte[] written = Files.readAllBytes(file);
                if (in.again() >= 0) {
                    written = again(written, in.again());
                }
                byte[] damaged = in.faults().apply(written, in.lastBatchOnly() ? lastStart : 0, written.length);
                Files.write(file, damaged);
                Files.deleteIfExists(logDir.resolve(Segment.fileName(0, Segment.INDEX_SUFFIX)));

                KafkaStorage.Recovered kafka = KafkaStorage.recover(logDir.resolve("kafka"), 0, damaged, in.interval());
                byte[] kafkaKept = cutWhereOffsetsDoNotFollow(kafka.kept());
                try (Log log = Log.open(logDir, config)) {
                    byte[] kept = Files.readAllBytes(file);
                    Judge.agree(in.toString(), "bytes kept", kept.length, "LogSegment.recover keeps", kafkaKept.length,
                            RECOVERY);
                    if (kafka.index() != null && kafkaKept.length == kafka.kept().length) {
                        Judge.agree(in.toString(), "rebuilt index", log.activeSegment().indexEntries(),
                                "LogSegment.recover rebuilds", kafka.index(), RECOVERY);
                    }
                    Judge.agree(in.toString(), "log end offset", log.logEndOffset(), "LogSegment.recover goes on at",
                            nextOffset(kafkaKept), RECOVERY);
                    Judge.agree(in.toString(), "bytes cut (the figure the broker logs)", bytesCut(log.openEvents()),
                            "LogSegment.recover returns", (long) damaged.length - kafkaKept.length, RECOVERY
                                    + "; recovery returns how many bytes it cut");
                }
            });
        }
    }

    /** The segment's bytes with batch {@code i} (as written, at its own offsets) written again at the end. */
    private static byte[] again(byte[] segment, int i) {
        List<ByteBuffer> batches = RecordBatch.sliceAll(ByteBuffer.wrap(segment));
        ByteBuffer copy = batches.get(i).duplicate();
        byte[] out = Arrays.copyOf(segment, segment.length + copy.remaining());
        copy.get(out, segment.length, copy.remaining());
        return out;
    }

    /**
     * The difference the guide declares: the CRC does not cover baseOffset, and Kafka's recovery does not look
     * at it; kaen-log's also cuts at a batch whose offsets go back (or leap beyond what an index entry holds).
     */
    private static byte[] cutWhereOffsetsDoNotFollow(byte[] kept) {
        ByteBuffer in = ByteBuffer.wrap(kept);
        long next = 0;
        while (in.hasRemaining()) {
            BatchHeader header = BatchHeader.readFrom(in.duplicate());
            if (header.baseOffset() < next || header.lastOffset() > Integer.MAX_VALUE) {
                break;
            }
            next = header.nextOffset();
            in.position(in.position() + header.sizeInBytes());
        }
        return Arrays.copyOf(kept, in.position());
    }

    private static long nextOffset(byte[] kept) {
        long next = 0;
        for (ByteBuffer batch : RecordBatch.sliceAll(ByteBuffer.wrap(kept))) {
            next = BatchHeader.readFrom(batch.duplicate()).nextOffset();
        }
        return next;
    }
}
