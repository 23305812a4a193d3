package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Row txn-kill9 (#40) at the report's own size: klog serve SIGKILLed while a kafka-clients transaction
 * is open, restarted on the same directory; the transaction is aborted at its timeout by the restarted
 * coordinator, or committed by its producer; read_committed never reads it while it is open, and
 * Kafka's DumpLogSegments reads the segments, the control batches and the .txnindex files.
 */
@Order(1)
class TxnKill9Test {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(TxnKill9.Ending.class)
    void readCommittedNeverSeesATransactionOpenAtASigkillAndTheRestartEndsItAsKafkaDoes(TxnKill9.Ending ending)
            throws IOException {
        TxnKill9.Outcome o = TxnKill9.run(dir, BrokerProcess.Options.ofThisClasspath(), ending);

        String details = String.join("\n", new TxnKill9.Result(java.util.List.of(o)).details());
        assertThat(o.problems()).as("%s: every claim of the row held%n%s", ending.label, details).isEmpty();
        assertThat(o.committedLost()).as("no committed record is missing from read_committed%n%s", details).isZero();
        assertThat(o.duplicates()).as("and none is read twice%n%s", details).isZero();
        assertThat(o.lines()).as("the row's figures were measured up to Kafka's DumpLogSegments%n%s", details)
                .anyMatch(l -> l.startsWith("DumpLogSegments --deep-iteration: "));
    }
}
