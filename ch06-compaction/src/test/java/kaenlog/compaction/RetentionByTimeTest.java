package kaenlog.compaction;

import static kaenlog.compaction.LogFixture.HOUR;
import static kaenlog.compaction.LogFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import kaenlog.batch.RecordBatch;
import kaenlog.compaction.LogShapes.LogShape;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.log.Segment;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 1: retention by time. {@code retention.ms} forgets whole closed segments, oldest first,
 * judging each by its newest record (Kafka's {@code deleteRetentionMsBreachedSegments}: "startMs -
 * segment.largestTimestamp() > retentionMs"); never the active segment, never a segment that
 * reaches the high watermark. The log start offset moves to the first segment left, and a fetch
 * below it is an error.
 */
@Order(1)
class RetentionByTimeTest {
    @TempDir
    Path dir;

    /** One closed segment per age (2 records each, the newer exactly {@code age} hours before T0), then an active one. */
    private Log logWithAges(long... ages) throws IOException {
        Log log = LogFixture.open(dir);
        for (long age : ages) {
            long newest = T0 - age * HOUR;
            LogFixture.put(log, newest - 60_000, "k" + age, "older");
            LogFixture.put(log, newest, "k" + age, "newer");
            log.roll();
        }
        LogFixture.put(log, T0, "now", "active");
        return log;
    }

    @Test
    void theCandidatesAreTheClosedSegmentsOldestFirstNeverTheActiveOne() throws IOException {
        try (Log log = logWithAges(3, 2, 1)) {
            assertThat(Retention.candidates(log)).extracting(Segment::baseOffset)
                    .as("three closed segments at base offsets 0, 2, 4, oldest first; the active segment (6) is"
                            + " never a candidate: it is the one the log appends to")
                    .containsExactly(0L, 2L, 4L);
        }
    }

    @Test
    void aSegmentReachingTheHighWatermarkIsNoCandidate() throws IOException {
        try (Log log = logWithAges(3, 2, 1)) {
            log.stopEagerHighWatermark();
            log.updateHighWatermark(3);
            assertThat(Retention.candidates(log)).extracting(Segment::baseOffset)
                    .as("with the high watermark at 3 only segment 0..1 lies wholly below it; segment 2..3 holds"
                            + " offset 3, which is not committed: Kafka never lets the log start offset pass the HW")
                    .containsExactly(0L);
        }
    }

    @Test
    void aSegmentEndingExactlyAtTheHighWatermarkIsACandidate() throws IOException {
        try (Log log = logWithAges(3, 2, 1)) {
            log.stopEagerHighWatermark();
            log.updateHighWatermark(2);
            assertThat(Retention.candidates(log)).extracting(Segment::baseOffset)
                    .as("with the high watermark at 2 segment 0..1 is wholly committed: its successor starts at 2, at"
                            + " or below the high watermark, so it is a candidate (stop only when the HW is below the"
                            + " successor's base offset)")
                    .containsExactly(0L);
            log.updateHighWatermark(4);
            assertThat(Retention.candidates(log)).extracting(Segment::baseOffset)
                    .as("with the high watermark at 4 segments 0..1 and 2..3 both end exactly at or below it")
                    .containsExactly(0L, 2L);
        }
    }

    @Test
    void aSegmentExpiresByItsNewestRecordNotItsOldest() throws IOException {
        try (Log log = LogFixture.open(dir)) {
            LogFixture.put(log, T0 - 5 * HOUR, "a", "old");
            LogFixture.put(log, T0 - HOUR, "a", "recent");
            log.roll();
            Segment segment = log.segments().get(0);
            assertThat(Retention.breachesRetentionMs(segment, 3 * HOUR, T0))
                    .as("its oldest record is 5 h old but its newest only 1 h: a segment lives as long as its newest"
                            + " record (Kafka compares segment.largestTimestamp()), so 3 h retention keeps it")
                    .isFalse();
            assertThat(Retention.breachesRetentionMs(segment, 30 * 60_000, T0))
                    .as("with retention.ms 30 min even its newest record (1 h) is too old: expired")
                    .isTrue();
        }
    }

    @Test
    void exactlyRetentionMsOldIsNotYetExpired() throws IOException {
        try (Log log = logWithAges(3)) {
            Segment segment = log.segments().get(0);
            assertThat(Retention.breachesRetentionMs(segment, 3 * HOUR, T0))
                    .as("newest record exactly 3 h old with retention.ms 3 h: not expired, Kafka's test is strictly"
                            + " 'now - largestTimestamp > retentionMs'")
                    .isFalse();
            assertThat(Retention.breachesRetentionMs(segment, 3 * HOUR, T0 + 1))
                    .as("one millisecond later it is older than retention.ms: expired")
                    .isTrue();
        }
    }

    @Test
    void minusOneMeansNoTimeLimit() throws IOException {
        try (Log log = logWithAges(10_000)) {
            assertThat(Retention.breachesRetentionMs(log.segments().get(0), RetentionConfig.NO_LIMIT, T0))
                    .as("retention.ms -1 keeps a segment forever, however old (Kafka: 'If set to -1, no time limit"
                            + " is applied')")
                    .isFalse();
            assertThat(Retention.apply(log, RetentionConfig.byTime(RetentionConfig.NO_LIMIT), T0).deleted())
                    .as("so retention deletes nothing").isEmpty();
        }
    }

    @Test
    void expiredSegmentsGoOldestFirstAndTheLogStartOffsetMoves() throws IOException {
        try (Log log = logWithAges(5, 4, 3, 2)) {
            Path firstFile = log.segments().get(0).logFile();
            Retention.Result result = Retention.apply(log, RetentionConfig.byTime(3 * HOUR), T0);

            assertThat(result.deleted()).extracting(Retention.Deletion::baseOffset)
                    .as("the segments whose newest record is 5 h and 4 h old go; the 3 h one is not older than"
                            + " 3 h and stays")
                    .containsExactly(0L, 2L);
            assertThat(result.deleted()).extracting(Retention.Deletion::reason)
                    .as("each deletion names its rule").containsOnly("retention.ms");
            assertThat(log.logStartOffset())
                    .as("the log start offset moves to the base offset of the first segment left (4)")
                    .isEqualTo(4L);
            assertThat(result.logStartOffsetBefore()).as("the result reports the move from 0").isZero();
            assertThat(result.logStartOffsetAfter()).as("... to 4").isEqualTo(4L);
            assertThat(firstFile).as("a deleted segment's file is gone from the log's files (renamed .deleted, unlinked"
                    + " later without the partition's lock)").doesNotExist();
            assertThat(LogFixture.records(log).firstKey())
                    .as("no offset moved: the first record left is still at offset 4").isEqualTo(4L);
        }
    }

    @Test
    void deletionStopsAtTheFirstSegmentThatIsNotExpired() throws IOException {
        try (Log log = logWithAges(5, 1, 5)) {
            Retention.Result result = Retention.apply(log, RetentionConfig.byTime(3 * HOUR), T0);
            assertThat(result.deleted()).extracting(Retention.Deletion::baseOffset)
                    .as("segment 4..5 is 5 h old too, but segment 2..3 (1 h) stands before it: retention deletes a"
                            + " run of oldest segments and stops at the first it must keep, so the log has no hole")
                    .containsExactly(0L);
        }
    }

    @Test
    void theActiveSegmentIsNeverDeletedEvenWhenItIsExpired() throws IOException {
        try (Log log = LogFixture.open(dir)) {
            LogFixture.put(log, T0 - 9 * HOUR, "a", "1");
            log.roll();
            LogFixture.put(log, T0 - 8 * HOUR, "b", "2");
            Retention.apply(log, RetentionConfig.byTime(HOUR), T0);

            assertThat(log.segments()).extracting(Segment::baseOffset)
                    .as("both segments are older than retention.ms, but the active one (base 1) stays: the log"
                            + " always has a segment to append to")
                    .containsExactly(1L);
            assertThat(log.logStartOffset()).as("the log start offset is the active segment's base").isEqualTo(1L);
            assertThat(log.logEndOffset()).as("the log end offset does not move").isEqualTo(2L);
        }
    }

    @Test
    void aFetchBelowTheLogStartOffsetIsOutOfRange() throws IOException {
        try (Log log = logWithAges(5, 4, 1)) {
            Retention.apply(log, RetentionConfig.byTime(3 * HOUR), T0);

            assertThatThrownBy(() -> log.read(0, Integer.MAX_VALUE, FetchIsolation.HIGH_WATERMARK))
                    .as("offset 0 was forgotten: a fetch there is an out-of-range error, not an empty answer (a"
                            + " consumer that lost its place must be told to reset)")
                    .isInstanceOf(OffsetOutOfRangeException.class);
            List<RecordBatch> batches = RecordBatch.decodeAll(
                    log.read(log.logStartOffset(), Integer.MAX_VALUE, FetchIsolation.HIGH_WATERMARK));
            assertThat(batches.get(0).baseOffset())
                    .as("a fetch at the new log start offset (4) reads from there").isEqualTo(4L);
        }
    }

    @Test
    void theLogStartOffsetSurvivesAReopen() throws IOException {
        try (Log log = logWithAges(5, 4, 1)) {
            Retention.apply(log, RetentionConfig.byTime(3 * HOUR), T0);
        }
        try (Log reopened = LogFixture.open(dir)) {
            assertThat(reopened.logStartOffset())
                    .as("after a restart the log starts at its first segment file, base offset 4: deleting the files"
                            + " is what makes retention durable")
                    .isEqualTo(4L);
        }
    }

    // ---- Kafka judges: any log, and Kafka 4.1.1's UnifiedLog holding the same segments -----------

    /** What the properties try: a log, its high watermark, retention.ms and the time it runs at. */
    record TimeCase(LogShape log, long highWatermark, long retentionMs, long nowMs) {
        @Override
        public String toString() {
            return log + "\n    high watermark " + highWatermark + ", retention.ms " + retentionMs + ", now "
                    + LogShapes.at(nowMs);
        }
    }

    /**
     * Logs whose segments are hours apart, any high watermark, and a retention.ms that is -1, anything up
     * to 12 h, or exactly a segment's age give or take a millisecond (the boundary).
     */
    static Gen<TimeCase> timeCases() {
        return c -> {
            LogShape log = LogShapes.logs(LogShapes::spreadOverHours).generate(c);
            int records = log.recordCount();
            long hw = c.oneIn(2) ? records : Gens.longs(0, records).generate(c);
            long now = c.oneIn(4) ? T0 + Gens.longs(-HOUR, HOUR).generate(c) : T0;
            long retentionMs;
            if (c.oneIn(8)) {
                retentionMs = RetentionConfig.NO_LIMIT;
            } else if (c.oneIn(2)) {
                long newest = log.segments().get(c.belowInt(log.segments().size())).stream()
                        .flatMap(b -> b.records().stream()).mapToLong(LogShapes.RecordShape::timestamp).max().orElseThrow();
                retentionMs = Math.max(0, now - newest + Gens.longs(-1, 1).generate(c));
            } else if (c.oneIn(3)) {
                // the largest limits too (Long.MAX_VALUE is "forever" in many configs): no sum may overflow
                retentionMs = Long.MAX_VALUE - Gens.longs(0, 4 * T0).generate(c);
            } else {
                retentionMs = Gens.longs(0, 12 * HOUR).generate(c);
            }
            return new TimeCase(log, hw, retentionMs, now);
        };
    }

    @Test
    void kafkasUnifiedLogJudgesRetentionByTimeOnAnyLog() throws IOException {
        try (Scratch scratch = Scratch.in(dir); KafkaLog.OnDemand kafkaLog = new KafkaLog.OnDemand(scratch)) {
            Property.forAll(timeCases()).tries(30).shrinkBudget(LogShapes.SHRINKS).check(c -> {
                try (Log log = c.log().build(scratch.newDir(), c.highWatermark())) {
                    Judge.Outcome candidates = Judge.Outcome.of(() -> bases(Retention.candidates(log)));
                    Judge.Outcome deleted = Judge.Outcome.of(() -> bases(Retention.deletableByTime(log, c.retentionMs(),
                            c.nowMs())));
                    KafkaLog kafka = kafkaLog.get().mirror(log);
                    long active = log.activeSegment().baseOffset();
                    Judge.agree("this log (high watermark " + c.highWatermark() + ")", "candidates", candidates,
                            "UnifiedLog.deletableSegments lets retention consider (the active segment aside, which"
                                    + " kaen-log never deletes)",
                            new Judge.Outcome(without(active, kafka.deletableBases()), null),
                            "the closed segments, oldest first, while the whole segment lies below the high watermark"
                                    + " (its successor's base offset at or below the HW); never the active segment");
                    Judge.agree("this log with retention.ms " + c.retentionMs() + " at " + LogShapes.at(c.nowMs()),
                            "deleted segments", deleted, "UnifiedLog.deleteOldSegments deletes (the active segment aside)",
                            new Judge.Outcome(without(active, kafka.deletedByRetention(c.retentionMs(),
                                    RetentionConfig.NO_LIMIT, c.nowMs())), null),
                            "a segment expires when its NEWEST record is strictly older than retention.ms (now -"
                                    + " largestTimestamp > retention.ms; -1 never expires), oldest first, stopping at the"
                                    + " first segment that has not expired or reaches the high watermark");
                }
            });
        }
    }

    static List<Long> bases(List<Segment> segments) {
        return segments.stream().map(Segment::baseOffset).toList();
    }

    /** Kafka's list without kaen-log's active segment: Kafka rolls and deletes a full active segment, kaen-log never does. */
    static List<Long> without(long activeBase, List<Long> bases) {
        return bases.stream().filter(base -> base != activeBase).toList();
    }
}
