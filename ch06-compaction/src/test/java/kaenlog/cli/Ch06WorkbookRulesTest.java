package kaenlog.cli;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch06WorkbookRulesTest {
    @Test
    void chapterCodeReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.compaction", "kaenlog.coordinator", "kaenlog.demo.compaction", "kaenlog.groups", "kaenlog.logmanager");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch06-compaction/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
