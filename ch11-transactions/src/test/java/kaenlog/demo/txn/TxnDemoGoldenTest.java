package kaenlog.demo.txn;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Compare your demo with the reference's: `klog txn-demo --now-ms 1700000000000` vs
 * expected/11-transactions.txt.
 */
@Order(25)
class TxnDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
