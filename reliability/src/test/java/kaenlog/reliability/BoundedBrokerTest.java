package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 6 at the tests' size ({@link BoundedBroker.Config#quick()}): every limit of the broker hit
 * on purpose against a broker process, once for the class, while a well-behaved client produces and
 * consumes. Also finding F3: full frames that never finish no longer exhaust a 64 MiB broker.
 */
@Order(3)
class BoundedBrokerTest {
    @TempDir
    static Path dir;
    static BoundedBroker.Result result;

    @BeforeAll
    static void hitEveryLimit() throws IOException {
        result = BoundedBroker.run(dir, BrokerProcess.Options.ofThisClasspath(), BoundedBroker.Config.quick());
    }

    private static String details() {
        return String.join("\n", result.details());
    }

    @Test
    void fullFrameStallersDoNotExhaustA64MiBBrokerAndAWellBehavedClientIsServedThroughout() {
        StalledFramesProbe.Result r = result.stalled();

        assertThat(r.aliveThroughout()).as("the broker lives (-Xmx64m, no ExitOnOutOfMemoryError)%n%s", details())
                .isTrue();
        assertThat(r.errorLines()).as("no OutOfMemoryError and no uncaught exception in its log%n%s", details())
                .isZero();
        assertThat(r.sentSomething()).as("the stallers really sent their frames%n%s", details())
                .isEqualTo(r.stallers());
        assertThat(r.idleClosed()).as("stallers owe a whole request: connections.max.idle.ms closes them%n%s",
                details()).isPositive();
        assertThat(r.goodRoundsDuring()).as("the well-behaved client was served while they were held%n%s", details())
                .isPositive();
    }

    @Test
    void idleAndSlowlorisConnectionsPastMaxConnectionsAreRefusedOrClosedAndThreadsStayBounded() {
        assertThat(result.probe("6b").ok()).as("%s", details()).isTrue();
    }

    @Test
    void underAPidsLimitTheAcceptorLivesOnAndLogsBoundedly() {
        assertThat(result.probe("6c").ok()).as("%s", details()).isTrue();
    }

    @Test
    void underALowFdLimitTheAcceptorBacksOffLogsBoundedlyAndRecovers() {
        assertThat(result.probe("6d").ok()).as("%s", details()).isTrue();
    }

    @Test
    void fetchesOfUnknownPartitionsCreateNothing() {
        assertThat(result.probe("6e").ok()).as("%s", details()).isTrue();
    }

    @Test
    void internalPartitionsAndUnissuedProducerIdsAreRefusedAndTheNextInitHandsOutAFreshId() {
        assertThat(result.probe("6f").ok()).as("%s", details()).isTrue();
    }

    @Test
    void producesToNewPartitionsPastMaxPartitionsAreRefusedAndLeaveNothingOnDisk() {
        assertThat(result.probe("6g").ok()).as("%s", details()).isTrue();
    }

    @Test
    void onTheKafkaPortAProduceCreatesNothingAndMetadataAutoCreatesOnlyUpToMaxPartitions() {
        assertThat(result.probe("6h").ok()).as("%s", details()).isTrue();
    }

    @Test
    void clientStringsReachTheLogEscapedCutAndRateLimited() {
        assertThat(result.probe("6i").ok()).as("%s", details()).isTrue();
    }

    @Test
    void tooLargeIsAnAnswerOnBothPortsAndOnlyAnOversizedFrameClosesItsConnection() {
        assertThat(result.probe("6j").ok()).as("%s", details()).isTrue();
    }
}
