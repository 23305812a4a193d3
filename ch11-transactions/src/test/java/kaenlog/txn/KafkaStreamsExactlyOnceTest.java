package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import kaenlog.kafkawire.GroupConfigKeys;
import kaenlog.kafkawire.KafkaConfigKeys;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.log.FetchIsolation;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams 4.1.1 as its users run it, {@code processing.guarantee=exactly_once_v2}, against this
 * chapter's coordinator on the Kafka port, with nothing created by hand: the input topic made by the
 * producer's Metadata auto-create, the repartition topic and the count's changelog by Streams itself.
 * Each stream thread's producer is transactional ({@code transactional.id} from the application id,
 * the process id and the thread), its consumer reads with {@code read_committed} and commits its input
 * through the transaction ({@code sendOffsetsToTransaction} with the group's generation, KIP-447).
 * The word count's output, read with {@code read_committed}, is exact: each word's last count is its
 * number of occurrences, and the counts of a word come one by one, 1, 2, 3, ..., none repeated and none
 * skipped (the store's cache is off, so every update is sent). The SIGKILL of the application half way
 * is reliability's row {@code streams-eos}.
 */
@Order(27)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaStreamsExactlyOnceTest {
    static final String INPUT = "text-lines";
    static final String OUTPUT = "word-counts";
    static final String APPLICATION = "wordcount-eos";

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private KafkaStreams streams;

    @BeforeEach
    void start() throws Exception {
        TransactionalProducerTest.preflight(dir);
        // Two partitions for every topic Metadata or CreateTopics makes without a count; groups rebalance at once.
        PartitionConfigs configs = PartitionConfigs.load()
                .with(KafkaConfigKeys.NUM_PARTITIONS + "=2")
                .with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=0");
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
    }

    @AfterEach
    void stop() {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
        }
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private String brokerLog() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    /** The word count's input: {@code count} lines, line i of 1 to 5 words out of 13, deterministic. */
    static List<String> lines(int count) {
        String[] vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu".split(" ");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder line = new StringBuilder();
            for (int j = 0; j <= i % 5; j++) {
                line.append(j == 0 ? "" : " ").append(vocabulary[(i * 7 + j * 3) % vocabulary.length]);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** How often each word occurs in {@code lines}. */
    static Map<String, Long> counts(List<String> lines) {
        Map<String, Long> expected = new TreeMap<>();
        lines.forEach(l -> Arrays.stream(l.split(" ")).forEach(w -> expected.merge(w, 1L, Long::sum)));
        return expected;
    }

    private void produce(List<String> lines) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(INPUT, "line-" + i, lines.get(i)));
            }
            producer.flush();
        }
    }

    private Properties streamsConfig() {
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("streams-state").toString());
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0); // every update of a count is sent
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return config;
    }

    /** The word count: lines split into words, repartitioned by word, counted in a store with a changelog. */
    static StreamsBuilder wordCount() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder;
    }

    /**
     * Every count of every word in the order {@value #OUTPUT} holds them, read with {@code isolation}
     * until each word's last count is {@code expected}'s (or two minutes passed).
     */
    private Map<String, List<Long>> readCounts(String isolation, Map<String, Long> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        Map<String, List<Long>> counts = new TreeMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new LongDeserializer())) {
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                // the output topic is made by Streams' producer's Metadata: assign once it has its partitions
                List<TopicPartition> partitions = consumer.partitionsFor(OUTPUT).stream()
                        .map(p -> new TopicPartition(OUTPUT, p.partition())).toList();
                consumer.assign(partitions);
            }
            while (!lastCounts(counts).equals(expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        return counts;
    }

    static Map<String, Long> lastCounts(Map<String, List<Long>> counts) {
        Map<String, Long> last = new TreeMap<>();
        counts.forEach((word, sequence) -> last.put(word, sequence.get(sequence.size() - 1)));
        return last;
    }

    /** For each word, 1, 2, ..., its count: what an exactly-once count sends when every update is sent. */
    static Map<String, List<Long>> oneByOne(Map<String, Long> expected) {
        Map<String, List<Long>> sequences = new TreeMap<>();
        expected.forEach((word, count) -> {
            List<Long> sequence = new ArrayList<>();
            for (long c = 1; c <= count; c++) {
                sequence.add(c);
            }
            sequences.put(word, sequence);
        });
        return sequences;
    }

    /** The group's committed offset of each input partition, as a consumer of the application's group reads it. */
    private Map<TopicPartition, Long> committedInput() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, APPLICATION);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> input = List.of(new TopicPartition(INPUT, 0), new TopicPartition(INPUT, 1));
            Map<TopicPartition, Long> committed = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
            Map<TopicPartition, OffsetAndMetadata> read = consumer.committed(java.util.Set.copyOf(input),
                    Duration.ofSeconds(30));
            Map<TopicPartition, Long> ends = consumer.endOffsets(input);
            for (TopicPartition p : input) {
                committed.put(p, read.get(p) == null ? -1 : read.get(p).offset() - ends.get(p));
            }
            return committed;
        }
    }

    @Test
    void theWordCountWithExactlyOnceV2CountsEveryWordOnceReadCommitted() throws Exception {
        List<String> lines = lines(400);
        Map<String, Long> expected = counts(lines);
        produce(lines);

        streams = new KafkaStreams(wordCount().build(), streamsConfig());
        streams.start();

        Map<String, List<Long>> counts = readCounts("read_committed", expected);
        assertThat(lastCounts(counts)).as("each word's last count in %s, read with read_committed: Streams'"
                + " transactions (its output, its changelog and its input offsets committed together) ran on this"
                + " broker's coordinator; broker log:%n%s", OUTPUT, brokerLog()).isEqualTo(expected);
        assertThat(counts).as("each word's counts one by one, 1, 2, 3, ...: none sent twice, none skipped (the"
                + " store's cache is off, every update is sent)").isEqualTo(oneByOne(expected));
        assertThat(committedInput()).as("the application's group committed every input partition's end (its offsets"
                + " went through its transactions, TxnOffsetCommit); committed minus end offset per partition")
                .allSatisfy((partition, behindEnd) -> assertThat(behindEnd).as("%s", partition).isZero());
        for (int p = 0; p < 2; p++) {
            List<RecordBatch> batches = RecordBatch.decodeAll(broker.partition(OUTPUT + "-" + p).locked(log -> log.read(
                    log.logStartOffset(), Integer.MAX_VALUE, FetchIsolation.LOG_END)));
            assertThat(batches).as("%s-%d holds Streams' output as transactional batches, each transaction ended by a"
                    + " COMMIT marker (a control batch), none by an ABORT", OUTPUT, p)
                    .isNotEmpty()
                    .allMatch(b -> b.header().isTransactional())
                    .anyMatch(b -> b.header().isControl())
                    .noneMatch(b -> b.header().isControl()
                            && EndTransactionMarker.read(b.records().get(0)).type() == ControlRecordType.ABORT);
        }
    }
}
