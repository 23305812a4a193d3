package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 2 at the full size: 10,000 records through a seeded proxy that drops 2% of requests
 * and 10% of responses and delays 20% of the other frames, once with chapter 7's idempotent
 * producer and once with retries but without idempotence.
 */
@Order(2)
class AckLossTest {
    @TempDir
    Path dir;

    @Test
    void anIdempotentProducerWritesEachRecordOnceThroughLostAcksWhereARetryingOneWritesDuplicates() throws IOException {
        AckLoss.Result r = AckLoss.run(dir, AckLoss.Config.full());

        String details = String.join("\n", r.details()) + "\n" + r.problems();
        AckLoss.Run idem = r.idempotent();
        assertThat(idem.responsesDropped())
                .as("the proxy really lost answers (10%% of responses): without that this test proves nothing%n%s",
                        details)
                .isGreaterThan(50);
        assertThat(idem.requestsDropped()).as("and requests (2%%)%n%s", details).isPositive();
        assertThat(idem.resentRequests())
                .as("so the producer resent batches whose first copy the broker had already written%n%s", details)
                .isPositive();
        assertThat(idem.audit().duplicates())
                .as("0 duplicates: a resend carries the same producer id, epoch and sequences, and the broker answers"
                        + " it with the first write's offsets instead of writing it again%n%s", details)
                .isZero();
        assertThat(idem.gaps()).as("0 gaps: every one of the 10,000 records is in the log%n%s", details).isZero();
        assertThat(idem.audit().outOfOrder()).as("order kept: sequence numbers only grow in the log%n%s", details)
                .isZero();
        assertThat(idem.audit().misplaced())
                .as("every answer (a duplicate's included) names the offsets where its records are%n%s", details)
                .isZero();
        assertThat(idem.audit().recordsInLog()).as("exactly 10,000 records in the log%n%s", details).isEqualTo(10_000);
        assertThat(r.plain().audit().duplicates())
                .as("the same faults without idempotence write duplicates: a resend is a new batch to the broker"
                        + " (the figure that explains chapter 7)%n%s", details)
                .isPositive();
        assertThat(r.plain().gaps()).as("but lose nothing: retries cover the dropped requests%n%s", details).isZero();
    }
}
