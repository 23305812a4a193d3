package kaenlog.batch;

import static kaenlog.batch.BatchFields.batchDiff;
import static kaenlog.batch.BatchFields.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 7: the chapter's headline fact. A leader gives a batch its offsets by rewriting the 8
 * bytes of baseOffset; records store only deltas and the CRC does not cover baseOffset, so the
 * producer's checksum stays valid.
 */
@Order(7)
class OffsetAssignmentTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void assigningAnOffsetRewritesOnlyTheFirstEightBytes() {
        ByteBuffer batch = producerBatch();
        byte[] before = bytesOf(batch);

        RecordBatch.assignBaseOffset(batch, 0x0102_0304_0506_0708L);

        byte[] expected = before.clone();
        ByteBuffer.wrap(expected).putLong(0, 0x0102_0304_0506_0708L);
        byte[] after = bytesOf(batch);
        assertThat(after)
                .as("bytes 0..7 become the new baseOffset (big-endian) and every other byte stays as it was: "
                        + "no header field or record changes%n%s", batchDiff(expected, after))
                .isEqualTo(expected);
    }

    @Test
    void theCrcIsUnchangedAndStillValid() {
        ByteBuffer batch = producerBatch();
        int crcBefore = BatchCrc.stored(batch);

        RecordBatch.assignBaseOffset(batch, 1_000_000L);

        assertThat(Integer.toHexString(BatchCrc.stored(batch)))
                .as("the stored CRC is not touched by offset assignment")
                .isEqualTo(Integer.toHexString(crcBefore));
        assertThat(BatchCrc.isValid(batch))
                .as("and it is still valid: the CRC covers bytes 21..end, baseOffset sits at 0..7 outside it")
                .isTrue();
    }

    @Test
    void aCorruptBatchStaysCorruptAfterAssignment() {
        ByteBuffer batch = producerBatch();
        int last = batch.limit() - 1;
        batch.put(last, (byte) (batch.get(last) ^ 0x01)); // damaged on its way to the leader

        RecordBatch.assignBaseOffset(batch, 1000L);

        assertThat(BatchCrc.isValid(batch))
                .as("a corrupt batch stays corrupt: assignment writes bytes 0..7 only and never recomputes the CRC, "
                        + "which would make the producer's damaged bytes look valid")
                .isFalse();
    }

    @Test
    void theRecordsMoveWithTheBaseOffset() {
        ByteBuffer batch = producerBatch();

        RecordBatch.assignBaseOffset(batch, 1000L);

        RecordBatch decoded = RecordBatch.decode(batch);
        assertThat(decoded.records())
                .extracting(Record::offset)
                .as("every record's offset is baseOffset + its stored offsetDelta, so all three move to 1000..1002")
                .containsExactly(1000L, 1001L, 1002L);
        assertThat(decoded.lastOffset())
                .as("lastOffset moves too: baseOffset + lastOffsetDelta (2)")
                .isEqualTo(1002L);
    }

    @Test
    void assignmentWorksOnABatchInsideALargerBuffer() {
        byte[] first = bytesOf(producerBatch());
        byte[] second = bytesOf(producerBatch());
        ByteBuffer segment = ByteBuffer.allocate(first.length + second.length);
        segment.put(first).put(second);
        segment.position(first.length);

        RecordBatch.assignBaseOffset(segment, 3L);

        assertThat(segment.getLong(first.length))
                .as("the batch at the buffer's position gets the new baseOffset").isEqualTo(3L);
        byte[] firstAfter = new byte[first.length];
        segment.duplicate().position(0).get(firstAfter);
        assertThat(firstAfter)
                .as("the batch before the position is untouched: offsets count from position(), not 0%n%s",
                        batchDiff(first, firstAfter))
                .isEqualTo(first);
    }

    @Test
    void theLargestValidOffsetIsAccepted() {
        ByteBuffer batch = producerBatch();
        assertThatCode(() -> RecordBatch.assignBaseOffset(batch, Long.MAX_VALUE - 2))
                .as("Long.MAX_VALUE - 2 + lastOffsetDelta 2 = Long.MAX_VALUE is still a valid last offset: only a "
                        + "last offset past it is refused (> Long.MAX_VALUE - lastOffsetDelta, not >=)")
                .doesNotThrowAnyException();
        assertThat(batch.getLong(BatchHeader.BASE_OFFSET_OFFSET))
                .as("Long.MAX_VALUE - 2 + lastOffsetDelta 2 = Long.MAX_VALUE: still a valid last offset")
                .isEqualTo(Long.MAX_VALUE - 2);
    }

    @Test
    void anOffsetWhoseLastOffsetWouldOverflowIsRefused() {
        ByteBuffer batch = producerBatch();
        byte[] before = bytesOf(batch);
        assertThat(catchThrowable(() -> RecordBatch.assignBaseOffset(batch, Long.MAX_VALUE - 1)))
                .as("Long.MAX_VALUE - 1 + lastOffsetDelta 2 overflows a long: the leader's offset is refused "
                        + "with IllegalArgumentException (a caller's mistake, not corrupt input)")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(bytesOf(batch))
                .as("a refused assignment writes nothing%n%s", batchDiff(before, bytesOf(batch)))
                .isEqualTo(before);
    }

    @Test
    void aNegativeOffsetIsRefused() {
        ByteBuffer batch = producerBatch();
        assertThat(catchThrowable(() -> RecordBatch.assignBaseOffset(batch, -1L)))
                .as("offsets are never negative: assignBaseOffset(-1) throws IllegalArgumentException")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void offsetZeroIsAValidBaseOffset() {
        ByteBuffer batch = producerBatch();
        RecordBatch.assignBaseOffset(batch, 7L);
        assertThatCode(() -> RecordBatch.assignBaseOffset(batch, 0L))
                .as("0 is the first offset of every partition: only negative offsets are refused (baseOffset < 0, "
                        + "not <= 0)")
                .doesNotThrowAnyException();
        assertThat(batch.getLong(BatchHeader.BASE_OFFSET_OFFSET))
                .as("0 is the first offset of every partition: only negative offsets are refused (baseOffset < 0, not <= 0)")
                .isZero();
    }

    @Test
    void theLeaderEpochCanBeStampedTheSameWay() {
        ByteBuffer batch = producerBatch();
        RecordBatch.assignBaseOffset(batch, 10L);
        RecordBatch.assignPartitionLeaderEpoch(batch, 8);
        assertThat(BatchCrc.isValid(batch))
                .as("partitionLeaderEpoch (bytes 12..15) is outside the CRC as well: still valid after both stamps")
                .isTrue();
        assertThat(RecordBatch.decode(batch).header().partitionLeaderEpoch())
                .as("the stamped epoch decodes").isEqualTo(8);
    }

    /** A batch as a producer sends it: base offset 0, three records. */
    // ---------------------------------------------------------------- Kafka judges: setLastOffset on every batch

    /** Kafka's batch of some shape inside a larger buffer, and the base offset a leader gives it. */
    private record Moved(BatchGens.Written written, int skip, byte[] buffer, long baseOffset) {
        ByteBuffer positioned() {
            return ByteBuffer.wrap(buffer.clone()).position(skip);
        }

        @Override
        public String toString() {
            return "moving " + written.shape() + " (at position " + skip + " of a " + buffer.length
                    + "-byte buffer) to base offset " + baseOffset;
        }
    }

    private static final Gen<BatchGens.Written> KAFKA_BATCHES = BatchGens.kafkaBatches();
    private static final Gen<Integer> SKIPS = Gens.ints(0, 3);
    private static final Gen<byte[]> AFTER = Gens.bytes(0, 4);
    private static final Gen<Long> BASE_OFFSETS = Gens.oneOf(Gens.longs(0, 1000), Gens.longs(),
            Gens.longs(Long.MAX_VALUE - 200, Long.MAX_VALUE));

    /** Now and then a batch whose lastOffsetDelta was damaged to a negative number: no valid batch has one. */
    private static final Gen<Integer> NEGATIVE_DELTAS = Gens.ints(Integer.MIN_VALUE, -1);

    private static Gen<Moved> moved() {
        return c -> {
            // The decisions first, the batch (the bulk of the draws) last: shrinking the batch leaves them be.
            long baseOffset = BASE_OFFSETS.generate(c);
            Integer damagedDelta = c.oneIn(6) ? NEGATIVE_DELTAS.generate(c) : null;
            int skip = SKIPS.generate(c);
            byte[] after = AFTER.generate(c);
            BatchGens.Written written = KAFKA_BATCHES.generate(c);
            if (damagedDelta != null) {
                byte[] bytes = written.bytes().clone();
                ByteBuffer.wrap(bytes).putInt(BatchHeader.LAST_OFFSET_DELTA_OFFSET, damagedDelta);
                written = new BatchGens.Written(written.shape() + ", its lastOffsetDelta damaged to " + damagedDelta,
                        bytes);
            }
            ByteBuffer buffer = ByteBuffer.allocate(skip + written.bytes().length + after.length);
            buffer.position(skip);
            buffer.put(written.bytes()).put(after);
            return new Moved(written, skip, buffer.array(), baseOffset);
        };
    }

    @Test
    void everyBatchIsMovedAsKafkasSetLastOffsetMovesIt() {
        Property.forAll(moved()).tries(150).shrinkBudget(BatchGens.SHRINKS).check(m -> {
            ByteBuffer yours = m.positioned();
            Judge.Outcome outcome = Judge.Outcome.of(() -> {
                RecordBatch.assignBaseOffset(yours, m.baseOffset());
                return "moved";
            });
            ByteBuffer kafkas = m.positioned();
            DefaultRecordBatch batch = KafkaBatches.defaultRecordBatch(kafkas.slice(m.skip(), m.written().bytes().length));
            long lastOffsetDelta = (int) (batch.lastOffset() - batch.baseOffset());
            boolean refused = lastOffsetDelta < 0 || m.baseOffset() < 0 || m.baseOffset() > Long.MAX_VALUE - lastOffsetDelta;
            if (!refused) {
                batch.setLastOffset(m.baseOffset() + lastOffsetDelta);
            }
            Judge.agree(m.toString(), "assignment", outcome, "DefaultRecordBatch.setLastOffset, with kaen-log's checks,"
                    + " gives",
                    refused ? Judge.Outcome.of(() -> {
                        throw new IllegalArgumentException("not a valid offset (kaen-log refuses what Kafka's leader"
                                + " never assigns)");
                    }) : Judge.Outcome.of(() -> "moved"),
                    "refuse a negative offset, or one whose last offset (base + lastOffsetDelta) overflows a long, or a"
                            + " batch whose lastOffsetDelta is negative, with IllegalArgumentException before writing"
                            + " anything");
            if (outcome.refused()) {
                assertThat(outcome.refusal())
                        .as("for %s you refused with %s: an offset no batch can have is an IllegalArgumentException",
                                m, outcome)
                        .isInstanceOf(IllegalArgumentException.class);
            }
            byte[] mine = yours.array();
            byte[] theirs = kafkas.array();
            Judge.agree(m + " (" + BatchFields.batchDiff(theirs, mine).lines().findFirst().orElse("") + ")",
                    "bytes afterwards", mine, "setLastOffset(base + lastOffsetDelta) leaves", theirs, outcome.refused()
                            ? "check before writing anything: a refused offset leaves every byte as it was"
                            : "only bytes 0..7 of the batch change: records store deltas and the CRC starts at byte 21,"
                                    + " so it stays valid");
            Judge.agree(m.toString(), "position and limit afterwards", List.of(yours.position(), yours.limit()),
                    "setLastOffset leaves them at", List.of(m.skip(), m.buffer().length),
                    "the batch starts at the buffer's position, which stays where it was");
        });
    }

    private static ByteBuffer producerBatch() {
        return new BatchBuilder()
                .append(T0, "a", "1")
                .append(T0 + 1, "b", "2")
                .append(T0 + 2, "c", "3")
                .build();
    }
}
