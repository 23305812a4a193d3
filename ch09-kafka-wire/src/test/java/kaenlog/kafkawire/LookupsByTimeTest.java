package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.broker.BrokerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a task: lookups by time from real clients (ListOffsets by timestamp, given code over chapter
 * 3's time index). KafkaConsumer.offsetsForTimes, Admin.listOffsets with OffsetSpec.maxTimestamp()
 * (ListOffsets v7, KIP-734) and kcat's {@code -o s@TS} and {@code -Q} land on the earliest offset
 * whose timestamp is at or after the target, as a scan of what was produced says.
 */
@Order(20)
@Timeout(180)
class LookupsByTimeTest {
    private static final String TOPIC = "clicks";
    private static final TopicPartition CLICKS = new TopicPartition(TOPIC, 0);
    private static final long T0 = 1_700_000_000_000L;
    private static final int RECORDS = 3_000;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private KafkaPortFixture kafka;
    private final List<Long> timestamps = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        kafka = KafkaPortFixture.start(BrokerConfig.of(dir.resolve("data")), brokerLog);
        produce();
    }

    @AfterEach
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Records 10 ms apart, every seventh 500 ms in the past (another producer's clock), one far ahead. */
    private void produce() throws Exception {
        Properties config = KafkaPortFixture.producerConfig(kafka.port());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 2_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                long ts = i == RECORDS / 2 ? T0 + 100L * RECORDS : i % 7 == 3 ? T0 + 10L * i - 500 : T0 + 10L * i;
                timestamps.add(ts);
                sent.add(producer.send(new ProducerRecord<>(TOPIC, 0, ts, "k" + i, "click-" + i)));
            }
            producer.flush();
            for (int i = 0; i < RECORDS; i++) {
                assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset()).as("record %d's offset", i).isEqualTo(i);
            }
        }
    }

    /** The answer a scan of the produced records gives: the first offset whose timestamp is >= target; -1 for none. */
    private long scan(long target) {
        for (int i = 0; i < timestamps.size(); i++) {
            if (timestamps.get(i) >= target) {
                return i;
            }
        }
        return -1;
    }

    private static final long[] TARGETS = {T0 - 1, T0, T0 + 1, T0 + 10 * 33 - 499, T0 + 10 * 700 + 5, T0 + 10 * 2_999,
        T0 + 10 * 3_000, T0 + 100L * RECORDS, T0 + 100L * RECORDS + 1};

    @Test
    void kafkaConsumerOffsetsForTimesLandsOnTheEarliestOffsetAtOrAfterEachTimestamp() {
        Properties config = KafkaPortFixture.consumerConfig(kafka.port());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            for (long target : TARGETS) {
                Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(CLICKS, target),
                        Duration.ofSeconds(20));
                long expected = scan(target);
                OffsetAndTimestamp answer = found.get(CLICKS);
                if (expected < 0) {
                    assertThat(answer).as("offsetsForTimes(%d): newer than every record, no offset (the broker"
                            + " answers -1, which the consumer gives as null); broker log:%n%s", target, brokerLog)
                            .isNull();
                    continue;
                }
                assertThat(answer).as("offsetsForTimes(%d) finds a record; broker log:%n%s", target, brokerLog)
                        .isNotNull();
                assertThat(answer.offset())
                        .as("offsetsForTimes(%d): the earliest offset whose timestamp is >= the target", target)
                        .isEqualTo(expected);
                assertThat(answer.timestamp()).as("offsetsForTimes(%d): with that record's timestamp", target)
                        .isEqualTo(timestamps.get((int) expected));
            }
            assertThat(consumer.beginningOffsets(List.of(CLICKS), Duration.ofSeconds(20)))
                    .as("beginningOffsets (-2) still answers the log start offset").containsEntry(CLICKS, 0L);
            assertThat(consumer.endOffsets(List.of(CLICKS), Duration.ofSeconds(20)))
                    .as("endOffsets (-1) still answers the high watermark").containsEntry(CLICKS, (long) RECORDS);
        }
    }

    @Test
    void adminListOffsetsWithMaxTimestampFindsTheRecordWithTheLargestTimestamp() throws Exception {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafka.port());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        try (Admin admin = Admin.create(config)) {
            ListOffsetsResult.ListOffsetsResultInfo max = admin.listOffsets(Map.of(CLICKS, OffsetSpec.maxTimestamp()))
                    .partitionResult(CLICKS).get(30, TimeUnit.SECONDS);
            assertThat(max.offset()).as("OffsetSpec.maxTimestamp() (ListOffsets v7, -3): the record far ahead;"
                    + " broker log:%n%s", brokerLog).isEqualTo(RECORDS / 2);
            assertThat(max.timestamp()).as("with its timestamp").isEqualTo(T0 + 100L * RECORDS);
            ListOffsetsResult.ListOffsetsResultInfo byTime = admin.listOffsets(Map.of(CLICKS,
                    OffsetSpec.forTimestamp(T0 + 10 * 700 + 5))).partitionResult(CLICKS).get(30, TimeUnit.SECONDS);
            assertThat(byTime.offset()).as("OffsetSpec.forTimestamp").isEqualTo(scan(T0 + 10 * 700 + 5));
        }
    }

    @Test
    void kcatStartsAtATimestampAndQueriesOffsetsByTime() throws Exception {
        Assumptions.assumeTrue(onPath("kcat"), "kcat is not installed (apt-get install -y kcat): skipped");
        for (long target : new long[] {T0 + 10 * 33 - 499, T0 + 10 * 700 + 5, T0 + 10 * 2_999}) {
            String consumed = kcat("-C", "-t", TOPIC, "-p", "0", "-o", "s@" + target, "-c", "1", "-e", "-f", "%o %T\\n");
            long expected = scan(target);
            assertThat(consumed.strip()).as("kcat -o s@%d starts at the earliest offset whose timestamp is >= it",
                    target).isEqualTo(expected + " " + timestamps.get((int) expected));
            String queried = kcat("-Q", "-t", TOPIC + ":0:" + target);
            assertThat(queried).as("kcat -Q -t %s:0:%d (offsets_for_times)", TOPIC, target)
                    .contains(TOPIC + " [0] offset " + expected);
        }
    }

    private String kcat(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", "127.0.0.1:" + kafka.port()));
        command.addAll(List.of(args));
        Process kcat = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = kcat.getInputStream().readAllBytes();
        assertThat(kcat.waitFor(60, TimeUnit.SECONDS)).as("kcat %s finished", command).isTrue();
        String output = new String(out, StandardCharsets.UTF_8);
        assertThat(kcat.exitValue()).as("kcat %s exit status; its output:%n%s%nbroker log:%n%s", command, output,
                brokerLog).isZero();
        return output;
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }
}
