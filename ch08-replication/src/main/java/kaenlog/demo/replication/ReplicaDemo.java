package kaenlog.demo.replication;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.replication.AckVerdict;
import kaenlog.replication.Cluster;
import kaenlog.replication.EpochEndOffset;
import kaenlog.replication.FetchRound;
import kaenlog.replication.IsrState;
import kaenlog.replication.LeaderEpochCache;
import kaenlog.replication.Produced;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;

/**
 * {@code klog replica-demo}: a leader and a follower in one process, driven one step at a time
 * with a clock fed in by hand. It shows the high watermark arriving one round late, the ISR
 * shrinking, acks=all refused under min ISR, KIP-101's data loss and its fix, and the epoch
 * lookup; then it says what it cannot show. Every claim it prints is checked before it exits: a
 * demo that printed HW == LEO every round would be just as deterministic, and worthless.
 */
public final class ReplicaDemo implements Subcommand {
    private static final String ROUND_ROW = "  %5s  %-8s %3s %4s %4s %16s %15s%n";
    private static final String PATH_ROW = "  %-48s %s%n";
    private static final String VERDICT_ROW = "  %-58s  %s%n";

    @Override
    public String name() {
        return "replica-demo";
    }

    @Override
    public String usage() {
        return "[--rounds N] [--min-isr 1|2] [--now-ms MS]";
    }

