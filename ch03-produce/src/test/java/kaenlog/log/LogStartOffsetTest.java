package kaenlog.log;

import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log start offset moved on request, as Kafka's DeleteRecords moves it (given code,
 * {@code Log.advanceLogStartOffset}, around the reads of task 4 (LogReadTest)): below it every read
 * is out of range, the segments wholly below it are gone, it survives a restart, and it never passes
 * the high watermark. Runs after the tasks.
 */
@Order(10)
class LogStartOffsetTest {
    @TempDir
    Path dir;

    /** Where a test copies the log's files as a crash would leave them. */
    @TempDir
    Path crashes;

    /** 30 records in batches of 10, a segment each: [0, 10), [10, 20), [20, 30). */
    private Log threeSegments() throws IOException {
        Log log = Log.open(dir, LogConfig.defaults());
        for (int b = 0; b < 3; b++) {
            if (b > 0) {
                log.roll();
            }
            log.append(numbered(b, 10));
        }
        return log;
    }

    @Test
    void readsBelowTheNewStartAreOutOfRangeAndWhollyOlderSegmentsGo() throws IOException {
        try (Log log = threeSegments()) {
            assertThat(log.advanceLogStartOffset(15)).as("the answer is the new log start").isEqualTo(15);
            assertThat(log.logStartOffset()).isEqualTo(15);
            assertThat(log.segments()).extracting(Segment::baseOffset)
                    .as("[0, 10) is wholly below 15 and deleted; [10, 20) holds 15 and stays").containsExactly(10L, 20L);
            assertThatThrownBy(() -> log.read(14, 1 << 20, FetchIsolation.HIGH_WATERMARK))
                    .as("a read below the log start offset").isInstanceOf(OffsetOutOfRangeException.class);
            assertThat(log.read(15, 1 << 20, FetchIsolation.HIGH_WATERMARK).remaining())
                    .as("a read at the log start is served from the batch that holds it").isPositive();
            assertThat(log.advanceLogStartOffset(12)).as("an offset below the start moves nothing").isEqualTo(15);
        }
        try (Log reopened = Log.open(dir, LogConfig.defaults())) {
            assertThat(reopened.logStartOffset()).as("the new start was checkpointed before any file went")
                    .isEqualTo(15);
            assertThat(reopened.logEndOffset()).isEqualTo(30);
        }
    }

    @Test
    void theLogStartNeverPassesTheHighWatermark() throws IOException {
        try (Log log = threeSegments()) {
            log.stopEagerHighWatermark();
            log.append(numbered(3, 10));
            assertThat(log.highWatermark()).as("setup: 30 committed, 40 written").isEqualTo(30);
            assertThatThrownBy(() -> log.advanceLogStartOffset(31))
                    .as("records a consumer cannot read yet are never deleted (Kafka: OFFSET_OUT_OF_RANGE)")
                    .isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining("high watermark 30");
            assertThat(log.logStartOffset()).isZero();
            assertThat(log.advanceLogStartOffset(30)).as("up to the high watermark itself").isEqualTo(30);
            assertThat(log.segments()).extracting(Segment::baseOffset)
                    .as("only the active segment [20, 40), which holds 30, is left").containsExactly(20L);
        }
    }

    /**
     * A new log start moves in memory and takes the segments wholly below it out of the log, their
     * files renamed {@code .deleted}; its checkpoint and the unlink are left for later, without the
     * partition's lock (a follower follows its leader's log start on its fetcher thread: forcing the
     * checkpoint there held its fetch for 135-143 ms, and every acks=all produce with it). A crash
     * before the checkpoint loses nothing: the log opens at its first segment, as Kafka's does after
     * a crash before its periodic checkpoint; once the work is done, the new start survives.
     */
    @Test
    void theNewStartIsCheckpointedLaterAndACrashBeforeThatLosesNothing() throws IOException {
        Path crashed = crashes.resolve("crashed");
        try (Log log = threeSegments()) {
            log.advanceLogStartOffset(15);
            assertThat(dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX + ".deleted")))
                    .as("segment [0, 10) is renamed .deleted, not unlinked, where the partition's lock is held").exists();
            assertThat(LostFilesTest.logStartFile(dir)).as("and its checkpoint is not forced there").isEqualTo("0");
            LogFixtures.copyDir(dir, crashed);
            log.finishDeletion(log.pendingDeletion().orElseThrow());
            assertThat(LostFilesTest.logStartFile(dir)).as("the work left: the checkpoint first").isEqualTo("15");
            assertThat(dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX + ".deleted")))
                    .as("then the files").doesNotExist();
        }
        try (Log log = Log.open(crashed, LogConfig.defaults())) {
            assertThat(log.logStartOffset()).as("a crash before the checkpoint: the log starts at its first segment,"
                    + " nothing is lost").isEqualTo(10);
            assertThat(log.logEndOffset()).isEqualTo(30);
        }
    }
}
