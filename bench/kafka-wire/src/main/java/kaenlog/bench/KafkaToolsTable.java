package kaenlog.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The rows of #39's table that a Java client runs (kafka-clients, its AdminClient and Kafka Streams
 * 4.1.1), one subcommand each, for {@code bench/kafka-tools/run}: each prints its key output on one
 * line and exits 0 when the row works as it does on Kafka, or prints what failed and exits 1.
 *
 * <pre>
 *   two-consumers BOOTSTRAP RF    two KafkaConsumers of one group: disjoint assignments, every partition, every record once
 *   static BOOTSTRAP RF           a static member (group.instance.id) restarted: no rebalance, its assignment back
 *   streams BOOTSTRAP STATE_DIR   the word count, at_least_once, its input produced to a topic nobody created
 *   admin BOOTSTRAP RF            describeConfigs, incrementalAlterConfigs, createPartitions, deleteRecords,
 *                                 describeLogDirs, deleteConsumerGroups
 *   transactions BOOTSTRAP RF     a transactional producer commits; a read_committed consumer reads it
 * </pre>
 *
 * Every topic and group it makes carries the time of the run in its name, so that a row run twice on
 * the same brokers starts from nothing.
 */
public final class KafkaToolsTable {
    private static final long WAIT_MS = 90_000;
    private static final String RUN = Long.toString(System.currentTimeMillis() % 1_000_000);

    private KafkaToolsTable() {
    }

    /** A row that does not hold: its message is the row's "FAILS: ..." line. */
    static final class RowFails extends Exception {
        RowFails(String what) {
            super(what);
        }
    }

