package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #23, finding 5: one offline partition never breaks its neighbours. On one connection to a
 * real broker, ListOffsets, Fetch and Produce about the offline partition are each answered
 * STORAGE_ERROR, the connection stays open, and the healthy partition is read whole. (The Kafka
 * port's half, with a real KafkaConsumer assigned both, is chapter 9's OfflinePartitionKafkaTest.)
 */
@Order(10)
class OfflineNeighbourTest {
    @TempDir
    Path dir;

    @Test
    void anOfflinePartitionIsAnsweredItsErrorAndItsNeighbourIsServedOnTheSameConnection() throws IOException {
        OfflineNeighbour o = OfflineNeighbour.run(dir, BrokerProcess.Options.ofThisClasspath());

        String details = String.join("\n", o.details());
        assertThat(o.connectionsClosed()).as("no request about the offline partition closes the connection%n%s",
                details).isZero();
        assertThat(o.otherAnswers()).as("every answer about the offline partition is STORAGE_ERROR%n%s", details)
                .isZero();
        assertThat(o.offlineAnswers()).as("and there were such answers%n%s", details).isPositive();
        assertThat(o.healthyLost()).as("every record of the healthy partition is read%n%s", details).isZero();
    }
}
