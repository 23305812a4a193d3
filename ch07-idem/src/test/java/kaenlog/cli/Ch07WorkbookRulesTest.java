package kaenlog.cli;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch07WorkbookRulesTest {
    @Test
    void chapterSevenReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.broker", "kaenlog.client", "kaenlog.demo.idem", "kaenlog.idem", "kaenlog.wire");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch07-idem/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
