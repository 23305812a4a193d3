package kaenlog.demo.produce;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Compare your demo with the reference's: `klog produce-demo --now-ms 1700000000000` vs expected/03-produce.txt. */
@Order(30)
class ProduceDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
