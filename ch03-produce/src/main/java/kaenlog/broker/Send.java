package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.List;
import kaenlog.log.FileSlice;

/**
 * A response on its way out as parts (Kafka's {@code network.Send}): heap bytes (the frame length,
 * the response header, the fields between two partitions' records) and file ranges (the records,
 * {@link FileSlice}). Consecutive heap parts go out in one gathering write, so the frame's length
 * is never a system call of its own; a file range goes out with transferTo (sendfile), the bytes
 * never entering the heap. Close it once sent or dropped: its file ranges hold segments open.
 */
public final class Send implements AutoCloseable {
    private final List<Object> parts = new ArrayList<>();
    private long sizeInBytes;

    public Send bytes(ByteBuffer bytes) {
        parts.add(bytes);
        sizeInBytes += bytes.remaining();
        return this;
    }

    public Send bytes(byte[] bytes) {
        return bytes(ByteBuffer.wrap(bytes));
    }

    public Send file(FileSlice slice) {
        if (slice.sizeInBytes() > 0) {
            parts.add(slice);
            sizeInBytes += slice.sizeInBytes();
        }
        return this;
    }

    /** Appends every part of {@code other} (which this send now owns). */
    public Send then(Send other) {
        parts.addAll(other.parts);
        sizeInBytes += other.sizeInBytes;
        return this;
    }

    /** Every byte the send writes, frame length included when a part holds it. */
    public long sizeInBytes() {
        return sizeInBytes;
    }

    /** Writes every part, in order; {@code progress} is told after every write that moved bytes. */
    public void writeTo(GatheringByteChannel out, FileSlice.Progress progress) throws IOException {
        List<ByteBuffer> run = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof ByteBuffer bytes) {
                run.add(bytes.duplicate());
                continue;
            }
            writeAll(out, run, progress);
            ((FileSlice) part).writeTo(out, progress);
        }
        writeAll(out, run, progress);
    }

    private static void writeAll(GatheringByteChannel out, List<ByteBuffer> run, FileSlice.Progress progress)
            throws IOException {
        if (run.isEmpty()) {
            return;
        }
        ByteBuffer[] buffers = run.toArray(new ByteBuffer[0]);
        while (anyRemaining(buffers)) {
            if (out.write(buffers) > 0) {
                progress.madeProgress();
            }
        }
        run.clear();
    }

    private static boolean anyRemaining(ByteBuffer[] buffers) {
        for (ByteBuffer b : buffers) {
            if (b.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /** The whole send in memory (for a caller without a socket: a test, a stream). */
    public byte[] toByteArray() throws IOException {
        ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(sizeInBytes));
        for (Object part : parts) {
            all.put(part instanceof ByteBuffer bytes ? bytes.duplicate() : ((FileSlice) part).toByteBuffer());
        }
        return all.array();
    }

    @Override
    public void close() {
        for (Object part : parts) {
            if (part instanceof FileSlice slice) {
                slice.close();
            }
        }
    }
}
