package kaenlog.compaction;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import kaenlog.log.Log;
import kaenlog.log.Segment;

/**
 * Replaces a closed segment with its cleaned version so that a crash at any moment leaves either
 * the old segment or the new one, whole: never a mix, never a lost record. Kafka's
 * {@code LocalLog.replaceSegments}: the cleaner writes {@code X.log.cleaned}; renaming it to
 * {@code X.log.swap} is the commit point; the old files go and the swap file takes their name.
 * On restart {@code Log.open} (chapter 3, like Kafka's LogLoader) deletes a {@code .cleaned}
 * file (the swap never committed) and finishes a {@code .swap} (it did).
 */
public final class SegmentSwap {
    /** The moments of a swap, in order: a test can crash the swap at each one. */
    public enum Step {
        /** Half of the cleaned bytes are in {@code X.log.cleaned}: a torn write. */
        CLEANED_PARTLY_WRITTEN,
        /** {@code X.log.cleaned} is complete and forced to disk. */
        CLEANED_WRITTEN,
        /** Renamed to {@code X.log.swap}: the commit point. */
        SWAP_RENAMED,
        /** The old segment's index is gone, so whichever log file survives gets a rebuilt index. */
        OLD_INDEX_DELETED,
        /** The swap file replaced the segment: done. */
        REPLACED
    }

    /** Called at every {@link Step}; a test throws from it to simulate a crash there. */
    @FunctionalInterface
    public interface Hook {
        Hook NONE = step -> { };

        void reached(Step step) throws IOException;
    }

    private final Hook hook;

    public SegmentSwap(Hook hook) {
        this.hook = hook;
    }

    /**
     * Writes {@code cleanedBatches} (whole batches, in offset order) beside {@code old}, commits
     * them by renaming, deletes the old index and lets chapter 3's {@code Log.replaceSegment}
     * rename the swap file over the old log file; calls the hook at each {@link Step}. Returns
     * the segment that replaced {@code old}.
     *
     * <p>Why the index goes before the log file is replaced: {@code Log.replaceSegment} renames
     * first and deletes the index after, so a crash between the two would pair the new log file
     * with the old index, whose positions point into the middle of batches. With no index file
     * at all, {@code Log.open} rebuilds it from whichever log file it finds.
     */
    public Segment replace(Log log, Segment old, List<ByteBuffer> cleanedBatches) throws IOException {
        // BEGIN-SOLUTION ch06 task 5: write .cleaned, rename to .swap (the commit point), swap in (CrashSafeSwapTest)
        Path cleaned = Log.cleanedFileOf(old);
        Path swap = Log.swapFileOf(old);
        writeCleaned(cleaned, cleanedBatches);
        hook.reached(Step.CLEANED_WRITTEN);
        Files.move(cleaned, swap, StandardCopyOption.ATOMIC_MOVE);
        hook.reached(Step.SWAP_RENAMED);
        Files.deleteIfExists(old.indexFile());
        hook.reached(Step.OLD_INDEX_DELETED);
        Segment replacement = log.replaceSegment(old, swap);
        hook.reached(Step.REPLACED);
        return replacement;
        // END-SOLUTION
    }

    /**
     * Writes the batches to a fresh {@code .cleaned} file and forces it to disk; the hook sees
     * {@link Step#CLEANED_PARTLY_WRITTEN} when half of the bytes are written.
     */
    public void writeCleaned(Path cleaned, List<ByteBuffer> batches) throws IOException {
        ByteBuffer all = concat(batches);
        int half = all.remaining() / 2;
        try (FileChannel channel = FileChannel.open(cleaned, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            writeFully(channel, all.duplicate().limit(half));
            hook.reached(Step.CLEANED_PARTLY_WRITTEN);
            writeFully(channel, all.duplicate().position(half));
            channel.force(true);
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    private static ByteBuffer concat(List<ByteBuffer> batches) {
        int total = batches.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer all = ByteBuffer.allocate(total);
        batches.forEach(b -> all.put(b.duplicate()));
        return all.flip();
    }
}