    @Override
    public String summary() {
        return "chapter 8: a follower fetches like a consumer; the high watermark arrives one round late";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("rounds", "min-isr", "now-ms"), Set.of()).noPositional();
        int rounds = flags.intValue("rounds", 4, 1, 100);
        int minIsr = flags.intValue("min-isr", 2, 1, 2);
        long nowMs = flags.nowMs(1_700_000_000_000L);
        Claims claims = new Claims();
        try (ScratchDir scratch = ScratchDir.create("klog-replica-demo")) {
            Path root = scratch.path();
            try (Cluster cluster = Cluster.open(root.resolve("main"), minIsr, nowMs)) {
                showRounds(cluster, rounds, nowMs, out, claims);
                showIsrShrink(cluster, nowMs, out, claims);
                showTwoJudges(nowMs, out, claims);
                showConsequences(cluster, nowMs, out, claims);
            }
            showTwoErrors(out, claims);
            showKip101(root, minIsr, nowMs, out, claims);
            showEpochVector(root, out, claims);
            showRefusal(out);
            showDrawnNotBuilt(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    /** Rounds of one produce and one fetchOnce: the follower holds each record one round before it knows it is committed. */
    private static void showRounds(Cluster cluster, int rounds, long nowMs, PrintStream out, Claims claims)
            throws IOException {
        out.println("== " + rounds + (rounds == 1 ? " round" : " rounds")
                + " · one round is one produce, then one fetchOnce ==");
        out.printf(ROUND_ROW, "round", "role", "id", "LEO", "HW", "records shipped", "HW in response");
        for (int r = 1; r <= rounds; r++) {
            cluster.produce(r, ProduceRequest.ACKS_LEADER, nowMs);
            FetchRound round = cluster.fetchOnce(nowMs);
            out.printf(ROUND_ROW, r, "leader", cluster.leader().id(), round.leaderLeo(), round.leaderHw(), "-", "-");
            out.printf(ROUND_ROW, "", "follower", cluster.follower().id(), round.followerLeo(), round.followerHw(),
                    round.recordsShipped(), round.responseHighWatermark());
            claims.check(round.followerHw() < round.followerLeo(), "round " + r + ": the follower's HW lags its LEO"
                    + " (HW " + round.followerHw() + ", LEO " + round.followerLeo() + ")");
            claims.check(round.leaderLeo() == r && round.leaderHw() == r - 1 && round.followerLeo() == r
                    && round.followerHw() == r - 1, "round " + r + ": leader and follower both at LEO " + r + ", HW "
                    + (r - 1));
            claims.check(round.recordsShipped() == 1 && round.responseHighWatermark() == round.followerLeo() - 1,
                    "round " + r + ": one record shipped, and the HW in the response trails the follower's LEO by one");
        }
        claims.check(!cluster.leader().eagerHighWatermark() && !cluster.follower().eagerHighWatermark(),
                "neither log moves its high watermark eagerly any more");
        out.println();
        out.println("every round the follower's LEO is above its own HW · it already holds the record");
        out.println("but does not know yet that it is committed · the next round's answer tells it");
        out.println("the high watermark is an exclusive ceiling · records at offsets < HW are committed");
        out.println();
    }

    /** shrinkIsr with a clock fed by hand, one millisecond past replica.lag.time.max.ms. */
    private static void showIsrShrink(Cluster cluster, long nowMs, PrintStream out, Claims claims) {
        IsrState isr = cluster.isr();
        int followerId = cluster.follower().id();
        long lastFetch = isr.lastCaughtUpMs(followerId);
        long limit = IsrState.REPLICA_LAG_TIME_MAX_MS;
        out.println("== The ISR shrinks by the clock it is fed · shrinkIsr(nowMs) ==");
        out.println("ISR before " + isr.isr());
        out.println("  replica   last fetch at");
        out.printf("  %7s   %s%n", followerId, lastFetch);
        claims.check(lastFetch == nowMs, "the follower last fetched at the time the rounds were fed");
        claims.check(!isr.shrinkIsr(lastFetch + limit), "exactly " + limit + " ms after its last fetch the follower is "
                + "still in sync");
        long fed = lastFetch + limit + 1;
        boolean shrank = isr.shrinkIsr(fed);
        out.println("fed nowMs = " + fed + ": past the " + limit + " ms limit by one millisecond");
        out.println("shrinkIsr returned " + shrank + " · ISR now " + isr.isr());
        out.println("under min.insync.replicas now: " + (isr.underMinIsr() ? "yes" : "no"));
        out.println("the leader never removes itself from its own ISR · what is left is id " + isr.leaderId());
        out.println();
        claims.check(shrank && isr.isr().equals(List.of(cluster.leader().id())),
                "one millisecond past the limit the follower is out and the leader alone is left");
        claims.check(isr.underMinIsr() == (isr.minIsr() > 1), "an ISR of one is under min.insync.replicas "
                + isr.minIsr() + " exactly when that minimum is above one");
    }

    /**
     * The two ways out of the ISR. The first step really runs (a three-replica IsrState, one
     * follower silent); the second is the controller's, which kaen-log does not have: drawn.
     */
    private static void showTwoJudges(long nowMs, PrintStream out, Claims claims) {
        IsrState three = new IsrState(1, List.of(2, 3), 2, nowMs);
        List<Integer> start = three.isr();
        three.observe(2, 0, nowMs + IsrState.REPLICA_LAG_TIME_MAX_MS);
        three.shrinkIsr(nowMs + IsrState.REPLICA_LAG_TIME_MAX_MS + 1);
        List<Integer> afterLeader = three.isr();
        List<Integer> afterController = new ArrayList<>(afterLeader);
        afterController.remove(Integer.valueOf(2)); // the controller's judgement: drawn, not built
        out.println("== Two ways out of the ISR · two different judges ==");
        out.printf(PATH_ROW, "ISR at the start", start);
        out.printf(PATH_ROW, "the leader drops the one that lags (by time)", afterLeader);
        out.printf(PATH_ROW, "the controller drops the one without a session", afterController);
        out.println("the leader measures the first condition · the controller measures the second");
        out.println("so one replica can leave the ISR by two paths that have nothing to do with each other");
        out.println();
        claims.check(start.equals(List.of(1, 2, 3)) && afterLeader.equals(List.of(1, 2)),
                "the leader's clock removes only the silent follower 3: [1, 2, 3] -> [1, 2]");
    }

    /** Under min ISR: acks=all refused before the append, acks=1 written, the HW frozen. */
    private static void showConsequences(Cluster cluster, long nowMs, PrintStream out, Claims claims)
            throws IOException {
        boolean under = cluster.isr().underMinIsr();
        long leoBefore = cluster.leader().leo();
        long hwBefore = cluster.leader().highWatermark();
        Produced all = cluster.produce(leoBefore + 1, ProduceRequest.ACKS_ALL, nowMs);
        long leoAfterAll = cluster.leader().leo();
        Produced one = cluster.produce(leoAfterAll + 1, ProduceRequest.ACKS_LEADER, nowMs);
        long hwAfter = cluster.leader().highWatermark();
        out.println("== What follows at once ==");
        if (under) {
            out.println("produce with acks=all → error " + all.error().code() + " (" + all.error()
                    + " · checked before the append)");
        } else {
            out.println("produce with acks=all → base_offset " + all.baseOffset() + " · error " + all.error().code()
                    + " (ISR " + cluster.isr().isr() + " still meets min.insync.replicas " + cluster.isr().minIsr() + ")");
        }
        out.println("produce with acks=1 → base_offset " + one.baseOffset() + " · error " + one.error().code()
                + " (written as usual)");
        if (under) {
            out.println("high watermark " + hwBefore + " → " + hwAfter
                    + " (it does not move while the ISR is under the minimum)");
        } else {
            out.println("high watermark " + hwBefore + " → " + hwAfter
                    + " (the leader alone is the whole ISR: its own LEO is the minimum)");
        }
        out.println("acks changes when you are answered, never what is written · that still holds here");
        if (under) {
            out.println("the record at offset " + one.baseOffset() + " is on disk, but it is not committed");
        } else {
            out.println("with min.insync.replicas 1, Kafka's default, acks=all was answered with one copy on disk");
        }
        out.println();
        if (under) {
            claims.check(all.error() == ErrorCode.NOT_ENOUGH_REPLICAS && leoAfterAll == leoBefore,
                    "acks=all under min ISR is refused with NOT_ENOUGH_REPLICAS and writes nothing");
            claims.check(one.error() == ErrorCode.NONE && one.baseOffset() == leoBefore,
                    "acks=1 is written as usual, at the log end offset " + leoBefore);
            claims.check(hwAfter == hwBefore, "the high watermark does not move under min ISR");
            claims.check(cluster.gate().verdict(one.baseOffset() + 1) == AckVerdict.NOT_YET,
                    "the gate says the record at offset " + one.baseOffset() + " is not committed (NotYet)");
        } else {
            claims.check(all.error() == ErrorCode.NONE && all.baseOffset() == leoBefore
                    && one.baseOffset() == leoBefore + 1, "with min ISR 1 both writes land, one after the other");
            claims.check(hwAfter == cluster.leader().leo(), "a leader alone in its ISR moves the HW to its own LEO");
        }
    }

    /** The three verdicts of IsrGate's rule, for one write that needs HW 5, with min.insync.replicas 2. */
    private static void showTwoErrors(PrintStream out, Claims claims) {
        AckVerdict waiting = AckVerdict.decide(5, 4, 2, 2);
        AckVerdict committed = AckVerdict.decide(5, 5, 2, 2);
        AckVerdict afterAppend = AckVerdict.decide(5, 5, 1, 2);
        out.println("== Two errors, not one ==");
        out.printf(VERDICT_ROW, "situation", "verdict");
        out.printf(VERDICT_ROW, "the HW has not reached the offset yet", waiting.displayName());
        out.printf(VERDICT_ROW, "the HW has reached it and the ISR is still full", committed.displayName());
        out.printf(VERDICT_ROW, "the HW has reached it, but the ISR shrank after the append",
                afterAppend.displayName());
        out.println("the first is error 19, checked before the append · the second is error 20, checked after it");
        out.println("both are retriable · which is why acks=all can write the same record twice");
        out.println("unless chapter 7's idempotent producer is there to catch the retry");
        out.println();
        claims.check(waiting == AckVerdict.NOT_YET && committed == AckVerdict.COMMITTED
                && afterAppend == AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                "the three situations get three different verdicts");
    }

    /** KIP-101 scenario 1 on a fresh pair, twice: truncating to the own HW (1 lost), then by leader epoch (0 lost). */
    private static void showKip101(Path root, int minIsr, long nowMs, PrintStream out, Claims claims)
            throws IOException {
        try (Cluster wrong = kip101Start(root.resolve("kip101-hw"), minIsr, nowMs)) {
            long held = wrong.follower().leo();
            out.println("== KIP-101 scenario 1 · truncating to the high watermark loses data ==");
            out.println("leader: LEO " + wrong.leader().leo() + " · HW " + wrong.leader().highWatermark());
            out.println("follower: LEO " + held + " · its own HW " + wrong.follower().highWatermark());
            out.println("the follower already holds m2 but does not know yet whether it is committed");
            long after = wrong.truncateFollowerToHighWatermark();
            out.println("the follower restarts and truncates its log to its own HW → LEO down to " + after);
            wrong.failOver(1, nowMs);
            wrong.truncateFollowerToHighWatermark();
            long lost = held - Math.max(wrong.leader().leo(), wrong.follower().leo());
            out.println("then the leader dies · the follower takes over with epoch " + wrong.leader().leaderEpoch()
                    + ", the old leader follows it");
            out.println("records lost for good: " + lost);
            out.println();
            claims.check(lost == 1, "truncating to the follower's own HW loses m2 for good");
        }
        try (Cluster right = kip101Start(root.resolve("kip101-epoch"), minIsr, nowMs)) {
            long held = right.follower().leo();
            int epoch = right.follower().epochs().latestEpoch().orElseThrow();
            out.println("== The right way · ask where the epoch you hold ends ==");
            out.println("the follower is in exactly the same state · LEO " + held + " · its own HW "
                    + right.follower().highWatermark());
            Optional<EpochEndOffset> answer = right.truncateFollowerByLeaderEpoch();
            long after = right.follower().leo();
            out.println("the follower asks for the end offset of epoch " + epoch + " → the leader answers " + answer);
            out.println("the follower truncates to min(its LEO, the end offset it got) = " + after + " → LEO stays "
                    + after);
            right.failOver(1, nowMs);
            right.truncateFollowerByLeaderEpoch();
            long lost = held - Math.max(right.leader().leo(), right.follower().leo());
            out.println("records lost: " + lost);
            out.println("the follower never truncates to its own high watermark · it truncates to the leader's answer");
            out.println("scenario 1 is data loss · scenario 2 of the same KIP is a diverged log");
            out.println("KIP-101 closes most of scenario 2 · KIP-279 the rest: leaders that change in quick succession");
            out.println("both scenarios are drawn here, not driven");
            out.println();
            claims.check(answer.equals(Optional.of(new EpochEndOffset(0, 2))) && after == held,
                    "the leader says epoch 0 ends at 2, so the follower keeps m2");
            claims.check(lost == 0 && right.leader().leo() == right.follower().leo(),
                    "after the same failover nothing is lost and both logs end at the same offset");
        }
    }

    /** Produce m1, fetch twice (the follower learns m1 is committed), produce m2, fetch once. */
    private static Cluster kip101Start(Path dir, int minIsr, long nowMs) throws IOException {
        Cluster cluster = Cluster.open(dir, minIsr, nowMs);
        cluster.produce(1, ProduceRequest.ACKS_LEADER, nowMs);
        cluster.fetchOnce(nowMs);
        cluster.fetchOnce(nowMs);
        cluster.produce(2, ProduceRequest.ACKS_LEADER, nowMs);
        cluster.fetchOnce(nowMs);
        return cluster;
    }

    /** A leader that led epochs 0 (five records), 1 (one record) and 3 (none yet); epoch 2 went elsewhere. */
    private static void showEpochVector(Path root, PrintStream out, Claims claims) throws IOException {
        try (Replica leader = Replica.open(3, Role.LEADER, root.resolve("broker-3").resolve(Cluster.PARTITION))) {
            leader.becomeLeader(0);
            for (int i = 0; i < 5; i++) {
                leader.appendAsLeader(Cluster.record(i, 0));
            }
            leader.becomeLeader(1);
            leader.appendAsLeader(Cluster.record(5, 0));
            leader.becomeLeader(3);
            out.println("== Leader epochs · the vector a leader extends at becomeLeader ==");
            out.println("  epoch   start_offset");
            for (LeaderEpochCache.EpochEntry entry : leader.epochs().entries()) {
                out.printf("  %5s  %13s%n", entry.epoch(), entry.startOffset());
            }
            out.println("  asked epoch   got (epoch, end_offset)");
            List<Optional<EpochEndOffset>> answers = new ArrayList<>();
            for (int asked : new int[] {0, 1, 2, 3, 4, -1}) {
                Optional<EpochEndOffset> answer = leader.endOffsetForEpoch(asked);
                answers.add(answer);
                out.printf("  %11s   %s%n", asked, answer);
            }
            out.println("asked for epoch 2, which never existed, and got epoch 1 back · that is the part KIP-279 fixed");
            out.println("the comparison is <=, not == · so a follower can converge on the largest common epoch");
            out.println("Optional.empty() means not found · not a magic value squeezed into an offset");
            out.println("only at the wire edge does the empty answer become (-1, -1)");
            out.println("in memory it stays an Optional<EpochEndOffset> all the way");
            out.println();
            claims.check(answers.equals(List.of(some(0, 5), some(1, 6), some(1, 6), some(3, 6), some(3, 6),
                    Optional.empty())), "the epoch lookup answers the largest epoch <= the one asked, and none for -1");
        }
    }

    private static Optional<EpochEndOffset> some(int epoch, long endOffset) {
        return Optional.of(new EpochEndOffset(epoch, endOffset));
    }

    private static void showRefusal(PrintStream out) {
        out.println("== What this capstone refuses to claim ==");
        out.println("two brokers in one process share one kernel, one page cache and the same power cord");
        out.println("kaen-log shows the replication protocol in full, but it shows no fault tolerance");
        out.println("at all, not the least bit · \"acks=all survives f failures\" is a claim this chapter will not make");
        out.println("and kaen-log's ISR is a TreeSet<Integer> in an IsrState that this demo alone holds");
        out.println("Kafka's is the Isr field of a PartitionRecord in the metadata log · the controller");
        out.println("writes it, and KRaft replicates that record with a Raft quorum");
        out.println();
    }

    private static void showDrawnNotBuilt(PrintStream out) {
        out.println("== Three things drawn, not built ==");
        out.println("1. a real timer · shrinkIsr(nowMs) really runs above, with a clock fed in by hand");
        out.println("   what is missing is a thread that wakes up and calls it, which would make runs differ");
        out.println("2. KIP-279's fast leader failover · the largest-epoch-not-above lookup");
        out.println("   is built and tested · the leader switch A→B→A is a drawing");
        out.println("3. KRaft and ELR · drawn only · KRaft is Raft");
        out.println("   for metadata only; partition data still runs on the ISR");
    }
}
