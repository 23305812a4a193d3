package kaenlog.demo.kafkawire;

import kaenlog.cli.Klog;
import kaenlog.testkit.Golden;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Compare your demo with the reference's:
 * `klog kafka-wire-demo --now-ms 1700000000000` vs expected/09-kafka-wire.txt.
 */
@Order(20)
class KafkaWireDemoGoldenTest {
    @Test
    void theDemoPrintsExactlyTheGoldenFileFiveTimesInARow() throws Exception {
        Golden.assertDemoMatchesGolden(Klog::run);
    }
}
