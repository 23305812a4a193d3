package kaenlog.demo.replication;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Compare your demo with the reference's:
 * `klog replica-demo --rounds 4 --min-isr 2 --now-ms 1700000000000` vs expected/08-replication.txt.
 */
@Order(20)
class ReplicaDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
