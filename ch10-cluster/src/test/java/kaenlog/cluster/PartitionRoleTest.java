package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Partition;
import kaenlog.log.LogConfig;
import kaenlog.replication.LeaderEpochCache;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
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
    void aLeaderRestartedBeforeAnyControllerSawItGoLeadsAgainAtTheEpochItsLogEndsWith() throws Exception {
        List<LeaderEpochCache.EpochEntry> checkpointed;
        try (Replica before = Replica.open(1, Role.FOLLOWER, dir.resolve("orders-0"))) {
            new PartitionRole(1, before).onState(new PartitionState(1, 0, List.of(1), 1));
            before.appendAsLeader(batch());
            checkpointed = before.epochs().entries(); // what its leader-epoch-checkpoint holds
        }
        // Killed and restarted while no controller was in office: the state still names it at epoch 0, and no
        // controller bumps an epoch for a leader that is live (Kafka's neither: its restarted broker takes
        // LeaderAndIsr at epoch 0, a new Partition starting at no epoch).
        try (Replica after = Replica.of(1, Role.FOLLOWER,
                Partition.open("orders-0", dir.resolve("orders-0"), LogConfig.defaults()), checkpointed)) {
            PartitionRole role = new PartitionRole(1, after);
            PartitionRole.Decision[] decided = new PartitionRole.Decision[1];
            Throwable failed = catchThrowable(() -> decided[0] = role.onState(new PartitionState(1, 0, List.of(1), 1)));
            assertThat(failed == null ? decided[0] : failed)
                    .as("the restarted broker's first state names it leader at epoch 0, the epoch its log ends with: it"
                            + " leads (refusing it leaves the partition without a leader for good: every fetch answered"
                            + " NOT_LEADER_OR_FOLLOWER, every acknowledged record unreadable)")
                    .isEqualTo(PartitionRole.Decision.LEADER);
            after.appendAsLeader(batch());
            assertThat(after.leo()).as("and takes writes after the records it had").isEqualTo(2);
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

    // ---- Kafka judges: a model of ReplicaManager.becomeLeaderOrFollower, over generated state histories ----

    static final String ROLE_RULE = "only a state whose leader epoch is above the last one acted on moves the role"
            + " (a late watch, a read that raced a newer write, the leader's own ISR write are ignored); it names this"
            + " broker: lead at its epoch; another broker: follow it; no leader: take no writes";

    /** States as a broker reads them, late and repeated: leaders 2 (this broker), 1, 3 or none, epochs up and down. */
    static final Gen<List<PartitionState>> HISTORIES = Gens.lists(c -> new PartitionState(
            Gens.elements(2, 1, PartitionState.NO_LEADER, 3).generate(c), Gens.ints(0, 6).generate(c),
            List.of(2), 1), 1, 8);

    @Test
    void everyHistoryOfStatesAgreesWithKafkasBecomeLeaderOrFollower() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(HISTORIES).tries(40).shrinkBudget(300).check(states -> {
                try (Replica replica = Replica.open(2, Role.FOLLOWER, scratch.newDir().resolve("orders-0"))) {
                    PartitionRole role = new PartitionRole(2, replica);
                    int actedOn = PartitionRole.NO_EPOCH;
                    int leader = PartitionState.NO_LEADER;
                    Role kafkasRole = Role.FOLLOWER;
                    for (int i = 0; i < states.size(); i++) {
                        PartitionState state = states.get(i);
                        // becomeLeaderOrFollower: if (requestLeaderEpoch > currentLeaderEpoch) makeLeaders (the state
                        // names this broker) or makeFollowers (any other leader, or none); else the state is ignored
                        boolean newer = state.leaderEpoch() > actedOn;
                        PartitionRole.Decision kafkas = !newer ? PartitionRole.Decision.IGNORED
                                : state.leader() == 2 ? PartitionRole.Decision.LEADER
                                : state.leader() == PartitionState.NO_LEADER ? PartitionRole.Decision.OFFLINE
                                : PartitionRole.Decision.FOLLOWER;
                        if (newer) {
                            actedOn = state.leaderEpoch();
                            leader = state.leader();
                            kafkasRole = state.leader() == 2 ? Role.LEADER : Role.FOLLOWER;
                        }
                        boolean asked = role.isNewer(state);
                        PartitionRole.Decision yours = role.onState(state);
                        Judge.agree("state " + (i + 1) + " (" + state + ") of " + states + ", read by broker 2",
                                "newer?, decision, leader, epoch and replica role",
                                List.of(asked, yours, role.leader(), role.leaderEpoch(), replica.role()),
                                "ReplicaManager.becomeLeaderOrFollower gives",
                                List.of(newer, kafkas, leader, actedOn, kafkasRole), ROLE_RULE);
                    }
                }
            });
        }
    }
}
