package kaenlog.demo.idem;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Compare your demo with the reference's:
 * `klog idem-demo --pid 1000 --seq 7..9 --resend --now-ms 1700000000000` vs expected/07-idem.txt.
 */
@Order(20)
class IdemDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
