package kaenlog.reliability;

import java.io.IOException;
import java.nio.file.Path;
import kaenlog.reliability.cluster.ClusterFaults;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI subset of the cluster attacked (#36): the cluster of {@link ClusterFaultsTest}, lied to
 * through its replica fetch and its ZooKeeper data, judged by the same checks (no acknowledged
 * record lost, renumbered or duplicated, the eight invariants, the row's own expectations). A class
 * of its own so that surefire runs it in another test JVM beside the killed and stopped brokers.
 */
@Order(14)
class ClusterTamperingTest {
    @TempDir
    Path dir;

    @Test
    void aReplicaFetchSpoofedOnTheClientPortTeachesTheLeaderNothingAndNoAcknowledgedRecordIsLost() throws IOException {
        ClusterFaultsTest.holds(dir, ClusterFaults.Scenario.SPOOFED_REPLICA_FETCH);
    }

    @Test
    void aFollowerWhoseRegistrationIsBrokenIsNeverElectedAndAnotherLeadsWithinTheBound() throws IOException {
        ClusterFaultsTest.holds(dir, ClusterFaults.Scenario.BROKEN_REGISTRATION);
    }

    @Test
    void aStateForgedAtLeader999AndTheLargestEpochIsReplacedWithinTwentySecondsAndNoEpochWraps() throws IOException {
        ClusterFaultsTest.holds(dir, ClusterFaults.Scenario.TAMPERED_STATE);
    }
}
