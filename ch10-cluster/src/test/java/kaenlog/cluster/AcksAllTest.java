package kaenlog.cluster;

import static kaenlog.cluster.LeaderFixture.LAG;
import static kaenlog.cluster.LeaderFixture.T0;
import static kaenlog.cluster.LeaderFixture.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.batch.BatchBuilder;
import kaenlog.replication.AckVerdict;
import kaenlog.replication.Replica;
import kaenlog.testkit.property.Scratch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 10: acks=all across processes: refused before the append while the ISR as WRITTEN is under
 * min.insync.replicas; after it, answered by the high watermark and the MAXIMAL ISR; and never
 * answered well by a leader that stopped leading.
 */
@Order(10)
class AcksAllTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final int EPOCH = 2;

    @TempDir
    Path dir;

    @Test
    void acksAllUnderMinIsrIsRefusedBeforeTheAppendOtherAcksAreNot() throws Exception {
        try (Replica replica = leaderWith(0)) {
            LeaderFixture.chapter8Refuses(ProduceRequest.ACKS_ALL, List.of(1), 2, ErrorCode.NOT_ENOUGH_REPLICAS);
            LeaderFixture.chapter8Refuses(ProduceRequest.ACKS_LEADER, List.of(1), 2, ErrorCode.NONE);
            PartitionLeader alone = leader(replica, List.of(1), 2);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("ISR [1] under min.insync.replicas 2: acks=all is refused, nothing is written")
                    .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_LEADER))
                    .as("acks=1 waits for no replica: it is written whatever the ISR").isEqualTo(ErrorCode.NONE);
            assertThat(alone.produceRefusal(ProduceRequest.ACKS_NONE)).isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void anIsrExactlyAtMinIsrTakesAcksAll() throws Exception {
        try (Replica replica = leaderWith(0)) {
            LeaderFixture.chapter8Refuses(ProduceRequest.ACKS_ALL, List.of(1, 2), 2, ErrorCode.NONE);
            assertThat(leader(replica, List.of(1, 2), 2).produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("ISR of 2 with min.insync.replicas 2: enough (under means fewer than)").isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void beforeTheAppendOnlyTheIsrAsWrittenCounts() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1), 2);
            PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, EPOCH, List.of(1), 1), 0);
            leader.onFollowerFetch(2, 0, EPOCH, T0);
            assertThat(leader.maximalIsr()).as("follower 2 caught up (HW 0): counted at once, its write refused")
                    .containsExactly(1, 2);
            assertThat(leader.produceRefusal(ProduceRequest.ACKS_ALL))
                    .as("the joining is not written: ZooKeeper says ISR [1], and a write let in now could be"
                            + " acknowledged by an ISR the controller never knew (Kafka counts partitionState.isr here)")
                    .isEqualTo(ErrorCode.NOT_ENOUGH_REPLICAS);
        }
    }

    @Test
    void afterTheAppendTheHighWatermarkAndTheMaximalIsrDecide() throws Exception {
        try (Replica replica = leaderWith(10)) {
            LeaderFixture.chapter8Verdict(10, 0, 3, 2, AckVerdict.NOT_YET);
            LeaderFixture.chapter8Verdict(10, 10, 3, 2, AckVerdict.COMMITTED);
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 2);
            assertThat(leader.answer(10)).as("HW 0, the write ends at 10: it waits").isEmpty();
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            assertThat(leader.answer(10)).as("the HW reached 10 with the ISR whole: answered").contains(ErrorCode.NONE);
            assertThat(leader.answer(11)).as("a write ending at 11 is not covered by HW 10 yet").isEmpty();
        }
    }

    @Test
    void aPendingJoinerCountsAfterTheAppend() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1), 2);
            PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, EPOCH, List.of(1), 1), 0);
            leader.onFollowerFetch(2, 0, EPOCH, T0); // joins the maximal ISR; its write is refused
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            LeaderFixture.chapter8Verdict(10, 10, 2, 2, AckVerdict.COMMITTED);
            assertThat(replica.highWatermark()).as("the HW counts the maximal ISR [1, 2]").isEqualTo(10);
            assertThat(leader.answer(10))
                    .as("after the append the MAXIMAL ISR is counted (Kafka's checkEnoughReplicasReachOffset): [1, 2]"
                            + " holds min.insync.replicas 2, the write is answered")
                    .contains(ErrorCode.NONE);
        }
    }

    @Test
    void anIsrThatShrankUnderAWaitingWriteAnswersNotEnoughReplicasAfterAppend() throws Exception {
        try (Replica replica = leaderWith(10)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 3);
            leader.onFollowerFetch(2, 10, EPOCH, T0);
            leader.onFollowerFetch(3, 10, EPOCH, T0);
            leader.onFollowerFetch(2, 10, EPOCH, T0 + LAG);
            LeaderFixture.chapter8Shrinks(Map.of(2, T0 + LAG, 3, T0), T0 + LAG + 1, true);
            assertThat(leader.maybeShrinkIsr(T0 + LAG + 1)).as("follower 3 silent past the lag: ISR [1, 2]").isTrue();
            LeaderFixture.chapter8Verdict(10, 10, 2, 3, AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
            assertThat(leader.answer(10))
                    .as("written, and covered by the HW, but the ISR [1, 2] is under min.insync.replicas 3 now:"
                            + " NOT_ENOUGH_REPLICAS_AFTER_APPEND (the write stays in the log)")
                    .contains(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        }
    }

    @Test
    void aLeaderThatStoppedLeadingAnswersItsWaitingWritesNotLeaderOrFollower() throws Exception {
        try (Replica replica = leaderWith(0)) {
            PartitionLeader leader = leader(replica, List.of(1, 2, 3), 2);
            replica.partition().setReplicaGate(leader);
            CompletableFuture<ProduceResponse> waiting = replica.partition().produce(new ProduceRequest("orders-0",
                    ProduceRequest.ACKS_ALL, 30_000, new BatchBuilder().append(T0, "k", "v").build()), T0);
            assertThat(waiting).as("acks=all waits for followers 2 and 3").isNotDone();
            leader.stop();
            assertThat(leader.answer(1))
                    .as("a newer state names another leader: this one's uncommitted records may be cut by it,"
                            + " so it cannot promise them")
                    .contains(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            assertThat(waiting.getNow(null)).as("and the waiting produce is answered so, at once")
                    .extracting(ProduceResponse::error).isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            assertThat(leader.produceRefusal(ProduceRequest.ACKS_LEADER))
                    .as("and it takes no new write, whatever its acks").isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
    }

    private Replica leaderWith(int records) throws Exception {
        return LeaderFixture.leaderWith(dir, EPOCH, records);
    }

    private static PartitionLeader leader(Replica replica, List<Integer> isr, int minIsr) throws Exception {
        return LeaderFixture.leader(ZK.connect(), replica, EPOCH, isr, minIsr);
    }

    // ---- Kafka judges: models of Partition.appendRecordsToLeader and checkEnoughReplicasReachOffset ----

    static final String ACKS_RULE = "before the append, acks=all (-1) is NOT_ENOUGH_REPLICAS while the ISR as WRITTEN is"
            + " under min.insync.replicas, other acks never; after it, a write the HW covers is answered NONE, or"
            + " NOT_ENOUGH_REPLICAS_AFTER_APPEND when the MAXIMAL ISR is under min.insync.replicas, one it does not cover"
            + " waits; a leader that stopped answers NOT_LEADER_OR_FOLLOWER";

    /** One step in a leader's life: a follower's fetch, the isr-expiration tick, a write by someone else, the end. */
    record Step(String kind, int replica, long offset, long afterMs) {
        @Override
        public String toString() {
            return switch (kind) {
                case "fetch" -> "follower " + replica + " fetches from " + offset + " at +" + afterMs + " ms";
                case "shrink" -> "the isr-expiration tick at +" + afterMs + " ms";
                case "moved" -> "the state written by another (its zkVersion moves)";
                default -> "the leader stops leading";
            };
        }
    }

    record Life(int records, List<Integer> isr, int minIsr, List<Step> steps) {
    }

    static final Gen<Life> LIVES = c -> {
        int records = Gens.ints(0, 4).generate(c);
        List<Integer> isr = new ArrayList<>(List.of(1));
        for (int follower : List.of(2, 3)) {
            if (Gens.booleans().generate(c)) {
                isr.add(follower);
            }
        }
        Gen<Step> step = d -> switch (Gens.elements("fetch", "fetch", "fetch", "shrink", "moved", "stop").generate(d)) {
            case "fetch" -> new Step("fetch", Gens.elements(2, 3).generate(d), Gens.longs(0, records).generate(d),
                    Gens.elements(0L, LAG / 2, LAG + 1).generate(d));
            case "shrink" -> new Step("shrink", 0, 0, Gens.elements(0L, LAG / 2, LAG + 1).generate(d));
            case "moved" -> new Step("moved", 0, 0, 0);
            default -> new Step("stop", 0, 0, 0);
        };
        return new Life(records, isr, Gens.ints(1, 3).generate(c), Gens.lists(step, 0, 7).generate(c));
    };

    @Test
    void everyAnswerBeforeAndAfterTheAppendAgreesWithKafkasPartition() throws Exception {
        ZkClient zk = ZK.connect();
        ControllerEpoch controller = ControllerElection.elect(zk, 1, T0).orElseThrow();
        AtomicInteger topics = new AtomicInteger();
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(LIVES).tries(20).shrinkBudget(200).check(life -> {
                String topic = "t" + topics.incrementAndGet();
                try (Replica replica = LeaderFixture.leaderWith(scratch.newDir(), EPOCH, life.records())) {
                    PartitionLeader leader = LeaderFixture.leaderOfNewTopic(zk, controller, topic, replica, EPOCH,
                            life.isr(), life.minIsr(), broker -> true);
                    long now = T0;
                    judge(leader, replica, life, "the leader's start");
                    for (int i = 0; i < life.steps().size(); i++) {
                        Step step = life.steps().get(i);
                        now += step.afterMs();
                        switch (step.kind()) {
                            case "fetch" -> leader.onFollowerFetch(step.replica(), step.offset(), EPOCH, now);
                            case "shrink" -> leader.maybeShrinkIsr(now);
                            case "moved" -> {
                                Versioned<PartitionState> read = PartitionStateStore.read(zk, topic, 0).orElseThrow();
                                PartitionStateStore.updateAsLeader(zk, topic, 0, read.value(), read.zkVersion());
                            }
                            default -> leader.stop();
                        }
                        judge(leader, replica, life, "step " + (i + 1) + " (" + step + ") of " + life.steps());
                    }
                }
            });
        }
    }

    /** Every acks before the append and every required offset after it, asked of the leader as it stands. */
    private static void judge(PartitionLeader leader, Replica replica, Life life, String after) {
        List<Integer> written = leader.committedIsr();
        int maximal = leader.maximalIsr().size();
        long hw = replica.highWatermark();
        String state = "a leader of " + life.records() + " records (ISR as written " + written + ", maximal ISR "
                + leader.maximalIsr() + ", HW " + hw + ", min.insync.replicas " + life.minIsr()
                + (leader.stopped() ? ", stopped" : "") + ") after " + after;
        for (short acks : new short[] {ProduceRequest.ACKS_ALL, ProduceRequest.ACKS_LEADER, ProduceRequest.ACKS_NONE}) {
            // appendRecordsToLeader: no local leader log -> NOT_LEADER_OR_FOLLOWER; then
            // if (inSyncSize < minIsr && requiredAcks == -1) throw NotEnoughReplicasException, inSyncSize the written ISR's
            ErrorCode kafkas = leader.stopped() ? ErrorCode.NOT_LEADER_OR_FOLLOWER
                    : acks == ProduceRequest.ACKS_ALL && written.size() < life.minIsr() ? ErrorCode.NOT_ENOUGH_REPLICAS
                    : ErrorCode.NONE;
            if (!leader.stopped()) {
                LeaderFixture.chapter8Refuses(acks, written, life.minIsr(), kafkas);
            }
            Judge.agree("a produce with acks=" + acks + " to " + state, "answer before the append",
                    leader.produceRefusal(acks), "Partition.appendRecordsToLeader answers", kafkas, ACKS_RULE);
        }
        for (long required = 0; required <= life.records() + 1; required++) {
            // checkEnoughReplicasReachOffset: no local leader -> (false, NOT_LEADER_OR_FOLLOWER); HW >= requiredOffset ->
            // (true, minIsr <= curMaximalIsr.size ? NONE : NOT_ENOUGH_REPLICAS_AFTER_APPEND); else (false, NONE): it waits
            Optional<ErrorCode> kafkas = leader.stopped() ? Optional.of(ErrorCode.NOT_LEADER_OR_FOLLOWER)
                    : hw >= required ? Optional.of(life.minIsr() <= maximal ? ErrorCode.NONE
                    : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND) : Optional.empty();
            if (!leader.stopped()) {
                LeaderFixture.chapter8Verdict(required, hw, maximal, life.minIsr(), hw < required ? AckVerdict.NOT_YET
                        : life.minIsr() <= maximal ? AckVerdict.COMMITTED : AckVerdict.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
            }
            Judge.agree("an acks=all write ending before offset " + required + " to " + state, "answer after the append",
                    leader.answer(required), "Partition.checkEnoughReplicasReachOffset answers (empty: it waits)", kafkas,
                    ACKS_RULE);
        }
    }
}
