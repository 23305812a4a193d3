package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What this suite caught the reference failing, each fixed since: these tests keep it fixed. A
 * producer batch whose lastOffsetDelta lies about its record count (chapter 3, Log.append),
 * damaged segment files that escaped Log.open untyped (chapter 3, recovery), an answer lost on
 * an open connection (chapter 7, the producer's request timeout), and offsets-log strings that
 * were not UTF-8 (chapter 6). The report (reliability/run) measures each of them on every run. F3,
 * frames that never finish, is tested by {@link BoundedBrokerTest} (row 6a; the report runs 200 of them).
 */
@Order(6)
class KnownFindingsTest {
    @TempDir
    Path dir;

    @Test
    void aBatchWhoseLastOffsetDeltaDisagreesWithItsRecordCountIsRefusedAndThePartitionIsUnharmed() throws IOException {
        LyingBatchProbe.Result r = LyingBatchProbe.run(dir, BrokerProcess.Options.ofThisClasspath());

        assertThat(r.lieAnswer()).as("refused: a batch claiming 2^31 offsets for 1 record is corrupt%n%s", r.lines())
                .startsWith("CORRUPT_BATCH");
        assertThat(r.laterFailed()).as("later produces to the partition succeed%n%s", r.lines()).isZero();
        assertThat(r.opensAfterRestart()).as("the partition opens after a restart%n%s", r.lines()).isTrue();
        assertThat(r.emptyBatchOutcome())
                .as("a batch of 0 records is refused with an error answer, not an IllegalArgumentException that"
                        + " closes the connection as an internal error%n%s", r.lines())
                .startsWith("CORRUPT_BATCH");
    }

    @Test
    void damagedSegmentFilesGiveOnlyTypedErrors() throws IOException {
        // Seed 7: 1,000 logs other than DecoderFuzzTest's (seed 6); the report runs 5,000.
        SegmentFileFuzz.Result r = SegmentFileFuzz.run(dir, new SegmentFileFuzz.Config(7, 1_000));

        assertThat(r.inputs()).as("1,000 damaged logs in CI").isEqualTo(1_000);
        assertThat(r.untypedTotal()).as("Log.open on a damaged log truncates it or throws CorruptBatchException%n%s",
                String.join("\n", r.details())).isZero();
    }

    @Test
    void anIdempotentProducerGivesUpOnALostAnswerAndResends() throws IOException {
        assertThat(AckLoss.idempotentProducerWaitsForeverOnASilentDrop(dir, 5_000))
                .as("still waiting for an answer that will never come, 5 s later").isFalse();
    }

    @Test
    void anOffsetsLogRecordWithAnOverlongBrokenStringIsATypedError() {
        Findings.OffsetCommitUtf8 r = Findings.offsetCommitUtf8();

        assertThat(r.keyThrew()).as("the key's group").isEqualTo("CorruptOffsetRecordException");
        assertThat(r.valueThrew()).as("the value's metadata").isEqualTo("CorruptOffsetRecordException");
    }
}
