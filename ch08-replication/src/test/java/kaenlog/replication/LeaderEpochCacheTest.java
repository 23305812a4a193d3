package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kaenlog.replication.LeaderEpochCache.EpochEntry;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 4: the end offset of an epoch, KIP-279 style (largest epoch <= the one asked). */
@Order(4)
class LeaderEpochCacheTest {

    private static LeaderEpochCache cache(int... epochAndStart) {
        LeaderEpochCache cache = new LeaderEpochCache();
        for (int i = 0; i < epochAndStart.length; i += 2) {
            cache.assign(epochAndStart[i], epochAndStart[i + 1]);
        }
        return cache;
    }

    private static Optional<EpochEndOffset> some(int epoch, long endOffset) {
        return Optional.of(new EpochEndOffset(epoch, endOffset));
    }

    @Test
    void theEpochTableAnswersEveryRow() {
        LeaderEpochCache cache = cache(0, 0, 1, 5, 3, 6);
        long leo = 6;

        assertThat(cache.endOffsetForEpoch(0, leo))
                .as("epoch 0 ends where epoch 1 starts: (0, 5)").isEqualTo(some(0, 5));
        assertThat(cache.endOffsetForEpoch(1, leo))
                .as("epoch 1 ends where the next cached epoch (3) starts: (1, 6)").isEqualTo(some(1, 6));
        assertThat(cache.endOffsetForEpoch(2, leo))
                .as("epoch 2 never existed: the answer is the largest epoch <= 2, epoch 1, with its end 6 "
                        + "(KIP-279: <= not ==)").isEqualTo(some(1, 6));
        assertThat(cache.endOffsetForEpoch(3, leo))
                .as("epoch 3 is the latest, so it ends at the log end offset 6").isEqualTo(some(3, 6));
        assertThat(cache.endOffsetForEpoch(4, leo))
                .as("epoch 4 is above every cached epoch: kaen-log answers the latest, (3, 6) "
                        + "(Kafka's endOffsetFor would answer (-1, -1) UNDEFINED here)").isEqualTo(some(3, 6));
        assertThat(cache.endOffsetForEpoch(-1, leo))
                .as("-1 is UNDEFINED_EPOCH: no cached epoch is <= -1, so the answer is 'none', an empty Optional")
                .isEmpty();
    }

    @Test
    void anEpochThatNeverExistedIsAnsweredWithTheOneBeforeIt() {
        LeaderEpochCache cache = cache(0, 10, 2, 13, 4, 17);

        assertThat(cache.endOffsetForEpoch(1, 20))
                .as("no epoch 1: the next lower one, epoch 0, ends at 13 (LeaderEpochFileCacheTest."
                        + "shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested)")
                .isEqualTo(some(0, 13));
        assertThat(cache.endOffsetForEpoch(2, 20)).as("epoch 2 ends where epoch 4 starts").isEqualTo(some(2, 17));
        assertThat(cache.endOffsetForEpoch(3, 20)).as("no epoch 3: epoch 2 answers").isEqualTo(some(2, 17));
    }

    @Test
    void theLatestEpochEndsAtTheLogEndOffset() {
        LeaderEpochCache cache = cache(2, 10);

        assertThat(cache.endOffsetForEpoch(2, 11))
                .as("the latest epoch is still being written: its end is the LEO, 11")
                .isEqualTo(some(2, 11));
    }

    @Test
    void theKip101FixAnswersTheFollowersEpochWithTheLeadersEnd() {
        LeaderEpochCache leader = cache(0, 0);

        assertThat(leader.endOffsetForEpoch(0, 2))
                .as("the follower holds epoch 0 and asks where it ends; the leader (LEO 2, only epoch 0) answers "
                        + "(0, 2): the follower truncates to min(2, 2) = 2 and loses nothing, where truncating to its "
                        + "own HW 1 would lose m2")
                .isEqualTo(some(0, 2));
    }

    @Test
    void minusOneAndAnEmptyCacheFindNothing() {
        assertThat(cache(2, 11, 3, 12).endOffsetForEpoch(EpochEndOffset.UNDEFINED_EPOCH, 12))
                .as("UNDEFINED_EPOCH (-1) finds nothing (shouldReturnUndefinedOffsetIfUndefinedEpochRequested)")
                .isEmpty();
        assertThat(new LeaderEpochCache().endOffsetForEpoch(0, 0))
                .as("an empty cache knows no epoch (shouldReturnUnsupportedIfNoEpochRecorded)")
                .isEmpty();
        assertThat(new LeaderEpochCache().endOffsetForEpoch(7, 0))
                .as("an empty cache knows no epoch, whatever is asked (shouldFetchEndOffsetOfEmptyCache)")
                .isEmpty();
    }

