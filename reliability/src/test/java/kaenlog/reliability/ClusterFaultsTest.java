package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import kaenlog.reliability.cluster.ClusterChecker;
import kaenlog.reliability.cluster.ClusterFaults;
import kaenlog.reliability.cluster.ClusterRun;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI subset of the cluster under faults (#28): three {@code klog serve} processes, a ZooKeeper,
 * a proxy on every link, an idempotent acks=all producer with its ledger and a tailing consumer,
 * at the tests' size (at least 300 acknowledged records a row). Each test is one row of
 * {@code reliability/run}: the faults, the heal, and the checker's eight invariants on the ledger,
 * ZooKeeper's transaction log and every replica's files, plus the row's own expectations. Here the
 * brokers are killed and stopped; {@link ClusterTamperingTest} lies to them (#36), in a test JVM
 * of its own beside this one.
 */
@Order(14)
class ClusterFaultsTest {
    @TempDir
    Path dir;

    @Test
    void aLeaderKilledUnderLoadLosesNoAcknowledgedRecordAndANewOneLeadsWithinTheSession() throws IOException {
        holds(ClusterFaults.Scenario.SIGKILL_LEADER);
    }

    @Test
    void withOneFollowerKilledAcksGoOnAndWithBothTheProducerIsRefusedAndTheLogsConverge() throws IOException {
        holds(ClusterFaults.Scenario.FOLLOWERS);
    }

    @Test
    void aLeaderStoppedPastItsSessionAcknowledgesNothingTruncatesByEpochAndRejoins() throws IOException {
        holds(ClusterFaults.Scenario.ZOMBIE_LEADER);
    }

    @Test
    void leadersAThenBThenAAgainLeaveEveryReplicaWithTheSameBatchesAndEpochs() throws IOException {
        holds(ClusterFaults.Scenario.KIP279_ABA);
    }

    private void holds(ClusterFaults.Scenario scenario) throws IOException {
        holds(dir, scenario);
    }

    static void holds(Path dir, ClusterFaults.Scenario scenario) throws IOException {
        ClusterFaults.Config config = ClusterFaults.Config.quick();
        ClusterRun.Outcome outcome = ClusterFaults.run(dir, BrokerProcess.Options.ofThisClasspath(), config, scenario);

        String details = String.join("\n", outcome.details());
        ClusterChecker.Verdict v = outcome.verdict();
        assertThat(v).as("the scenario ran to its end: %s%n%s", outcome.expectations(), details).isNotNull();
        assertThat(v.acknowledged()).as("the tests' size: at least %d acknowledged records%n%s", config.records(),
                details).isGreaterThanOrEqualTo(config.records());
        assertThat(v.lost()).as("every acknowledged record is in the final leader's log below its high watermark"
                + " (acks=all answered only once the ISR of at least min.insync.replicas held it)%n%s", details).isZero();
        assertThat(v.renumbered()).as("every acknowledged record is at the offset its answer named%n%s", details)
                .isZero();
        assertThat(v.duplicated()).as("no record twice: a resend to the new leader is answered as a duplicate%n%s",
                details).isZero();
        assertThat(v.fencedAcks()).as("no acknowledgement by a leader whose batch a later epoch's leader replaced"
                + " (a fenced leader answers its waiting writes NOT_LEADER_OR_FOLLOWER)%n%s", details).isZero();
        assertThat(v.counts()).as("no violation of any of the eight invariants%n%s", details)
                .isEqualTo("1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0");
        assertThat(outcome.expectations()).as("the scenario's own expectations held%n%s", details).isEmpty();
    }
}
