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
 * The CI subset's group row (#39), at the tests' size: the cluster of {@link ClusterFaultsTest},
 * two kafka-clients members of one group, and the SIGKILL of their coordinator's broker. A class
 * of its own so that surefire runs it in another test JVM beside the other cluster rows.
 */
@Order(14)
class CoordinatorFailoverTest {
    @TempDir
    Path dir;

    /**
     * #39's row: two kafka-clients members of one group lose their coordinator's broker (SIGKILL) a
     * third of the way; its own seven claims, numbered as {@code CoordinatorFailover} numbers them.
     */
    @Test
    void aGroupWhoseCoordinatorIsKilledReadsOnAndReadsAgainAtMostItsUncommittedPolls() throws IOException {
        ClusterFaults.Config config = ClusterFaults.Config.quick();
        ClusterRun.Outcome outcome = ClusterFaults.run(dir, BrokerProcess.Options.ofThisClasspath(), config,
                ClusterFaults.Scenario.COORDINATOR_KILLED);

        String details = String.join("\n", outcome.details());
        outcome.details().forEach(line -> System.out.println("[coordinator-killed] " + line));
        ClusterChecker.Verdict v = outcome.verdict();
        assertThat(v).as("the scenario ran to its end: %s%n%s", outcome.expectations(), details).isNotNull();
        assertThat(v.acknowledged()).as("the tests' size: at least %d records acknowledged to the group's topic%n%s",
                config.records(), details).isGreaterThanOrEqualTo(config.records());
        assertThat(v.lost()).as("every acknowledged record read by the group, through its coordinator's death%n%s",
                details).isZero();
        assertThat(v.violations()).as("claims 1-7: all read; at its acknowledged offset; read again at most the"
                + " polls not committed (at most members x max.poll.records); one coordinator at any time; a new one"
                + " within the session + 5 s, the offsets partition's new leader; no acknowledged commit lost; the last"
                + " commits reach every record%n%s", details).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7)
                .allSatisfy((claim, count) -> assertThat(count).as("claim %d%n%s", claim,
                details).isZero());
        assertThat(v.newLeaderMaxMs()).as("a new coordinator was named%n%s", details).isPositive();
        assertThat(outcome.expectations()).as("the row's own expectations held%n%s", details).isEmpty();
    }
}
