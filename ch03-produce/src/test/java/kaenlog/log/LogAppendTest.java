package kaenlog.log;

import static kaenlog.log.LogFixtures.appendBatches;
import static kaenlog.log.LogFixtures.builder;
import static kaenlog.log.LogFixtures.bytesOf;
import static kaenlog.log.LogFixtures.fileNames;
import static kaenlog.log.LogFixtures.numbered;
import static kaenlog.log.LogFixtures.sizeOfBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task 3: appending as the leader. The leader, never the producer, decides offsets: it rewrites a
 * batch's baseOffset to the log end offset (chapter 1: the CRC does not cover it, so it stays
 * valid). The log end offset (LEO) is the offset the next record gets; with one replica the high
 * watermark follows it on every append. A full active segment is closed and a new one, named by
 * its base offset, takes the next batch (segment.bytes).
 */
@Order(3)
class LogAppendTest {
    @TempDir
    Path dir;

    @Test
    void theLeaderAssignsOffsetsFromTheLogEndWhateverBaseOffsetTheProducerSent() throws IOException {
        ByteBuffer first = builder("a", 3).build(999);
        ByteBuffer second = builder("b", 2).build(999);
        byte[] firstSent = bytesOf(first);
        byte[] secondSent = bytesOf(second);
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            AppendInfo a = log.append(first);
            AppendInfo b = log.append(second);

            assertThat(a)
                    .as("the producer said baseOffset 999; the leader ignores it and gives the batch the log end"
                            + " offset: offsets 0..2 for 3 records")
                    .isEqualTo(new AppendInfo(0, 2, 3));
            assertThat(b)
                    .as("the next batch starts where the first ended, at 3, again whatever the producer sent")
                    .isEqualTo(new AppendInfo(3, 4, 2));

            byte[] onDisk = Files.readAllBytes(log.activeSegment().logFile());
            byte[] expected = new byte[firstSent.length + secondSent.length];
            ByteBuffer.wrap(expected).put(firstSent).put(secondSent).putLong(0, 0L).putLong(firstSent.length, 3L);
            assertThat(onDisk)
                    .as("the segment holds the producer's bytes unchanged except the 8 bytes of baseOffset"
                            + " (0, then 3): offsets are assigned by rewriting one header field%n%s",
                            Hex.firstDifference(expected, onDisk, LogFixtures::fieldAt))
                    .isEqualTo(expected);

            ByteBuffer file = ByteBuffer.wrap(onDisk);
            assertThat(BatchCrc.stored(file))
                    .as("the first batch's CRC is the one the producer computed: the leader did not recompute it")
                    .isEqualTo(BatchCrc.stored(ByteBuffer.wrap(firstSent)));
            assertThat(BatchCrc.isValid(ByteBuffer.wrap(onDisk, 0, firstSent.length).slice()))
                    .as("and it is still valid: the CRC covers attributes..end, baseOffset sits outside it")
                    .isTrue();
            assertThat(BatchCrc.isValid(ByteBuffer.wrap(onDisk, firstSent.length, secondSent.length).slice()))
                    .as("the second batch's CRC is valid too, at its new offset 3")
                    .isTrue();
            List<RecordBatch> batches = RecordBatch.decodeAll(file.duplicate());
            assertThat(batches.stream().flatMap(bb -> bb.records().stream()).map(Record::offset).toList())
                    .as("records store only offset deltas, so all five moved to 0..4 with their batches")
                    .containsExactly(0L, 1L, 2L, 3L, 4L);
        }
    }

    @Test
    void theLogEndOffsetIsAlwaysTheNextOffsetToBeWritten() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            long expected = 0;
            for (int records : new int[] {1, 4, 2, 7}) {
                AppendInfo info = log.append(builder("r" + records, records).build());
                expected += records;
                assertThat(info.lastOffset() + 1)
                        .as("a batch of %d records ends at offset %d", records, expected - 1)
                        .isEqualTo(expected);
                assertThat(log.logEndOffset())
                        .as("after %d records in all, the next offset is %d: LEO = last offset + 1", expected, expected)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void withOneReplicaTheHighWatermarkFollowsTheLogEndEagerly() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            assertThat(log.eagerHighWatermark()).as("a new log moves its high watermark eagerly").isTrue();
            for (int i = 0; i < 4; i++) {
                AppendInfo info = log.append(numbered(i, 3));
                assertThat(log.highWatermark())
                        .as("after the batch %d..%d the only replica has it, so it is committed at once:"
                                + " HW = LEO = %d", info.firstOffset(), info.lastOffset(), info.lastOffset() + 1)
                        .isEqualTo(log.logEndOffset())
                        .isEqualTo(info.lastOffset() + 1);
            }
        }
    }

    @Test
    void stopEagerHighWatermarkLeavesTheHighWatermarkWhereItIs() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            appendBatches(log, 1, 3);
            log.stopEagerHighWatermark();
            appendBatches(log, 2, 3);

            assertThat(log.eagerHighWatermark()).as("eager mode is off").isFalse();
            assertThat(log.logEndOffset()).as("the appends still happen: LEO 9").isEqualTo(9);
            assertThat(log.highWatermark())
                    .as("chapter 8's leader moves the HW only when followers have the records; appends no longer"
                            + " move it: it stays at 3")
                    .isEqualTo(3);

            log.updateHighWatermark(6);
            assertThat(log.highWatermark()).as("updateHighWatermark(6) sets it").isEqualTo(6);
            assertThatCode(() -> log.updateHighWatermark(10))
                    .as("the HW can never pass the log end offset (9): nothing above the LEO exists to commit")
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(log.highWatermark()).as("a refused update leaves it at 6").isEqualTo(6);
        }
    }

    // Chapter 7 puts its producer state in front of this append (Log.AppendHook): the step validates,
    // judges and writes the proof through append(ValidatedBatch), and the leader epoch a replicated
    // chapter passes in must still reach the batch the step wrote.
    @Test
    void aStepInFrontOfTheAppendWritesThroughTheLeadersAppendAndKeepsTheLeaderEpoch() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            List<Long> stepRanAt = new ArrayList<>();
            log.setAppendHook((hooked, batch) -> {
                stepRanAt.add(hooked.logEndOffset());
                return hooked.append(hooked.validate(batch));
            });
            AppendInfo first = log.append(builder("a", 2).build(999), 7);
            AppendInfo second = log.append(builder("b", 1).build(999));

            assertThat(stepRanAt)
                    .as("the step runs once per append, before the write (at log end offset 0, then 2)")
                    .containsExactly(0L, 2L);
            assertThat(List.of(first, second))
                    .as("the step's write is the leader's append: offsets from the log end, 0..1 then 2..2")
                    .containsExactly(new AppendInfo(0, 1, 2), new AppendInfo(2, 2, 1));
            List<BatchHeader> written = log.activeSegment().headers();
            assertThat(written.get(0).partitionLeaderEpoch())
                    .as("append(batch, 7) stamps leader epoch 7 on the batch even when a step in front wrote it")
                    .isEqualTo(7);
            assertThat(written.get(1).partitionLeaderEpoch())
                    .as("and an append without an epoch leaves the batch's -1")
                    .isEqualTo(BatchHeader.NO_PARTITION_LEADER_EPOCH);
        }
    }

    @Test
    void onlyANonEmptySegmentThatTheBatchWouldPushPastSegmentBytesRolls() {
        assertThat(Log.shouldRoll(0, 100, 100))
                .as("an empty segment never rolls: a new one would be just as empty")
                .isFalse();
        assertThat(Log.shouldRoll(60, 40, 100))
                .as("60 + 40 = 100 = segment.bytes: the batch fits exactly, no roll")
                .isFalse();
        assertThat(Log.shouldRoll(60, 41, 100))
                .as("60 + 41 = 101 > segment.bytes 100: the batch would not fit, roll")
                .isTrue();
        assertThat(Log.shouldRoll(1, 100, 100))
                .as("one byte in the segment and a batch of segment.bytes: roll, the batch gets a segment of its own")
                .isTrue();
        assertThat(Log.shouldRoll(0, 1, 1))
                .as("an empty segment takes a batch of exactly segment.bytes")
                .isFalse();
    }

    @Test
    void aFullSegmentIsClosedAndTheNextOneIsNamedByItsBaseOffset() throws IOException {
        int size = sizeOfBatch(3);
        try (Log log = Log.open(dir, LogConfig.defaults().withSegmentBytes(2 * size))) {
            appendBatches(log, 5, 3);

            assertThat(log.segments()).extracting(Segment::baseOffset)
                    .as("segment.bytes holds exactly two batches of 3 records: segments start at offsets 0, 6, 12"
                            + " (a segment may fill up to segment.bytes exactly; the third batch would pass it)")
                    .containsExactly(0L, 6L, 12L);
            assertThat(log.segments()).extracting(Segment::size)
                    .as("two batches (%d bytes each) in each closed segment, one in the active one", size)
                    .containsExactly(2 * size, 2 * size, size);
            assertThat(log.activeSegment().baseOffset())
                    .as("the newest segment is the active one: appends go there")
                    .isEqualTo(12L);
            assertThat(fileNames(dir).stream().filter(n -> n.endsWith(".log")).toList())
                    .as("each segment file is named by its base offset, 20 digits zero padded")
                    .containsExactly("00000000000000000000.log", "00000000000000000006.log", "00000000000000000012.log");
            assertThat(Files.size(dir.resolve("00000000000000000006.log")))
                    .as("what the log counts is what the file holds")
                    .isEqualTo(2L * size);
            assertThat(log.logEndOffset()).as("15 records: LEO 15").isEqualTo(15);
        }
    }

    @Test
    void aBatchLargerThanSegmentBytesIsRefusedWithoutRollingOrWriting() throws IOException {
        int small = sizeOfBatch(1);
        try (Log log = Log.open(dir, LogConfig.defaults().withSegmentBytes(small + 5))) {
            log.append(numbered(0, 1));
            long sizeBefore = Files.size(log.activeSegment().logFile());
            ByteBuffer tooBig = numbered(1, 3);

            assertThatCode(() -> log.append(tooBig))
                    .as("a batch of %d bytes can never fit a segment of segment.bytes %d: IllegalArgumentException"
                            + " (rolling would not help)", tooBig.remaining(), small + 5)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(log.logEndOffset()).as("nothing was appended: LEO stays 1").isEqualTo(1);
            assertThat(log.segments())
                    .as("the check comes before the roll: no empty segment is left behind for a refused batch")
                    .hasSize(1);
            assertThat(Files.size(log.activeSegment().logFile()))
                    .as("not a byte of the refused batch reached the file")
                    .isEqualTo(sizeBefore);
        }
    }

    /** Three ways a producer's batch can be broken on the way in. */
    enum Corruption {
        A_FLIPPED_BYTE_IN_A_VALUE, CUT_SHORT, WRONG_MAGIC
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Corruption.class)
    void aCorruptBatchIsRefusedAndNothingIsWritten(Corruption corruption) throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.append(numbered(0, 2));
            long sizeBefore = Files.size(log.activeSegment().logFile());
            byte[] bytes = bytesOf(numbered(1, 2));
            ByteBuffer broken = switch (corruption) {
                case A_FLIPPED_BYTE_IN_A_VALUE -> {
                    bytes[bytes.length - 3] ^= 0x01;
                    yield ByteBuffer.wrap(bytes);
                }
                case CUT_SHORT -> ByteBuffer.wrap(bytes, 0, bytes.length - 10).slice();
                case WRONG_MAGIC -> {
                    bytes[BatchHeader.MAGIC_OFFSET] = 1;
                    yield ByteBuffer.wrap(bytes);
                }
            };

            assertThatCode(() -> log.append(broken))
                    .as("%s: the leader validates a batch (chapter 1's decode: CRC, lengths, magic) before it writes"
                            + " anything, and refuses it with CorruptBatchException", corruption)
                    .isInstanceOf(CorruptBatchException.class);
            assertThat(log.logEndOffset())
                    .as("%s: a refused batch gets no offsets: LEO stays 2", corruption)
                    .isEqualTo(2);
            assertThat(Files.size(log.activeSegment().logFile()))
                    .as("%s: and not a byte of it is in the segment", corruption)
                    .isEqualTo(sizeBefore);
        }
    }

    // Task 3 (LogAppendTest), found by mutation testing (bench/mutation): the edges of append's checks and of the roll rule.

    @Test
    void aProduceWithBytesAfterItsBatchIsRefusedSayingHowManyFollow() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            byte[] first = bytesOf(numbered(0, 2));
            byte[] second = bytesOf(numbered(1, 3));
            ByteBuffer two = ByteBuffer.allocate(first.length + second.length).put(first).put(second).flip();

            assertThatCode(() -> log.append(two))
                    .as("a produce carries exactly one batch: a second batch after it is refused as CorruptBatchException,"
                            + " and the message says how many bytes follow the first (%d = the buffer's %d minus the"
                            + " batch's %d), so a client can see what it sent too much", second.length,
                            first.length + second.length, first.length)
                    .isInstanceOf(CorruptBatchException.class)
                    .hasMessageContaining(second.length + " byte(s) follow it");
            assertThat(log.logEndOffset()).as("nothing of it is written: LEO stays 0").isZero();
        }
    }

    @Test
    void aProducerBatchMustClaimExactlyItsRecordCountOfOffsets() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            ByteBuffer batch = numbered(0, 3);
            batch.putInt(batch.position() + BatchHeader.LAST_OFFSET_DELTA_OFFSET, 3); // 3 records but 4 offsets
            batch.putInt(batch.position() + BatchHeader.CRC_OFFSET, BatchCrc.compute(batch)); // still a valid batch

            assertThatCode(() -> log.append(batch))
                    .as("3 records with lastOffsetDelta 3 would claim offsets 0..3: a producer numbers its records"
                            + " 0..count-1, so lastOffsetDelta must be recordCount - 1 = 2 (only compaction leaves gaps)")
                    .isInstanceOfSatisfying(CorruptBatchException.class, e -> assertThat(e.field())
                            .as("the error names lastOffsetDelta; message: %s", e.getMessage())
                            .isEqualTo("lastOffsetDelta"))
                    .hasMessageContaining("must have lastOffsetDelta 2");
            assertThat(log.logEndOffset())
                    .as("a refused batch takes no offsets: LEO stays 0, not 4")
                    .isZero();
        }
    }

    @Test
    void anEmptySegmentNeverRollsEvenForABatchBiggerThanSegmentBytes() {
        assertThat(Log.shouldRoll(0, 101, 100))
                .as("activeSize 0: rolling would make a second empty segment with the same base offset (the same"
                        + " file name); an empty segment never rolls, whatever the batch (activeSize > 0, not >= 0)")
                .isFalse();
    }

    /**
     * Issue case 1: a roll that failed half-way, as an older broker left it. The new segment's
     * {@code .log} was made, its {@code .index} not, and the broker went on appending to the old
     * segment (offsets 1..3). The empty file starts inside the old segment: it is the orphan of the
     * failed roll, never the active segment.
     */
    @Test
    void anEmptySegmentLeftInsideTheOneBeforeItByAFailedRollIsIgnoredAndNoOffsetIsGivenTwice() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            appendBatches(log, 4, 1);
        }
        Path orphan = dir.resolve(Segment.fileName(1, Segment.LOG_SUFFIX));
        Files.write(orphan, new byte[0]);

        try (Log log = Log.open(dir, LogConfig.defaults())) {
            assertThat(log.logEndOffset())
                    .as("an empty 00000000000000000001.log inside segment 0 (which holds offsets 0..3) is the orphan of"
                            + " a roll that failed; taken as the active segment it would drop the log end offset to 1"
                            + " and offsets 1..3 would be given again")
                    .isEqualTo(4);
            assertThat(log.segments()).extracting(Segment::baseOffset).as("only the real segment is loaded")
                    .containsExactly(0L);
            assertThat(Files.exists(orphan)).as("the orphan is removed at open").isFalse();
            assertThat(log.openEvents()).as("and opening says so").anyMatch(line -> line.contains(
                    "00000000000000000001.log") && line.contains("orphan"));
            assertThat(log.append(numbered(9, 1)).firstOffset()).as("the next append gets offset 4, not 1 again")
                    .isEqualTo(4);
            assertThat(recordOffsetsOf(log)).as("every offset once, in order").containsExactly(0L, 1L, 2L, 3L, 4L);
        }
    }

    /**
     * flush.messages and flush.ms (Kafka's names, off by default): the log is forced to disk once
     * that many messages are unflushed, or once that much time passed since the last flush (time is
     * a parameter); every flush moves the recovery point, below which a crash recovers nothing.
     */
    @Test
    void flushMessagesAndFlushMsMoveTheRecoveryPoint() throws IOException {
        try (Log log = Log.open(dir.resolve("messages"), LogConfig.defaults().withFlushMessages(3))) {
            appendBatches(log, 2, 1);
            assertThat(log.recoveryPoint()).as("flush.messages 3: two unflushed messages are not flushed yet")
                    .isZero();
            log.append(numbered(2, 1));
            assertThat(log.recoveryPoint()).as("the third one flushes: the recovery point moves to the LEO, 3")
                    .isEqualTo(3);
            assertThat(Files.readString(log.dir().resolve(Log.RECOVERY_POINT_FILE)).strip())
                    .as("and is written to the checkpoint file").isEqualTo("3");
        }
        try (Log log = Log.open(dir.resolve("ms"), LogConfig.defaults().withFlushMs(100))) {
            log.maybeFlush(LogFixtures.T0);
            appendBatches(log, 2, 1);
            log.maybeFlush(LogFixtures.T0 + 99);
            assertThat(log.recoveryPoint()).as("flush.ms 100: 99 ms after the last flush, nothing is forced").isZero();
            log.maybeFlush(LogFixtures.T0 + 100);
            assertThat(log.recoveryPoint()).as("at 100 ms the log is flushed: recovery point 2").isEqualTo(2);
        }
        try (Log log = Log.open(dir.resolve("default"), LogConfig.defaults())) {
            appendBatches(log, 5, 1);
            log.maybeFlush(LogFixtures.T0);
            log.maybeFlush(LogFixtures.T0 + 1_000_000_000L);
            assertThat(log.recoveryPoint()).as("by default (as in Kafka) the log never flushes by itself").isZero();
        }
    }

    private static List<Long> recordOffsetsOf(Log log) throws IOException {
        List<Long> offsets = new ArrayList<>();
        for (Segment segment : log.segments()) {
            segment.batches().forEach(b -> b.records().forEach(r -> offsets.add(r.offset())));
        }
        return offsets;
    }

    private static final String OFFSETS = "the leader gives a batch the log end offset as its base offset, whatever the"
            + " producer sent, rewriting baseOffset (and the leader epoch, when one is given) in the batch's own bytes;"
            + " a new segment is rolled only when the active one is not empty and the batch would take it past"
            + " segment.bytes (size + batch > segment.bytes, so a batch that fits exactly stays); a batch larger than"
            + " segment.bytes is refused";
    private static final String VALIDATION = "a producer's batch is validated before anything is written: a valid v2"
            + " batch (every check of chapter 1's RecordBatch.validate: CRC, lengths, records), exactly one per produce,"
            + " claiming exactly its record count of offsets (lastOffsetDelta = recordCount - 1, recordCount > 0)";

    /** Batches a producer sends (each with the base offset it claims), the log's segment.bytes and the leader's epoch. */
    private record Appends(List<byte[]> batches, List<Long> sentBaseOffsets, int segmentBytes, int leaderEpoch,
                           boolean eager) {
        @Override
        public String toString() {
            return "segment.bytes " + segmentBytes + ", leader epoch " + leaderEpoch + (eager ? ""
                    : ", the high watermark left behind (stopEagerHighWatermark)") + ", batches " + LogGens.show(batches)
                    + " sent with base offsets " + sentBaseOffsets;
        }
    }

    /**
     * Logs of batches of every size, with a segment.bytes near the size of a few of them (one byte under,
     * exactly, one byte over: where a roll is decided) or anywhere from one batch to many.
     */
    private static Gen<Appends> appends() {
        Gen<List<byte[]>> logs = LogGens.logs(1, 14);
        return c -> {
            List<byte[]> batches = logs.generate(c);
            int upTo = Gens.ints(1, batches.size()).generate(c);
            int sum = batches.subList(0, upTo).stream().mapToInt(b -> b.length).sum();
            int segmentBytes = Gens.oneOf(Gens.ints(-1, 1).map(d -> sum + d), Gens.ints(60, 4_000)).generate(c);
            List<Long> sent = new ArrayList<>();
            for (int i = 0; i < batches.size(); i++) {
                sent.add(Gens.oneOf(Gens.constant(0L), Gens.longs(0, Long.MAX_VALUE - 8)).generate(c));
            }
            // Kafka's leader always has an epoch; kaen-log's broker alone appends with none (-1), which Kafka has no case for.
            return new Appends(batches, sent, Math.max(1, segmentBytes), Gens.ints(0, 3).generate(c),
                    !Gens.booleans().generate(c));
        };
    }

    @Test
    void everyAppendIsPlacedWhereKafkasUnifiedLogPlacesIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir); KafkaStorage.OnDemand kafkaLog = new KafkaStorage.OnDemand(tries)) {
            Property.forAll(appends()).tries(40).shrinkBudget(LogGens.SHRINKS).check(in -> {
                try (Log log = Log.open(tries.newDir(), new LogConfig(in.segmentBytes(), LogConfig.DEFAULT_INDEX_INTERVAL_BYTES))) {
                    if (!in.eager()) {
                        log.stopEagerHighWatermark(); // as Kafka's leader: its appends never move the high watermark
                    }
                    List<Judge.Outcome> yours = new ArrayList<>();
                    for (int i = 0; i < in.batches().size(); i++) {
                        ByteBuffer batch = LogGens.wrap(in.batches().get(i));
                        RecordBatch.assignBaseOffset(batch, in.sentBaseOffsets().get(i));
                        yours.add(Judge.Outcome.of(() -> offsets(log.append(batch, in.leaderEpoch()))));
                    }
                    KafkaStorage kafka = kafkaLog.get().reset(in.segmentBytes(), LogConfig.DEFAULT_INDEX_INTERVAL_BYTES);
                    List<Judge.Outcome> kafkas = new ArrayList<>();
                    for (byte[] bytes : in.batches()) {
                        // Kafka refuses a producer's batch whose baseOffset is not 0 (see the guide's differences):
                        // it is given the batch as a producer of Kafka's sends it.
                        kafkas.add(Judge.Outcome.of(() -> offsets(kafka.appendAsLeader(LogGens.wrap(bytes), in.leaderEpoch()))));
                    }
                    for (int i = 0; i < yours.size(); i++) {
                        Judge.agree("append " + (i + 1) + " of " + in, "offsets", yours.get(i),
                                "UnifiedLog.appendAsLeader assigns", kafkas.get(i), OFFSETS);
                    }
                    Judge.agree(in.toString(), "segments' base offsets", log.segments().stream().map(Segment::baseOffset).toList(),
                            "UnifiedLog.appendAsLeader rolls at", kafka.segmentBases(), OFFSETS);
                    List<byte[]> files = new ArrayList<>();
                    for (Segment segment : log.segments()) {
                        files.add(Files.readAllBytes(segment.logFile()));
                    }
                    List<byte[]> kafkaFiles = kafka.segmentFiles();
                    for (int i = 0; i < Math.min(files.size(), kafkaFiles.size()); i++) {
                        if (!java.util.Arrays.equals(files.get(i), kafkaFiles.get(i))) {
                            Judge.agree(in + ", segment " + i, "bytes", files.get(i), "UnifiedLog.appendAsLeader writes",
                                    kafkaFiles.get(i), OFFSETS + "\n" + Hex.firstDifference(kafkaFiles.get(i), files.get(i),
                                            LogFixtures::fieldAt));
                        }
                    }
                    Judge.agree(in.toString(), "log end offset", log.logEndOffset(), "UnifiedLog's is", kafka.logEndOffset(),
                            OFFSETS);
                }
            });
        }
    }

    private static List<Long> offsets(AppendInfo info) {
        return List.of(info.firstOffset(), info.lastOffset());
    }

    private static List<Long> offsets(LogAppendInfo info) {
        return List.of(info.firstOffset(), info.lastOffset());
    }

    /**
     * A producer's batch as it may arrive: whole; with bytes the CRC covers changed, dropped, added or cut
     * off; with one of them changed in place; with its lastOffsetDelta or recordCount set to another value and its CRC made valid again (so that
     * only the count's own check can see it); a batch of no records; or two batches in one produce.
     */
    private static Gen<byte[]> produced() {
        Gen<byte[]> batch = LogGens.producerBatches();
        Gen<byte[]> damaged = Gens.faults().zip(batch, (faults, b) -> faults.apply(b, BatchHeader.CRC_OFFSET + 4, b.length));
        // One byte the CRC covers changed, the length kept: only the CRC (or the records' own checks) can see it.
        Gen<byte[]> flipped = c -> {
            byte[] b = batch.generate(c);
            int at = BatchHeader.ATTRIBUTES_OFFSET + Gens.ints(0, b.length - 1 - BatchHeader.ATTRIBUTES_OFFSET).generate(c);
            b[at] ^= (byte) (int) Gens.ints(1, 255).generate(c);
            return b;
        };
        Gen<byte[]> recounted = c -> {
            ByteBuffer b = ByteBuffer.wrap(batch.generate(c));
            int field = Gens.elements(BatchHeader.LAST_OFFSET_DELTA_OFFSET, BatchHeader.RECORD_COUNT_OFFSET).generate(c);
            int delta = Gens.elements(-1, 1, 0, 2, -2).generate(c);
            int value = Gens.oneOf(Gens.constant(b.getInt(field) + delta), Gens.elements(0, -1, Integer.MAX_VALUE,
                    Integer.MIN_VALUE)).generate(c);
            b.putInt(field, value);
            b.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(b));
            return b.array();
        };
        Gen<byte[]> twoBatches = batch.zip(batch, (a, b) -> ByteBuffer.allocate(a.length + b.length).put(a).put(b).array());
        // A batch of no records (a header alone, as compaction can leave one): recordCount 0, lastOffsetDelta -1 or 0.
        Gen<byte[]> empty = batch.zip(Gens.elements(-1, 0), (b, delta) -> {
            ByteBuffer header = ByteBuffer.wrap(java.util.Arrays.copyOf(b, BatchHeader.SIZE));
            header.putInt(BatchHeader.BATCH_LENGTH_OFFSET, BatchHeader.SIZE - BatchHeader.PARTITION_LEADER_EPOCH_OFFSET);
            header.putInt(BatchHeader.RECORD_COUNT_OFFSET, 0);
            header.putInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET, delta);
            header.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(header));
            return header.array();
        });
        return Gens.oneOf(batch, damaged, flipped, recounted, twoBatches, empty);
    }

    @Test
    void everyProducedBatchIsAcceptedOrRefusedAsKafkaAcceptsOrRefusesIt() throws IOException {
        try (LogGens.Tries tries = new LogGens.Tries(dir); KafkaStorage.OnDemand kafkaLog = new KafkaStorage.OnDemand(tries);
             Log log = Log.open(tries.dir("kaenlog-0"), LogConfig.defaults())) {
            Property.forAll(produced()).tries(150).shrinkBudget(LogGens.SHRINKS).check(bytes -> {
                Judge.Outcome yours = Judge.Outcome.of(() -> {
                    log.validate(LogGens.wrap(bytes));
                    return "accepted";
                });
                KafkaStorage kafka = kafkaLog.get().reset(LogConfig.DEFAULT_SEGMENT_BYTES, LogConfig.DEFAULT_INDEX_INTERVAL_BYTES);
                Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                    ProduceRequest.validateRecords(ApiKeys.PRODUCE.latestVersion(), MemoryRecords.readableRecords(LogGens.wrap(bytes)));
                    kafka.appendAsLeader(LogGens.wrap(bytes), 0);
                    return "accepted";
                });
                Judge.agree("this produced batch", "verdict", yours, "ProduceRequest.validateRecords and"
                        + " UnifiedLog.appendAsLeader give", kafkas, VALIDATION);
            });
        }
    }
}
