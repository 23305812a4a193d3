package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 1 at the full size: {@code klog serve} in its own JVM, SIGKILLed 20 times while four
 * producers (two acks=1, two acks=all) write to two partitions, restarted on the same directory
 * each time. The figures are checked against the producers' own ledger of acknowledgements.
 */
@Order(1)
class CrashRecoveryTest {
    @TempDir
    Path dir;

    @Test
    void twentySigkillsWhileProducingLoseNoAcknowledgedRecordAndWriteNoneTwice() throws IOException {
        CrashRecovery.Config config = CrashRecovery.Config.full();

        CrashRecovery.Result r = CrashRecovery.run(dir, BrokerProcess.Options.ofThisClasspath(), config);

        String details = String.join("\n", r.details()) + "\n" + r.problems();
        assertThat(r.crashes()).as("the issue's size: 20 kill-and-restart cycles").isEqualTo(20);
        assertThat(r.ackedRecords())
                .as("each cycle kills only after at least %d acknowledged records: the kill lands mid-production%n%s",
                        config.minAckedPerCycle(), details)
                .isGreaterThanOrEqualTo(20L * config.minAckedPerCycle());
        assertThat(r.lost() + r.misplaced())
                .as("every acknowledged record is at the offset its answer named, after every later crash: acks=1"
                        + " and acks=all answer only once the batch is in the file, and the page cache outlives a"
                        + " killed process%n%s", details)
                .isZero();
        assertThat(r.duplicates())
                .as("no record twice: the producers never resend, so only the broker could duplicate one%n%s", details)
                .isZero();
        assertThat(r.outOfOrder()).as("each producer's records in the order it sent them%n%s", details).isZero();
        assertThat(r.partialBatches())
                .as("a batch whose answer was lost in the kill is in the log whole or not at all: it is one write%n%s",
                        details)
                .isZero();
        assertThat(r.offsetGaps())
                .as("offsets run on from batch to batch: recovery never leaves a hole (nothing was compacted)%n%s",
                        details)
                .isZero();
        assertThat(r.diskConsumerMismatches())
                .as("a consumer over TCP reads exactly the records the segment files hold, every batch of which"
                        + " decoded with its CRC checked%n%s", details)
                .isZero();
        assertThat(r.acceptsWritesAfter()).as("the log accepts and serves writes after the last restart%n%s", details)
                .isTrue();
        assertThat(r.problems()).as("nothing else went wrong%n%s", details).isEmpty();
        assertThat(r.crashesSurvived()).as("every one of the 20 crashes survived%n%s", details).isEqualTo(20);
    }
}
