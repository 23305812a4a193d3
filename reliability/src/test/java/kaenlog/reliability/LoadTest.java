package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Item 5 at the full size: 4 producers x 50,000 records and 2 consumers at once on one broker. */
@Order(5)
class LoadTest {
    @TempDir
    Path dir;

    @Test
    void fourProducersOfFiftyThousandRecordsAndTwoConsumersAtOnceEveryRecordOncePerConsumerInOffsetOrder()
            throws IOException {
        Load.Result r = Load.run(dir, Load.Config.full());

        String details = String.join("\n", r.details()) + "\n" + r.problems();
        assertThat(r.produced()).as("every one of the 4 x 50,000 records acknowledged%n%s", details)
                .isEqualTo(200_000);
        assertThat(r.produceErrors()).as("no produce failed%n%s", details).isZero();
        assertThat(r.consumers()).as("two consumers%n%s", details).hasSize(2);
        for (Load.ConsumerFigures c : r.consumers()) {
            assertThat(c.records()).as("each consumer got all 200,000 records%n%s", details).isEqualTo(200_000);
            assertThat(c.duplicates()).as("each exactly once%n%s", details).isZero();
            assertThat(c.missing()).as("none missing%n%s", details).isZero();
            assertThat(c.offsetGaps())
                    .as("offsets consecutive per partition: the leader gives each batch the next offsets, under the"
                            + " partition's lock, whatever the number of producers%n%s", details)
                    .isZero();
            assertThat(c.outOfOrder())
                    .as("each producer's records in the order it sent them, within a partition%n%s", details).isZero();
        }
        assertThat(r.problems()).as("nothing else went wrong%n%s", details).isEmpty();
    }
}
