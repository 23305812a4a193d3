package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Item 1, a crash during a segment roll: the broker JVM runs with a debugger agent on loopback, a
 * breakpoint stops the roll's thread at one of three moments, and the process is SIGKILLed there.
 */
@Order(1)
class RollCrashTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(RollCrash.Point.class)
    void aKillInsideASegmentRollLosesNothingAndTheLogRollsOn(RollCrash.Point point) throws IOException {
        RollCrash.Outcome o = RollCrash.run(dir, BrokerProcess.Options.ofThisClasspath(), point, 11);

        String details = new RollCrash.Result(java.util.List.of(o)).details() + "\n" + o.problems();
        assertThat(o.killedInRoll())
                .as("the broker was killed with a thread standing inside LocalLog.roll at %s%n%s", point, details).isTrue();
        assertThat(o.filesAtKill())
                .as("at %s the new segment's files were %s at the kill%n%s", point, expectedFiles(point), details)
                .filteredOn(f -> f.matches("\\d{20}\\..*") && !f.startsWith("00000000000000000000."))
                .hasSize(expectedFiles(point));
        assertThat(o.afterRestart().lost() + o.afterRestart().misplaced())
                .as("every acknowledged record survives a kill in the middle of a roll%n%s", details).isZero();
        assertThat(o.afterRestart().duplicates()).as("and none is there twice%n%s", details).isZero();
        assertThat(o.afterMoreWrites().clean())
                .as("the restarted log rolls on: more writes, another kill, another restart, still every"
                        + " acknowledged record once, in order%n%s", details)
                .isTrue();
        assertThat(o.acceptsWrites()).as("and it accepts writes%n%s", details).isTrue();
        assertThat(o.problems()).as("nothing else went wrong%n%s", details).isEmpty();
    }

    /** How many files of the new segment exist at the kill: none, its .log, its .log, .index and .timeindex. */
    private static int expectedFiles(RollCrash.Point point) {
        return switch (point) {
            case BEFORE_NEW_FILES -> 0;
            case NEW_LOG_WITHOUT_INDEX -> 1;
            case NEW_SEGMENT_EMPTY -> 3;
        };
    }
}
