package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import kaenlog.compaction.SegmentSwap;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 1, a crash during compaction's swap: a child JVM compacting a log is SIGKILLed at each of
 * the five steps of the first and of the second segment's swap (10 kills), and the log is opened again.
 */
@Order(1)
class CompactionCrashTest {
    @TempDir
    Path dir;

    @Test
    void aKillAtEveryStepOfASegmentSwapLeavesTheOldOrTheNewSegmentWholeAndMovesNoOffset() throws IOException {
        CompactionCrash.Result r = CompactionCrash.run(dir, System.getProperty("java.class.path"), 5, new int[] {0, 1});

        String details = String.join("\n", r.details());
        assertThat(r.outcomes()).as("5 steps x 2 segments = 10 kills%n%s", details).hasSize(10);
        for (CompactionCrash.Outcome o : r.outcomes()) {
            String which = o.step() + " of swap " + o.ordinal();
            boolean committed = o.step().compareTo(SegmentSwap.Step.SWAP_RENAMED) >= 0;
            assertThat(o.reachedCrashPoint()).as("%s: the child stood at the crash point when it was killed%n%s",
                    which, details).isTrue();
            assertThat(o.crashedSegmentIs())
                    .as("%s: the rename to .swap is the commit point: before it the old segment survives, from it on"
                            + " the new one; whole, never a mix%n%s", which, details)
                    .isEqualTo(committed ? "new" : "old");
            assertThat(o.segmentsWrongOrMixed())
                    .as("%s: segments swapped before the crash stay cleaned, later ones untouched%n%s", which, details)
                    .isZero();
            assertThat(o.movedRecords())
                    .as("%s: compaction never moves an offset, a crash in it neither%n%s", which, details).isZero();
            assertThat(o.lostKeys()).as("%s: every key's latest record survives%n%s", which, details).isZero();
            assertThat(o.finishesLikeNoCrash())
                    .as("%s: compacting the reopened log gives the log compaction gives without a crash%n%s", which,
                            details)
                    .isTrue();
            assertThat(o.acceptsWrites()).as("%s: the log accepts writes afterwards%n%s", which, details).isTrue();
            assertThat(o.problems()).as("%s: nothing else went wrong%n%s", which, details).isEmpty();
        }
        assertThat(r.ok()).as("every crash survived%n%s", details).isTrue();
    }
}
