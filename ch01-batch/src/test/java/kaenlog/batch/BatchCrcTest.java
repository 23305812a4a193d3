package kaenlog.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.utils.Crc32C;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 4: the batch CRC is CRC-32C (Castagnoli) over bytes 21..end (attributes onwards). These
 * tests use hand-made buffers, not a built batch: the CRC does not care what the bytes mean.
 */
@Order(4)
class BatchCrcTest {
    /** The standard check value: CRC-32C("123456789") = 0xE3069283 (CRC-32, the old one, gives 0xCBF43926). */
    private static final int CRC32C_CHECK = 0xE3069283;
    private static final byte[] CHECK_INPUT = "123456789".getBytes(StandardCharsets.US_ASCII);

    @Test
    void theCrcIsCrc32cOfEverythingFromByte21On() {
        ByteBuffer batch = junkThenCheckInput(0);
        assertThat(Integer.toHexString(BatchCrc.compute(batch)))
                .as("21 bytes of header that the CRC skips, then \"123456789\": the CRC must be the CRC-32C check "
                        + "value e3069283 (java.util.zip.CRC32C over bytes 21..end; CRC32 would give cbf43926)")
                .isEqualTo(Integer.toHexString(CRC32C_CHECK));
    }

    @Test
    void theCrcStartsAtTheBuffersPosition() {
        ByteBuffer batch = junkThenCheckInput(5);
        batch.position(5);
        assertThat(Integer.toHexString(BatchCrc.compute(batch)))
                .as("a batch inside a larger buffer (a segment) starts at position(): bytes 21..end count from there")
                .isEqualTo(Integer.toHexString(CRC32C_CHECK));
    }

    @Test
    void theCrcEndsAtTheBuffersLimit() {
        ByteBuffer check = junkThenCheckInput(0);
        ByteBuffer segment = ByteBuffer.allocate(check.remaining() + 16);
        segment.put(check).put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        segment.flip().limit(BatchHeader.ATTRIBUTES_OFFSET + CHECK_INPUT.length);
        assertThat(Integer.toHexString(BatchCrc.compute(segment)))
                .as("the batch ends at the buffer's limit: the 16 bytes after it (the next batch of a segment) "
                        + "are not covered, so the CRC is still the check value e3069283")
                .isEqualTo(Integer.toHexString(CRC32C_CHECK));
    }

    @Test
    void computingLeavesPositionAndLimitAlone() {
        ByteBuffer batch = junkThenCheckInput(5);
        batch.position(5);
        int limit = batch.limit();
        BatchCrc.compute(batch);
        assertThat(batch.position()).as("compute() must not move the position: the caller decodes next").isEqualTo(5);
        assertThat(batch.limit()).as("compute() must not change the limit").isEqualTo(limit);
    }

    @Test
    void theCrcIgnoresBaseOffsetBatchLengthPartitionLeaderEpochMagicAndTheCrcItself() {
        ByteBuffer batch = junkThenCheckInput(0);
        for (int i = 0; i < BatchHeader.ATTRIBUTES_OFFSET; i++) {
            batch.put(i, (byte) (batch.get(i) ^ 0x5a));
            assertThat(Integer.toHexString(BatchCrc.compute(batch)))
                    .as("changing byte %d (%s) must not change the CRC: it covers attributes..end only, so the "
                            + "leader can rewrite baseOffset and partitionLeaderEpoch without recomputing it",
                            i, BatchFields.nameAt(i))
                    .isEqualTo(Integer.toHexString(CRC32C_CHECK));
        }
    }

    @Test
    void changingAnyByteFromAttributesOnChangesTheCrc() {
        ByteBuffer batch = smallBatchShapedBuffer();
        int original = BatchCrc.compute(batch);
        for (int i = BatchHeader.ATTRIBUTES_OFFSET; i < batch.limit(); i++) {
            byte was = batch.get(i);
            batch.put(i, (byte) (was ^ 0x01));
            assertThat(Integer.toHexString(BatchCrc.compute(batch)))
                    .as("flipping a bit of byte %d (%s) must change the CRC: every byte from 21 to the end is covered",
                            i, BatchFields.nameAt(i))
                    .isNotEqualTo(Integer.toHexString(original));
            batch.put(i, was);
        }
    }