    @Test
    void anEpochBelowEveryCachedOneFindsNothing() {
        LeaderEpochCache cache = cache(5, 11, 6, 12, 7, 13);

        assertThat(cache.endOffsetForEpoch(4, 13))
                .as("no cached epoch is <= 4: none (Kafka answers (4, 11) here, the requested epoch with the first "
                        + "cached start offset: shouldReturnFirstEpochIfRequestedEpochLessThanFirstEpoch)")
                .isEmpty();
    }

    @Test
    void anEpochAboveTheLatestIsAnsweredWithTheLatest() {
        LeaderEpochCache cache = cache(2, 100);

        assertThat(cache.endOffsetForEpoch(3, 100))
                .as("3 is above every cached epoch: the largest epoch <= 3 is 2, the latest, ending at the LEO 100 "
                        + "(Kafka answers (-1, -1): shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked)")
                .isEqualTo(some(2, 100));
    }

    @Test
    void anEpochKeepsTheStartOffsetOfItsFirstRecord() {
        LeaderEpochCache cache = cache(1, 11, 1, 12, 2, 13, 2, 14, 3, 15, 3, 16);

        assertThat(cache.entries())
                .as("assigning an epoch again at a later offset changes nothing: an epoch starts at its first record")
                .containsExactly(new EpochEntry(1, 11), new EpochEntry(2, 13), new EpochEntry(3, 15));
        assertThat(cache.endOffsetForEpoch(2, 17))
                .as("epoch 2 ends at 15, where epoch 3 started (shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch)")
                .isEqualTo(some(2, 15));
    }

    @Test
    void assigningAnEarlierStartDropsTheEntriesThatWouldBreakTheOrder() {
        LeaderEpochCache cache = cache(5, 11, 6, 12, 7, 13);
        cache.assign(7, 12);

        assertThat(cache.entries())
                .as("(7, 12) removes (7, 13) and (6, 12): start offsets must increase with epochs")
                .containsExactly(new EpochEntry(5, 11), new EpochEntry(7, 12));
        assertThat(cache.endOffsetForEpoch(5, 13)).as("epoch 5 now ends at 12").isEqualTo(some(5, 12));
        assertThat(cache.endOffsetForEpoch(6, 13))
                .as("epoch 6 is gone: epoch 5 answers (shouldTruncateIfMatchingEpochButEarlierStartingOffset)")
                .isEqualTo(some(5, 12));
    }

    @Test
    void assigningALowerEpochDropsTheHigherOnes() {
        LeaderEpochCache cache = cache(1, 5, 2, 6, 1, 7);

        assertThat(cache.entries())
                .as("(1, 7) after (2, 6) removes every entry with epoch >= 1: epochs must increase "
                        + "(shouldEnforceMonotonicallyIncreasingEpochs)")
                .containsExactly(new EpochEntry(1, 7));
        assertThat(cache.endOffsetForEpoch(1, 8)).as("epoch 1 is the latest again: it ends at the LEO 8")
                .isEqualTo(some(1, 8));
    }

    @Test
    void noneBecomesMinusOneMinusOneOnlyAtTheWire() {
        LeaderEpochCache cache = cache(0, 0, 1, 5, 3, 6);

        assertThat(EpochEndOffset.toWire(cache.endOffsetForEpoch(-1, 6)))
                .as("on the wire 'none' is the pair (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) = (-1, -1)")
                .isEqualTo(new EpochEndOffset.Wire(-1, -1L));
        assertThat(EpochEndOffset.toWire(cache.endOffsetForEpoch(2, 6)))
                .as("a real answer crosses the wire as itself")
                .isEqualTo(new EpochEndOffset.Wire(1, 6L));
        assertThat(EpochEndOffset.fromWire(-1, -1L))
                .as("(-1, -1) read off the wire becomes an empty Optional again")
                .isEmpty();
        assertThat(EpochEndOffset.fromWire(1, 6L))
                .as("and a real pair becomes the answer")
                .isEqualTo(some(1, 6));
    }

    @Test
    void aLogEndOffsetBelowTheLatestEpochIsRefused() {
        LeaderEpochCache cache = cache(0, 0, 3, 6);
        assertThat(cache.endOffsetForEpoch(3, 6)).as("LEO 6 = the start of epoch 3: an empty epoch").isEqualTo(some(3, 6));

        assertThatThrownBy(() -> cache.endOffsetForEpoch(3, 5))
                .as("epoch 3 starts at 6, so a LEO of 5 is impossible: refused, naming the leo")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leo 5");
    }