    public static void main(String[] args) {
        try {
            String bootstrap = args[1];
            String line = switch (args[0]) {
                case "two-consumers" -> twoConsumers(bootstrap, Short.parseShort(args[2]));
                case "static" -> staticRestart(bootstrap, Short.parseShort(args[2]));
                case "streams" -> streams(bootstrap, Path.of(args[2]));
                case "admin" -> admin(bootstrap, Short.parseShort(args[2]));
                case "transactions" -> transactions(bootstrap, Short.parseShort(args[2]));
                default -> throw new IllegalArgumentException("unknown row " + args[0]);
            };
            System.out.println(line);
            System.exit(0);
        } catch (RowFails e) {
            System.out.println(e.getMessage());
        } catch (ExecutionException e) {
            System.out.println(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        } catch (Exception e) {
            System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        System.exit(1);
    }

    // -- two consumers of one group -------------------------------------------------------------

    /** One consumer of a group on a thread of its own: what it owns, what it read. */
    static final class Reader implements AutoCloseable {
        final Map<String, Integer> reads = new ConcurrentHashMap<>();
        final AtomicInteger count = new AtomicInteger();
        final Thread thread;
        volatile Set<Integer> assignment = Set.of();
        volatile boolean stop;
        volatile Throwable failure;

        Reader(String bootstrap, String group, String topic) {
            Properties config = consumerConfig(bootstrap);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            thread = new Thread(() -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                    consumer.subscribe(List.of(topic));
                    while (!stop) {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                            reads.merge(r.value(), 1, Integer::sum);
                            count.incrementAndGet();
                        }
                        assignment = Set.copyOf(StaticRestartBench.numbers(consumer.assignment()));
                    }
                } catch (Throwable t) {
                    failure = t;
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(30_000);
        }
    }

    static String twoConsumers(String bootstrap, short rf) throws Exception {
        String topic = "two-consumers-" + RUN;
        int partitions = 6;
        int records = 600;
        createTopic(bootstrap, topic, partitions, rf);
        String group = "two-" + RUN;
        try (Reader one = new Reader(bootstrap, group, topic); Reader two = new Reader(bootstrap, group, topic)) {
            await(() -> one.assignment.size() + two.assignment.size() == partitions && !one.assignment.isEmpty()
                    && !two.assignment.isEmpty(), "both consumers own partitions, " + partitions + " in all",
                    one, two);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>(topic, i % partitions, null, "r-" + i));
                }
                producer.flush();
            }
            await(() -> one.count.get() + two.count.get() >= records, "the two consumers read " + records
                    + " records", one, two);
            Thread.sleep(2_000); // a record read twice would come now
            Set<Integer> a = new TreeSet<>(one.assignment);
            Set<Integer> b = new TreeSet<>(two.assignment);
            Set<Integer> both = new TreeSet<>(a);
            both.retainAll(b);
            Set<Integer> all = new TreeSet<>(a);
            all.addAll(b);
            Map<String, Integer> reads = new HashMap<>(one.reads);
            two.reads.forEach((v, n) -> reads.merge(v, n, Integer::sum));
            long twice = reads.values().stream().filter(n -> n > 1).count();
            String seen = "consumer 1 owns " + a + ", consumer 2 owns " + b + "; read " + (one.count.get()
                    + two.count.get()) + " of " + records + " records, " + reads.size() + " distinct, " + twice
                    + " read more than once";
            check(both.isEmpty() && all.size() == partitions, "assignments not disjoint or not covering: " + seen);
            check(reads.size() == records && twice == 0 && one.count.get() + two.count.get() == records,
                    "not every record read once: " + seen);
            return seen;
        }
    }

    // -- a static member restarted ---------------------------------------------------------------

    static String staticRestart(String bootstrap, short rf) throws Exception {
        createTopic(bootstrap, StaticRestartBench.TOPIC, StaticRestartBench.PARTITIONS, rf);
        String group = "static-" + RUN;
        int sessionMs = 10_000;
        StaticRestartBench.Seen a = new StaticRestartBench.Seen();
        StaticRestartBench.Seen b = new StaticRestartBench.Seen();
        try (StaticRestartBench.Member memberA = new StaticRestartBench.Member(bootstrap, group, "a", sessionMs, a)) {
            StaticRestartBench.Member memberB = new StaticRestartBench.Member(bootstrap, group, "b", sessionMs, b);
            await(() -> a.assignment.size() == 3 && b.assignment.size() == 3, "a and b own 3 partitions each");
            Thread.sleep(2_000);
            int generation = a.generation;
            int revocations = a.revocations.get();
            Set<Integer> bOwned = b.assignment;
            memberB.close(); // a static member sends no LeaveGroup: its place is kept for it
            long restartedAt = System.currentTimeMillis();
            StaticRestartBench.Seen b2 = new StaticRestartBench.Seen();
            try (StaticRestartBench.Member restarted = new StaticRestartBench.Member(bootstrap, group, "b", sessionMs,
                    b2)) {
                await(() -> !b2.assignment.isEmpty(), "the restarted b owns partitions");
                long backMs = System.currentTimeMillis() - restartedAt;
                Thread.sleep(sessionMs + 2_000); // a rebalance at the old member's session timeout would come now
                check(memberA.failure == null && restarted.failure == null, "a consumer failed: " + memberA.failure
                        + " / " + restarted.failure);
                String seen = "a's generation " + generation + " -> " + a.generation + ", a's partitions revoked "
                        + (a.revocations.get() - revocations) + " time(s); b owned " + new TreeSet<>(bOwned)
                        + ", the restarted b owns " + new TreeSet<>(b2.assignment) + " after " + backMs + " ms";
                check(a.generation == generation && a.revocations.get() == revocations, "a rebalance: " + seen);
                check(b2.assignment.equals(bOwned), "not the same assignment: " + seen);
                return "no rebalance: " + seen;
            }
        }
    }

    // -- Kafka Streams ---------------------------------------------------------------------------

    static String streams(String bootstrap, Path stateDir) throws Exception {
        String input = "streams-lines-" + RUN;
        String output = "streams-counts-" + RUN;
        String app = "wordcount-" + RUN;
        List<String> lines = List.of("the quick brown fox", "jumps over the lazy dog", "the dog barks",
                "a fox is quick", "the end");
        Map<String, Long> expected = new TreeMap<>();
        lines.forEach(l -> Arrays.stream(l.split(" ")).forEach(w -> expected.merge(w, 1L, Long::sum)));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
            for (String line : lines) {
                producer.send(new ProducerRecord<>(input, line)).get(60, TimeUnit.SECONDS); // Metadata creates it
            }
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
        config.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 500); // Kafka's default: 30 s
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        Map<String, Long> counted = new TreeMap<>();
        String changelog = app + "-counts-changelog";
        String repartition = app + "-counts-repartition";
        long purged;
        try (KafkaStreams streams = new KafkaStreams(builder.build(), config)) {
            streams.start();
            Properties consumer = consumerConfig(bootstrap);
            consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "wordcount-reader-" + RUN);
            consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
            try (KafkaConsumer<String, Long> reader = new KafkaConsumer<>(consumer)) {
                reader.subscribe(List.of(output));
                long deadline = System.currentTimeMillis() + WAIT_MS;
                while (!counted.equals(expected) && System.currentTimeMillis() < deadline
                        && streams.state() != KafkaStreams.State.ERROR) {
                    reader.poll(Duration.ofMillis(200)).forEach(r -> counted.put(r.key(), r.value()));
                }
            }
            check(counted.equals(expected), "counts " + counted + ", expected " + expected + " (Streams "
                    + streams.state() + ")");
            purged = purgedTo(bootstrap, new TopicPartition(repartition, 0));
        }
        try (Admin admin = admin(bootstrap)) {
            Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            check(topics.containsAll(List.of(input, output, changelog, repartition)), "topics " + topics);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
            ConfigEntry policy = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource).get("cleanup.policy");
            check("compact".equals(policy.value()), "the changelog's cleanup.policy is " + policy.value());
            return expected.size() + " words counted exactly (" + counted.entrySet().stream().limit(3).toList()
                    + " ...); created by Metadata and Streams: " + input + ", " + output + ", " + changelog
                    + " (cleanup.policy=" + policy.value() + ", " + policy.source() + "), " + repartition
                    + " (purged by Streams through DeleteRecords: log start " + purged + ")";
        }
    }

    /** The log start offset of {@code partition} once Streams' DeleteRecords moved it above 0. */
    private static long purgedTo(String bootstrap, TopicPartition partition) throws Exception {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
            long deadline = System.currentTimeMillis() + 30_000;
            while (true) {
                long start = consumer.beginningOffsets(List.of(partition)).get(partition);
                if (start > 0 || System.currentTimeMillis() > deadline) {
                    check(start > 0, "the repartition topic was not purged: " + partition + " starts at " + start);
                    return start;
                }
                Thread.sleep(200);
            }
        }
    }

    // -- the admin API ---------------------------------------------------------------------------

    static String admin(String bootstrap, short rf) throws Exception {
        String topic = "admin-" + RUN;
        String group = "admin-group-" + RUN;
        List<String> seen = new ArrayList<>();
        createTopic(bootstrap, topic, 2, rf);
        try (Admin admin = admin(bootstrap)) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            Node first = nodes.iterator().next();
            ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            ConfigResource brokerResource = new ConfigResource(ConfigResource.Type.BROKER, first.idString());
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topicResource, brokerResource)).all()
                    .get(30, TimeUnit.SECONDS);
            ConfigEntry retention = configs.get(topicResource).get("retention.ms");
            check(retention != null, "describeConfigs: no retention.ms for " + topic);
            seen.add("describeConfigs: " + topic + " retention.ms=" + retention.value() + " (" + retention.source()
                    + "), broker " + first.id() + " " + configs.get(brokerResource).entries().size() + " configs");

            admin.incrementalAlterConfigs(Map.of(topicResource, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all()
                    .get(30, TimeUnit.SECONDS);
            ConfigEntry altered = awaitConfig(admin, topicResource, "retention.ms", "3600000");
            seen.add("incrementalAlterConfigs: retention.ms=" + altered.value() + " (" + altered.source() + ")");

            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
            int count = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().size();
            check(count == 4, "createPartitions: " + count + " partitions, not 4");
            seen.add("createPartitions: 4 partitions");

            TopicPartition p0 = new TopicPartition(topic, 0);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, "r-" + i));
                }
                producer.flush();
            }
            DeletedRecords deleted = admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(5)))
                    .lowWatermarks().get(p0).get(30, TimeUnit.SECONDS);
            long start;
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
                start = consumer.beginningOffsets(List.of(p0)).get(p0);
            }
            check(deleted.lowWatermark() == 5 && start == 5, "deleteRecords: low watermark " + deleted.lowWatermark()
                    + ", beginning offset " + start);
            seen.add("deleteRecords: low watermark 5, beginning offset 5");

            List<Integer> ids = nodes.stream().map(Node::id).toList();
            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(ids).allDescriptions()
                    .get(30, TimeUnit.SECONDS);
            long replicas = 0;
            long bytes = 0;
            for (Map<String, LogDirDescription> byDir : dirs.values()) {
                for (LogDirDescription dir : byDir.values()) {
                    for (Map.Entry<TopicPartition, ReplicaInfo> r : dir.replicaInfos().entrySet()) {
                        if (r.getKey().topic().equals(topic)) {
                            replicas++;
                            bytes += r.getValue().size();
                        }
                    }
                }
            }
            check(replicas == 4L * rf && bytes > 0, "describeLogDirs: " + replicas + " replicas of " + topic + ", "
                    + bytes + " bytes");
            seen.add("describeLogDirs: " + replicas + " replicas of " + topic + " on " + ids.size() + " broker(s), "
                    + bytes + " bytes");

            Properties config = consumerConfig(bootstrap);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.commitSync(Map.of(p0, new OffsetAndMetadata(7)));
            }
            admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
            Collection<ConsumerGroupListing> groups = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS);
            check(groups.stream().noneMatch(g -> g.groupId().equals(group)), "deleteConsumerGroups: " + group
                    + " still listed");
            seen.add("deleteConsumerGroups: " + group + " gone");
        }
        return String.join("; ", seen);
    }

    private static ConfigEntry awaitConfig(Admin admin, ConfigResource resource, String key, String value)
            throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (true) {
            ConfigEntry entry = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
                    .get(key);
            if (value.equals(entry.value()) || System.currentTimeMillis() > deadline) {
                check(value.equals(entry.value()), key + " is " + entry.value() + ", not " + value);
                return entry;
            }
            Thread.sleep(100);
        }
    }

    // -- transactions ----------------------------------------------------------------------------

    static String transactions(String bootstrap, short rf) throws Exception {
        String topic = "txn-" + RUN;
        createTopic(bootstrap, topic, 1, rf);
        Properties config = producerConfig(bootstrap);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tools-txn-" + RUN);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, "t-" + i));
            }
            producer.commitTransaction();
        }
        Properties consumerConfig = consumerConfig(bootstrap);
        consumerConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
            TopicPartition p = new TopicPartition(topic, 0);
            consumer.assign(List.of(p));
            consumer.seekToBeginning(List.of(p));
            long deadline = System.currentTimeMillis() + 30_000;
            while (read.size() < 5 && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
            }
        }
        check(read.equals(List.of("t-0", "t-1", "t-2", "t-3", "t-4")), "read_committed read " + read);
        return "committed 5 records in one transaction; read_committed reads " + read;
    }

    // -- shared ----------------------------------------------------------------------------------

    static void createTopic(String bootstrap, String topic, int partitions, short rf) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, rf))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw e;
            }
        }
    }

    static Admin admin(String bootstrap) {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(config);
    }

    static Properties producerConfig(String bootstrap) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }

    static Properties consumerConfig(String bootstrap) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }

    interface Condition {
        boolean holds();
    }

    private static void await(Condition condition, String what, Reader... readers) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (!condition.holds()) {
            for (Reader r : readers) {
                check(r.failure == null, "a consumer failed: " + r.failure);
            }
            check(System.currentTimeMillis() < deadline, "not within " + WAIT_MS + " ms: " + what);
            Thread.sleep(20);
        }
    }

    private static void check(boolean holds, String what) throws RowFails {
        if (!holds) {
            throw new RowFails(what);
        }
    }
}
