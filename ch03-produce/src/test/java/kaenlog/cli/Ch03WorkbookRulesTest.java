package kaenlog.cli;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(40)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch03WorkbookRulesTest {
    @Test
    void chapterCodeReadsNoClockAndNoUnseededRandomness() {
        // The broker's time is virtual: its ticker sleeps and adds, it never asks the system what time it is.
        ClockBan.assertNoClockIn("kaenlog.broker", "kaenlog.client", "kaenlog.demo.produce", "kaenlog.log", "kaenlog.wire");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch03-produce/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