    // ---- Kafka judges: kafka-storage's LeaderEpochFileCache.endOffsetFor, on epoch histories of every shape ----

    static final String END_OFFSET_RULE = "search from the newest entry back for the largest epoch <= the one asked"
            + " (KIP-279: an epoch that never existed is answered with the one before it); it ends where the next entry"
            + " starts, or at the LEO when it is the latest, and none is an empty Optional";

    @TempDir
    Path checkpointDir;

    /** A history of assign calls (mostly rising, some going back), a LEO at or past the latest start, an epoch asked. */
    record Lookup(List<EpochEntry> assigned, long leoPastLatestStart, int asked) {
        @Override
        public String toString() {
            return "assign " + assigned + ", then endOffsetForEpoch(" + asked + ", LEO = latest start + "
                    + leoPastLatestStart + ")";
        }
    }

    static final Gen<Lookup> LOOKUPS = c -> {
        int n = Gens.ints(0, 6).generate(c);
        List<EpochEntry> assigned = new ArrayList<>();
        int epoch = Gens.ints(0, 5).generate(c);
        long start = Gens.longs(0, 20).generate(c);
        for (int i = 0; i < n; i++) {
            assigned.add(new EpochEntry(epoch, start));
            epoch = (int) Math.min(Integer.MAX_VALUE, Math.max(0, epoch + (long) Gens.ints(-1, 3).generate(c)));
            start = Math.max(0, start + Gens.longs(-2, 10).generate(c));
        }
        long past = Gens.oneOf(Gens.longs(0, 10), Gens.longs(0, 1L << 40)).generate(c);
        int asked = Gens.oneOf(Gens.ints(-2, 12), Gens.ints()).generate(c);
        return new Lookup(assigned, past, asked);
    };

    @Test
    void everyLookupAgreesWithKafkasLeaderEpochFileCache() {
        Property.forAll(LOOKUPS).check(q -> {
            LeaderEpochCache yours = new LeaderEpochCache();
            LeaderEpochFileCache kafkas = KafkaJudges.epochCache(checkpointDir);
            q.assigned().forEach(e -> {
                yours.assign(e.epoch(), e.startOffset());
                kafkas.assign(e.epoch(), e.startOffset());
            });
            Judge.agree(q.toString(), "entries (given code, assign)", yours.entries(), "LeaderEpochFileCache.assign keeps",
                    KafkaJudges.entries(kafkas), "an epoch keeps the start offset of its first record, and entries that"
                            + " would break the order are removed before a new one is appended");
            List<EpochEntry> entries = yours.entries();
            long leo = (entries.isEmpty() ? 0 : entries.get(entries.size() - 1).startOffset()) + q.leoPastLatestStart();
            EpochEndOffset.Wire kafka = KafkaJudges.endOffsetFor(kafkas, q.asked(), leo);
            String input = "endOffsetForEpoch(" + q.asked() + ", " + leo + ") after assign " + q.assigned();
            String oracle = "LeaderEpochFileCache.endOffsetFor answers";
            Optional<EpochEndOffset> expected;
            if (!entries.isEmpty() && q.asked() > entries.get(entries.size() - 1).epoch()) {
                EpochEntry latest = entries.get(entries.size() - 1);
                oracle = "LeaderEpochFileCache.endOffsetFor answers (" + kafka.leaderEpoch() + ", " + kafka.endOffset()
                        + ") for an epoch above the latest; kaen-log's documented difference (the guide's 'An epoch"
                        + " above the latest') answers";
                expected = Optional.of(new EpochEndOffset(latest.epoch(), leo));
            } else if (!entries.isEmpty() && q.asked() < entries.get(0).epoch()) {
                oracle = "LeaderEpochFileCache.endOffsetFor answers (" + kafka.leaderEpoch() + ", " + kafka.endOffset()
                        + ") for an epoch below every cached one; kaen-log's documented difference (the guide's 'An"
                        + " epoch below every cached one') answers";
                expected = Optional.empty();
            } else {
                expected = EpochEndOffset.fromWire(kafka.leaderEpoch(), kafka.endOffset());
            }
            Optional<EpochEndOffset> kafkasAnswer = expected;
            Judge.agree(input, "answer", Judge.Outcome.of(() -> yours.endOffsetForEpoch(q.asked(), leo)), oracle,
                    Judge.Outcome.of(() -> kafkasAnswer), END_OFFSET_RULE);
        });
    }
}
