package kaenlog.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.Hex;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Test helpers shared by the chapter 1 task tests: names for byte positions (so a byte
 * difference says "crc" or "recordCount", not just "byte 17"), byte copies, and the one way these
 * tests expect a {@link CorruptBatchException}.
 */
final class BatchFields {
    private BatchFields() {
    }

    /** The v2 header field that byte {@code byteOffset} of a batch belongs to; "records" after the 61 header bytes. */
    static String nameAt(int byteOffset) {
        if (byteOffset < 0) {
            return "before the batch";
        }
        if (byteOffset < BatchHeader.BATCH_LENGTH_OFFSET) {
            return "baseOffset";
        }
        if (byteOffset < BatchHeader.PARTITION_LEADER_EPOCH_OFFSET) {
            return "batchLength";
        }
        if (byteOffset < BatchHeader.MAGIC_OFFSET) {
            return "partitionLeaderEpoch";
        }
        if (byteOffset < BatchHeader.CRC_OFFSET) {
            return "magic";
        }
        if (byteOffset < BatchHeader.ATTRIBUTES_OFFSET) {
            return "crc";
        }
        if (byteOffset < BatchHeader.LAST_OFFSET_DELTA_OFFSET) {
            return "attributes";
        }
        if (byteOffset < BatchHeader.BASE_TIMESTAMP_OFFSET) {
            return "lastOffsetDelta";
        }
        if (byteOffset < BatchHeader.MAX_TIMESTAMP_OFFSET) {
            return "baseTimestamp";
        }
        if (byteOffset < BatchHeader.PRODUCER_ID_OFFSET) {
            return "maxTimestamp";
        }
        if (byteOffset < BatchHeader.PRODUCER_EPOCH_OFFSET) {
            return "producerId";
        }
        if (byteOffset < BatchHeader.BASE_SEQUENCE_OFFSET) {
            return "producerEpoch";
        }
        if (byteOffset < BatchHeader.RECORD_COUNT_OFFSET) {
            return "baseSequence";
        }
        if (byteOffset < BatchHeader.SIZE) {
            return "recordCount";
        }
        return "records";
    }

    /** Where two batches first differ, with the header field there; "bytes are equal" when they are. */
    static String batchDiff(byte[] expected, byte[] actual) {
        String diff = Hex.firstDifference(expected, actual, BatchFields::nameAt);
        return diff == null ? "bytes are equal" : diff;
    }

    /** A copy of the bytes between the buffer's position and its limit; the buffer does not move. */
    static byte[] bytesOf(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    /** Stores a freshly computed CRC, so that a test's mutation gets past the CRC check to the check it is aimed at. */
    static ByteBuffer withCrcRecomputed(ByteBuffer batch) {
        batch.putInt(batch.position() + BatchHeader.CRC_OFFSET, BatchCrc.compute(batch));
        return batch;
    }

    /**
     * Asserts that {@code call} rejects its input with a {@link CorruptBatchException} naming
     * {@code field}. Any other exception (a skeleton's Todo included) is reported as it is. The
     * throwable is caught first so that the description also explains a call that threw nothing.
     */
    static void assertCorrupt(ThrowingCallable call, String field, String why) {
        assertThat(catchThrowable(call))
                .as("expected a CorruptBatchException naming %s: %s", field, why)
                .isInstanceOfSatisfying(CorruptBatchException.class, e -> assertThat(e.field())
                        .as("CorruptBatchException.field() names what was wrong (%s): %s; message was: %s",
                                field, why, e.getMessage())
                        .isEqualTo(field));
    }

    /** Like {@link #assertCorrupt} and also checks where the bad field starts, counted from the first byte of the batch. */
    static void assertCorruptAt(ThrowingCallable call, String field, long position, String why) {
        assertThat(catchThrowable(call))
                .as("expected a CorruptBatchException naming %s at byte %d: %s", field, position, why)
                .isInstanceOfSatisfying(CorruptBatchException.class, e -> {
                    assertThat(e.field())
                            .as("CorruptBatchException.field() names what was wrong (%s): %s; message was: %s",
                                    field, why, e.getMessage())
                            .isEqualTo(field);
                    assertThat(e.position())
                            .as("CorruptBatchException.position() is where %s starts (byte %d): %s; message was: %s",
                                    field, position, why, e.getMessage())
                            .isEqualTo(position);
                });
    }

    /**
     * Hand-written bytes with a name for every byte, so a test can spell out a layout field by
     * field and a difference is reported by field name.
     */
    static final class Layout {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final List<String> names = new ArrayList<>();

        /** Appends {@code values} (each 0..255) as the bytes of {@code name}. */
        Layout field(String name, int... values) {
            for (int value : values) {
                bytes.write(value);
                names.add(name);
            }
            return this;
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }

        String nameAt(int i) {
            return i < names.size() ? names.get(i) : "past the end";
        }

        /** Where {@code actual} first differs from this layout; "bytes are equal" when it does not. */
        String diff(byte[] actual) {
            String diff = Hex.firstDifference(bytes(), actual, this::nameAt);
            return diff == null ? "bytes are equal" : diff;
        }
    }
}
