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
 * #40's cluster row: a kafka-clients transactional producer on three {@code klog serve} processes
 * loses its transaction coordinator's broker (SIGKILL) during a commit; the next leader of the id's
 * {@code __transaction_state} partition completes what was decided. A class of its own, as
 * {@link CoordinatorFailoverTest}, so that surefire runs it in another test JVM beside the other rows.
 */
@Order(15)
class TxnCoordinatorFailoverTest {
    @TempDir
    Path dir;

    /** Its five claims, numbered as {@code TxnCoordinatorFailover} numbers them, and the cluster's own end. */
    @Test
    void aTransactionCommittedWhileItsCoordinatorIsKilledIsCompletedAndNoReaderSeesAnAbortedOrPartialOne()
            throws IOException {
        ClusterRun.Outcome outcome = ClusterFaults.run(dir, BrokerProcess.Options.ofThisClasspath(),
                ClusterFaults.Config.quick(), ClusterFaults.Scenario.TXN_COORDINATOR_KILLED);

        String details = String.join("\n", outcome.details());
        outcome.details().forEach(line -> System.out.println("[txn-coordinator-killed] " + line));
        ClusterChecker.Verdict v = outcome.verdict();
        assertThat(v).as("the scenario ran to its end: %s%n%s", outcome.expectations(), details).isNotNull();
        assertThat(v.acknowledged()).as("committed transactions' records were acknowledged%n%s", details).isPositive();
        assertThat(v.violations()).as("claims 1-5: no aborted record read by read_committed; no transaction read in"
                + " part; every acknowledged commit read whole, that of the kill too; each record read once; a new"
                + " coordinator within the session + 5 s%n%s", details).containsOnlyKeys(1, 2, 3, 4, 5)
                .allSatisfy((claim, count) -> assertThat(count).as("claim %d%n%s", claim, details).isZero());
        assertThat(v.newLeaderMaxMs()).as("a new coordinator was elected%n%s", details).isPositive();
        assertThat(outcome.expectations()).as("the row's own expectations held%n%s", details).isEmpty();
    }
}
