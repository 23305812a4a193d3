package kaenlog.log;

import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that hold less than the log wrote, found at open (given code around the recovery of
 * task 5 (RecoveryTest)): a log whose segments end below its recovery point, skip offsets a
 * segment it made held, or start after its checkpointed log start offset has lost acknowledged
 * records. It refuses to open, naming the missing offsets ({@link LostDataException}), and never
 * hands those offsets out again; an operator may accept the loss, and then the log goes on past
 * them. What compaction and retention leave (chapter 6) is no loss. Runs after the tasks.
 */
@Order(10)
class LostFilesTest {
    /** Segments [0, 100), [100, 170), [170, 280), [280, 300): 30 batches of 10 records, rolled by hand. */
    private static final long[] BASES = {0, 100, 170, 280};
    private static final long END = 300;

    @TempDir
    Path dir;

    /** Where a test copies the log's files as a crash would leave them. */
    @TempDir
    Path crashes;

    private void writeFourSegmentsAndStopCleanly() throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            int batch = 0;
            for (int b = 0; b < BASES.length; b++) {
                long until = b + 1 < BASES.length ? BASES[b + 1] : END;
                if (b > 0) {
                    log.roll();
                }
                while (log.logEndOffset() < until) {
                    log.append(numbered(batch++, 10));
                }
            }
            assertThat(log.segments().stream().map(Segment::baseOffset).toList()).as("setup: four segments")
                    .containsExactly(0L, 100L, 170L, 280L);
        }
    }

    private Path file(long base, String suffix) {
        return dir.resolve(Segment.fileName(base, suffix));
    }

    private void deleteSegment(long base) throws IOException {
        Files.delete(file(base, Segment.LOG_SUFFIX));
        Files.deleteIfExists(file(base, Segment.INDEX_SUFFIX));
        Files.deleteIfExists(file(base, Segment.TIME_INDEX_SUFFIX));
    }

    private LostDataException refusedOpen(String damage) {
        LostDataException lost = catchThrowableOfType(LostDataException.class,
                () -> Log.open(dir, LogConfig.defaults()).close());
        assertThat(lost).as("%s after a clean stop: the files hold fewer offsets than the log wrote, so it must"
                + " not open as if nothing happened (it would serve a hole, or give those offsets out again)",
                damage).isNotNull();
        return lost;
    }

    @Test
    void theActiveLogDeletedWithItsIndexKeptIsRefusedNamingTheLostOffsets() throws IOException {
        writeFourSegmentsAndStopCleanly();
        Files.delete(file(280, Segment.LOG_SUFFIX));

        LostDataException lost = refusedOpen("the active .log deleted, its .index kept");

        assertThat(lost.missing()).as("offsets 280..299 were written (the recovery point is 300) and are gone")
                .containsExactly(new LostDataException.Range(280, 300));
        assertThat(lost.getMessage()).as("the message names them").contains("280..299");
    }

    @Test
    void aMiddleSegmentDeletedIsAGapNamedByItsOffsets() throws IOException {
        writeFourSegmentsAndStopCleanly();
        deleteSegment(100);

        assertThat(refusedOpen("a middle segment deleted").missing())
                .as("segment 100 held 100..169; the log recorded it at its roll, so its absence is a loss")
                .containsExactly(new LostDataException.Range(100, 170));
    }

    @Test
    void everyLogDeletedIsRefusedInsteadOfStartingAgainAtZero() throws IOException {
        writeFourSegmentsAndStopCleanly();
        for (long base : BASES) {
            Files.delete(file(base, Segment.LOG_SUFFIX));
        }

        assertThat(refusedOpen("every .log deleted").missing()).as("all 300 offsets are gone")
                .containsExactly(new LostDataException.Range(0, 300));
    }

    @Test
    void theFirstSegmentDeletedIsALogStartBeyondWhatIsOnDisk() throws IOException {
        writeFourSegmentsAndStopCleanly();
        deleteSegment(0);

        assertThat(refusedOpen("the first segment deleted").missing())
                .as("the log start offset (checkpointed: %s) is 0, the files start at 100",
                        Log.LOG_START_OFFSET_FILE)
                .containsExactly(new LostDataException.Range(0, 100));
    }

    @Test
    void retentionAndCompactionLeaveNoLoss() throws IOException {
        writeFourSegmentsAndStopCleanly();
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.deleteSegment(log.segments().get(0)); // retention: the log start moves to 100
            Segment middle = log.segments().get(0);
            // Compaction's rewrite of segment 100 without its last batch (160..169): offsets 160..169 are
            // removed records, not lost ones; the segment keeps its base offset and 170 still follows it.
            ByteBuffer kept = middle.window(0, middle.size());
            int keep = middle.size() - numbered(0, 10).remaining();
            Path swap = Log.swapFileOf(middle);
            try (FileChannel out = FileChannel.open(swap, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                out.write(kept.limit(keep));
                out.force(true);
            }
            Segment compacted = log.replaceSegment(middle, swap);
            assertThat(compacted.nextOffset()).as("setup: the compacted segment ends at 160").isEqualTo(160);
        }

        try (Log log = Log.open(dir, LogConfig.defaults())) {
            assertThat(log.logStartOffset()).as("retention's log start, kept").isEqualTo(100);
            assertThat(log.logEndOffset()).as("nothing lost: the log ends where it did").isEqualTo(END);
        }
    }

    @Test
    void anOperatorWhoAcceptsTheLossGetsALogThatGoesOnPastTheLostOffsetsAndNeverGivesThemOutAgain()
            throws IOException {
        writeFourSegmentsAndStopCleanly();
        Files.delete(file(280, Segment.LOG_SUFFIX));

        try (Log log = Log.open(dir, LogConfig.defaults(), true)) {
            assertThat(log.logEndOffset()).as("accepted: the log goes on at 300, past what was lost").isEqualTo(END);
            assertThat(log.append(numbered(99, 1)).firstOffset()).as("the next record gets 300, never 280 again")
                    .isEqualTo(END);
            assertThat(log.openEvents()).as("what was accepted is said").anySatisfy(line ->
                    assertThat(line).contains("280..299").contains("accepted"));
        }
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            assertThat(log.logEndOffset()).as("accepted once: the next open finds nothing more missing")
                    .isEqualTo(END + 1);
        }
    }

    @Test
    void aLogRefusedForLostFilesLeavesItsFilesAsTheyWere() throws IOException {
        writeFourSegmentsAndStopCleanly();
        deleteSegment(100);
        List<String> before = names();

        assertThatThrownBy(() -> Log.open(dir, LogConfig.defaults())).isInstanceOf(LostDataException.class);

        assertThat(names()).as("nothing created or removed: an operator may still put the files back")
                .isEqualTo(before);
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Retention takes a segment out of the log under the partition's lock by renaming its files
     * {@code .deleted}; the log start offset's checkpoint and the unlink come later, without the lock
     * ({@link Log#pendingDeletion}). A crash anywhere in between (nothing written yet; a roll since,
     * which recorded the segments without it; the checkpoint written, the files not yet gone) loses
     * nothing: the next open counts the renamed segment as deleted, starts the log after it, and
     * removes its files.
     */
    @Test
    void aCrashBetweenRetentionsRenameAndItsUnlinkLosesNothing() throws IOException {
        writeFourSegmentsAndStopCleanly();
        Path renamedOnly = crashes.resolve("renamed");
        Path rolledSince = crashes.resolve("rolled");
        Path checkpointed = crashes.resolve("checkpointed");
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            log.deleteSegment(log.segments().get(0));
            assertThat(file(0, Segment.LOG_SUFFIX + ".deleted")).as("under the lock the segment's files are only"
                    + " renamed .deleted: unlinking 128 MiB there held every produce and fetch").exists();
            assertThat(logStartFile(dir)).as("nor is the log start offset's checkpoint forced there: it is left for"
                    + " later").isEqualTo("0");
            LogFixtures.copyDir(dir, renamedOnly);
            LogFixtures.copyDir(dir, checkpointed);
            Files.writeString(checkpointed.resolve(Log.LOG_START_OFFSET_FILE), "100\n");
            log.roll();
            log.append(numbered(30, 10));
            LogFixtures.copyDir(dir, rolledSince);

            Log.PendingDeletion pending = log.pendingDeletion().orElseThrow();
            assertThat(pending.logStartOffset()).as("what is owed: the new log start").isEqualTo(100);
            log.finishDeletion(pending);
            assertThat(file(0, Segment.LOG_SUFFIX + ".deleted")).as("finished: the files are gone").doesNotExist();
            assertThat(logStartFile(dir)).as("after the new log start was written").isEqualTo("100");
            assertThat(log.pendingDeletion()).as("and nothing is owed any more").isEmpty();
        }
        for (Path crashed : List.of(renamedOnly, rolledSince, checkpointed)) {
            try (Log log = Log.open(crashed, LogConfig.defaults())) {
                assertThat(log.logStartOffset()).as("%s: the renamed segment counts as deleted, the log starts after it",
                        crashed.getFileName()).isEqualTo(100);
                assertThat(LogFixtures.fileNames(crashed)).as("%s: its .deleted files are removed", crashed.getFileName())
                        .noneMatch(name -> name.endsWith(".deleted"));
                assertThat(log.openEvents()).as("%s: and the open says so", crashed.getFileName())
                        .anySatisfy(line -> assertThat(line).contains("00000000000000000000.log.deleted"));
            }
        }
    }

    @Test
    void aDeletedFileAboveASegmentIsNoRetentionsAndItsOffsetsAreStillNamedLost() throws IOException {
        writeFourSegmentsAndStopCleanly();
        for (String suffix : List.of(Segment.LOG_SUFFIX, Segment.INDEX_SUFFIX, Segment.TIME_INDEX_SUFFIX)) {
            Files.move(file(100, suffix), file(100, suffix + ".deleted"));
        }
        List<String> before = names();

        assertThat(refusedOpen("a middle segment renamed .deleted").missing())
                .as("retention only ever takes the oldest segment: segment 100 renamed .deleted while segment 0"
                        + " is still there is no retention, and its offsets are lost")
                .containsExactly(new LostDataException.Range(100, 170));
        assertThat(names()).as("the refused open leaves its .deleted files too").isEqualTo(before);
    }

    /** What {@value Log#LOG_START_OFFSET_FILE} says; "0" when there is none (the log never moved its start). */
    static String logStartFile(Path logDir) throws IOException {
        Path file = logDir.resolve(Log.LOG_START_OFFSET_FILE);
        return Files.exists(file) ? Files.readString(file).strip() : "0";
    }
}
