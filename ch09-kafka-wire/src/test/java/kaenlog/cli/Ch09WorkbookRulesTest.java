package kaenlog.cli;

import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch09WorkbookRulesTest {
    @Test
    void kafkaWireCodeReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.demo.kafkawire", "kaenlog.kafkawire");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch09-kafka-wire/README.md");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
