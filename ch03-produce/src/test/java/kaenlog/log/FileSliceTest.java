package kaenlog.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-copy read beside your {@link Log#read} (given code, after task 4 (LogReadTest)): the
 * same batches as file ranges, sent with transferTo; a segment that retention deletes during the
 * send is still sent whole, a file that a truncation shortened is never sent short. Runs after the
 * tasks, since it starts from your {@code Segment.positionOf}.
 */
@Order(10)
class FileSliceTest {
    @TempDir
    Path dir;

    private static ByteBuffer batch(int valueBytes) {
        return new BatchBuilder().append(0L, null, new byte[valueBytes]).build();
    }

    private static byte[] send(FileSlice slice) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (WritableByteChannel channel = Channels.newChannel(out)) {
            slice.writeTo(channel, () -> { });
        }
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    @Test
    void aSliceSendsExactlyTheBytesChapter3sReadReturns() throws IOException {
        try (Log log = Log.open(dir.resolve("p"), LogConfig.defaults().withSegmentBytes(3_000))) {
            for (int i = 0; i < 10; i++) {
                log.append(batch(900));
            }
            for (long offset : new long[] {0, 3, 7, 9}) {
                for (int maxBytes : new int[] {1, 1_000, 2_000, 10_000}) {
                    byte[] read = bytes(log.read(offset, maxBytes, FetchIsolation.HIGH_WATERMARK));
                    try (FileSlice slice = FileSlice.read(log, offset, maxBytes, FetchIsolation.HIGH_WATERMARK, true)) {
                        assertThat(slice.sizeInBytes()).as("offset %d, maxBytes %d", offset, maxBytes)
                                .isEqualTo(read.length);
                        assertThat(send(slice)).as("offset %d, maxBytes %d: the same batches as Log.read", offset,
                                maxBytes).isEqualTo(read);
                    }
                }
            }
        }
    }

    @Test
    void withoutMinOneMessageABatchLargerThanMaxBytesIsNotReturned() throws IOException {
        try (Log log = Log.open(dir.resolve("p"), LogConfig.defaults())) {
            log.append(batch(900));
            try (FileSlice slice = FileSlice.read(log, 0, 100, FetchIsolation.HIGH_WATERMARK, false)) {
                assertThat(slice.sizeInBytes()).as("not the first partition with data: its limit holds").isZero();
            }
            try (FileSlice slice = FileSlice.read(log, 0, 0, FetchIsolation.HIGH_WATERMARK, true)) {
                assertThat(slice.sizeInBytes()).as("the first partition with data: one batch, whatever the limit")
                        .isEqualTo(batch(900).remaining());
            }
        }
    }

    @Test
    void aSegmentDeletedDuringTheSendIsStillSentWhole() throws IOException {
        try (Log log = Log.open(dir.resolve("p"), LogConfig.defaults().withSegmentBytes(3_000))) {
            for (int i = 0; i < 6; i++) {
                log.append(batch(900));
            }
            byte[] expected = bytes(log.read(0, 3_000, FetchIsolation.HIGH_WATERMARK));
            try (FileSlice slice = FileSlice.read(log, 0, 3_000, FetchIsolation.HIGH_WATERMARK, true)) {
                log.deleteSegment(log.segments().get(0)); // retention, between the read and the send
                assertThat(send(slice)).as("the slice holds the deleted segment's file open until it is sent")
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void aFileTruncatedDuringTheSendIsNeverSentShort() throws IOException {
        try (Log log = Log.open(dir.resolve("p"), LogConfig.defaults())) {
            for (int i = 0; i < 4; i++) {
                log.append(batch(900));
            }
            try (FileSlice slice = FileSlice.read(log, 0, 10_000, FetchIsolation.LOG_END, true)) {
                log.truncateTo(1); // a follower truncating, between the read and the send
                assertThatThrownBy(() -> send(slice)).as("fewer bytes than announced: the send fails, and the"
                        + " connection is closed rather than sending a frame of the wrong length")
                        .isInstanceOf(IOException.class).hasMessageContaining("truncated during a send");
            }
        }
    }

    /**
     * A segment keeps the last span your positionOf read, so that the fetch's next read of it costs
     * no system call; a truncation must drop it, or the bytes written in place of the cut ones (a
     * follower taking the leader's batches for the same offsets) would be answered with the old ones.
     */
    @Test
    void bytesWrittenAfterATruncationAreServedNotTheOnesItCut() throws IOException {
        try (Log log = Log.open(dir.resolve("p"), LogConfig.defaults())) {
            for (int i = 0; i < 6; i++) {
                log.append(new BatchBuilder().append(0L, null, new byte[] {1}).build());
            }
            assertThat(log.read(3, 10_000, FetchIsolation.LOG_END).remaining()).as("offsets 3..5 read once").isPositive();
            log.truncateTo(3);
            for (int i = 0; i < 3; i++) {
                log.append(new BatchBuilder().append(0L, null, new byte[] {2}).build());
            }
            ByteBuffer after = log.read(3, 10_000, FetchIsolation.LOG_END);
            assertThat(RecordBatch.decodeAll(after.duplicate())).extracting(b -> b.records().get(0).value()[0])
                    .as("Log.read after the truncation: the values of the batches written after it (2), not of the"
                            + " ones it cut (1)").containsExactly((byte) 2, (byte) 2, (byte) 2);
            byte[] read = bytes(after);
            try (FileSlice slice = FileSlice.read(log, 3, 10_000, FetchIsolation.LOG_END, true)) {
                assertThat(send(slice)).as("the slice sends the same bytes").isEqualTo(read);
            }
        }
    }

    @Test
    void aCorruptFirstBatchIsReportedAndALaterOneEndsTheSlice() throws IOException {
        Path partition = dir.resolve("p");
        int size;
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            for (int i = 0; i < 3; i++) {
                log.append(batch(900));
            }
            size = batch(900).remaining();
        }
        try (FileChannel file = FileChannel.open(partition.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)),
                StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(new byte[] {42}), size + 500L); // inside the second batch's records
        }
        try (Log log = Log.open(partition, LogConfig.defaults())) {
            try (FileSlice slice = FileSlice.read(log, 0, 10_000, FetchIsolation.HIGH_WATERMARK, true)) {
                assertThat(slice.sizeInBytes()).as("the good batch first; the next read reports the bad one")
                        .isEqualTo(size);
            }
            assertThatThrownBy(() -> FileSlice.read(log, 1, 10_000, FetchIsolation.HIGH_WATERMARK, true))
                    .as("a corrupt first batch is said out loud, never sent as good bytes")
                    .isInstanceOf(CorruptRecordException.class);
        }
    }
}
