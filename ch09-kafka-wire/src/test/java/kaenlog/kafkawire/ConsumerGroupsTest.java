package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.OffsetFetch;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups with the real clients (given code around task 7 (GroupStateTest)): KafkaConsumers
 * with {@code subscribe()} split a topic's partitions through the group coordinator, a member that
 * dies is removed after its session timeout and its partitions go to the others, and a new member
 * resumes where the group committed, in chapter 6's {@code __consumer_offsets}. The topic's 6
 * partitions are made through the broker's own API ({@code Broker.partition}). The session
 * timeouts are small ({@code group.min.session.timeout.ms} set down to 500 for the test; Kafka's is
 * 6000), so the whole class runs in tens of seconds. Runs after the tasks.
 */
@Order(12)
@Timeout(value = 150, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConsumerGroupsTest {
    static final String TOPIC = "orders";
    static final int PARTITIONS = 6;
    static final int RECORDS = 30_000;
    /** The member that dies: its session timeout is what the survivors wait for. */
    static final int SESSION_MS = 1_500;
    /** The others: Kafka's minimum, so that a slow CI machine does not make them miss a heartbeat. */
    static final int SAFE_SESSION_MS = 6_000;
    static final int HEARTBEAT_MS = 250;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    /** Every record read by any member, by its value, with how often it was read. */
    private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();

    @BeforeEach
    void start() throws Exception {
        // The coordinator calls task 7 (GroupStateTest) for every change of state: a TODO fails here, not as a timeout.
        GroupTransitions.next(GroupState.EMPTY, GroupState.Event.MEMBER_JOINS);
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs()), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        for (int p = 0; p < PARTITIONS; p++) {
            broker.partition(Backend.partitionName(TOPIC, p));
            broker.partitionsDone();
        }
    }

    private static PartitionConfigs configs() {
        return PartitionConfigs.load().with(GroupConfigKeys.MIN_SESSION_TIMEOUT_MS + "=500")
                .with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=300");
    }

    @AfterEach
    void stop() throws Exception {
        for (Member m : members) {
            m.stop();
        }
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    static Properties consumerConfig(String bootstrap, String group, int sessionMs, int heartbeatMs, String clientId) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionMs);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, heartbeatMs);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        config.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }

    private String bootstrap() {
        return "127.0.0.1:" + listener.port();
    }

    /**
     * One KafkaConsumer on a thread of its own: poll, count what it read, commit it, until stopped
     * (close: LeaveGroup, but for a static member, which sends none).
     */
    final class Member {
        final String name;
        final Thread thread;
        volatile Set<Integer> assignment = Set.of();
        final List<String> values = new CopyOnWriteArrayList<>();
        volatile Throwable failure;
        volatile boolean stopped;
        /** The generation of its last poll, and how often it lost partitions to a rebalance. */
        volatile int generation = -1;
        final AtomicInteger revocations = new AtomicInteger();

        Member(String name, String group) {
            this(name, group, null);
        }

        /** A member with {@code group.instance.id} {@code instanceId} (KIP-345), or a dynamic one (null). */
        Member(String name, String group, String instanceId) {
            this.name = name;
            Properties config = consumerConfig(bootstrap(), group, SAFE_SESSION_MS, HEARTBEAT_MS, name);
            if (instanceId != null) {
                config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
            }
            thread = new Thread(() -> run(config), "member-" + name);
            thread.setDaemon(true);
            thread.start();
            members.add(this);
        }

        private void run(Properties config) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) {
                            revocations.incrementAndGet();
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    }
                });
                while (!stopped) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    assignment = Set.copyOf(consumer.assignment().stream().map(TopicPartition::partition).toList());
                    generation = consumer.groupMetadata().generationId();
                    if (records.isEmpty()) {
                        continue;
                    }
                    consumer.commitSync();
                    for (ConsumerRecord<String, String> r : records) {
                        values.add(r.value());
                        reads.computeIfAbsent(r.value(), v -> new AtomicInteger()).incrementAndGet();
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join(30_000);
        }
    }

    private void waitUntil(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
        waitUntil(condition, seconds, () -> what);
    }

    private void waitUntil(BooleanSupplier condition, int seconds, java.util.function.Supplier<String> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            for (Member m : members) {
                assertThat(m.failure).as("member %s failed (%s); broker log:%n%s", m.name, what.get(), brokerLog)
                        .isNull();
            }
            if (System.nanoTime() >= deadline) {
                assertThat(false).as("within %d s: %s; broker log:%n%s", seconds, what.get(), brokerLog).isTrue();
            }
            Thread.sleep(20);
        }
    }

    private boolean splitEvenly(List<Member> group, int each) {
        Set<Integer> all = new HashSet<>();
        int total = 0;
        for (Member m : group) {
            if (m.assignment.size() != each) {
                return false;
            }
            all.addAll(m.assignment);
            total += m.assignment.size();
        }
        return all.size() == total && (all.size() == PARTITIONS || each * group.size() < PARTITIONS);
    }

    private void produce(int from, int to) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = from; i < to; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, "v-" + i)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private long committedOnKaenLogsPort(String group, int partition) throws Exception {
        byte[] answer = broker.handle(ApiKeys.OFFSET_FETCH,
                new OffsetFetch.Request(group, Backend.partitionName(TOPIC, partition)).encode()).orElseThrow();
        return OffsetFetch.Response.decode(answer).offset();
    }

    @Test
    void threeConsumersSplitSixPartitionsReadEachRecordOnceAndANewMemberResumesAtTheCommits() throws Exception {
        List<Member> group = List.of(new Member("a", "g"), new Member("b", "g"), new Member("c", "g"));
        waitUntil(() -> splitEvenly(group, 2), 30,
                "three consumers with subscribe() split the 6 partitions, 2 each, none twice");
        produce(0, RECORDS);
        waitUntil(() -> reads.size() == RECORDS, 60, "the group reads all " + RECORDS + " records");
        List<String> twice = reads.entrySet().stream().filter(e -> e.getValue().get() != 1).map(Map.Entry::getKey)
                .limit(5).toList();
        assertThat(twice).as("every record is read by exactly one member, once: a partition belongs to one member of"
                + " a generation").isEmpty();
        for (Member m : group) {
            assertThat(m.values).as("member %s read records of its own 2 partitions", m.name).isNotEmpty();
        }
        for (Member m : group) {
            m.stop();
        }
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(committedOnKaenLogsPort("g", p))
                    .as("the KafkaConsumers' commits are chapter 6's: kaen-log's own OFFSET_FETCH for g, orders-%d,"
                            + " answers the end of what they read", p).isEqualTo(RECORDS / PARTITIONS);
        }
        produce(RECORDS, RECORDS + 600);
        Member late = new Member("late", "g");
        waitUntil(() -> late.values.size() >= 600, 30, "a new member of g reads the 600 records produced after the"
                + " group stopped");
        Thread.sleep(300);
        assertThat(late.values).as("a new member resumes at the group's commits: only the 600 new records, none of the"
                + " 30,000 the group had read and committed").hasSize(600).allMatch(v ->
                Integer.parseInt(v.substring(2)) >= RECORDS);
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedAndTheOthersTakeItsPartitions() throws Exception {
        List<Member> survivors = List.of(new Member("a", "g"), new Member("b", "g"));
        Process crashing = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), GroupMemberProcess.class.getName(), bootstrap(), "g",
                TOPIC, Integer.toString(SESSION_MS), Integer.toString(HEARTBEAT_MS), "1000")
                .redirectErrorStream(true).start();
        List<String> said = new CopyOnWriteArrayList<>();
        AtomicInteger crashingOwns = new AtomicInteger();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(crashing.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    said.add(line);
                    if (line.startsWith("assigned ")) {
                        crashingOwns.set(line.equals("assigned []") ? 0 : line.split(",").length);
                    }
                    if (line.startsWith("committed ")) {
                        reads.computeIfAbsent(line.split(" ")[3], v -> new AtomicInteger()).incrementAndGet();
                    }
                }
            } catch (Exception ignored) {
                // the process is gone
            }
        });
        reader.start();
        try {
            waitUntil(() -> splitEvenly(survivors, 2) && crashingOwns.get() == 2, 60,
                    () -> "two consumers here and one in its own JVM split the 6 partitions, 2 each; that one said: "
                            + said);
            produce(0, RECORDS);
            assertThat(crashing.waitFor(60, TimeUnit.SECONDS)).as("the member in its own JVM stops dead after 1000"
                    + " records; it said:%n%s", String.join("\n", said)).isTrue();
            long diedAtMs = broker.nowMs();
            waitUntil(() -> splitEvenly(survivors, 3), 30, "the two survivors take the dead member's partitions: 3"
                    + " each");
            long tookOverMs = broker.nowMs() - diedAtMs;
            System.out.println("ConsumerGroupsTest: the survivors own all 6 partitions " + tookOverMs
                    + " ms (broker time) after the member died; session timeout " + SESSION_MS + " ms");
            assertThat(tookOverMs).as("the survivors own all 6 partitions %d ms (broker time) after the member died:"
                    + " within its session timeout (%d ms) and a rebalance", tookOverMs, SESSION_MS)
                    .isLessThanOrEqualTo(SESSION_MS + 2_000L);
            waitUntil(() -> reads.size() == RECORDS, 60, "all " + RECORDS + " records are read");
            reader.join(5_000);
            List<String> twice = reads.entrySet().stream().filter(e -> e.getValue().get() != 1)
                    .map(Map.Entry::getKey).limit(5).toList();
            assertThat(twice).as("no record lost and none read twice: the dead member committed all it read, and its"
                    + " partitions' new owners start at those commits").isEmpty();
            assertThat(brokerLog.toString(StandardCharsets.UTF_8)).as("the coordinator says why the member went")
                    .contains("sent no heartbeat for " + SESSION_MS + " ms");
        } finally {
            crashing.destroyForcibly();
        }
    }

    /**
     * KIP-345, with the real clients: a consumer with a {@code group.instance.id} that is closed (a
     * static member sends no LeaveGroup) and started again takes its partitions back at once, and
     * the other member never hears of it: no rebalance, no partition revoked.
     */
    @Test
    void aStaticMemberThatRestartsTakesItsPartitionsBackWithoutARebalance() throws Exception {
        Member a = new Member("a", "static", "a");
        Member b = new Member("b", "static", "b");
        waitUntil(() -> splitEvenly(List.of(a, b), 3) && a.generation == b.generation, 30,
                "two static members split the 6 partitions, 3 each");
        int generation = a.generation;
        int revoked = a.revocations.get();
        Set<Integer> owned = b.assignment;
        b.stop();
        Member restarted = new Member("b-again", "static", "b");
        waitUntil(() -> restarted.assignment.equals(owned), 30, () -> "the restarted b owns b's partitions " + owned
                + " again (it owns " + restarted.assignment + ")");
        assertThat(restarted.generation).as("in the same generation: the coordinator gave the new process b's place"
                + " and assignment, and started no rebalance").isEqualTo(generation);
        Thread.sleep(3 * HEARTBEAT_MS);
        assertThat(a.generation).as("a is still in generation %d", generation).isEqualTo(generation);
        assertThat(a.revocations.get()).as("and never lost a partition: it heard nothing of b's restart")
                .isEqualTo(revoked);
        assertThat(a.assignment).hasSize(3);
    }

    @Test
    void aSecondLiveConsumerWithTheSameInstanceIdFencesTheFirst() throws Exception {
        Member first = new Member("first", "twins", "same");
        waitUntil(() -> first.assignment.size() == PARTITIONS, 30, "the first consumer owns the 6 partitions");
        members.remove(first); // its failure is what this test waits for
        Member second = new Member("second", "twins", "same");
        waitUntil(() -> second.assignment.size() == PARTITIONS, 30, "the second consumer with the same instance id"
                + " takes its place, and its partitions");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (first.failure == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(first.failure).as("the first consumer's next heartbeat or commit is FENCED_INSTANCE_ID:"
                + " kafka-clients stops it with FencedInstanceIdException").isInstanceOf(FencedInstanceIdException.class);
        first.stop();
    }

    private Admin admin() {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        return Admin.create(config);
    }

    /** A group that commits without joining: a consumer with assign() (kcat and admins do the same). */
    private void commitWithoutJoining(String group, int partition, long offset) {
        Properties config = consumerConfig(bootstrap(), group, SAFE_SESSION_MS, HEARTBEAT_MS, "assigned");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, partition), new OffsetAndMetadata(offset)));
        }
    }

    /**
     * What kafka-consumer-groups does (--list --state, --describe, --delete-offsets, --delete), through
     * AdminClient as the tool calls it: a group whose members left, one that only committed, and both
     * again after the broker restarted (the offsets and the groups' metadata records are on disk).
     */
    @Test
    void anAdminListsDescribesAndDeletesGroupsThatOnlyHaveOffsetsLeft() throws Exception {
        Member m = new Member("m", "left");
        waitUntil(() -> m.assignment.size() == PARTITIONS, 30, "one consumer owns the 6 partitions");
        produce(0, 600);
        waitUntil(() -> reads.size() == 600, 30, "it reads the 600 records");
        m.stop();
        commitWithoutJoining("simple", 0, 5);
        restartBroker();
        try (Admin admin = admin()) {
            Map<String, GroupListing> listed = new java.util.TreeMap<>();
            admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get().forEach(g -> listed.put(g.groupId(), g));
            assertThat(listed).as("kafka-consumer-groups --list after a restart: both groups, by their offsets")
                    .containsOnlyKeys("left", "simple");
            assertThat(listed.get("left").groupState()).as("--list --state: Empty, not Dead").contains(
                    org.apache.kafka.common.GroupState.EMPTY);
            assertThat(admin.listGroups(ListGroupsOptions.forConsumerGroups().inGroupStates(Set.of(
                    org.apache.kafka.common.GroupState.STABLE))).all().get()).as("the states filter (ListGroups v4)")
                    .isEmpty();
            Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(List.of("left", "simple"))
                    .all().get();
            assertThat(described.get("simple").groupState()).as("--describe of a group that only committed: Empty"
                    + " (it was 'does not exist')").isEqualTo(org.apache.kafka.common.GroupState.EMPTY);
            assertThat(described.get("simple").isSimpleConsumerGroup()).isTrue();
            assertThat(described.get("left").groupState()).isEqualTo(org.apache.kafka.common.GroupState.EMPTY);

            TopicPartition zero = new TopicPartition(TOPIC, 0);
            admin.deleteConsumerGroupOffsets("left", Set.of(zero)).all().get();
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("left")
                    .partitionsToOffsetAndMetadata().get();
            assertThat(offsets).as("--delete-offsets of orders-0: gone, the other five stay").doesNotContainKey(zero)
                    .hasSize(PARTITIONS - 1);
            admin.deleteConsumerGroups(List.of("left", "simple")).all().get();
            assertThat(admin.describeConsumerGroups(List.of("left")).all().get().get("left").groupState())
                    .as("--delete: the group is gone").isEqualTo(org.apache.kafka.common.GroupState.DEAD);
            assertThat(admin.listConsumerGroupOffsets("simple").partitionsToOffsetAndMetadata().get())
                    .as("with its offsets").isEmpty();
        }
    }

    @Test
    void anAdminRemovesAStaticMemberByItsInstanceIdButCannotDeleteAGroupWithMembers() throws Exception {
        Member m = new Member("m", "busy", "m-1");
        waitUntil(() -> m.assignment.size() == PARTITIONS, 30, "the static member owns the 6 partitions");
        try (Admin admin = admin()) {
            Throwable refused = catchThrowable(() -> admin.deleteConsumerGroups(List.of("busy")).all().get());
            assertThat(refused).as("--delete of a group with a member: NON_EMPTY_GROUP")
                    .hasCauseInstanceOf(GroupNotEmptyException.class);
            List<MemberDescription> before = admin.describeConsumerGroups(List.of("busy")).all().get().get("busy")
                    .members().stream().toList();
            assertThat(before).singleElement().satisfies(d -> assertThat(d.groupInstanceId()).contains("m-1"));
            admin.removeMembersFromConsumerGroup("busy", new RemoveMembersFromConsumerGroupOptions(List.of(
                    new MemberToRemove("m-1")))).all().get();
            assertThat(admin.describeConsumerGroups(List.of("busy")).all().get().get("busy").members())
                    .as("LeaveGroup v3 by instance id alone (removeMembersFromConsumerGroup): that member id is out"
                            + " (the consumer may have joined again since, under a new one)")
                    .extracting(MemberDescription::consumerId).doesNotContain(before.get(0).consumerId());
        }
    }

    private void restartBroker() throws Exception {
        listener.close();
        broker.close();
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs()), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
    }

    /**
     * kaen-log has no transactions. FindCoordinator for a transactional id is answered INVALID_REQUEST
     * with a message: kafka-clients' TransactionManager retries a retriable error (COORDINATOR_NOT_AVAILABLE)
     * forever, but makes any other unexpected one fatal and quotes the message.
     */
    @Test
    void aTransactionalProducerIsToldThatThereAreNoTransactions() {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            Throwable refused = catchThrowable(producer::initTransactions);
            assertThat(refused).as("initTransactions() fails at once, naming transactions").isInstanceOf(KafkaException.class)
                    .hasMessage("Could not find a coordinator with type TRANSACTION with key tx-1 due to unexpected"
                            + " error: " + GroupApis.NO_TRANSACTIONS);
        }
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }

    private List<String> kcat(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", bootstrap()));
        command.addAll(List.of(args));
        Process kcat = new ProcessBuilder(command).start();
        byte[] out = kcat.getInputStream().readAllBytes();
        assertThat(kcat.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        String err = new String(kcat.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(kcat.exitValue()).as("%s exit status; stderr:%n%s%nbroker log:%n%s", command, err, brokerLog)
                .isZero();
        String text = new String(out, StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    /** kcat's balanced consumer (librdkafka 2.0.2): reads a topic as group member, commits at exit, resumes. */
    @Test
    void kcatWithAGroupReadsStopsAndResumesAtItsCommits() throws Exception {
        if (!onPath("kcat")) {
            System.out.println("kcat is not installed (apt-get install -y kcat): kcat -G skipped");
            Assumptions.abort("kcat is not installed");
        }
        produce(0, 600);
        List<String> first = kcat("-G", "kcat-g", "-X", "auto.offset.reset=earliest", "-e", "-q", TOPIC);
        assertThat(new TreeSet<>(first)).as("kcat -G kcat-g reads all 600 records of the 6 partitions")
                .hasSize(600);
        produce(600, 700);
        List<String> second = kcat("-G", "kcat-g", "-X", "auto.offset.reset=earliest", "-e", "-q", TOPIC);
        assertThat(second).as("kcat -G kcat-g again: only the 100 records produced since, from its commits")
                .hasSize(100).allMatch(v -> Integer.parseInt(v.substring(2)) >= 600);
        assertThat(Collections.frequency(second, "v-650")).isEqualTo(1);
    }
}
