package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
}
