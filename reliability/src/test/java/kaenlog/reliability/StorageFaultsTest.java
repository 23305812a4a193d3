package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Item 9, storage faults: out of space in the middle of appends, out of inodes at a roll, a
 * read-only data dir (each on a tmpfs this test mounts: root only, skipped with a printed reason
 * elsewhere), and bytes flipped in a segment or an index between a stop and a start. No
 * acknowledged record may be lost or renumbered.
 */
@Order(9)
class StorageFaultsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(StorageFaults.Fault.class)
    void aStorageFaultNeverLosesOrRenumbersAnAcknowledgedRecord(StorageFaults.Fault fault) throws IOException {
        StorageFaults.Outcome o = StorageFaults.run(dir, BrokerProcess.Options.ofThisClasspath(), fault);
        if (o.skipped()) {
            System.out.println("SKIPPED " + fault + ": needs a tmpfs, and " + String.join("; ", o.notes()));
            Assumptions.abort("needs a tmpfs: " + o.notes());
        }
        String details = new StorageFaults.Result(java.util.List.of(o)).details().get(0);
        assertThat(o.acked()).as("%s: the broker acknowledged records before the fault%n%s", fault, details).isPositive();
        assertThat(o.lost()).as("%s: every acknowledged record is found after the restart%n%s", fault, details).isZero();
        assertThat(o.renumbered())
                .as("%s: every acknowledged record is at its acknowledged offset, and no offset is given twice%n%s", fault,
                        details)
                .isZero();
        assertThat(o.readable() + o.damaged()).as("%s: each is readable or reported corrupt%n%s", fault, details)
                .isEqualTo(o.acked());
        assertThat(o.problems()).as("%s: and the broker behaved as it should on the way%n%s", fault, details).isEmpty();
    }
}
