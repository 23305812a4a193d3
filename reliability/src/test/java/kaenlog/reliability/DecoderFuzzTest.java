package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 4: 200,000 seeded mutations in CI (the report runs 1,000,000), spread over every decoder of
 * untrusted bytes, each along the path the broker or a client takes.
 */
@Order(4)
class DecoderFuzzTest {
    @TempDir
    Path dir;

    @Test
    void twoHundredThousandMutationsOfBatchesFramesAndMessagesGiveOnlyTypedErrorsWithoutHangOrUncheckedAllocation() {
        DecoderFuzz.Result r = DecoderFuzz.run(new DecoderFuzz.Config(4, 200_000));

        String details = String.join("\n", r.details());
        assertThat(r.inputs()).as("the issue asks for at least 100,000 mutations%n%s", details).isEqualTo(200_000);
        assertThat(r.hung()).as("no input makes a decoder loop: a watchdog waits 10 s per input%n%s", details).isFalse();
        assertThat(r.untyped())
                .as("only CorruptBatchException, MalformedMessageException, CorruptOffsetRecordException and, for a"
                        + " frame cut short, EOFException: never an index exception, an ArithmeticException or an"
                        + " OutOfMemoryError%n%s", details)
                .isZero();
        assertThat(r.allocationMeasured()).as("this JVM counts the bytes a thread allocates%n%s", details).isTrue();
        assertThat(r.overAllocated())
                .as("no decode allocates more than 64 KiB + 16 bytes per input byte (+ the 64 KiB frame limit for a"
                        + " frame): a length is checked against the bytes that are there before anything of that size"
                        + " is allocated%n%s", details)
                .isZero();
        for (DecoderFuzz.TargetFigures t : r.targets()) {
            assertThat(t.accepted())
                    .as("%s: some mutations still decode (a length-preserving change, a CRC recomputed): the"
                            + " decoder is fed its own structure, not only noise%n%s", t.target(), details)
                    .isPositive();
        }
    }

    @Test
    void damagedSegmentFilesNeverHangRecoveryOrARead() throws IOException {
        SegmentFileFuzz.Result r = SegmentFileFuzz.run(dir, new SegmentFileFuzz.Config(6, 1_000));

        String details = String.join("\n", r.details());
        assertThat(r.inputs()).as("1,000 damaged logs in CI (the report runs 5,000)%n%s", details).isEqualTo(1_000);
        assertThat(r.hung())
                .as("opening a damaged log (recovery) and reading it from start to end always returns%n%s", details)
                .isFalse();
        assertThat(r.opened().getOrDefault("closed segment .index", 0L))
                .as("a damaged index of a closed segment is noticed and rebuilt from its log: the log opens%n%s",
                        details)
                .isPositive();
        assertThat(r.untyped().getOrDefault("closed segment .index", 0L))
                .as("a damaged index never surfaces as an untyped error%n%s", details)
                .isZero();
    }
}
