package kaenlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class WorkbookRulesTest {
    @Test
    void chapterCodeReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.batch", "kaenlog.cli", "kaenlog.demo.batch", "kaenlog.workbook");
    }

    @Test
    void theWallClockIsReadAtOneDeclaredSeamAndNowhereElse() {
        assertThat(ClockBan.classesReadingAClock("kaenlog.batch", "kaenlog.cli", "kaenlog.demo.batch", "kaenlog.workbook"))
                .as("the command-line edge reads the wall clock in %s and passes it in as nowMs; any other class"
                        + " that reads a clock makes a demo or a test depend on when it runs", ClockBan.SEAM)
                .containsExactly(ClockBan.SEAM);
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch01-batch/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