    @Test
    void aStoredCrcThatMatchesTheBytesIsValid() {
        ByteBuffer batch = smallBatchShapedBuffer();
        batch.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(batch));
        assertThat(BatchCrc.isValid(batch))
                .as("the CRC stored at bytes 17..20 equals the one computed over 21..end")
                .isTrue();
        batch.put(BatchHeader.SIZE + 3, (byte) (batch.get(BatchHeader.SIZE + 3) ^ 0x10));
        assertThat(BatchCrc.isValid(batch))
                .as("one flipped bit in the records makes the stored CRC wrong: that is how corruption is caught")
                .isFalse();
    }

    /** {@code prefix} bytes of something else, then 21 junk bytes, then "123456789". */
    // ---------------------------------------------------------------- Kafka judges: Crc32C on every batch's bytes

    /** A batch's bytes between a buffer's position and limit, with other bytes before and after, heap or direct. */
    private record Framed(ByteBuffer buffer, String shape) {
        @Override
        public String toString() {
            return shape + " " + Property.show(buffer);
        }
    }

    private static Gen<Framed> framed() {
        Gen<byte[]> batches = Gens.oneOf(BatchGens.specs(Gens.constant(Compression.NONE))
                .map(spec -> BatchGens.array(BatchGens.kafkaBuild(spec))), Gens.bytes(BatchHeader.ATTRIBUTES_OFFSET, 120));
        Gen<Integer> margins = Gens.ints(0, 5);
        return c -> {
            int before = margins.generate(c);
            int after = margins.generate(c);
            boolean direct = c.oneIn(3);
            boolean readOnly = c.oneIn(4);
            byte[] batch = batches.generate(c);
            ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(before + batch.length + after)
                    : ByteBuffer.allocate(before + batch.length + after);
            for (int i = 0; i < buffer.capacity(); i++) {
                buffer.put(i, (byte) (0xA0 + i));
            }
            buffer.put(before, batch).position(before).limit(before + batch.length);
            return new Framed(readOnly ? buffer.asReadOnlyBuffer() : buffer, (direct ? "a direct buffer" : "a buffer")
                    + " at position " + before + ", limit " + (before + batch.length) + " of " + buffer.capacity()
                    + ", holding");
        };
    }

    @Test
    void everyBatchsCrcIsKafkasCrc32COverAttributesToTheEnd() {
        Property.forAll(framed()).shrinkBudget(BatchGens.SHRINKS).check(f -> {
            ByteBuffer buffer = f.buffer();
            int position = buffer.position();
            int limit = buffer.limit();
            long kafkas = Crc32C.compute(buffer, BatchHeader.ATTRIBUTES_OFFSET, buffer.remaining()
                    - BatchHeader.ATTRIBUTES_OFFSET);
            Judge.agree(f.toString(), "CRC", () -> String.format("0x%08x", Integer.toUnsignedLong(BatchCrc.compute(buffer))),
                    "Crc32C.compute(buffer, ATTRIBUTES_OFFSET, ...) gives", String.format("0x%08x", kafkas),
                    "CRC-32C (java.util.zip.CRC32C), not CRC-32, over the bytes from attributes (byte 21) to the limit,"
                            + " counted from the buffer's position");
            Judge.agree(f.toString(), "position and limit afterwards", List.of(buffer.position(), buffer.limit()),
                    "Crc32C.compute leaves them at", List.of(position, limit),
                    "work on a slice so the caller's position and limit stay where they were");
        });
    }

    private static ByteBuffer junkThenCheckInput(int prefix) {
        ByteBuffer buffer = ByteBuffer.allocate(prefix + BatchHeader.ATTRIBUTES_OFFSET + CHECK_INPUT.length);
        for (int i = 0; i < prefix + BatchHeader.ATTRIBUTES_OFFSET; i++) {
            buffer.put((byte) (0xA0 + i));
        }
        buffer.put(CHECK_INPUT);
        return buffer.flip();
    }

    /** 61 header-sized bytes and 20 "record" bytes, all different: the CRC treats them as opaque. */
    private static ByteBuffer smallBatchShapedBuffer() {
        ByteBuffer buffer = ByteBuffer.allocate(BatchHeader.SIZE + 20);
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put((byte) (i * 7 + 3));
        }
        return buffer.flip();
    }
}
