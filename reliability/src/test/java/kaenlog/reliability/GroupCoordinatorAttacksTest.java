package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 8 at the tests' size ({@link GroupCoordinatorAttacks.Config#quick()}): the group
 * coordinator attacked on the Kafka port (#36 items 2, 3 and 5), once for the class, against broker
 * processes at -Xmx128m without ExitOnOutOfMemoryError, while a well-behaved client produces and
 * consumes.
 */
@Order(3)
class GroupCoordinatorAttacksTest {
    @TempDir
    static Path dir;
    static GroupCoordinatorAttacks.Result result;

    @BeforeAll
    static void attack() throws IOException {
        result = GroupCoordinatorAttacks.run(dir, BrokerProcess.Options.ofThisClasspath(),
                GroupCoordinatorAttacks.Config.quick());
    }

    private static String details() {
        return String.join("\n", result.details());
    }

    @Test
    void offsetCommitsForPartitionsNobodyCreatedWriteNothingAndOffsetFetchStaysFast() {
        assertThat(result.probe("8a").ok()).as("%s", details()).isTrue();
    }

    @Test
    void hugeGroupIdsCountInTheGroupBudgetAndNewGroupsJoinAfterwards() {
        assertThat(result.probe("8b").ok()).as("%s", details()).isTrue();
    }

    @Test
    void groupsThatEmptyAreRemovedSoNewGroupsJoinAfterAFloodOfOneShotGroups() {
        assertThat(result.probe("8c").ok()).as("%s", details()).isTrue();
    }

    @Test
    void describeGroupsAnswersEachGroupOnceHoweverOftenItIsNamed() {
        assertThat(result.probe("8d").ok()).as("%s", details()).isTrue();
    }

    @Test
    void groupAndMemberIdsReachTheLogEscapedCutAndRateLimited() {
        assertThat(result.probe("8e").ok()).as("%s", details()).isTrue();
    }

    @Test
    void anOutOfMemoryErrorTheBoundsMissedStopsTheProcessWithAClearLastLine() {
        assertThat(result.probe("8f").ok()).as("%s", details()).isTrue();
    }
}
