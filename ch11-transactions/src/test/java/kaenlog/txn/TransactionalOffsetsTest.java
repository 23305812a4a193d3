package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.coordinator.OffsetCommitError;
import kaenlog.coordinator.TransactionalOffsets;
import kaenlog.groups.PartitionOffset;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.wire.ErrorCode;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction's input offsets with kafka-clients 4.1.1 on the Kafka port: a consume-transform-produce
 * loop's {@code sendOffsetsToTransaction} (AddOffsetsToTxn, then TxnOffsetCommit v3 with the consumer's
 * generation and member id) leaves the group's offsets pending until the transaction's marker reaches
 * {@code __consumer_offsets}: a commit moves the group's committed offsets (a fresh consumer's
 * {@code committed()} shows them, after a restart too), an abort does not; a consumer's OffsetFetch
 * (v7, {@code require_stable}, which kafka-clients' consumer always sets) waits while they are pending.
 * The group fences a stale member (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID), the offsets partition a
 * zombie's older epoch.
 */
@Order(25)
class TransactionalOffsetsTest {
    private static final String INPUT = "input";
    private static final String OUTPUT = "orders";
    private static final String GROUP = "ctp";
    private static final TopicPartition IN0 = new TopicPartition(INPUT, 0);

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        TransactionalProducerTest.preflight(dir);
        startBroker();
        broker.partition(INPUT + "-0");
        broker.partition(OUTPUT + "-0");
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        try (KafkaProducer<String, String> plain = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 30; i++) {
                plain.send(new ProducerRecord<>(INPUT, 0, null, "in-" + i));
            }
        }
    }

    private void startBroker() throws Exception {
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
    }

    @AfterEach
    void stop() throws Exception {
        closeAll();
    }

    private void closeAll() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
        clients.clear();
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        KafkaProducer<String, String> producer = TransactionalProducerTest.producer(listener.port(), transactionalId);
        clients.add(producer);
        return producer;
    }

    /** A consumer of group {@value #GROUP}: subscribed to {@value #INPUT} (a member of a generation), or not (a fresh one that only asks). */
    private KafkaConsumer<String, String> consumer(boolean subscribed) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        clients.add(consumer);
        if (subscribed) {
            consumer.subscribe(List.of(INPUT));
        }
        return consumer;
    }

    /** The loop's input: the 30 records, polled as a member of the group (so that it has a generation). */
    private List<ConsumerRecord<String, String>> pollAll(KafkaConsumer<String, String> consumer) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (records.size() < 30) {
            assertThat(System.nanoTime()).as("the group member polled the 30 input records within a minute, at %d;"
                    + " broker log:%n%s", records.size(), brokerLog()).isLessThan(deadline);
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    /** What a fresh consumer of the group reads as its committed offset of input-0 (-1: none). */
    private long committed() {
        OffsetAndMetadata committed = consumer(false).committed(Set.of(IN0), Duration.ofSeconds(30)).get(IN0);
        return committed == null ? -1 : committed.offset();
    }

    private String brokerLog() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aConsumeTransformProduceLoopsOffsetsMoveWithItsCommitsNeverWithAnAbort() throws Exception {
        KafkaConsumer<String, String> member = consumer(true);
        List<ConsumerRecord<String, String>> input = pollAll(member);
        KafkaProducer<String, String> producer = producer("ctp-app");
        producer.initTransactions();
        List<String> committedOutput = new ArrayList<>();
        long expected = -1;
        for (int t = 0; t < 3; t++) {
            boolean abort = t == 2; // two committed, then one aborted
            producer.beginTransaction();
            List<String> output = new ArrayList<>();
            for (ConsumerRecord<String, String> record : input.subList(10 * t, 10 * t + 10)) {
                String value = record.value().toUpperCase();
                producer.send(new ProducerRecord<>(OUTPUT, 0, null, value));
                output.add(value);
            }
            producer.sendOffsetsToTransaction(Map.of(IN0, new OffsetAndMetadata(10L * t + 10)), member.groupMetadata());
            if (abort) {
                producer.flush();
                producer.abortTransaction();
            } else {
                producer.commitTransaction();
                committedOutput.addAll(output);
                expected = 10L * t + 10;
            }
            assertThat(committed()).as("after transaction %d (%s) a fresh consumer reads the group's committed offset:"
                    + " the offsets of a committed transaction are the group's once its COMMIT marker reached"
                    + " __consumer_offsets, an aborted one's never; broker log:%n%s", t, abort ? "aborted" : "committed",
                    brokerLog()).isEqualTo(expected);
        }
        assertThat(ReadCommittedConsumerTest.readToEnd(ReadCommittedConsumerTest.consumer(listener.port(), OUTPUT, 1,
                "read_committed"))).as("read_committed reads the output of the two committed transactions")
                .containsExactlyElementsOf(committedOutput);

        closeAll();
        startBroker(); // the offsets partition is read again: transactional batches and markers replayed
        assertThat(committed()).as("after a restart the replay of __consumer_offsets commits what a COMMIT marker"
                + " ended and discards what an ABORT marker ended; broker log:%n%s", brokerLog()).isEqualTo(20);
    }

    @Test
    void aRequireStableFetchWaitsWhileATransactionsOffsetsArePendingThenSeesTheCommit() throws Exception {
        KafkaConsumer<String, String> member = consumer(true);
        pollAll(member);
        KafkaProducer<String, String> producer = producer("ctp-app");
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(OUTPUT, 0, null, "OUT"));
        producer.sendOffsetsToTransaction(Map.of(IN0, new OffsetAndMetadata(7)), member.groupMetadata());

        KafkaConsumer<String, String> asking = consumer(false);
        assertThat(catchThrowable(() -> asking.committed(Set.of(IN0), Duration.ofSeconds(1)))).as("while the"
                + " transaction is open its offset is pending: OffsetFetch v7 with require_stable answers"
                + " UNSTABLE_OFFSET_COMMIT, which the consumer retries until its timeout; broker log:%n%s", brokerLog())
                .isInstanceOf(TimeoutException.class);

        KafkaConsumer<String, String> waiting = consumer(false);
        CompletableFuture<OffsetAndMetadata> seen = CompletableFuture.supplyAsync(
                () -> waiting.committed(Set.of(IN0), Duration.ofSeconds(30)).get(IN0));
        Thread.sleep(500);
        assertThat(seen).as("a fetch of a pending offset is not answered with the old one").isNotDone();
        producer.commitTransaction();
        OffsetAndMetadata after = seen.get(30, TimeUnit.SECONDS);
        assertThat(after).as("the waiting fetch sees the committed value once the COMMIT marker reached the offsets"
                + " partition; broker log:%n%s", brokerLog()).isNotNull();
        assertThat(after.offset()).isEqualTo(7);
    }

    @Test
    void aStaleMemberOfTheGroupCannotCommitOffsetsInATransaction() throws Exception {
        KafkaConsumer<String, String> member = consumer(true);
        pollAll(member);
        ConsumerGroupMetadata current = member.groupMetadata();
        KafkaProducer<String, String> producer = producer("ctp-app");
        producer.initTransactions();
        for (ConsumerGroupMetadata stale : List.of(
                new ConsumerGroupMetadata(GROUP, current.generationId() + 1, current.memberId(), Optional.empty()),
                new ConsumerGroupMetadata(GROUP, current.generationId(), "not-a-member", Optional.empty()))) {
            producer.beginTransaction();
            Throwable refused = catchThrowable(() -> producer.sendOffsetsToTransaction(Map.of(IN0,
                    new OffsetAndMetadata(5)), stale));
            assertThat(refused).as("TxnOffsetCommit of generation %d, member %s (the group's: generation %d, member"
                    + " %s) is refused ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID (KIP-447): a zombie of an older"
                    + " generation must not commit the input its successor owns now", stale.generationId(),
                    stale.memberId(), current.generationId(), current.memberId()).isInstanceOf(CommitFailedException.class);
            producer.abortTransaction();
        }
        assertThat(committed()).as("nothing was committed").isEqualTo(-1);
    }

    @Test
    void aZombiesOlderEpochCannotWriteOffsetsToTheOffsetsPartition() throws Exception {
        TransactionalOffsets offsets = TransactionalOffsets.of(broker);
        List<PartitionOffset> commit = List.of(new PartitionOffset(INPUT, 0, 3, ""));
        assertThat(offsets.commit(broker, GROUP, 9000, (short) 1, commit)).isEqualTo(OffsetCommitError.NONE);
        offsets.markerWritten(broker, "__consumer_offsets-0", 9000, (short) 2, false); // a fence's ABORT, at the bumped epoch
        Throwable refused = catchThrowable(() -> offsets.commit(broker, GROUP, 9000, (short) 1, commit));
        assertThat(refused).as("a TxnOffsetCommit of an epoch older than the offsets partition saw of its producer"
                + " (the fence's ABORT marker) is a zombie's").isInstanceOf(ProduceRefusedException.class);
        assertThat(((ProduceRefusedException) refused).error()).isEqualTo(ErrorCode.INVALID_PRODUCER_EPOCH);
        assertThat(offsets.commit(broker, GROUP, 9000, (short) 2, commit)).as("the current epoch writes")
                .isEqualTo(OffsetCommitError.NONE);
    }
}
