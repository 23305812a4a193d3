package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row streams-eos (#40) at the tests' size: Kafka Streams' word count with exactly_once_v2, in a JVM
 * of its own, SIGKILLed twice in the middle of its work and restarted (on its state directory, and
 * without it), against one klog serve with a Kafka port, while its input keeps coming: read_committed's
 * counts of each word are 1, 2, ..., its occurrences, none double-applied and none skipped.
 */
@Order(1)
class StreamsEosKill9Test {
    @TempDir
    Path dir;

    @ParameterizedTest
    // TAKEOVER and ZOMBIE (two instances, the stopped one's session and transaction timed out: 40 to 60 s
    // each) run in reliability/run only.
    @EnumSource(value = StreamsEosKill9.Restart.class, names = {"SAME_STATE", "STATE_LOST"})
    void aStreamsAppKilledHalfWayAndRestartedCountsEveryWordExactlyOnceReadCommitted(StreamsEosKill9.Restart restart)
            throws IOException {
        StreamsEosKill9.Outcome r = StreamsEosKill9.run(dir, BrokerProcess.Options.ofThisClasspath(),
                StreamsEosKill9.Config.quick(), restart);

        String details = String.join("\n", new StreamsEosKill9.Result(List.of(r)).details());
        assertThat(r.problems()).as("every claim of the row held%n%s", details).isEmpty();
        assertThat(r.lost()).as("no count update is missing from read_committed%n%s", details).isZero();
        assertThat(r.duplicates()).as("and none is read twice (a count double-applied)%n%s", details).isZero();
        assertThat(r.countUpdates()).as("the words of at least %d lines were counted%n%s",
                StreamsEosKill9.Config.quick().minLines(), details).isGreaterThan(StreamsEosKill9.Config.quick().minLines());
    }
}
