package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import kaenlog.replication.EpochEndOffset;
import kaenlog.replication.LeaderEpochCache.EpochEntry;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import kaenlog.log.FetchIsolation;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 7: a follower truncates by leader epoch, in as many rounds as it takes (KIP-279), never by its HW. */
@Order(7)
class EpochTruncationTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    @TempDir
    Path dir;

    @Test
    void aFollowerThatHoldsTheLeadersEpochCutsWhereTheLeadersEnds() throws Exception {
        try (Replica a = open(1, "a"); Replica b = open(2, "b")) {
            a.becomeLeader(0);
            write(a, 3);
            copy(a, b, 0);
            a.updateHighWatermark(1);
            b.updateHighWatermark(1);
            write(a, 2); // offsets 3, 4: epoch 0, never copied
            b.becomeLeader(1);
            write(b, 1); // offset 3: epoch 1
            a.becomeFollower();
            EpochTruncation.Result result = EpochTruncation.truncate(a, b::endOffsetForEpoch);
            assertThat(result.truncatedTo()).as("a holds epoch 0 up to 5, b ended epoch 0 at 3: cut to min(5, 3) = 3,"
                    + " never to a's high watermark 1, which would lose committed records").isEqualTo(3);
            assertThat(a.leo()).as("a's log end").isEqualTo(3);
            assertThat(result.rounds()).as("both hold epoch 0: one question is enough").isEqualTo(1);
        }
    }

    @Test
    void anEpochTheLeaderNeverHadTakesASecondRound() throws Exception {
        try (Replica f = open(1, "f"); Replica l = open(2, "l")) {
            f.becomeLeader(0);
            write(f, 5); // offsets 0..4, epoch 0
            copy(f, l, 0);
            f.updateHighWatermark(3);
            f.becomeLeader(2);
            write(f, 3); // offsets 5..7, epoch 2: f led briefly, nobody copied them
            l.becomeLeader(1);
            write(l, 3); // offsets 5..7, epoch 1
            l.becomeLeader(3);
            write(l, 1); // offset 8, epoch 3
            f.becomeFollower();
            List<Integer> asked = new ArrayList<>();
            EpochTruncation.Result result = EpochTruncation.truncate(f, epoch -> {
                asked.add(epoch);
                return l.endOffsetForEpoch(epoch);
            });
            assertThat(f.leo()).as("f asked about epoch 2, l answered (1, 8): l never had epoch 2. f does not hold epoch 1"
                    + " either, so it must cut to where ITS epochs below 1 end (5) and ask again; one round would keep"
                    + " f's divergent records 5..7 of epoch 2").isEqualTo(5);
            assertThat(asked).as("the questions: epoch 2, then epoch 0 (f's latest after the first cut)")
                    .containsExactly(2, 0);
            assertThat(result).as("two rounds, ending at 5").isEqualTo(new EpochTruncation.Result(5, 2));
        }
    }

    @Test
    void anUndefinedAnswerFallsBackToTheHighWatermark() throws Exception {
        try (Replica f = open(1, "f")) {
            f.becomeLeader(4);
            write(f, 4);
            f.updateHighWatermark(2);
            f.becomeFollower();
            EpochTruncation.Result result = EpochTruncation.truncate(f, epoch -> Optional.empty());
            assertThat(result.truncatedTo()).as("the leader knows no epoch at or below 4 (it answered -1, -1): only then"
                    + " does the follower fall back to its high watermark, 2").isEqualTo(2);
        }
    }

    @Test
    void anEmptyLogAsksNothing() throws Exception {
        try (Replica f = open(1, "f")) {
            f.becomeFollower();
            EpochTruncation.Result result = EpochTruncation.truncate(f, epoch -> {
                throw new IOException("an empty log has no epoch to ask about");
            });
            assertThat(result).as("an empty log has nothing to cut and no question to ask")
                    .isEqualTo(new EpochTruncation.Result(0, 0));
        }
    }

    @Test
    void aLogWithoutEpochsFallsBackToTheHighWatermarkWithoutAsking() throws Exception {
        try (Replica f = open(1, "f")) {
            f.becomeFollower();
            for (int i = 0; i < 3; i++) { // batches as a producer wrote them: no leader epoch stamped (-1)
                f.appendAsFollower(new BatchBuilder().append(NOW_MS, "k", "v" + i).build(i));
            }
            f.updateHighWatermark(1);
            assertThat(f.epochs().latestEpoch()).as("the log holds records but no epoch").isEmpty();
            EpochTruncation.Result result = EpochTruncation.truncate(f, epoch -> {
                throw new IOException("a log without epochs has no epoch to ask about");
            });
            assertThat(result.truncatedTo()).as("records no epoch vouches for: Kafka's fetcher truncates such a log to"
                    + " its high watermark, 1, without asking (keeping them could keep records the leader never had)")
                    .isEqualTo(1);
            assertThat(result.rounds()).as("no question asked").isZero();
        }
    }

    @Test
    void anAnswerBelowEveryEpochOfTheFollowersFallsBackToTheHighWatermark() throws Exception {
        try (Replica f = open(1, "f"); Replica l = open(2, "l")) {
            f.appendAsFollower(batch(-1, 0, 2)); // offsets 0, 1: no epoch stamped
            f.appendAsFollower(batch(3, 2, 2)); // offsets 2, 3: epoch 3
            f.updateHighWatermark(1);
            l.appendAsFollower(batch(1, 0, 3)); // offsets 0..2: epoch 1
            EpochTruncation.Result result = EpochTruncation.truncate(f, l::endOffsetForEpoch);
            assertThat(result).as("asked about epoch 3, the leader answered (1, 3): f holds no epoch at or below 1, so"
                    + " its own lookup finds none and it falls back to its high watermark, 1 (keeping its log would keep"
                    + " records the leader never had; the leader's end is no offset of f's)")
                    .isEqualTo(new EpochTruncation.Result(1, 1));
            assertThat(f.leo()).as("f's log end after falling back to its high watermark").isEqualTo(1);
        }
    }

    @Test
    void aFollowerThatNeedsARoundForEachOfItsEpochsGetsThemAllUpToTheBound() throws Exception {
        int epochs = EpochTruncation.MAX_ROUNDS;
        try (Replica f = open(1, "f"); Replica l = open(2, "l")) {
            f.appendAsFollower(oneRecordPerEpoch(epochs, i -> 2 * i)); // epochs 0, 2, 4, ...: offset i in epoch 2i
            l.appendAsFollower(oneRecordPerEpoch(epochs, i -> i == 0 ? 0 : 2 * i - 1)); // epochs 0, 1, 3, 5, ...
            AtomicReference<EpochTruncation.Result> result = new AtomicReference<>();
            Throwable gaveUp = catchThrowable(() -> result.set(EpochTruncation.truncate(f, l::endOffsetForEpoch)));
            assertThat(gaveUp).as("f holds " + epochs + " epochs and the leader only the first of them: each round cuts"
                    + " one epoch (the leader answers the odd epoch below f's latest, which f never held), so f needs"
                    + " exactly MAX_ROUNDS = " + epochs + " rounds; the bound allows round MAX_ROUNDS itself (round <="
                    + " MAX_ROUNDS), yours gave up one round early").isNull();
            assertThat(result.get()).as("after " + epochs + " rounds both hold epoch 0, which ends at 1 on each side")
                    .isEqualTo(new EpochTruncation.Result(1, epochs));
        }
    }

    /** {@code count} one-record batches from offset 0, the one at offset i stamped with {@code epochAt(i)}. */
    private static ByteBuffer oneRecordPerEpoch(int count, IntUnaryOperator epochAt) {
        ByteBuffer all = ByteBuffer.allocate(count * 256);
        for (int i = 0; i < count; i++) {
            all.put(new BatchBuilder().partitionLeaderEpoch(epochAt.applyAsInt(i)).append(NOW_MS, "k", "v").build(i));
        }
        return all.flip();
    }

    private Replica open(int id, String name) throws IOException {
        Replica replica = Replica.open(id, Role.FOLLOWER, dir.resolve(name + "/orders-0"));
        replica.stopEagerHighWatermark();
        return replica;
    }

    private static void write(Replica leader, int records) throws IOException {
        for (int i = 0; i < records; i++) {
            leader.appendAsLeader(new BatchBuilder().append(NOW_MS, "k", "v" + i).build());
        }
    }

    /** The follower copies the leader's batches from {@code from} on, as its fetches would. */
    private static void copy(Replica leader, Replica follower, long from) throws IOException {
        ByteBuffer batches = leader.partition().locked(log -> log.read(from, 1 << 20, FetchIsolation.LOG_END));
        assertThat(RecordBatch.decodeAll(batches.duplicate())).as("the leader has batches to copy").isNotEmpty();
        follower.appendAsFollower(batches);
    }

    // ---- Kafka judges: LeaderEpochFileCache on both sides, AbstractFetcherThread.getOffsetTruncationState ----

    static final String TRUNCATION_RULE = "ask about your latest epoch; the leader's epoch answered held by you too:"
            + " cut to the smaller of the two ends and stop; an epoch you never held: cut to where yours below it end"
            + " and ask again; no epoch at all, or an undefined answer: the high watermark";

    /** A log's history: (epoch, records) runs, epochs rising, each run at least one record. */
    record History(List<int[]> runs) {
        List<EpochEntry> entries(long from) {
            List<EpochEntry> entries = new ArrayList<>();
            long at = from;
            for (int[] run : runs) {
                entries.add(new EpochEntry(run[0], at));
                at += run[1];
            }
            return entries;
        }

        long end(long from) {
            return from + runs.stream().mapToLong(run -> run[1]).sum();
        }

        @Override
        public String toString() {
            return runs.stream().map(run -> "epoch " + run[0] + " x" + run[1]).toList().toString();
        }
    }

    /** Runs of epochs above {@code above}: a few epochs close together, so that leader and follower share some. */
    private static Gen<List<int[]>> runs(int above) {
        // (gap to the previous epoch, records) pairs: a run shrinks away whole, the epochs after it close up.
        Gen<int[]> gapAndRecords = Gens.ints(1, 3).zip(Gens.ints(1, 3), (gap, records) -> new int[] {gap, records});
        return Gens.listOf(Gens.ints(0, 3), i -> gapAndRecords).map(pairs -> {
            List<int[]> runs = new ArrayList<>();
            int epoch = above;
            for (int[] pair : pairs) {
                epoch += pair[0];
                runs.add(new int[] {epoch, pair[1]});
            }
            return runs;
        });
    }

    /** A follower and a leader after failovers: a shared past, then each its own epochs; the follower's HW and records without an epoch. */
    record Divergence(int unstamped, History follower, History leader, long followerHw) {
        @Override
        public String toString() {
            return "follower " + (unstamped > 0 ? unstamped + " records without an epoch, then " : "") + follower
                    + " (HW " + followerHw + "), leader " + leader;
        }
    }

    static final Gen<Divergence> DIVERGENCES = c -> {
        int unstamped = Gens.elements(0, 0, 0, 1, 2).generate(c);
        List<int[]> shared = runs(-1).generate(c);
        int last = shared.isEmpty() ? -1 : shared.get(shared.size() - 1)[0];
        List<int[]> follower = new ArrayList<>(shared);
        List<int[]> leader = new ArrayList<>();
        shared.forEach(run -> leader.add(run.clone()));
        if (!leader.isEmpty() && !c.oneIn(4)) { // the last shared epoch ended elsewhere on each side
            leader.get(leader.size() - 1)[1] = Gens.ints(1, 3).generate(c);
        }
        follower.addAll(runs(last).generate(c));
        leader.addAll(runs(last).generate(c));
        History f = new History(follower);
        long hw = Gens.longs(0, f.end(unstamped)).generate(c);
        return new Divergence(unstamped, f, new History(leader), hw);
    };

    @Test
    void everyTruncationAgreesWithKafkasLeaderEpochFileCacheAndGetOffsetTruncationState() throws IOException {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(DIVERGENCES).tries(150).shrinkBudget(300).check(d -> {
                Path at = scratch.newDir();
                LeaderEpochFileCache leader = KafkaZk.epochCache(java.nio.file.Files.createDirectories(at.resolve("leader")),
                        d.leader().entries(d.unstamped()));
                long leaderLeo = d.leader().end(d.unstamped());
                List<Integer> asked = new ArrayList<>();
                Judge.Outcome result;
                try (Replica f = follower(at, d)) {
                    result = Judge.Outcome.of(() -> EpochTruncation.truncate(f, epoch -> {
                        asked.add(epoch);
                        Map.Entry<Integer, Long> answer = leader.endOffsetFor(epoch, leaderLeo);
                        return EpochEndOffset.fromWire(answer.getKey(), answer.getValue());
                    }));
                }
                Kafkas kafkas = kafkasTruncation(at, d, leader, leaderLeo);
                String yours = result.refused() ? result + " after asking about epochs "
                        + asked.subList(0, Math.min(asked.size(), 10)) : "truncated to "
                        + ((EpochTruncation.Result) result.value()).truncatedTo() + " after asking about epochs " + asked;
                Judge.agree(d.toString(), "truncation", yours, kafkas.oracle(), "truncated to " + kafkas.truncatedTo()
                        + " after asking about epochs " + kafkas.asked(), TRUNCATION_RULE);
            });
        }
    }

    record Kafkas(long truncatedTo, List<Integer> asked, String oracle) {
    }

    /**
     * Kafka 4.1.1's follower: {@code AbstractFetcherThread.maybeTruncate} (no latest epoch: the high
     * watermark) and {@code getOffsetTruncationState} in rounds, the leader's answer and the follower's
     * own lookup both kafka-storage's {@code LeaderEpochFileCache.endOffsetFor}. One documented
     * difference applied (chapter 8's guide): asked about an epoch below its first, kaen-log's follower
     * finds none and falls back to its high watermark, where Kafka's finds the requested epoch ending
     * at its first start offset.
     */
    private static Kafkas kafkasTruncation(Path at, Divergence d, LeaderEpochFileCache leader, long leaderLeo)
            throws IOException {
        String oracle = "follower (AbstractFetcherThread.getOffsetTruncationState, each end from LeaderEpochFileCache"
                + ".endOffsetFor) gives";
        long leo = d.follower().end(d.unstamped());
        long hw = d.followerHw();
        List<EpochEntry> entries = new ArrayList<>(d.follower().entries(d.unstamped()));
        List<Integer> asked = new ArrayList<>();
        for (int round = 0; round < 100; round++) {
            if (entries.isEmpty()) {
                return new Kafkas(Math.min(hw, leo), asked, oracle);
            }
            int latest = entries.get(entries.size() - 1).epoch();
            asked.add(latest);
            Map.Entry<Integer, Long> answer = leader.endOffsetFor(latest, leaderLeo);
            if (answer.getValue() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                return new Kafkas(Math.min(hw, leo), asked, oracle);
            }
            int answered = answer.getKey();
            if (answered < entries.get(0).epoch()) {
                return new Kafkas(Math.min(hw, leo), asked, oracle.replace(" gives", ", with kaen-log's documented"
                        + " difference for an epoch below the follower's first (its HW), gives"));
            }
            Map.Entry<Integer, Long> mine = KafkaZk.epochCache(Files.createDirectories(at.resolve("follower-" + round)),
                    entries).endOffsetFor(answered, leo);
            if (mine.getValue() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                return new Kafkas(Math.min(answer.getValue(), leo), asked, oracle);
            }
            if (mine.getKey() != answered) {
                leo = Math.min(mine.getValue(), leo);
                hw = Math.min(hw, leo);
                long cut = leo;
                entries.removeIf(e -> e.startOffset() >= cut);
                continue;
            }
            return new Kafkas(Math.min(Math.min(mine.getValue(), answer.getValue()), leo), asked, oracle);
        }
        throw new AssertionError("the model asked 100 times");
    }

    /** The follower's log as {@code d} says: unstamped records, then one batch per epoch run; its HW. */
    private static Replica follower(Path at, Divergence d) throws IOException {
        Replica f = Replica.open(1, Role.FOLLOWER, at.resolve("follower/orders-0"));
        f.stopEagerHighWatermark();
        long offset = 0;
        if (d.unstamped() > 0) {
            f.appendAsFollower(batch(-1, offset, d.unstamped()));
            offset += d.unstamped();
        }
        for (int[] run : d.follower().runs()) {
            f.appendAsFollower(batch(run[0], offset, run[1]));
            offset += run[1];
        }
        f.updateHighWatermark(d.followerHw());
        return f;
    }

    /** {@code records} one-record batches from {@code baseOffset}: a cut falls between any two records, as in the model. */
    private static ByteBuffer batch(int epoch, long baseOffset, int records) {
        ByteBuffer all = ByteBuffer.allocate(records * 256);
        for (int i = 0; i < records; i++) {
            BatchBuilder builder = new BatchBuilder();
            if (epoch >= 0) {
                builder.partitionLeaderEpoch(epoch);
            }
            all.put(builder.append(NOW_MS, "k", "v" + i).build(baseOffset + i));
        }
        return all.flip();
    }
}
