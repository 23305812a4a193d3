package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.LogShapes.LogShape;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetIndex;
import kaenlog.log.Segment;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task 5: the crash-safe swap. The cleaned segment is written beside the old one
 * ({@code X.log.cleaned}), committed by a rename ({@code X.log.swap}), and only then put in the old
 * one's place; chapter 3's {@code Log.open} deletes an uncommitted {@code .cleaned} file and
 * finishes a committed {@code .swap}. A crash at any step, simulated by throwing from the swap's
 * hook, must leave the old segment or the new one, whole.
 */
@Order(5)
class CrashSafeSwapTest {
    @TempDir
    Path dir;

    /** The process "dies" at a step: nothing after it runs. */
    static final class SimulatedCrash extends IOException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(SegmentSwap.Step step) {
            super("simulated crash after " + step);
        }
    }

    /** Segment 0 holds three one-record batches for key k (offsets 0, 1, 2), indexed at every batch; segment 3 is active. */
    private Log openLog() throws IOException {
        return Log.open(dir, LogConfig.defaults().withIndexIntervalBytes(0));
    }

    private Log writeLog() throws IOException {
        Log log = openLog();
        for (int i = 0; i < 3; i++) {
            LogFixture.put(log, T0 + i, "k", "v" + i);
        }
        log.roll();
        LogFixture.put(log, T0 + 3, "other", "x");
        return log;
    }

    /** What compaction would keep of segment 0: its last batch, untouched. */
    private static List<ByteBuffer> cleanedVersionOf(Segment segment) throws IOException {
        List<ByteBuffer> batches = Cleaner.rawBatches(segment);
        return List.of(batches.get(batches.size() - 1));
    }

    private Path segmentZero() {
        return dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX));
    }

    @Test
    void theSwapPutsTheCleanedBatchesInTheSegmentsPlace() throws IOException {
        try (Log log = writeLog()) {
            List<ByteBuffer> cleaned = cleanedVersionOf(log.segments().get(0));
            Segment replacement = new SegmentSwap(SegmentSwap.Hook.NONE).replace(log, log.segments().get(0), cleaned);

            byte[] expected = LogFixture.concat(cleaned);
            byte[] actual = Files.readAllBytes(segmentZero());
            assertThat(actual).as("the segment file now holds exactly the cleaned batches%n%s",
                    Hex.firstDifference(expected, actual, i -> "byte " + i)).isEqualTo(expected);
            assertThat(log.segments().get(0)).as("the log serves the returned replacement segment").isSameAs(replacement);
            assertThat(replacement.baseOffset()).as("under the same base offset: a segment's name never changes")
                    .isZero();
            assertThat(LogFixture.show(log)).as("the log reads offsets 2 and 3 now, each where it was written")
                    .containsExactly("2:k=v2", "3:other=x");
            assertThat(log.logEndOffset()).as("the log end offset does not move").isEqualTo(4L);
        }
    }

    @Test
    void theHookSeesEveryStepInOrder() throws IOException {
        List<SegmentSwap.Step> seen = new ArrayList<>();
        try (Log log = writeLog()) {
            new SegmentSwap(seen::add).replace(log, log.segments().get(0), cleanedVersionOf(log.segments().get(0)));
        }
        assertThat(seen)
                .as("half written, fully written and forced, renamed to .swap (the commit point), old index deleted,"
                        + " replaced: the order that makes every crash recoverable")
                .containsExactly(SegmentSwap.Step.values());
    }

    @Test
    void aSwapLeavesNoCleanedOrSwapFileAndAFreshIndex() throws IOException {
        try (Log log = writeLog()) {
            new SegmentSwap(SegmentSwap.Hook.NONE).replace(log, log.segments().get(0),
                    cleanedVersionOf(log.segments().get(0)));
            assertThat(LogFixture.files(dir))
                    .as("only the segments' .log, .index and .timeindex files remain: the .cleaned file became the .swap file,"
                            + " which became the .log file")
                    .containsExactly("00000000000000000000.index", "00000000000000000000.log",
                            "00000000000000000000.timeindex", "00000000000000000003.index", "00000000000000000003.log",
                            "00000000000000000003.timeindex");
            assertIndexPointsAtBatchStarts(log.segments().get(0));
        }
    }

    @ParameterizedTest
    @EnumSource(SegmentSwap.Step.class)
    void aCrashAtAnyStepLeavesTheOldOrTheNewSegmentWhole(SegmentSwap.Step crashAt) throws IOException {
        Log log = writeLog();
        byte[] oldBytes;
        byte[] newBytes;
        try {
            log.flush();
            oldBytes = Files.readAllBytes(segmentZero());
            List<ByteBuffer> cleaned = cleanedVersionOf(log.segments().get(0));
            newBytes = LogFixture.concat(cleaned);
            SegmentSwap swap = new SegmentSwap(step -> {
                if (step == crashAt) {
                    throw new SimulatedCrash(step);
                }
            });
            try {
                swap.replace(log, log.segments().get(0), cleaned);
            } catch (SimulatedCrash crash) {
                // the process died here: only the files on disk are left
            }
        } finally {
            log.close();
        }

        boolean committed = crashAt.compareTo(SegmentSwap.Step.SWAP_RENAMED) >= 0;
        assertThat(segmentZero())
                .as("crash after %s: segment 0's .log file must still be there: the old segment survives whole until"
                        + " the rename to .swap commits the new one, so nothing may delete it before", crashAt)
                .exists();
        try (Log reopened = openLog()) {
            byte[] bytes = Files.readAllBytes(segmentZero());
            byte[] expected = committed ? newBytes : oldBytes;
            assertThat(bytes)
                    .as("crash after %s: Log.open must find the %s segment, whole: before the rename to .swap the"
                            + " swap never happened, from the rename on it must be finished%n%s", crashAt,
                            committed ? "new" : "old", Hex.firstDifference(expected, bytes, i -> "byte " + i))
                    .isEqualTo(expected);
            assertThat(LogFixture.show(reopened))
                    .as("crash after %s: no record lost, none duplicated, none moved", crashAt)
                    .containsExactlyElementsOf(committed ? List.of("2:k=v2", "3:other=x")
                            : List.of("0:k=v0", "1:k=v1", "2:k=v2", "3:other=x"));
            assertThat(LogFixture.files(dir))
                    .as("crash after %s: Log.open leaves no .cleaned or .swap file behind", crashAt)
                    .containsExactly("00000000000000000000.index", "00000000000000000000.log",
                            "00000000000000000000.timeindex", "00000000000000000003.index", "00000000000000000003.log",
                            "00000000000000000003.timeindex");
            assertIndexPointsAtBatchStarts(reopened.segments().get(0));
            assertThat(reopened.logEndOffset()).as("crash after %s: the log end offset is still 4", crashAt)
                    .isEqualTo(4L);
        }
    }

    @Test
    void aCrashJustBeforeTheReplaceFindsTheOldIndexAlreadyGone() throws IOException {
        Log log = writeLog();
        try {
            SegmentSwap swap = new SegmentSwap(step -> {
                if (step == SegmentSwap.Step.OLD_INDEX_DELETED) {
                    throw new SimulatedCrash(step);
                }
            });
            try {
                swap.replace(log, log.segments().get(0), cleanedVersionOf(log.segments().get(0)));
            } catch (SimulatedCrash crash) {
                // the process died here: only the files on disk are left
            }
        } finally {
            log.close();
        }

        assertThat(LogFixture.files(dir))
                .as("a crash after OLD_INDEX_DELETED leaves segment 0 as .log and .log.swap only: the old index goes"
                        + " before the swap file replaces the log file, because chapter 3's Log.replaceSegment renames"
                        + " first and deletes the index after, and a crash between the two would pair the new log"
                        + " file with an index pointing into the middle of its batches")
                .containsExactly("00000000000000000000.log", "00000000000000000000.log.swap",
                        "00000000000000000000.timeindex", "00000000000000000003.index", "00000000000000000003.log",
                        "00000000000000000003.timeindex");
    }

    /**
     * Every index entry must name a batch's last offset and the position where that batch starts:
     * an old index next to a new log file would point into the middle of batches.
     */
    private static void assertIndexPointsAtBatchStarts(Segment segment) throws IOException {
        Map<Integer, Long> lastOffsetAt = new HashMap<>();
        int position = 0;
        for (BatchHeader h : segment.headers()) {
            lastOffsetAt.put(position, h.lastOffset());
            position += h.sizeInBytes();
        }
        for (OffsetIndex.Entry entry : segment.indexEntries()) {
            assertThat(lastOffsetAt.get(entry.position()))
                    .as("index entry %s must point at the start of the batch whose last offset it names; batches"
                            + " start at %s", entry, lastOffsetAt)
                    .isEqualTo(entry.offset());
        }
    }

    // ---- a model judges: any log, several swaps, a crash at any step of any of them -------------

    /** One swap: which closed segment (by number), which of its batches the cleaned version keeps, where it crashes (null: nowhere). */
    record SwapStep(int segment, List<Boolean> keep, SegmentSwap.Step crashAt) {
        @Override
        public String toString() {
            return "swap segment number " + segment + " keeping batches " + keep + (crashAt == null ? ""
                    : ", crash after " + crashAt);
        }
    }

    record SwapCase(LogShape log, List<SwapStep> swaps) {
        @Override
        public String toString() {
            return log + "\n    then " + swaps;
        }
    }

    /** Logs of up to five closed segments; one to three swaps, each crashing at any step half of the time. */
    static Gen<SwapCase> swapCases() {
        return c -> {
            LogShape log = LogShapes.logs(LogShapes::atT0).generate(c);
            List<SwapStep> swaps = new ArrayList<>();
            int count = 1 + c.belowInt(3);
            for (int i = 0; i < count; i++) {
                int segment = c.belowInt(log.segments().size() - 1);
                List<Boolean> keep = new ArrayList<>();
                for (int b = 0; b < 3; b++) {
                    keep.add(c.oneIn(2));
                }
                SegmentSwap.Step[] steps = SegmentSwap.Step.values();
                swaps.add(new SwapStep(segment, keep, c.oneIn(2) ? steps[c.belowInt(steps.length)] : null));
            }
            return new SwapCase(log, swaps);
        };
    }

    private static final String RULE = "a swap writes X.log.cleaned (forced), renames it to X.log.swap (the commit"
            + " point), deletes the old index, then replaces the segment: before the rename the old segment survives"
            + " whole, from the rename on the new one does, and Log.open leaves no .cleaned or .swap file";

    /**
     * The model: a segment is its bytes. A swap that crashed before the rename to {@code .swap} leaves the old
     * bytes; from the rename on (the commit point), the new ones. After a crash the log is opened again.
     */
    @Test
    void aCrashAtAnyStepOfAnySwapLeavesWhatTheModelSays() throws IOException {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(swapCases()).tries(40).shrinkBudget(LogShapes.SHRINKS).check(c -> {
                Path logDir = scratch.newDir();
                Log log = c.log().build(logDir);
                try {
                    log.flush();
                    Map<Long, byte[]> model = new TreeMap<>();
                    for (Segment segment : log.segments()) {
                        model.put(segment.baseOffset(), Files.readAllBytes(segment.logFile()));
                    }
                    for (SwapStep step : c.swaps()) {
                        Segment old = log.segments().get(step.segment());
                        List<ByteBuffer> batches = Cleaner.rawBatches(old);
                        List<ByteBuffer> cleaned = new ArrayList<>();
                        for (int i = 0; i < batches.size(); i++) {
                            if (step.keep().get(i % step.keep().size())) {
                                cleaned.add(batches.get(i));
                            }
                        }
                        SegmentSwap swap = new SegmentSwap(reached -> {
                            if (reached == step.crashAt()) {
                                throw new SimulatedCrash(reached);
                            }
                        });
                        boolean committed = step.crashAt() == null
                                || step.crashAt().compareTo(SegmentSwap.Step.SWAP_RENAMED) >= 0;
                        if (committed) {
                            model.put(old.baseOffset(), LogFixture.concat(cleaned));
                        }
                        try {
                            swap.replace(log, old, cleaned);
                        } catch (SimulatedCrash crash) {
                            log.close(); // the process died here: only the files on disk are left
                            Judge.Outcome reopened = Judge.Outcome.of(() -> Log.open(logDir, LogConfig.defaults()));
                            if (reopened.refused()) {
                                Map<Long, String> expected = new TreeMap<>();
                                model.forEach((base, bytes) -> expected.put(base, offsetsIn(bytes)));
                                Judge.agree("the log opened after: " + step, "log", reopened,
                                        "LocalLog.replaceSegments order, as this test models it, leaves",
                                        new Judge.Outcome(expected, null), RULE);
                            }
                            log = (Log) reopened.value();
                        }
                        assertAgreesWithTheModel(log, logDir, model, step);
                    }
                } finally {
                    log.close();
                }
            });
        }
    }

    private static void assertAgreesWithTheModel(Log log, Path logDir, Map<Long, byte[]> model, SwapStep step)
            throws IOException {
        String rule = RULE;
        Map<Long, String> yours = new TreeMap<>();
        for (Segment segment : log.segments()) {
            yours.put(segment.baseOffset(), offsetsIn(Files.readAllBytes(segment.logFile())));
        }
        Map<Long, String> expected = new TreeMap<>();
        model.forEach((base, bytes) -> expected.put(base, offsetsIn(bytes)));
        Judge.agree("the log after: " + step + " (each segment's base offset = the offsets of its records)", "segments", yours,
                "LocalLog.replaceSegments order, as this test models it, leaves", expected, rule);
        Map<Long, String> yourBytes = new TreeMap<>();
        Map<Long, String> modelBytes = new TreeMap<>();
        for (Segment segment : log.segments()) {
            yourBytes.put(segment.baseOffset(), Hex.dump(Files.readAllBytes(segment.logFile())));
            modelBytes.put(segment.baseOffset(), Hex.dump(model.get(segment.baseOffset())));
        }
        Judge.agree("the log after: " + step, "segment files", yourBytes,
                "LocalLog.replaceSegments order, as this test models it, leaves", modelBytes, rule);
        List<String> leftovers = LogFixture.files(logDir).stream()
                .filter(name -> !name.endsWith(".log") && !name.endsWith(".index") && !name.endsWith(".timeindex"))
                .toList();
        Judge.agree("the log after: " + step, "files other than .log, .index, .timeindex", leftovers,
                "LocalLog.replaceSegments order, as this test models it, leaves", List.of(), rule);
        for (Segment segment : log.segments()) {
            assertIndexPointsAtBatchStarts(segment);
        }
    }

    /** "offsets [a, b, ...]" of the records in a segment file's bytes. */
    private static String offsetsIn(byte[] bytes) {
        List<Long> offsets = new ArrayList<>();
        RecordBatch.decodeAll(java.nio.ByteBuffer.wrap(bytes)).forEach(b -> b.records().forEach(r -> offsets.add(r.offset())));
        return offsets.toString();
    }
}
