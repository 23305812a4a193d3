package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import kaenlog.coordinator.OffsetsPlacement.Status;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 13: which broker coordinates a group, and what it does when it gains or loses the partition.
 * A group belongs to partition {@code Utils.abs(groupId.hashCode()) % partitionCount} of
 * {@code __consumer_offsets} (Kafka's own {@code Utils.abs} is the oracle); the leader of that
 * partition is its coordinator. A broker elected leader answers the partition's groups
 * COORDINATOR_LOAD_IN_PROGRESS until their offsets are read from the log, on a thread of its own;
 * one that resigns forgets them and answers NOT_COORDINATOR; a load that ends after its leadership
 * did changes nothing.
 */
@Order(13)
class CoordinatorPartitionsTest {
    private static final int PARTITIONS = 50;
    /** A group id whose String.hashCode() is Integer.MIN_VALUE, the one int Math.abs leaves negative. */
    private static final String MIN_HASH_GROUP = "polygenelubricants";

    /** Loads run when the test says (the broker's loads thread, by hand), and what was loaded and unloaded. */
    private final Queue<Runnable> loads = new ArrayDeque<>();
    private final List<String> loaded = new ArrayList<>();
    private final List<String> unloaded = new ArrayList<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private CoordinatorPartitions.Offsets offsets = new CoordinatorPartitions.Offsets() {
        @Override
        public void load(String partition) {
            loaded.add(partition);
        }

        @Override
        public void unload(String partition) {
            unloaded.add(partition);
        }
    };
    private final CoordinatorPartitions partitions = new CoordinatorPartitions(() -> PARTITIONS, loads::add,
            new CoordinatorPartitions.Offsets() {
                @Override
                public void load(String partition) throws IOException {
                    offsets.load(partition); // whichever offsets the test set by now
                }

                @Override
                public void unload(String partition) {
                    offsets.unload(partition);
                }
            }, new PrintStream(log, true, StandardCharsets.UTF_8));

    @Test
    void aGroupsPartitionIsKafkasUtilsAbsOfItsHashCodeModuloThePartitionCount() {
        Property.forAll(Gens.strings(1, 40)).tries(1_000).check(groupId ->
                assertThat(CoordinatorPartitions.partitionFor(groupId, PARTITIONS))
                        .as("group %s (hashCode %d): Kafka's partitionFor is Utils.abs(hashCode) %% 50, Utils.abs"
                                        + " being Math.abs but for Integer.MIN_VALUE (not hashCode & 0x7fffffff, the"
                                        + " producer's toPositive): another number puts the group on another broker"
                                        + " than Kafka's", groupId, groupId.hashCode())
                        .isEqualTo(Utils.abs(groupId.hashCode()) % PARTITIONS));
    }

    @Test
    void aGroupIsPlacedAsKafkaPlacesItForAnyPartitionCount() {
        Property.forAll(Gens.ints(1, 500)).tries(300).check(count -> {
            for (String groupId : List.of("console-consumer-46999", "orders-app", MIN_HASH_GROUP, "ÿ-group")) {
                assertThat(CoordinatorPartitions.partitionFor(groupId, count))
                        .as("group %s over %d partitions: Utils.abs(hashCode) %% count, as Kafka", groupId, count)
                        .isEqualTo(Utils.abs(groupId.hashCode()) % count);
            }
        });
    }

    @Test
    void aGroupWhoseHashCodeIsTheSmallestIntIsOnPartitionZeroAsInKafka() {
        assertThat(MIN_HASH_GROUP.hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(CoordinatorPartitions.partitionFor(MIN_HASH_GROUP, PARTITIONS))
                .as("Math.abs(Integer.MIN_VALUE) is Integer.MIN_VALUE, and its remainder a negative partition (-48);"
                        + " the remainder's absolute value is 48; Kafka's Utils.abs maps the smallest int to 0")
                .isZero();
    }

    @Test
    void aBrokerThatLeadsNoOffsetsPartitionIsNoGroupsCoordinator() {
        assertThat(partitions.status("orders-app")).as("this broker leads none of __consumer_offsets' partitions:"
                + " NOT_COORDINATOR, so the member asks FindCoordinator again").isEqualTo(Status.NOT_COORDINATOR);
        partitions.onElection(otherPartitionThan("orders-app"), 0);
        runLoads();
        assertThat(partitions.status("orders-app")).as("it leads another offsets partition than the group's: still"
                + " not its coordinator").isEqualTo(Status.NOT_COORDINATOR);
    }

    @Test
    void anElectedLeaderAnswersLoadInProgressUntilItHasReadTheOffsetsOnTheLoadsThread() {
        String partition = partitionOf("orders-app");
        partitions.onElection(partition, 3);
        assertThat(loaded).as("onElection is called on the broker's metadata thread, which must not read a log: the"
                + " offsets are read on the loads' thread, later").isEmpty();
        assertThat(partitions.status("orders-app")).as("elected, its offsets not read yet: COORDINATOR_LOAD_IN_PROGRESS"
                + " (the member retries), never answers from offsets it has not read").isEqualTo(Status.LOAD_IN_PROGRESS);
        List<Status> duringTheLoad = new ArrayList<>();
        offsets = new CoordinatorPartitions.Offsets() {
            @Override
            public void load(String p) {
                duringTheLoad.add(partitions.status("orders-app"));
                loaded.add(p);
            }

            @Override
            public void unload(String p) {
                unloaded.add(p);
            }
        };
        runLoads();
        assertThat(duringTheLoad).as("while the log is read the group is still loading, not owned")
                .containsExactly(Status.LOAD_IN_PROGRESS);
        assertThat(loaded).as("the elected partition's offsets, read once").containsExactly(partition);
        assertThat(partitions.status("orders-app")).as("loaded: this broker is the group's coordinator")
                .isEqualTo(Status.NONE);
        assertThat(partitions.owned()).containsExactly(partition);
    }

    @Test
    void aCoordinatorElectedAgainAtANewerEpochKeepsItsGroupsAndReadsNothing() {
        String partition = partitionOf("orders-app");
        partitions.onElection(partition, 3);
        runLoads();
        partitions.onElection(partition, 4); // the controller shrank the ISR: same leader, leader epoch + 1
        assertThat(partitions.status("orders-app")).as("still the leader, one epoch on: still the coordinator,"
                + " never LOAD_IN_PROGRESS again (Kafka's addLoadingPartition refuses a partition it owns)")
                .isEqualTo(Status.NONE);
        runLoads();
        assertThat(loaded).as("its offsets are in memory already: the log is not read again").containsExactly(partition);
    }

    @Test
    void aBrokerThatStopsLeadingForgetsTheOffsetsAndIsNotTheCoordinatorAnyMore() {
        String partition = partitionOf("orders-app");
        partitions.onElection(partition, 3);
        runLoads();
        partitions.onResignation(partition, 3);
        assertThat(partitions.status("orders-app")).as("another broker leads the group's partition now: "
                + "NOT_COORDINATOR, and the members find the new coordinator and join it again")
                .isEqualTo(Status.NOT_COORDINATOR);
        assertThat(unloaded).as("its offsets are forgotten: the new leader's are the ones that count, and this broker"
                + " would answer OffsetFetch from stale ones if it led again without reading the log")
                .containsExactly(partition);
        assertThat(partitions.owns(partition)).isFalse();
    }

    @Test
    void aLoadThatBeginsAfterItsLeadershipEndedChangesNothing() {
        String partition = partitionOf("orders-app");
        partitions.onElection(partition, 3);
        partitions.onResignation(partition, 3);
        runLoads();
        assertThat(partitions.status("orders-app")).as("resigned before the load ran: the late load must not make"
                + " this broker the coordinator of a partition another broker leads").isEqualTo(Status.NOT_COORDINATOR);
        assertThat(loaded).as("nothing to read for a leadership that is over").isEmpty();
    }

    @Test
    void aLoadThatEndsAfterItsLeadershipEndedChangesNothing() {
        String partition = partitionOf("orders-app");
        offsets = new CoordinatorPartitions.Offsets() {
            @Override
            public void load(String p) {
                partitions.onResignation(p, 3); // the metadata thread: another broker leads, mid-load
            }

            @Override
            public void unload(String p) {
                unloaded.add(p);
            }
        };
        partitions.onElection(partition, 3);
        runLoads();
        assertThat(partitions.status("orders-app")).as("the broker resigned while it read the log: when the read ends"
                + " it must not own the partition (only the leadership that asked for the load may take it)")
                .isEqualTo(Status.NOT_COORDINATOR);
    }

    @Test
    void aLoadOfAnOlderLeaderEpochDoesNotEndTheNewerOnesLoading() {
        String partition = partitionOf("orders-app");
        partitions.onElection(partition, 3);
        partitions.onResignation(partition, 3);
        partitions.onElection(partition, 5);
        loads.poll().run(); // epoch 3's load, late
        assertThat(partitions.status("orders-app")).as("epoch 3's load is over, epoch 5's not yet run: still loading")
                .isEqualTo(Status.LOAD_IN_PROGRESS);
        runLoads();
        assertThat(partitions.status("orders-app")).as("epoch 5's load done: the coordinator").isEqualTo(Status.NONE);
        assertThat(loaded).as("read once, for the leadership that is current").containsExactly(partition);
    }

    @Test
    void aLoadThatEndsAfterItsLeadershipWasSucceededByANewerOneLeavesTheOffsetsToTheNewerLoad() {
        String partition = partitionOf("orders-app");
        offsets = new CoordinatorPartitions.Offsets() {
            @Override
            public void load(String p) {
                loaded.add(p);
                if (loaded.size() == 1) { // mid-read: another broker led, and then this one again at epoch 5
                    partitions.onResignation(p, 3);
                    partitions.onElection(p, 5);
                }
            }

            @Override
            public void unload(String p) {
                unloaded.add(p);
            }
        };
        partitions.onElection(partition, 3);
        assertThat(loads).as("the log is read on the loads' thread, not on the metadata thread that elects")
                .hasSize(1);
        loads.poll().run(); // epoch 3's load
        assertThat(partitions.status("orders-app")).as("epoch 3's read began before another broker led: the commits"
                + " written meanwhile may be missing from it, so only epoch 5's own load may end the loading (remove"
                + " the partition from loading only at the epoch this load was for)").isEqualTo(Status.LOAD_IN_PROGRESS);
        runLoads();
        assertThat(partitions.status("orders-app")).as("epoch 5's load done: the coordinator").isEqualTo(Status.NONE);
        assertThat(loaded).as("the log read again, for epoch 5").containsExactly(partition, partition);
    }

    @Test
    void aLoadThatRunsTheMomentItIsHandedOverFindsThePartitionLoading() {
        String partition = partitionOf("orders-app");
        CoordinatorPartitions direct = new CoordinatorPartitions(() -> PARTITIONS, Runnable::run,
                new CoordinatorPartitions.Offsets() {
                    @Override
                    public void load(String p) {
                        loaded.add(p);
                    }

                    @Override
                    public void unload(String p) {
                        unloaded.add(p);
                    }
                }, new PrintStream(log, true, StandardCharsets.UTF_8));
        direct.onElection(partition, 1);
        assertThat(direct.status("orders-app")).as("an executor may run the load before onElection returns: the"
                + " partition goes into loading at its epoch first, then the load is handed over, so the load finds it"
                + " and makes the broker the coordinator").isEqualTo(Status.NONE);
        assertThat(loaded).as("read once").containsExactly(partition);
    }

    @Test
    void aLoadThatFailsLeavesTheBrokerNotTheCoordinator() {
        String partition = partitionOf("orders-app");
        offsets = new CoordinatorPartitions.Offsets() {
            @Override
            public void load(String p) throws IOException {
                throw new IOException("disk gone");
            }

            @Override
            public void unload(String p) {
            }
        };
        partitions.onElection(partition, 1);
        runLoads();
        assertThat(partitions.status("orders-app")).as("offsets that cannot be read are never answered from: not the"
                + " coordinator (and not loading for ever)").isEqualTo(Status.NOT_COORDINATOR);
        assertThat(log.toString(StandardCharsets.UTF_8)).as("one line says why").contains("disk gone");
    }

    private void runLoads() {
        for (Runnable load = loads.poll(); load != null; load = loads.poll()) {
            load.run();
        }
    }

    private static String partitionOf(String groupId) {
        return "__consumer_offsets-" + (Utils.abs(groupId.hashCode()) % PARTITIONS);
    }

    private static String otherPartitionThan(String groupId) {
        return "__consumer_offsets-" + ((Utils.abs(groupId.hashCode()) + 1) % PARTITIONS);
    }
}
