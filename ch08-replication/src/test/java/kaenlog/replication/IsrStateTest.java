package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.server.replica.Replica;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 2: the leader records fetches, shrinks the ISR by a fed-in clock, and compares it with min ISR. */
@Order(2)
class IsrStateTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long LAG = IsrState.REPLICA_LAG_TIME_MAX_MS;

    @Test
    void aFollowerIsRemovedOneMillisecondPastTheLimit() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 0, T0);

        assertThat(state.shrinkIsr(1_700_000_030_001L))
                .as("last fetch at 1700000000000, now 1700000030001: 30001 ms > replica.lag.time.max.ms 30000, "
                        + "so shrinkIsr removes follower 2 and returns true")
                .isTrue();
        assertThat(state.isr())
                .as("ISR [1, 2] -> [1]: the leader stays")
                .containsExactly(1);
        assertThat(state.underMinIsr())
                .as("one member with min.insync.replicas 2: under min ISR")
                .isTrue();
    }

    @Test
    void exactlyThirtySecondsSinceTheLastFetchIsStillInSync() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 0, T0);

        assertThat(state.shrinkIsr(T0 + LAG))
                .as("exactly 30000 ms is still in sync: Kafka's isCaughtUp is now - lastCaughtUp <= maxLag, so "
                        + "only a lag strictly greater than 30000 removes a follower")
                .isFalse();
        assertThat(state.isr()).as("nothing was removed at exactly 30000 ms").containsExactly(1, 2);
        assertThat(state.shrinkIsr(T0 + LAG + 1))
                .as("30001 ms is one millisecond too many")
                .isTrue();
    }

    @Test
    void theLimitIsTheLagTheLeaderWasGivenNotAlwaysThirtySeconds() {
        IsrState state = new IsrState(1, List.of(2), 2, 3_000, T0);
        state.observe(2, 0, T0);

        assertThat(state.shrinkIsr(T0 + 3_000))
                .as("a leader given replica.lag.time.max.ms 3000 (a broker's config, chapter 10): exactly 3000 ms is"
                        + " still in sync")
                .isFalse();
        assertThat(state.shrinkIsr(T0 + 3_001))
                .as("and 3001 ms is past ITS limit: the limit is the one the state was given, 30000 ms only by"
                        + " default")
                .isTrue();
    }

    @Test
    void aFollowerThatHasNotFetchedYetCountsAsCaughtUpWhenTheLeaderTookOver() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);

        assertThat(state.shrinkIsr(T0 + LAG))
                .as("a new leader treats its ISR followers as caught up at the time it took over (Kafka's "
                        + "resetReplicaState; PartitionTest.testMaybeShrinkIsr: 'on initialization, the replica is "
                        + "considered caught up')")
                .isFalse();
        assertThat(state.shrinkIsr(T0 + LAG + 1))
                .as("without a single fetch, the follower leaves 30001 ms after the leader took over")
                .isTrue();
        assertThat(state.isr()).as("only the leader remains").containsExactly(1);
    }

    @Test
    void theLeaderIsNeverRemovedFromItsOwnIsr() {
        IsrState alone = new IsrState(1, List.of(), 1, T0);

        assertThat(alone.shrinkIsr(T0 + 10 * LAG))
                .as("the leader never fetches from itself, yet shrinkIsr must not remove it: nothing changed")
                .isFalse();
        assertThat(alone.isr()).as("a leader alone stays in its ISR").containsExactly(1);

        IsrState pair = new IsrState(1, List.of(2), 1, T0);
        pair.shrinkIsr(T0 + 10 * LAG);
        assertThat(pair.isr())
                .as("after a long silence the follower is gone but the leader (id 1) is still there")
                .containsExactly(1);
    }

    @Test
    void aFollowerThatKeepsFetchingStaysInTheIsr() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 0, T0 + 20_000);

        assertThat(state.shrinkIsr(T0 + 40_000))
                .as("40000 ms after the takeover but only 20000 ms after the last fetch: still in sync, because the "
                        + "clock is compared with the last fetch, not with the start")
                .isFalse();
        assertThat(state.isr()).as("the ISR keeps both replicas").containsExactly(1, 2);
    }

    @Test
    void onlyTheSilentFollowerLeaves() {
        IsrState state = new IsrState(1, List.of(2, 3), 2, T0);
        state.observe(2, 5, T0 + 25_000);

        assertThat(state.shrinkIsr(T0 + LAG + 1))
                .as("follower 3 never fetched and is 30001 ms behind; follower 2 fetched 5001 ms ago")
                .isTrue();
        assertThat(state.isr())
                .as("ISR [1, 2, 3] -> [1, 2]: the leader removes the one that cannot keep up, by time")
                .containsExactly(1, 2);
        assertThat(state.underMinIsr())
                .as("two members with min.insync.replicas 2 is not under the minimum")
                .isFalse();
    }

    @Test
    void observeRecordsTheFetchOffsetAsTheFollowersLeo() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 3, T0 + 5);

        assertThat(state.followerLeos())
                .as("the fetch offset is the follower's LEO: a follower always asks for the offset after the last "
                        + "record it holds")
                .isEqualTo(Map.of(2, 3L));
        assertThat(state.lastCaughtUpMs(2))
                .as("the request's time is when follower 2 was last heard from")
                .isEqualTo(T0 + 5);
    }

    @Test
    void aRequestWithAnOlderClockDoesNotMoveTheLastFetchBack() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 1, T0 + 10);
        state.observe(2, 2, T0 + 5);

        assertThat(state.lastCaughtUpMs(2))
                .as("times only move forward (Kafka takes math.max of the old and new caught-up time)")
                .isEqualTo(T0 + 10);
        assertThat(state.followerLeos())
                .as("the LEO is still the latest report")
                .isEqualTo(Map.of(2, 2L));
    }

    @Test
    void aRemovedFollowerDoesNotRejoinTheIsrByFetching() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.shrinkIsr(T0 + LAG + 1);
        state.observe(2, 4, T0 + LAG + 2);

        assertThat(state.isr())
                .as("follower 2 fetches again but stays out: re-admission is not the clock's job (in Kafka it goes "
                        + "through the controller, which kaen-log does not have)")
                .containsExactly(1);
        assertThat(state.followerLeos())
                .as("its fetches are still recorded: it is out of the ISR, not out of the partition")
                .isEqualTo(Map.of(2, 4L));
    }

    @Test
    void kaenLogJudgesAFollowerByItsLastFetchEvenWhenItHasCaughtUp() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 10, T0);

        assertThat(state.shrinkIsr(T0 + LAG + 1))
                .as("a follower silent for 30001 ms is removed even if its LEO equalled the leader's: kaen-log "
                        + "judges by the last fetch only (Kafka would keep it while its LEO equals the leader's "
                        + "LEO: isCaughtUp's first clause, PartitionTest.testShouldNotShrinkIsrIfFollowerCaughtUpToLogEnd)")
                .isTrue();
    }

    @Test
    void underMinIsrComparesTheIsrSizeWithMinInsyncReplicas() {
        assertThat(new IsrState(1, List.of(), 1, T0).underMinIsr())
                .as("min.insync.replicas defaults to 1 in Kafka: a leader alone is enough, so acks=all is accepted "
                        + "with no copy at all; the durability lives in this value, not in acks")
                .isFalse();
        assertThat(new IsrState(1, List.of(2), 2, T0).underMinIsr())
                .as("ISR [1, 2] with min ISR 2: not under")
                .isFalse();
        IsrState three = new IsrState(1, List.of(2, 3), 3, T0);
        three.observe(3, 0, T0 + LAG);
        three.shrinkIsr(T0 + LAG + 1);
        assertThat(three.underMinIsr())
                .as("ISR [1, 2, 3] shrank to [1, 3] with min ISR 3: under, because 2 < 3")
                .isTrue();
    }

    @Test
    void onlyAnAssignedFollowerCanReportAFetch() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 0, T0);

        assertThatThrownBy(() -> state.observe(9, 0, T0))
                .as("replica 9 is not a follower of this partition: its report is refused, naming it")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("9");
        assertThatThrownBy(() -> state.observe(1, 0, T0))
                .as("the leader does not fetch from itself")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaId 1");
        assertThatThrownBy(() -> state.observe(2, -1, T0))
                .as("a fetch offset is an offset: never negative")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fetchOffset");
    }

    @Test
    void theLatestFetchOffsetIsTheLeoEvenWhenItIsLower() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);
        state.observe(2, 5, T0);
        state.observe(2, 3, T0 + 1);

        assertThat(state.followerLeos())
                .as("a follower that truncated (KIP-101) asks from offset 3 after asking from 5: its LEO is the latest "
                        + "fetch offset, not the largest, so the leader records 3")
                .isEqualTo(Map.of(2, 3L));
    }

    @Test
    void aSecondShrinkThatRemovesNobodyReturnsFalse() {
        IsrState state = new IsrState(1, List.of(2), 2, T0);

        assertThat(state.shrinkIsr(T0 + LAG + 1))
                .as("the first shrink past the limit removes follower 2").isTrue();
        assertThat(state.shrinkIsr(T0 + LAG + 2))
                .as("a second shrink removes nobody: shrinkIsr says whether the ISR changed in this call, not whether "
                        + "some follower is out of it")
                .isFalse();
        assertThat(state.isr()).as("the ISR is still [1]").containsExactly(1);
    }

    // ---- Kafka judges: org.apache.kafka.server.replica.Replica, and getOutOfSyncReplicas (modelled) ----

    static final String OBSERVE_RULE = "a fetch's offset is the follower's LEO and its time is when the follower was last"
            + " heard from, but an older clock must not move that time back";
    static final String SHRINK_RULE = "shrinkIsr removes followers silent for strictly more than 30000 ms (exactly 30000"
            + " stays in), never the leader, and says whether the ISR changed";
    static final String UNDER_MIN_ISR_RULE = "under min ISR means the ISR's size, leader included, is below"
            + " min.insync.replicas";

    /** One thing that happens to a leader's ISR state: a follower's fetch, or a shrink, at a time of the caller's. */
    sealed interface Step {
        long nowMs();
    }

    record Fetch(int replicaId, long fetchOffset, long nowMs) implements Step {
        @Override
        public String toString() {
            return "observe(" + replicaId + ", " + fetchOffset + ", " + nowMs + ")";
        }
    }

    record Shrink(long nowMs) implements Step {
        @Override
        public String toString() {
            return "shrinkIsr(" + nowMs + ")";
        }
    }

    /** A leader (id 1) taking over at {@code startMs} with followers 2.., min ISR around the ISR's size, then steps. */
    record History(int followers, int minIsr, long startMs, List<Step> steps) {
        @Override
        public String toString() {
            return "new IsrState(1, " + followerIds() + ", " + minIsr + ", " + startMs + "), then " + steps;
        }

        List<Integer> followerIds() {
            List<Integer> ids = new ArrayList<>();
            for (int id = 2; id < 2 + followers; id++) {
                ids.add(id);
            }
            return ids;
        }
    }

    /** A time after {@code previous}: a little, exactly the lag, around it, far; or before it (an older clock). */
    static Gen<Long> timeAfter(long previous) {
        Gen<Long> delta = Gens.oneOf(Gens.longs(-3, 3).map(d -> LAG + d), Gens.longs(-40_000, 70_000),
                Gens.longs(Long.MIN_VALUE, Long.MAX_VALUE));
        return delta.map(d -> {
            long t = previous + d;
            boolean overflowed = ((previous ^ t) & (d ^ t)) < 0;
            return overflowed ? (d > 0 ? Long.MAX_VALUE : 0L) : Math.max(0L, t);
        });
    }

    static final Gen<History> HISTORIES = c -> {
        int followers = Gens.ints(0, 3).generate(c);
        int minIsr = Math.max(1, followers + 1 + Gens.ints(-1, 1).generate(c));
        long start = Gens.longs(0, Long.MAX_VALUE).generate(c);
        int n = Gens.ints(1, 12).generate(c);
        List<Step> steps = new ArrayList<>();
        long now = start;
        for (int i = 0; i < n; i++) {
            now = timeAfter(now).generate(c);
            if (followers > 0 && Gens.booleans().generate(c)) {
                int id = 2 + Gens.ints(0, followers - 1).generate(c);
                steps.add(new Fetch(id, Gens.longs(0, 1L << 40).generate(c), now));
            } else {
                steps.add(new Shrink(now));
            }
        }
        return new History(followers, minIsr, start, steps);
    };

    @Test
    void everyHistoryOfFetchesAndShrinksAgreesWithKafkasReplicaState() {
        Property.forAll(HISTORIES).check(h -> {
            IsrState yours = new IsrState(1, h.followerIds(), h.minIsr(), h.startMs());
            TreeMap<Integer, Replica> kafkas = new TreeMap<>();
            for (int id : h.followerIds()) {
                Replica replica = KafkaJudges.follower(id);
                replica.resetReplicaState(h.startMs(), 0L, true, true);
                kafkas.put(id, replica);
            }
            TreeSet<Integer> isr = new TreeSet<>(kafkas.keySet());
            isr.add(1);
            for (Step step : h.steps()) {
                String at = "step " + step + " of " + h + ",";
                if (step instanceof Fetch f) {
                    yours.observe(f.replicaId(), f.fetchOffset(), f.nowMs());
                    KafkaJudges.fetch(kafkas.get(f.replicaId()), f.fetchOffset(), f.nowMs());
                    Judge.agree(at, "follower LEOs", yours.followerLeos(), "Replica.updateFetchStateOrThrow records",
                            knownLeos(kafkas), OBSERVE_RULE);
                    Judge.agree(at, "last caught-up time of " + f.replicaId(), yours.lastCaughtUpMs(f.replicaId()),
                            "Replica.updateFetchStateOrThrow records",
                            kafkas.get(f.replicaId()).stateSnapshot().lastCaughtUpTimeMs(), OBSERVE_RULE);
                } else {
                    // getOutOfSyncReplicas: candidateReplicaIds = isr - localBrokerId, each judged by isCaughtUp
                    boolean changed = isr.removeIf(id -> id != 1 && !KafkaJudges.caughtUpByTime(kafkas.get(id),
                            step.nowMs()));
                    boolean yoursChanged = yours.shrinkIsr(step.nowMs());
                    Judge.agree(at, "ISR", yours.isr(), "getOutOfSyncReplicas (isr - leader, judged by"
                            + " ReplicaState.isCaughtUp) leaves", List.copyOf(isr), SHRINK_RULE);
                    Judge.agree(at, "answer to 'did the ISR change'", yoursChanged, "getOutOfSyncReplicas is nonEmpty:",
                            changed, SHRINK_RULE);
                }
                Judge.agree(at + " ISR " + isr + ", min ISR " + h.minIsr() + ",", "underMinIsr", yours.underMinIsr(),
                        "Partition.isUnderMinIsr (modelled) says", KafkaModel.underMinIsr(isr.size(), h.minIsr()),
                        UNDER_MIN_ISR_RULE);
            }
        });
    }

    private static Map<Integer, Long> knownLeos(Map<Integer, Replica> kafkas) {
        TreeMap<Integer, Long> leos = new TreeMap<>();
        kafkas.forEach((id, replica) -> KafkaJudges.knownLeo(replica).ifPresent(leo -> leos.put(id, leo)));
        return leos;
    }
}
