package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 7 at the tests' size ({@link ResponsePath.Config#quick()}): the broker's response path
 * attacked on both ports (#23 findings 2 and 3), once for the class, while well-behaved clients are
 * timed on both.
 */
@Order(3)
class ResponsePathTest {
    @TempDir
    static Path dir;
    static ResponsePath.Result result;

    @BeforeAll
    static void attack() throws IOException {
        result = ResponsePath.run(dir, BrokerProcess.Options.ofThisClasspath(), ResponsePath.Config.quick());
    }

    private static String details() {
        return String.join("\n", result.details());
    }

    @Test
    void fetchAnswersNamingAPartitionThousandsOfTimesAreAnsweredOnceUnderFetchMaxBytes() {
        assertThat(result.probe("7a").ok()).as("%s", details()).isTrue();
    }

    @Test
    void clientsThatReadNothingHoldNoPoolAndTheirStalledWritesAreClosed() {
        assertThat(result.probe("7b").ok()).as("%s", details()).isTrue();
    }

    @Test
    void whileUnfinishedFramesFillThePoolAWellBehavedClientIsServedWithinSeconds() {
        assertThat(result.probe("7c").ok()).as("%s", details()).isTrue();
    }
}
