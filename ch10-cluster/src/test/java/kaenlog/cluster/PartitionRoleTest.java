package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Task 6: becoming leader or follower from the state znode, on chapter 8's Replica; never backwards. */
@Order(6)
class PartitionRoleTest {
    @TempDir
    Path dir;

    @Test
    void theBrokerTheStateNamesLeadsAtTheStatesEpoch() throws Exception {
        try (Replica replica = Replica.open(2, Role.FOLLOWER, dir.resolve("orders-0"))) {
            PartitionRole role = new PartitionRole(2, replica);
            assertThat(role.onState(new PartitionState(2, 3, List.of(2, 1), 1)))
                    .as("the state names broker 2 leader: broker 2 leads").isEqualTo(PartitionRole.Decision.LEADER);
            assertThat(replica.role()).as("chapter 8's replica became the leader").isEqualTo(Role.LEADER);
            replica.appendAsLeader(batch());
            assertThat(RecordBatch.decodeAll(replica.partition().locked(log -> log.read(0, 1 << 20, kaenlog.log.FetchIsolation.LOG_END))).get(0)
                    .header().partitionLeaderEpoch())
                    .as("its batches carry the state's leader epoch 3 (the epoch chapter 8's fencing compares)").isEqualTo(3);
        }
    }

    @Test
    void anotherLeaderMakesThisBrokerAFollower() throws Exception {
        try (Replica replica = Replica.open(1, Role.LEADER, dir.resolve("orders-0"))) {
            PartitionRole role = new PartitionRole(1, replica);
            role.onState(new PartitionState(1, 0, List.of(1, 2), 1));
            assertThat(role.onState(new PartitionState(2, 1, List.of(2), 2)))
                    .as("broker 2 leads at epoch 1: broker 1 follows").isEqualTo(PartitionRole.Decision.FOLLOWER);
            assertThat(role.leader()).as("and knows whom to fetch from").isEqualTo(2);
            assertThat(role.leaderEpoch()).as("with the epoch its fetches carry").isEqualTo(1);
            assertThat(catchThrowable(() -> replica.appendAsLeader(batch())))
                    .as("a follower takes no produce: chapter 8's replica refuses it").isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aStateWhoseEpochIsNotNewerIsIgnored() throws Exception {
        try (Replica replica = Replica.open(2, Role.FOLLOWER, dir.resolve("orders-0"))) {
            PartitionRole role = new PartitionRole(2, replica);
            role.onState(new PartitionState(2, 4, List.of(2, 1), 1));
            PartitionRole.Decision[] again = new PartitionRole.Decision[1];
            Throwable failed = catchThrowable(() -> again[0] = role.onState(new PartitionState(2, 4, List.of(2), 1)));
            assertThat(failed == null ? again[0] : failed)
                    .as("the same leader epoch again (the leader's own ISR write fired the watch): not newer, ignored,"
                            + " and not a second becomeLeader").isEqualTo(PartitionRole.Decision.IGNORED);
            assertThat(role.onState(new PartitionState(1, 3, List.of(1), 1)))
                    .as("an OLDER epoch (a late read) naming broker 1: ignored, roles only move forward")
                    .isEqualTo(PartitionRole.Decision.IGNORED);
            assertThat(replica.role()).as("broker 2 still leads").isEqualTo(Role.LEADER);
            assertThat(role.leader()).as("and still knows itself the leader").isEqualTo(2);
        }
    }

    @Test
    void anOfflinePartitionTakesNoWrites() throws Exception {
        try (Replica replica = Replica.open(2, Role.FOLLOWER, dir.resolve("orders-0"))) {
            PartitionRole role = new PartitionRole(2, replica);
            role.onState(new PartitionState(2, 0, List.of(2), 1));
            assertThat(role.onState(new PartitionState(PartitionState.NO_LEADER, 1, List.of(2), 2)))
                    .as("leader -1: the partition is offline").isEqualTo(PartitionRole.Decision.OFFLINE);
            assertThat(replica.role()).as("a broker that led must stop taking writes when the state says no leader")
                    .isEqualTo(Role.FOLLOWER);
            assertThat(role.onState(new PartitionState(2, 2, List.of(2), 3)))
                    .as("and leads again at the next epoch").isEqualTo(PartitionRole.Decision.LEADER);
        }
    }

    private static ByteBuffer batch() {
        return new BatchBuilder().append(1_700_000_000_000L, "k", "v").build();
    }
}
