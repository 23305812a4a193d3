package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.replication.IsrState;
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
}
