package kaenlog.demo.batch;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Compare your demo with the reference's: `klog batch-demo --now-ms 1700000000000` vs expected/01-batch.txt. */
@Order(20)
class BatchDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
