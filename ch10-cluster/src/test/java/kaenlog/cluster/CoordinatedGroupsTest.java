package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import kaenlog.client.BrokerClient;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.OffsetsPlacement;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.kafkawire.GroupState;
import kaenlog.testkit.WaitsFor;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetFetch;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rule of task 13 (CoordinatorPartitionsTest) in the whole cluster, with Kafka's own clients (kafka-clients
 * 3.9.1): the first FindCoordinator creates {@code __consumer_offsets} through the controller, every
 * broker names the same coordinator (the leader of the group's partition, as Kafka would place the
 * group), two consumers of one group bootstrapped on all three brokers share the partitions, and the
 * group outlives its coordinator's broker: its commits, replicated with acks=all, are loaded by the
 * partition's next leader. The offsets topic has 5 partitions here ({@code offsets.topic.num.partitions},
 * Kafka's 50 in production), so that three brokers in one JVM start 15 replicas instead of 150.
 */
@Order(28)
@WaitsFor("a cluster of three brokers to create __consumer_offsets and elect its leaders; consumers to join a group")
class CoordinatedGroupsTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final String TOPIC = "orders";
    private static final int OFFSETS_PARTITIONS = 5;
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path root;
    /** Each record's partition and offset, as the producer was answered: a failure names the ones not read. */
    private final Map<String, String> where = new java.util.concurrent.ConcurrentHashMap<>();

    @Test
    void twoConsumersOfOneGroupBootstrappedOnEveryBrokerShareThePartitionsAndReadEachRecordOnce() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 6);
            String group = "orders-app";
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            Map<String, Integer> readCount = new HashMap<>();
            List<String> sent;
            try (KafkaConsumer<String, String> first = consumer(cluster, group, 100);
                 KafkaConsumer<String, String> second = consumer(cluster, group, 100)) {
                first.subscribe(List.of(TOPIC));
                second.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
                while (System.nanoTime() < deadline && !sharedOut(first.assignment(), second.assignment())) {
                    cluster.rethrowFailure(); // both join before anything is sent: no rebalance under a poll
                    pollAndCommit(first, readCount);
                    pollAndCommit(second, readCount);
                }
                sent = produce(cluster, "r", 600);
                while (System.nanoTime() < deadline && readCount.size() < sent.size()) {
                    cluster.rethrowFailure();
                    pollAndCommit(first, readCount);
                    pollAndCommit(second, readCount);
                }
                Set<TopicPartition> a = first.assignment();
                Set<TopicPartition> b = second.assignment();
                assertThat(a).as("two members of one group, each bootstrapped on all three brokers: one coordinator"
                        + " (the leader of __consumer_offsets-%d) assigns, so their partitions are disjoint (with a"
                        + " coordinator per broker asked, each consumer would get all six)", offsetsPartition)
                        .doesNotContainAnyElementsOf(b).isNotEmpty();
                assertThat(b).isNotEmpty();
                Set<TopicPartition> all = new HashSet<>(a);
                all.addAll(b);
                assertThat(all).as("together they cover every partition").hasSize(6);
            }
            assertThat(readCount.keySet()).as("every record sent was read; missing: %s", sent.stream()
                    .filter(v -> !readCount.containsKey(v)).map(where::get).toList()).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(readCount.values().stream().filter(n -> n > 1).count()).as("each record read once: each"
                    + " partition is one member's, and each member reads on from its own commits").isZero();

            TestCluster.Node coordinator = cluster.leaderOf("__consumer_offsets-" + offsetsPartition).orElseThrow();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(cluster)))) {
                assertThat(admin.describeConsumerGroups(List.of(group)).all().get().get(group).coordinator().id())
                        .as("FindCoordinator names the leader of the group's partition, Utils.abs(hashCode) %% %d",
                                OFFSETS_PARTITIONS).isEqualTo(coordinator.id);
            }
            for (TestCluster.Node node : cluster.nodes()) {
                OffsetsPlacement.Status expected = node == coordinator ? OffsetsPlacement.Status.NONE
                        : OffsetsPlacement.Status.NOT_COORDINATOR;
                assertThat(GroupCoordinator.of(node.broker).placement().status(group))
                        .as("broker %d: only the partition's leader answers for the group; the others answer"
                                + " NOT_COORDINATOR", node.id).isEqualTo(expected);
            }
            String offsets = "__consumer_offsets-" + offsetsPartition;
            long leaderEnd = coordinator.replica(offsets).orElseThrow().leo();
            assertThat(cluster.await(() -> cluster.nodes().stream().allMatch(n -> n.replica(offsets)
                    .map(r -> r.leo() == leaderEnd && r.highWatermark() == leaderEnd).orElse(false)), WAIT_MS))
                    .as("the commits are records of the replicated %s: every replica holds them, below the HW",
                            offsets).isTrue();
            assertThat(leaderEnd).isPositive();
        }
    }

    @Test
    void whenTheCoordinatorsBrokerStopsUnderLoadTheGroupGoesOnFromItsCommits() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            List<String> sent = produce(cluster, "s", 3_000);
            String group = "survivors";
            String offsets = "__consumer_offsets-" + Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            int maxPollRecords = 50;
            Map<String, Integer> readCount = new HashMap<>();
            int stopped = -1;
            try (KafkaConsumer<String, String> consumer = consumer(cluster, group, maxPollRecords)) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
                while (System.nanoTime() < deadline && readCount.size() < sent.size()) {
                    cluster.rethrowFailure();
                    pollAndCommit(consumer, readCount);
                    if (stopped < 0 && readCount.size() >= sent.size() / 3) {
                        stopped = cluster.leaderOf(offsets).orElseThrow().id;
                        cluster.stop(stopped);
                    }
                }
            }
            assertThat(stopped).as("the coordinator's broker was stopped a third of the way").isPositive();
            int coordinatorStopped = stopped;
            assertThat(cluster.await(() -> cluster.leaderOf(offsets).map(n -> n.id != coordinatorStopped)
                    .orElse(false), WAIT_MS)).as("another broker leads %s", offsets).isTrue();
            assertThat(readCount.keySet()).as("the group went on after its coordinator's broker stopped: every record"
                    + " read (the members found the new coordinator, which loaded the commits from its replica);"
                    + " not read: %s", sent.stream().filter(v -> !readCount.containsKey(v)).map(where::get).toList())
                    .containsExactlyInAnyOrderElementsOf(sent);
            long reread = readCount.values().stream().mapToLong(n -> n - 1).sum();
            assertThat(reread).as("re-read at most the records of the one poll whose commit the stop cut short (%d a"
                    + " poll): the group resumed from its replicated commits, not from the start, and its member in its"
                    + " generation (the new coordinator loaded it), so no commit after the stop was refused",
                    maxPollRecords).isLessThanOrEqualTo(maxPollRecords);
        }
    }

    @Test
    void aMemberGoesOnInItsGenerationOnTheNewCoordinatorWithNoRebalance() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            List<String> sent = produce(cluster, "g", 600);
            String group = "steady";
            String offsets = "__consumer_offsets-" + Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            Map<String, Integer> readCount = new HashMap<>();
            List<String> rebalances = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (KafkaConsumer<String, String> consumer = consumer(cluster, group, 50)) {
                consumer.subscribe(List.of(TOPIC), new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) {
                            rebalances.add("revoked " + partitions);
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsLost(java.util.Collection<TopicPartition> partitions) {
                        rebalances.add("lost " + partitions);
                    }
                });
                long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
                while (System.nanoTime() < deadline && readCount.size() < sent.size() / 3) {
                    cluster.rethrowFailure();
                    pollAndCommit(consumer, readCount);
                }
                int generation = consumer.groupMetadata().generationId();
                String member = consumer.groupMetadata().memberId();
                TestCluster.Node old = cluster.leaderOf(offsets).orElseThrow();
                cluster.stop(old.id);
                while (System.nanoTime() < deadline && readCount.size() < sent.size()) {
                    cluster.rethrowFailure();
                    pollAndCommit(consumer, readCount);
                }
                consumer.commitSync(Duration.ofSeconds(30));
                TestCluster.Node next = cluster.leaderOf(offsets).orElseThrow();
                assertThat(next.id).as("another broker leads %s", offsets).isNotEqualTo(old.id);
                assertThat(rebalances).as("the coordinator's broker (%d) stopped: the member found the new one (%d),"
                        + " which had loaded the group's metadata record with its commits, so the member's heartbeats"
                        + " and commits of generation %d were taken there (Kafka's loadGroupsAndOffsets, onGroupLoaded):"
                        + " its partitions were never lost nor revoked", old.id, next.id, generation).isEmpty();
                assertThat(consumer.groupMetadata().generationId()).as("the member is still in generation %d: no"
                        + " rebalance", generation).isEqualTo(generation);
                assertThat(consumer.groupMetadata().memberId()).as("under the same member id").isEqualTo(member);
                ClassicGroupsView view = ClassicGroupsView.of(next, group);
                assertThat(view.state()).as("the new coordinator has the group Stable").isEqualTo(GroupState.STABLE);
                assertThat(view.members()).as("with its member, loaded").containsExactly(member);
            }
            assertThat(readCount.keySet()).as("every record read").containsExactlyInAnyOrderElementsOf(sent);
            assertThat(readCount.values().stream().filter(n -> n > 1).count())
                    .as("no record read twice: the member went on from its own commits, in its generation").isZero();
        }
    }

    /** What a broker's classic groups say of a group: its state and its members' ids. */
    private record ClassicGroupsView(GroupState state, List<String> members) {
        static ClassicGroupsView of(TestCluster.Node node, String group) {
            kaenlog.kafkawire.ClassicGroups.GroupView view = node.kafka.groups().describe(group);
            return new ClassicGroupsView(view.state(), view.members().stream()
                    .map(kaenlog.kafkawire.ClassicGroups.MemberView::memberId).toList());
        }
    }

    @Test
    void aBrokerThatStopsLeadingTheGroupsPartitionLetsItGoAndItsSuccessorResumesFromTheCommits() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            List<String> first = produce(cluster, "m", 300);
            String group = "movers";
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            String offsets = "__consumer_offsets-" + offsetsPartition;
            Map<String, Integer> readCount = new HashMap<>();
            try (KafkaConsumer<String, String> consumer = consumer(cluster, group, 100)) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
                while (System.nanoTime() < deadline && readCount.size() < first.size()) {
                    cluster.rethrowFailure();
                    pollAndCommit(consumer, readCount);
                }
                TestCluster.Node old = cluster.leaderOf(offsets).orElseThrow();
                assertThat(old.kafka.groups().describe(group).state()).as("the coordinator keeps the group's members")
                        .isEqualTo(GroupState.STABLE);
                TestCluster.Node next = cluster.nodes().stream().filter(n -> n != old).findFirst().orElseThrow();
                cluster.moveLeadership(GroupCoordinator.OFFSETS_TOPIC, offsetsPartition, next.id);
                assertThat(cluster.await(() -> status(next, group) == OffsetsPlacement.Status.NONE, WAIT_MS))
                        .as("broker %d leads %s now: it loaded the group's commits and coordinates it", next.id,
                                offsets).isTrue();
                assertThat(status(old, group)).as("broker %d stopped leading %s: NOT_COORDINATOR for the group",
                        old.id, offsets).isEqualTo(OffsetsPlacement.Status.NOT_COORDINATOR);
                assertThat(old.kafka.groups().describe(group).state()).as("the old coordinator let the group's"
                        + " members go (Kafka's onGroupUnloaded): a member waiting on it is told NOT_COORDINATOR,"
                        + " and none is left to expire there").isEqualTo(GroupState.DEAD);
                try (BrokerClient oldPort = old.client(); BrokerClient nextPort = next.client()) {
                    assertThat(offsetFetch(oldPort, group).error()).as("kaen-log's own port on the old coordinator:"
                            + " an error, never \"no commit\" (which would send klog consume --group back to the"
                            + " start)").isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
                    assertThat(offsetFetch(nextPort, group).offset()).as("kaen-log's own port on the new coordinator:"
                            + " the commit it loaded").isEqualTo(consumer.committed(Set.of(new TopicPartition(TOPIC, 0)))
                            .get(new TopicPartition(TOPIC, 0)).offset());
                }
                List<String> second = produce(cluster, "n", 60);
                deadline = System.nanoTime() + Duration.ofMillis(WAIT_MS).toNanos();
                while (System.nanoTime() < deadline && readCount.size() < first.size() + second.size()) {
                    cluster.rethrowFailure();
                    pollAndCommit(consumer, readCount);
                }
                assertThat(readCount.keySet()).as("the member found the new coordinator, joined it again and read"
                        + " on").containsAll(second);
            }
            assertThat(first.stream().filter(v -> readCount.get(v) > 1).map(where::get).sorted().toList())
                    .as("no record committed before the move is read again: the new coordinator answered OffsetFetch"
                            + " from the commits it loaded from its replica")
                    .isEmpty();
        }
    }

    @Test
    void aCommitIsAnsweredOnlyOnceItsReplicasHoldItAndRememberedOnlyThen() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            String group = "careful";
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            String offsets = "__consumer_offsets-" + offsetsPartition;
            TopicPartition orders0 = new TopicPartition(TOPIC, 0);
            try (KafkaConsumer<String, String> consumer = consumer(cluster, group, 100)) {
                consumer.assign(List.of(orders0));
                consumer.commitSync(Map.of(orders0, new OffsetAndMetadata(7)), Duration.ofSeconds(30));
                TestCluster.Node coordinator = cluster.leaderOf(offsets).orElseThrow();
                OffsetCommitKey key = new OffsetCommitKey(group, TOPIC, 0);
                assertThat(committedOffset(coordinator, key)).as("a commit the ISR holds is answered and remembered")
                        .isEqualTo(7L);
                for (TestCluster.Node other : cluster.nodes()) {
                    if (other != coordinator) {
                        cluster.stop(other.id);
                    }
                }
                assertThat(cluster.await(() -> coordinator.leadership.leaderOf(offsets)
                        .map(l -> l.committedIsr().size() == 1).orElse(false), WAIT_MS))
                        .as("both followers of %s gone: its ISR is the leader alone, below min.insync.replicas 2",
                                offsets).isTrue();
                assertThatThrownBy(() -> consumer.commitSync(Map.of(orders0, new OffsetAndMetadata(9)),
                        Duration.ofSeconds(3))).as("a commit that no second replica can hold is never answered as"
                                + " done (Kafka: NOT_ENOUGH_REPLICAS is COORDINATOR_NOT_AVAILABLE, and the client"
                                + " retries until its time runs out)")
                        .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
                assertThat(committedOffset(coordinator, key)).as("and never remembered: OffsetFetch must not answer"
                        + " an offset that a failover could lose").isEqualTo(7L);
            }
        }
    }

    @Test
    void kafkasAdminListsDeletesOffsetsAndDeletesTheGroupThroughItsCoordinatorAndTheDeletionOutlivesAMove()
            throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            String group = "tidy";
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            String offsets = "__consumer_offsets-" + offsetsPartition;
            TopicPartition orders0 = new TopicPartition(TOPIC, 0);
            TopicPartition orders1 = new TopicPartition(TOPIC, 1);
            commitOnce(cluster, group, Map.of(orders0, new OffsetAndMetadata(7), orders1, new OffsetAndMetadata(3)));
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(cluster)))) {
                assertThat(admin.listConsumerGroups().all().get().stream()
                        .filter(listing -> listing.groupId().equals(group)).count())
                        .as("the admin client asks every broker for its groups (ListGroups is per broker, as in Kafka):"
                                + " the group is listed once, by its coordinator alone").isEqualTo(1);

                admin.deleteConsumerGroupOffsets(group, Set.of(orders0)).all().get();
                assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .as("OffsetDelete through the coordinator: orders-0's commit is gone, orders-1's stays")
                        .containsOnlyKeys(orders1);

                TestCluster.Node old = cluster.leaderOf(offsets).orElseThrow();
                TestCluster.Node next = cluster.nodes().stream().filter(n -> n != old).findFirst().orElseThrow();
                long leaderEnd = old.replica(offsets).orElseThrow().leo();
                assertThat(cluster.await(() -> next.replica(offsets).map(r -> r.highWatermark() == leaderEnd)
                        .orElse(false), WAIT_MS)).as("the deletion is a tombstone in the replicated %s", offsets)
                        .isTrue();
                cluster.moveLeadership(GroupCoordinator.OFFSETS_TOPIC, offsetsPartition, next.id);
                assertThat(cluster.await(() -> status(next, group) == OffsetsPlacement.Status.NONE, WAIT_MS))
                        .as("broker %d leads %s now and coordinates the group", next.id, offsets).isTrue();
                assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .as("the new coordinator loaded the tombstone with the commits: orders-0 stays deleted")
                        .containsOnlyKeys(orders1);

                admin.deleteConsumerGroups(List.of(group)).all().get();
                assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .as("DeleteGroups through the new coordinator: the group's last commit is gone too").isEmpty();
                assertThat(admin.listConsumerGroups().all().get().stream().map(listing -> listing.groupId()))
                        .as("and the group is listed by no broker").doesNotContain(group);
            }
        }
    }

    @Test
    void anEmptyGroupsOffsetsExpireOnItsCoordinatorAndTheirTombstonesOutliveAMove() throws Exception {
        try (TestCluster cluster = start()) {
            createTopic(cluster, 3);
            String group = "forgotten";
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            String offsets = "__consumer_offsets-" + offsetsPartition;
            commitOnce(cluster, group, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(7)));
            TestCluster.Node coordinator = cluster.leaderOf(offsets).orElseThrow();
            long endBefore = coordinator.replica(offsets).orElseThrow().leo();
            // offsets.retention.minutes (7 days) and one offsets.retention.check.interval.ms (10 minutes) later
            for (TestCluster.Node node : cluster.nodes()) {
                node.broker.advanceTime(7 * 86_400_000L + 600_001);
            }
            for (TestCluster.Node node : cluster.nodes()) {
                node.broker.runDueTasks();
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(cluster)))) {
                assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .as("a group without members whose commit is older than offsets.retention.minutes loses it at"
                                + " its coordinator's next retention check, in a cluster as on one broker").isEmpty();
                long leaderEnd = coordinator.replica(offsets).orElseThrow().leo();
                assertThat(leaderEnd).as("the expiry appended a tombstone to %s as its leader", offsets)
                        .isEqualTo(endBefore + 1);
                TestCluster.Node next = cluster.nodes().stream().filter(n -> n != coordinator).findFirst().orElseThrow();
                assertThat(cluster.await(() -> next.replica(offsets).map(r -> r.leo() == leaderEnd).orElse(false),
                        WAIT_MS)).as("the followers copy the tombstone as any record").isTrue();
                assertThat(cluster.await(() -> coordinator.leadership.leaderOf(offsets)
                        .map(l -> l.committedIsr().size() == 3).orElse(false), WAIT_MS))
                        .as("every replica back in the ISR after the leap of time").isTrue();
                cluster.moveLeadership(GroupCoordinator.OFFSETS_TOPIC, offsetsPartition, next.id);
                assertThat(cluster.await(() -> status(next, group) == OffsetsPlacement.Status.NONE, WAIT_MS))
                        .as("broker %d leads %s now and coordinates the group", next.id, offsets).isTrue();
                assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .as("the new coordinator loaded the tombstone: the expired commit does not come back").isEmpty();
            }
            assertThat(cluster.nodes().stream().map(n -> n.log()).filter(l -> l.contains("offsets-expiry " + offsets
                    + ": expired 1 committed offset(s) of 1 group(s)")).count())
                    .as("the coordinator's log says what the expiry did, and no follower expired anything").isEqualTo(1);
        }
    }

    /** A member of no group's generation commits {@code offsets} for {@code group} once, and goes: the group is empty. */
    private static void commitOnce(TestCluster cluster, String group, Map<TopicPartition, OffsetAndMetadata> offsets) {
        try (KafkaConsumer<String, String> consumer = consumer(cluster, group, 100)) {
            consumer.assign(offsets.keySet());
            consumer.commitSync(offsets, Duration.ofSeconds(30));
        }
    }

    private static long committedOffset(TestCluster.Node node, OffsetCommitKey key) throws IOException {
        return GroupCoordinator.of(node.broker).committed(node.broker, key).orElseThrow().value().offset();
    }

    private static OffsetFetch.Response offsetFetch(BrokerClient client, String group)
            throws IOException {
        return OffsetFetch.Response.decode(client.call(ApiKeys.OFFSET_FETCH,
                new OffsetFetch.Request(group, TOPIC + "-0").encode()));
    }

    private static OffsetsPlacement.Status status(TestCluster.Node node, String group) {
        return GroupCoordinator.of(node.broker).placement().status(group);
    }

    /** Three brokers with Kafka ports, after the task's own rules are known to answer (a TODO fails here, at once). */
    private TestCluster start() throws Exception {
        CoordinatorPartitions.partitionFor("preflight", OFFSETS_PARTITIONS);
        CoordinatorPartitions preflight = new CoordinatorPartitions(() -> OFFSETS_PARTITIONS, Runnable::run,
                new CoordinatorPartitions.Offsets() {
                    @Override
                    public void load(String partition) {
                    }

                    @Override
                    public void unload(String partition) {
                    }
                }, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        preflight.onElection("__consumer_offsets-0", 0);
        preflight.status("preflight");
        preflight.onResignation("__consumer_offsets-0", 0);
        return TestCluster.withKafkaPorts(ZK.connectString(), root, 3,
                "offsets.topic.num.partitions=" + OFFSETS_PARTITIONS);
    }

    private static void createTopic(TestCluster cluster, int partitions) throws Exception {
        Map<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            int first = p % 3;
            assignment.put(p, List.of(first + 1, (first + 1) % 3 + 1, (first + 2) % 3 + 1));
        }
        cluster.createTopic(TOPIC, assignment, Map.of("min.insync.replicas", "2"));
        assertThat(cluster.await(() -> assignment.keySet().stream()
                .allMatch(p -> cluster.leaderOf(TOPIC + "-" + p).isPresent()), WAIT_MS))
                .as("every partition of %s has a leader", TOPIC).isTrue();
    }

    private List<String> produce(TestCluster cluster, String prefix, int count) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(cluster));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<String> sent = IntStream.range(0, count).mapToObj(i -> prefix + "-" + i).collect(Collectors.toList());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> acks = new ArrayList<>();
            for (String value : sent) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, value, value)));
            }
            for (int i = 0; i < acks.size(); i++) {
                org.apache.kafka.clients.producer.RecordMetadata m = acks.get(i).get(); // acknowledged by the ISR
                where.put(sent.get(i), m.partition() + "@" + m.offset());
            }
        }
        return sent;
    }

    private static KafkaConsumer<String, String> consumer(TestCluster cluster, String group, int maxPollRecords) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAll(cluster));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        config.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(config);
    }

    /** One poll, each record counted, then its offsets committed; a commit the group refused (a rebalance) is left. */
    private static void pollAndCommit(KafkaConsumer<String, String> consumer, Map<String, Integer> readCount) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
            readCount.merge(record.value(), 1, Integer::sum);
        }
        try {
            consumer.commitSync(Duration.ofSeconds(10));
        } catch (CommitFailedException | RebalanceInProgressException refused) {
            // the group rebalanced under this poll: its records may be read again by whoever gets the partition
        } catch (KafkaException timedOut) {
            if (!(timedOut instanceof org.apache.kafka.common.errors.TimeoutException)) {
                throw timedOut;
            }
        }
    }

    private static boolean sharedOut(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> all = new HashSet<>(a);
        all.addAll(b);
        return !a.isEmpty() && !b.isEmpty() && all.size() == a.size() + b.size() && all.size() == 6;
    }

    private static String bootstrapAll(TestCluster cluster) {
        List<String> all = new ArrayList<>();
        cluster.nodes().forEach(n -> all.add("127.0.0.1:" + n.kafkaPort()));
        return String.join(",", all);
    }
}
