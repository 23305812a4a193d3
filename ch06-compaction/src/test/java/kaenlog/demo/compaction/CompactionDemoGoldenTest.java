package kaenlog.demo.compaction;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Compare your demo with the reference's: `klog compaction-demo --now-ms 1700000000000` vs expected/06-compaction.txt. */
@Order(20)
class CompactionDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
