package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams 4.1.1 as its users run it, {@code processing.guarantee=at_least_once}, against this
 * broker with nothing created by hand (given code around your tasks; runs after them): its input topics
 * are made by the producer's Metadata auto-create, its internal topics by Streams itself through
 * CreateTopics with their configs (a changelog with {@code cleanup.policy=compact}, a repartition topic
 * with {@code cleanup.policy=delete}, {@code retention.ms=-1}, {@code segment.bytes=52428800}), its
 * repartition topics purged through DeleteRecords once their records are processed, its changelogs
 * compacted by chapter 6's cleaner. The word count and a join of two topics, each checked against the
 * counts and values computed here.
 */
@Order(16)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaStreamsTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private KafkaPortFixture kafka;
    private KafkaStreams streams;
    private static final int SEGMENT_BYTES = 4096;
    private static final int BATCH_BYTES = 1024;

    private void start() throws Exception {
        // Streams' consumers join a group: the coordinator calls task 7 (GroupStateTest) for every change
        // of state, so a TODO fails here, not as a timeout.
        GroupTransitions.next(GroupState.EMPTY, GroupState.Event.MEMBER_JOINS);
        // Two partitions for every topic Metadata creates; small segments (and batches below their size)
        // and a quick cleaner, so that a changelog rolls and is compacted within the test; groups
        // rebalance at once.
        PartitionConfigs configs = PartitionConfigs.load()
                .with(KafkaConfigKeys.NUM_PARTITIONS + "=2")
                .with(LogConfigKeys.SEGMENT_BYTES + "=" + SEGMENT_BYTES)
                .with("log.cleaner.backoff.ms=100")
                .with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=0");
        kafka = KafkaPortFixture.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs), brokerLog);
    }

    @AfterEach
    void stop() {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private Properties streamsConfig(String applicationId) {
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafka.port());
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("streams-state").toString());
        config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        config.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 200);
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        config.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), BATCH_BYTES);
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0); // every update to the changelog
        return config;
    }

    private Admin admin() {
        return kafka.admin();
    }

    private void produce(String topic, List<String[]> keyValues) {
        Properties config = KafkaPortFixture.producerConfig(kafka.port());
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (String[] kv : keyValues) {
                producer.send(new ProducerRecord<>(topic, kv[0], kv[1]));
            }
            producer.flush();
        }
    }

    /** Reads {@code topic} until the latest value of every key equals {@code expected}, or the deadline. */
    private <V> Map<String, V> latestValues(String topic, Class<?> valueDeserializer, Map<String, V> expected) {
        Properties config = KafkaPortFixture.consumerConfig(kafka.port());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, valueDeserializer.getName());
        Map<String, V> latest = new TreeMap<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                // assigned, no group: every partition of the topic once Streams' producer has made it
                List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
            }
            while (!latest.equals(expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, V> r : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(r.key(), r.value());
                }
            }
        }
        return latest;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 60 s for %s", what).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private Config topicConfig(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }

    private long earliest(Admin admin, TopicPartition partition) throws Exception {
        return admin.listOffsets(Map.of(partition, OffsetSpec.earliest())).partitionResult(partition)
                .get(30, TimeUnit.SECONDS).offset();
    }

    /** Records on a partition from its log start to its high watermark, as a consumer assigned to it reads them. */
    private int recordsOn(TopicPartition partition) {
        Properties config = KafkaPortFixture.consumerConfig(kafka.port());
        int count = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            consumer.seekToBeginning(List.of(partition));
            while (consumer.position(partition) < end) {
                count += consumer.poll(Duration.ofMillis(200)).count();
            }
        }
        return count;
    }

    /** The word count's input: 400 lines, each of 1 to 5 words out of 13, deterministic. */
    private static List<String[]> lines() {
        String[] vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu".split(" ");
        List<String[]> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            StringBuilder line = new StringBuilder();
            for (int j = 0; j <= i % 5; j++) {
                line.append(j == 0 ? "" : " ").append(vocabulary[(i * 7 + j * 3) % vocabulary.length].toUpperCase(Locale.ROOT));
            }
            lines.add(new String[] {"line-" + i, line.toString()});
        }
        return lines;
    }

    @Test
    void theWordCountCountsEveryWordOnceWithTopicsStreamsMadeItself() throws Exception {
        start();
        List<String[]> lines = lines();
        Map<String, Long> expected = new TreeMap<>();
        lines.forEach(l -> Arrays.stream(l[1].toLowerCase(Locale.ROOT).split(" ")).forEach(w -> expected.merge(w, 1L, Long::sum)));
        produce("text-lines", lines);

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream("text-lines")
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to("word-counts", Produced.with(Serdes.String(), Serdes.Long()));
        streams = new KafkaStreams(builder.build(), streamsConfig("wordcount"));
        streams.start();

        Map<String, Long> counted = latestValues("word-counts", LongDeserializer.class, expected);
        assertThat(counted).as("the word count's final count of every word, read from word-counts (at_least_once,"
                + " no failure: each line counted once); broker log:%n%s", brokerLog).isEqualTo(expected);

        try (Admin admin = admin()) {
            Config changelog = topicConfig(admin, "wordcount-counts-changelog");
            assertThat(changelog.get("cleanup.policy")).as("Streams created its changelog compacted (CreateTopics'"
                    + " configs kept as the topic's own)").extracting(ConfigEntry::value, ConfigEntry::source)
                    .containsExactly("compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            Config repartition = topicConfig(admin, "wordcount-counts-repartition");
            assertThat(List.of(repartition.get("cleanup.policy").value(), repartition.get("retention.ms").value(),
                    repartition.get("segment.bytes").value()))
                    .as("the repartition topic's configs, as Streams' RepartitionTopicConfig gives them")
                    .containsExactly("delete", "-1", "52428800");
            await("Streams to purge its repartition topic through DeleteRecords (log start offset > 0)", () -> {
                try {
                    return earliest(admin, new TopicPartition("wordcount-counts-repartition", 0)) > 0
                            && earliest(admin, new TopicPartition("wordcount-counts-repartition", 1)) > 0;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
        int updates = 0;
        for (long count : expected.values()) {
            updates += (int) count;
        }
        int finalUpdates = updates;
        await("chapter 6's cleaner to compact the changelog (broker log: 'cleaner wordcount-counts-changelog-')",
                () -> brokerLog.toString().contains("cleaner wordcount-counts-changelog-"));
        int kept = recordsOn(new TopicPartition("wordcount-counts-changelog", 0))
                + recordsOn(new TopicPartition("wordcount-counts-changelog", 1));
        assertThat(kept).as("the compacted changelog keeps fewer records than the %d updates the count wrote"
                + " (latest per key survives, older ones are cleaned)", finalUpdates).isLessThan(finalUpdates);
    }

    @Test
    void aJoinOfTwoTopicsGivesTheLatestValuesOfBothForEveryKeyInBoth() throws Exception {
        start();
        List<String[]> names = new ArrayList<>();
        List<String[]> cities = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            names.add(new String[] {"customer-" + i, "name-" + i});
        }
        for (int i = 50; i < 300; i++) {
            cities.add(new String[] {"customer-" + i, "city-" + (i % 17)});
        }
        for (int i = 0; i < 200; i += 3) {
            names.add(new String[] {"customer-" + i, "renamed-" + i}); // a later value of the same key wins
        }
        Map<String, String> expected = new TreeMap<>();
        Map<String, String> lastName = new TreeMap<>();
        names.forEach(n -> lastName.put(n[0], n[1]));
        cities.forEach(c -> {
            if (lastName.containsKey(c[0])) {
                expected.put(c[0], lastName.get(c[0]) + "@" + c[1]);
            }
        });
        produce("customers", names);
        produce("cities", cities);

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>table("customers")
                .join(builder.<String, String>table("cities"), (name, city) -> name + "@" + city)
                .toStream()
                .to("customer-cities");
        streams = new KafkaStreams(builder.build(), streamsConfig("join"));
        streams.start();

        Map<String, String> joined = latestValues("customer-cities", StringDeserializer.class, expected);
        assertThat(joined).as("the join's final value of each of the %d keys in both topics; broker log:%n%s",
                expected.size(), brokerLog).isEqualTo(expected);
        assertThat(expected).as("keys 50..199 are in both topics").hasSize(150);
        try (Admin admin = admin()) {
            List<String> changelogs = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith("join-") && t.endsWith("-changelog")).sorted().toList();
            assertThat(changelogs).as("both tables' stores have a changelog Streams created").hasSize(2);
            for (String changelog : changelogs) {
                assertThat(topicConfig(admin, changelog).get("cleanup.policy").value()).as(changelog)
                        .isEqualTo("compact");
            }
        }
    }
}
