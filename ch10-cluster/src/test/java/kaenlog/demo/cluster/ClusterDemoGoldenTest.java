package kaenlog.demo.cluster;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import kaenlog.testkit.WaitsFor;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Compare your demo with the reference's: `klog cluster-demo` vs expected/10-cluster.txt. */
@Order(20)
@WaitsFor("three brokers in the demo to reach each step's state (a leader, a follower's fetch, an ISR written);"
        + " each wait is bounded, and a TODO in a broker's thread ends it")
class ClusterDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
