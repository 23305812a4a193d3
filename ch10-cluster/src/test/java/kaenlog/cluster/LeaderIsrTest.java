package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.replication.IsrState;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Task 8: the leader's ISR changes: shrink by lag counted once written, expansion at once, fenced on a refusal. */
@Order(8)
class LeaderIsrTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long T0 = 1_700_000_000_000L;
    private static final long LAG = IsrState.REPLICA_LAG_TIME_MAX_MS;
    private static final String TOPIC = "orders";

    @Test
    void aSilentFollowerLeavesTheIsrOnceTheShrinkIsWritten() throws Exception {
        ZkClient zk = ZK.connect();
        IsrState lag = lagFrom(T0);
        LeaderIsr leader = new LeaderIsr(zk, TOPIC, 0, created(zk, List.of(1, 2, 3)), lag);
        LeaderFixture.chapter8Shrinks(lag, T0 + LAG, false);
        assertThat(leader.maybeShrink(T0 + LAG)).as("exactly replica.lag.time.max.ms of silence is still in sync")
                .isFalse();
        LeaderFixture.chapter8Shrinks(lag, T0 + LAG + 1, true);
        assertThat(leader.maybeShrink(T0 + LAG + 1)).as("follower 3 silent for more than %d ms: the ISR shrinks", LAG)
                .isTrue();
        assertThat(PartitionStateStore.read(zk, TOPIC, 0).orElseThrow())
                .as("written to the state znode, conditionally on zkVersion 0, the leader epoch unchanged")
                .isEqualTo(new Versioned<>(new PartitionState(1, 0, List.of(1, 2), 1), 1));
        assertThat(leader.maximalIsr()).as("and counted once written").containsExactly(1, 2);
        assertThat(leader.maybeExpand(3, 10, 10))
                .as("follower 3 catches up: the next write names the zkVersion the shrink left (1), and lands").isTrue();
        assertThat(PartitionStateStore.read(zk, TOPIC, 0).orElseThrow().zkVersion()).isEqualTo(2);
    }

    @Test
    void aShrinkThatIsRefusedCountsForNothing() throws Exception {
        ZkClient zk = ZK.connect();
        IsrState lag = lagFrom(T0);
        LeaderIsr leader = new LeaderIsr(zk, TOPIC, 0, created(zk, List.of(1, 2, 3)), lag);
        PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, 0, List.of(1, 2, 3), 1), 0);
        LeaderFixture.chapter8Shrinks(lag, T0 + LAG + 1, true);
        assertThat(leader.maybeShrink(T0 + LAG + 1)).as("the state moved since zkVersion 0: the write is refused").isFalse();
        assertThat(leader.maximalIsr())
                .as("a shrink counts only once written: the HW and acks=all still count follower 3")
                .containsExactly(1, 2, 3);
        assertThat(leader.fenced()).as("a refused write stops the leader's ISR changes until it reads the state again")
                .isTrue();
        assertThat(leader.maybeShrink(T0 + LAG + 2)).as("fenced: no second write from stale knowledge").isFalse();
        assertThat(PartitionStateStore.read(zk, TOPIC, 0).orElseThrow().zkVersion()).as("nothing written since")
                .isEqualTo(1);
        assertThat(leader.reread()).as("re-read, still the leader at the same epoch: back").isTrue();
        assertThat(leader.maybeShrink(T0 + LAG + 3)).as("and now the shrink lands, on zkVersion 1").isTrue();
    }

    @Test
    void aCaughtUpFollowerJoinsTheIsrAtOnce() throws Exception {
        ZkClient zk = ZK.connect();
        LeaderIsr leader = new LeaderIsr(zk, TOPIC, 0, created(zk, List.of(1, 2)), lagFrom(T0));
        assertThat(leader.maybeExpand(3, 9, 10)).as("follower 3 fetches from 9, the HW is 10: not caught up, not in")
                .isFalse();
        assertThat(leader.maybeExpand(3, 10, 10)).as("from the HW itself: caught up, it joins").isTrue();
        assertThat(PartitionStateStore.read(zk, TOPIC, 0).orElseThrow().value().isr())
                .as("the expanded ISR is written").containsExactly(1, 2, 3);
        assertThat(leader.maximalIsr()).containsExactly(1, 2, 3);
    }

    @Test
    void anExpansionCountsEvenBeforeItIsWritten() throws Exception {
        ZkClient zk = ZK.connect();
        LeaderIsr leader = new LeaderIsr(zk, TOPIC, 0, created(zk, List.of(1, 2)), lagFrom(T0));
        PartitionStateStore.updateAsLeader(ZK.connect(), TOPIC, 0, new PartitionState(1, 0, List.of(1, 2), 1), 0);
        assertThat(leader.maybeExpand(3, 10, 10)).as("the write is refused: the state moved").isFalse();
        assertThat(leader.maximalIsr()).as("an expansion counts at once (Kafka's PendingExpandIsr): the HW waits for"
                + " follower 3 too, whether or not the write landed").containsExactly(1, 2, 3);
        assertThat(leader.fenced()).as("and the leader is fenced until it re-reads").isTrue();
    }

    private static IsrState lagFrom(long nowMs) {
        IsrState lag = new IsrState(1, List.of(2, 3), 2, nowMs);
        lag.observe(2, 0, nowMs + LAG / 2);
        return lag;
    }

    private static Versioned<PartitionState> created(ZkClient zk, List<Integer> isr) throws Exception {
        ControllerEpoch epoch = ControllerElection.elect(zk, 1, T0).orElseThrow();
        PartitionStateStore.createAssignment(zk, TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), Map.of());
        PartitionStateStore.createStates(zk, epoch, TOPIC, Map.of(0, new PartitionState(1, 0, isr, 1)));
        return PartitionStateStore.read(zk, TOPIC, 0).orElseThrow();
    }

    // ---- Kafka judges: a model of Partition.maybeShrinkIsr and maybeExpandIsr, written conditionally ----

    static final String ISR_RULE = "shrink: the followers of the ISR as WRITTEN silent for more than the lag leave it,"
            + " written in its order on the zkVersion held, counted once written; expand: a follower out of the ISR"
            + " whose fetch reaches the HW joins, counted at once, then written; a refused write changes nothing"
            + " more until the state is read again";

    /** One event of a leadership: a fetch, the isr-expiration tick, a caught-up fetch, a write by another, a re-read. */
    record IsrStep(String kind, int follower, long afterMs, long fetchOffset) {
        @Override
        public String toString() {
            return switch (kind) {
                case "fetch" -> "follower " + follower + " fetches at +" + afterMs + " ms";
                case "silent" -> "every follower but " + follower + " fetches at +" + afterMs + " ms";
                case "shrink" -> "the isr-expiration tick at +" + afterMs + " ms";
                case "expand" -> "follower " + follower + " fetches from " + fetchOffset + ", the HW 5";
                case "moved" -> "another writes the state (its zkVersion moves)";
                default -> "the leader reads the state again";
            };
        }
    }

    static final Gen<List<IsrStep>> ISR_STEPS = Gens.lists(c -> switch (Gens.elements("fetch", "silent", "shrink", "shrink",
            "expand", "moved", "reread").generate(c)) {
        case "fetch" -> new IsrStep("fetch", Gens.ints(2, 4).generate(c), Gens.elements(0L, LAG / 2, LAG + 1).generate(c), 0);
        case "silent" -> new IsrStep("silent", Gens.ints(2, 4).generate(c), Gens.elements(LAG / 2, LAG + 1).generate(c), 0);
        case "shrink" -> new IsrStep("shrink", 0, Gens.elements(0L, 1L, LAG / 2, LAG, LAG + 1).generate(c), 0);
        case "expand" -> new IsrStep("expand", Gens.ints(2, 4).generate(c), 0, Gens.longs(3, 7).generate(c));
        case "moved" -> new IsrStep("moved", 0, 0, 0);
        default -> new IsrStep("reread", 0, 0, 0);
    }, 1, 8);

    record IsrLife(List<Integer> isr, List<IsrStep> steps) {
    }

    /** The ISR as the controller wrote it: the leader first, then its followers in any order (not sorted). */
    static final Gen<IsrLife> ISR_LIVES = c -> {
        List<Integer> isr = new ArrayList<>(List.of(1));
        for (int follower : List.of(4, 2, 3)) {
            if (!c.oneIn(4)) {
                isr.add(Gens.ints(1, isr.size()).generate(c), follower);
            }
        }
        return new IsrLife(isr, ISR_STEPS.generate(c));
    };

    @Test
    void everyLeadershipChangesItsIsrAsKafkasPartition() throws Exception {
        ZkClient zk = ZK.connect();
        ControllerEpoch controller = ControllerElection.elect(zk, 1, T0).orElseThrow();
        AtomicInteger topics = new AtomicInteger();
        Property.forAll(ISR_LIVES).tries(40).shrinkBudget(200).check(life -> {
            String topic = "t" + topics.incrementAndGet();
            PartitionStateStore.createAssignment(zk, topic, new TreeMap<>(Map.of(0, List.of(1, 2, 3, 4))), Map.of());
            PartitionStateStore.createStates(zk, controller, topic, Map.of(0, new PartitionState(1, 0, life.isr(), 1)));
            IsrState lag = new IsrState(1, List.of(2, 3, 4), 2, LAG, T0);
            LeaderIsr leader = new LeaderIsr(zk, topic, 0, PartitionStateStore.read(zk, topic, 0).orElseThrow(), lag);
            // the model: the ISR as written and the version held, the state in ZooKeeper, the maximal ISR, fenced
            List<Integer> written = new ArrayList<>(life.isr());
            int held = 0;
            List<Integer> inZk = new ArrayList<>(life.isr());
            int zkVersion = 0;
            TreeSet<Integer> maximal = new TreeSet<>(life.isr());
            boolean fenced = false;
            Map<Integer, Long> heard = new HashMap<>(Map.of(2, T0, 3, T0, 4, T0));
            long now = T0;
            for (int i = 0; i < life.steps().size(); i++) {
                IsrStep step = life.steps().get(i);
                now += step.afterMs();
                Object yours = null;
                Object kafkas = null;
                switch (step.kind()) {
                    case "fetch" -> {
                        lag.observe(step.follower(), 0, now);
                        heard.put(step.follower(), now);
                    }
                    case "silent" -> {
                        for (int follower : List.of(2, 3, 4)) {
                            if (follower != step.follower()) {
                                lag.observe(follower, 0, now);
                                heard.put(follower, now);
                            }
                        }
                    }
                    case "shrink" -> {
                        yours = leader.maybeShrink(now);
                        long at = now;
                        List<Integer> kept = written.stream().filter(r -> r == 1 || at - heard.get(r) <= LAG).toList();
                        kafkas = false;
                        if (!fenced && kept.size() < written.size()) {
                            if (held == zkVersion) {
                                written = new ArrayList<>(kept);
                                inZk = new ArrayList<>(kept);
                                held = ++zkVersion;
                                maximal = new TreeSet<>(kept);
                                kafkas = true;
                            } else {
                                fenced = true;
                            }
                        }
                    }
                    case "expand" -> {
                        yours = leader.maybeExpand(step.follower(), step.fetchOffset(), 5);
                        kafkas = false;
                        if (!fenced && !written.contains(step.follower()) && step.fetchOffset() >= 5) {
                            List<Integer> expanded = new ArrayList<>(written);
                            expanded.add(step.follower());
                            maximal = new TreeSet<>(expanded);
                            if (held == zkVersion) {
                                written = expanded;
                                inZk = new ArrayList<>(expanded);
                                held = ++zkVersion;
                                kafkas = true;
                            } else {
                                fenced = true;
                            }
                        }
                    }
                    case "moved" -> {
                        Versioned<PartitionState> read = PartitionStateStore.read(zk, topic, 0).orElseThrow();
                        PartitionStateStore.updateAsLeader(zk, topic, 0, read.value(), read.zkVersion());
                        zkVersion++;
                    }
                    default -> {
                        yours = leader.reread();
                        kafkas = true;
                        written = new ArrayList<>(inZk);
                        held = zkVersion;
                        maximal = new TreeSet<>(inZk);
                        fenced = false;
                    }
                }
                Versioned<PartitionState> state = PartitionStateStore.read(zk, topic, 0).orElseThrow();
                Judge.agree("step " + (i + 1) + " (" + step + ") of a leader of ISR " + life.isr() + " through "
                        + life.steps(), "answer, ISR as written (and its zkVersion), maximal ISR, fenced and the state in"
                        + " ZooKeeper", List.of(String.valueOf(yours), leader.committedIsr(), leader.committed().zkVersion(),
                        List.copyOf(leader.maximalIsr()), leader.fenced(), state.value().isr(), state.zkVersion()),
                        "Partition.maybeShrinkIsr and maybeExpandIsr (the maximal ISR of PendingShrinkIsr and"
                        + " PendingExpandIsr), written with a conditional setData, give",
                        List.of(String.valueOf(kafkas), written, held, List.copyOf(maximal), fenced, inZk, zkVersion),
                        ISR_RULE);
            }
        });
    }
}
