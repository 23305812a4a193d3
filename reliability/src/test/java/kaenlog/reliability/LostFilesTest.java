package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue #23, finding 8: files taken away between a clean stop and a start (the active .log, a middle
 * segment, every .log, the first segment, the partition directory) never lose acknowledged records
 * silently: the partition goes offline with one line naming the missing offsets, writes are refused,
 * no acknowledged offset is handed out twice; --accept-data-loss serves what is left and goes on past.
 */
@Order(11)
class LostFilesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(LostFiles.Damage.class)
    void filesLostAfterACleanStopAreSaidOnceAndNoOffsetIsHandedOutTwice(LostFiles.Damage damage) throws IOException {
        LostFiles.Outcome o = LostFiles.run(dir, BrokerProcess.Options.ofThisClasspath(), damage);

        String details = String.join("\n", new LostFiles.Result(List.of(o)).table()) + "\n"
                + new LostFiles.Result(List.of(o)).details().get(0);
        assertThat(o.acked()).as("%s: the broker acknowledged the records before the stop%n%s", damage, details)
                .isEqualTo(300);
        assertThat(o.handedOutTwice()).as("%s: no acknowledged offset is handed out again%n%s", damage, details)
                .isZero();
        assertThat(o.readableOffline()).as("%s: offline, nothing is served as if the log were whole%n%s", damage,
                details).isZero();
        assertThat(o.problems()).as("%s: one line names the loss, writes are refused, the other partition is"
                + " served, --accept-data-loss serves the rest and goes on past%n%s", damage, details).isEmpty();
    }
}
