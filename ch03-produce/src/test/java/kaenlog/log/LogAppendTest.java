package kaenlog.log;

import static kaenlog.log.LogFixtures.appendBatches;
import static kaenlog.log.LogFixtures.builder;
import static kaenlog.log.LogFixtures.bytesOf;
import static kaenlog.log.LogFixtures.fileNames;
import static kaenlog.log.LogFixtures.numbered;
import static kaenlog.log.LogFixtures.sizeOfBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.testkit.Hex;
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
            assertThatThrownBy(() -> log.updateHighWatermark(10))
                    .as("the HW can never pass the log end offset (9): nothing above the LEO exists to commit")
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(log.highWatermark()).as("a refused update leaves it at 6").isEqualTo(6);
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

            assertThatThrownBy(() -> log.append(tooBig))
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

            assertThatThrownBy(() -> log.append(broken))
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

}
