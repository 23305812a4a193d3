package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
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
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.TransactionalLogs;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.log.Log;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chapter 11 end to end on one broker, read by kafka-clients 4.1.1's own consumer on the Kafka port:
 * transactions run by this chapter's coordinator (InitProducerId, AddPartitionsToTxn, EndTxn, its
 * markers), their data batches (built by kafka-clients' {@code MemoryRecords.withTransactionalRecords})
 * appended to the partitions' logs through chapter 7's producer state. The Kafka port does not take a
 * transactional producer's requests yet (part C), so the producer's side is driven through the
 * chapter's API; the consumer's side is Kafka's consumer, unchanged: read_committed reads exactly the
 * committed records, read_uncommitted all, an open transaction holds read_committed's end offset
 * and position at its first offset until it commits, and one left open by a restart stays hidden until
 * the coordinator aborts it at its timeout.
 */
@Order(22)
class ReadCommittedConsumerTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private TransactionCoordinator coordinator;
    private InitProducerIdResult producer;
    private final Map<Integer, Integer> sequences = new HashMap<>();

    @AfterEach
    void stop() throws Exception {
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** A transaction's rules not written yet fail here, as their TODO, not as a consumer that waits. */
    static void preflight(Path dir) throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        try (Log log = TransactionalLogs.open(dir.resolve("preflight"), 1 << 20)) {
            producers.data(log, 1, 1);
            TransactionalLogs.marker(log, 1, true);
            log.abortedTransactions(0, log.logEndOffset());
        }
    }

    private void start() throws Exception {
        preflight(dir);
        startBroker();
        producer = coordinator.initProducerId(new InitProducerIdRequest("orders-app", 60_000), broker.nowMs());
        assertThat(producer.error()).isEqualTo(TxnError.NONE);
    }

    /** The broker, its Kafka port, the topic's partitions and the coordinator of every transactional id, loaded. */
    private void startBroker() throws Exception {
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")), new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        listener = KafkaListener.start(broker, "127.0.0.1", 0, new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        for (int p = 0; p < PARTITIONS; p++) {
            broker.partition(TOPIC + "-" + p);
        }
        coordinator = LocalTransactions.start(broker, TxnConfig.defaults());
    }

    private Set<TopicPartition> allPartitions() {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(TOPIC, p));
        }
        return all;
    }

    private void begin() {
        assertThat(coordinator.addPartitions(new AddPartitionsRequest("orders-app", producer.producerId(),
                producer.producerEpoch(), allPartitions()), broker.nowMs())).isEqualTo(TxnError.NONE);
    }

    /** {@code values} as one transactional batch to {@code partition}, appended as the leader appends a produce. */
    private void send(int partition, List<String> values) throws Exception {
        int sequence = sequences.merge(partition, values.size(), Integer::sum) - values.size();
        SimpleRecord[] records = values.stream().map(v -> new SimpleRecord(broker.nowMs(), v.getBytes()))
                .toArray(SimpleRecord[]::new);
        ByteBuffer batch = MemoryRecords.withTransactionalRecords(0L, Compression.NONE, producer.producerId(),
                producer.producerEpoch(), sequence, 0, records).buffer();
        broker.partition(TOPIC + "-" + partition).locked(log -> log.append(batch));
    }

    private void end(TransactionResult result) {
        assertThat(coordinator.endTxn(new EndTxnRequest("orders-app", producer.producerId(), producer.producerEpoch(),
                result), broker.nowMs())).isEqualTo(TxnError.NONE);
    }

    /** A transaction of {@code records} records spread over the partitions, ended as {@code result}. */
    private List<String> transaction(String name, int records, TransactionResult result) throws Exception {
        begin();
        List<String> values = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> here = new ArrayList<>();
            for (int i = p; i < records; i += PARTITIONS) {
                here.add(name + "-" + i);
            }
            send(p, here.subList(0, here.size() / 2));
            send(p, here.subList(here.size() / 2, here.size()));
            values.addAll(here);
        }
        if (result != null) {
            end(result);
        }
        return values;
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        return consumer(listener.port(), TOPIC, PARTITIONS, isolation);
    }

    /** kafka-clients' consumer on the Kafka port at {@code port}, assigned every partition of {@code topic}, from the start. */
    static KafkaConsumer<String, String> consumer(int port, String topic, int partitionCount, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            partitions.add(new org.apache.kafka.common.TopicPartition(topic, p));
        }
        consumer.assign(partitions);
        return consumer;
    }

    /** Everything the consumer reads until it has reached the end offsets its isolation sees, in order per partition. */
    static List<String> readToEnd(KafkaConsumer<String, String> consumer) {
        Map<org.apache.kafka.common.TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            assertThat(System.nanoTime()).as("the consumer reached the end offsets %s within a minute, at %s", ends,
                    values.size()).isLessThan(deadline);
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                values.add(record.value());
            }
        }
        return values;
    }

    @Test
    void readCommittedReadsExactlyTheCommittedRecordsAndReadUncommittedEveryRecord() throws Exception {
        start();
        List<String> committed = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int t = 0; t < 15; t++) {
            boolean abort = t % 3 == 2; // 10 committed, 5 aborted, interleaved
            List<String> values = transaction("t" + t, 100, abort ? TransactionResult.ABORT : TransactionResult.COMMIT);
            all.addAll(values);
            if (!abort) {
                committed.addAll(values);
            }
        }
        try (KafkaConsumer<String, String> readCommitted = consumer("read_committed");
             KafkaConsumer<String, String> readUncommitted = consumer("read_uncommitted")) {
            List<String> read = readToEnd(readCommitted);
            assertThat(read).as("read_committed reads the 1,000 records of the 10 committed transactions, none of the"
                    + " 5 aborted ones; broker log:%n%s", brokerLog.toString(StandardCharsets.UTF_8))
                    .hasSize(1_000).containsExactlyInAnyOrderElementsOf(committed);
            assertThat(readToEnd(readUncommitted)).as("read_uncommitted reads all 1,500 records, aborted ones too")
                    .hasSize(1_500).containsExactlyInAnyOrderElementsOf(all);
        }
    }

    @Test
    void aTransactionLeftOpenByARestartStaysHiddenUntilItsTimeoutAbortsIt() throws Exception {
        start();
        List<String> committed = transaction("before", 6, TransactionResult.COMMIT);
        long firstOfOpen = broker.partition(TOPIC + "-0").locked(Log::logEndOffset);
        List<String> half = transaction("half", 6, null);
        listener.close();
        broker.close(); // the producer gone and the broker restarted mid-transaction (after a crash the rebuild is the same)
        startBroker();
        var p0 = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
            assertThat(consumer.endOffsets(Set.of(p0)).get(p0)).as("after the restart the partition rebuilt its open"
                    + " transaction from its segments: the last stable offset is still its first offset")
                    .isEqualTo(firstOfOpen);
            assertThat(readToEnd(consumer)).as("read_committed reads only what was committed before")
                    .containsExactlyInAnyOrderElementsOf(committed);
            coordinator.abortTimedOutTransactions(broker.nowMs() + 60_001);
            List<String> after = readToEnd(consumer);
            assertThat(after).as("the coordinator aborted the transaction at its timeout: the partial transaction's %s"
                    + " records are never read, and the end offset moves past its ABORT marker", half.size()).isEmpty();
            assertThat(consumer.position(p0)).as("the consumer's position is past the ABORT marker")
                    .isEqualTo(broker.partition(TOPIC + "-0").locked(Log::highWatermark));
        }
    }

    @Test
    void anOpenTransactionHoldsReadCommittedsEndOffsetAndPositionAtItsFirstOffsetUntilItCommits() throws Exception {
        start();
        transaction("before", 6, TransactionResult.COMMIT);
        long firstOfOpen = broker.partition(TOPIC + "-0").locked(Log::logEndOffset);
        List<String> open = transaction("open", 6, null);
        var p0 = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
            assertThat(readToEnd(consumer)).as("only the committed transaction is read").hasSize(6);
            assertThat(consumer.endOffsets(Set.of(p0)).get(p0)).as("ListOffsets latest under read_committed is the last"
                    + " stable offset: the open transaction's first offset").isEqualTo(firstOfOpen);
            assertThat(consumer.position(p0)).as("and the consumer's position stops there").isEqualTo(firstOfOpen);
            end(TransactionResult.COMMIT);
            assertThat(readToEnd(consumer)).as("once it commits, its records are read")
                    .containsExactlyInAnyOrderElementsOf(open);
            assertThat(consumer.endOffsets(Set.of(p0)).get(p0)).as("and the end offset is the high watermark again")
                    .isEqualTo(broker.partition(TOPIC + "-0").locked(Log::highWatermark));
        }
    }
}
