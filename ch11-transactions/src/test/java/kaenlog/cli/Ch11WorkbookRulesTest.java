package kaenlog.cli;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch11WorkbookRulesTest {
    @Test
    void transactionCodeReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.txn", "kaenlog.batch");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch11-transactions/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        Layers.assertImportsRunOneWay();
    }
}
