package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 3 at the full size of {@link HostileClients.Config#full()}: 1,000 connections of random
 * bytes, 5,000 opened and dropped, 24 half frames held open, bad lengths and wrong requests,
 * against a broker JVM with a 64 MiB heap, while a well-behaved client produces and consumes.
 */
@Order(3)
class HostileClientsTest {
    @TempDir
    Path dir;

    @Test
    void hostileClientsAreRefusedWithAReasonWhileAWellBehavedClientIsServedAndMemoryStaysBounded() throws IOException {
        HostileClients.Result r = HostileClients.run(dir, BrokerProcess.Options.ofThisClasspath(),
                HostileClients.Config.full());

        String details = String.join("\n", r.details()) + "\n" + r.problems();
        assertThat(r.brokerAlive())
                .as("the broker JVM (-Xmx64m, exits on OutOfMemoryError) is alive after every attack: every length"
                        + " is checked before a buffer of that size exists%n%s", details)
                .isTrue();
        for (String bad : new String[] {"random bytes", "frame length 2^31-1", "negative frame length",
                "half frame, never finished"}) {
            HostileClients.Attack a = r.attack(bad);
            assertThat(a.closedWithReason())
                    .as("%s: every connection is closed with one line in the broker's log naming the reason%n%s",
                            bad, details)
                    .isEqualTo(a.connections());
        }
        assertThat(r.attack("frame length 2^31-1").reasons())
                .as("2^31-1 is refused for being over the maximum, before anything is allocated%n%s", details)
                .allMatch(reason -> reason.contains("over the maximum"));
        assertThat(r.attack("negative frame length").reasons()).as("a negative length is named as such%n%s", details)
                .allMatch(reason -> reason.contains("negative"));
        HostileClients.Attack wrong = r.attack("well-formed but wrong");
        assertThat(wrong.closedWithReason() + wrong.answered())
                .as("an unknown apiKey and a partition name leaving the data directory are refused with a reason; a"
                        + " bad CRC and a 2 GiB fetch are answered (CORRUPT_BATCH, a capped fetch)%n%s", details)
                .isEqualTo(wrong.connections());
        HostileClients.Attack dropped = r.attack("opened and dropped");
        assertThat(dropped.connections()).as("thousands of connections opened and dropped%n%s", details)
                .isEqualTo(5000);
        assertThat(dropped.closedWithReason())
                .as("the 2,500 reset ones are logged (connection reset), but for the odd one reset while still in the"
                        + " accept queue (the kernel drops it there: the broker never sees it); the 2,500 closed"
                        + " cleanly before a frame are no error%n%s", details)
                .isBetween(2450, 2500);
        if (r.threadsBefore() >= 0) {
            assertThat(r.threadsAfter())
                    .as("the broker let every connection go: its thread count is back where it was%n%s", details)
                    .isLessThanOrEqualTo(r.threadsBefore() + HostileClients.THREAD_TOLERANCE);
        }
        assertThat(r.internalErrorsLogged())
                .as("no hostile input reaches the broker as an untyped exception ('internal error')%n%s", details)
                .isZero();
        assertThat(r.goodRounds())
                .as("the well-behaved client kept producing and consuming through every attack%n%s", details)
                .isPositive();
        assertThat(r.goodAudit().clean())
                .as("and its log is intact: each of its records once, in order, where acknowledged%n%s", details)
                .isTrue();
        assertThat(r.problems()).as("nothing else went wrong%n%s", details).isEmpty();
    }
}
