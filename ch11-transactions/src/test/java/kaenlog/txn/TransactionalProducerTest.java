package kaenlog.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.kafkawire.KafkaListener;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chapter 11 end to end with kafka-clients 4.1.1 on both sides of the Kafka port: its
 * {@code KafkaProducer} with a {@code transactional.id} finds this broker as its transaction
 * coordinator, runs its transactions through this chapter's coordinator (InitProducerId,
 * AddPartitionsToTxn, EndTxn), and its consumers read them: read_committed exactly the committed
 * records, read_uncommitted every one. A second producer with the same transactional id fences the
 * first: the first's commit is refused (ProducerFencedException), what it wrote before is aborted,
 * and what it sends after the fence is refused by the partition (an older epoch) and never read. A
 * transaction its producer left open is aborted at its timeout, also by a broker restarted in between
 * that no transactional client has come back to.
 */
@Order(23)
public class TransactionalProducerTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaListener listener;
    private final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        preflight(dir);
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        for (int p = 0; p < PARTITIONS; p++) {
            broker.partition(TOPIC + "-" + p);
        }
    }

    /**
     * Every task's rule not written yet fails here, as its TODO, not as a client that times out
     * waiting for a broker whose coordinator threw: a transaction committed and one aborted at its
     * timeout, through the chapter's API on a broker of their own, and the log side's own preflight.
     */
    public static void preflight(Path dir) throws Exception {
        ReadCommittedConsumerTest.preflight(dir);
        try (Broker alone = Broker.start(BrokerConfig.of(dir.resolve("preflight-broker")),
                new PrintStream(OutputStream.nullOutputStream()))) {
            alone.partition("p-0");
            TransactionCoordinator coordinator = LocalTransactions.start(alone, TxnConfig.defaults());
            InitProducerIdResult id = coordinator.initProducerId(new InitProducerIdRequest("preflight", 60_000),
                    alone.nowMs());
            Set<TopicPartition> partition = Set.of(new TopicPartition("p", 0));
            for (TransactionResult end : List.of(TransactionResult.COMMIT, TransactionResult.ABORT)) {
                assertThat(coordinator.addPartitions(new AddPartitionsRequest("preflight", id.producerId(),
                        id.producerEpoch(), partition), alone.nowMs())).as("preflight: AddPartitionsToTxn").isEqualTo(TxnError.NONE);
                if (end == TransactionResult.COMMIT) {
                    assertThat(coordinator.endTxn(new EndTxnRequest("preflight", id.producerId(), id.producerEpoch(), end),
                            alone.nowMs())).as("preflight: EndTxn").isEqualTo(TxnError.NONE);
                }
            }
            coordinator.abortTimedOutTransactions(alone.nowMs() + 60_001);
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        KafkaProducer<String, String> producer = producer(listener.port(), transactionalId);
        clients.add(producer);
        return producer;
    }

    /** kafka-clients' transactional producer on the Kafka port {@code port}, its timeouts short enough for a test. */
    static KafkaProducer<String, String> producer(int port, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        KafkaConsumer<String, String> consumer = ReadCommittedConsumerTest.consumer(listener.port(), TOPIC, PARTITIONS,
                isolation);
        clients.add(consumer);
        return consumer;
    }

    /** {@code count} records named {@code name}-i, record i to partition i % 3; their sends, to wait on. */
    private static List<Future<RecordMetadata>> send(KafkaProducer<String, String> producer, String name, int count,
                                                     List<String> values) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = name + "-" + i;
            sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value)));
            values.add(value);
        }
        return sent;
    }

    /** Waits (30 s at most) until read_committed's end offset of {@code partition} is past 0: {@code what} happened. */
    private void awaitEndOffsetPastZero(KafkaConsumer<String, String> consumer,
                                        org.apache.kafka.common.TopicPartition partition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (consumer.endOffsets(Set.of(partition)).get(partition) == 0) {
            assertThat(System.nanoTime()).as("%s within 30 s; broker log:%n%s", what, brokerLog()).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private String brokerLog() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aTransactionalProducersCommitsAreReadCommittedAndItsAbortsOnlyReadUncommitted() {
        KafkaProducer<String, String> producer = producer("orders-app");
        producer.initTransactions();
        List<String> committed = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int t = 0; t < 15; t++) {
            boolean abort = t % 3 == 2; // 10 committed, 5 aborted, interleaved
            List<String> values = new ArrayList<>();
            producer.beginTransaction();
            send(producer, "t" + t, 100, values);
            if (abort) {
                producer.flush(); // the records are in the log before the ABORT marker follows them
                producer.abortTransaction();
            } else {
                producer.commitTransaction();
                committed.addAll(values);
            }
            all.addAll(values);
        }
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer("read_committed"))).as("read_committed reads the 1,000"
                + " records of the 10 committed transactions, none of the 5 aborted ones; broker log:%n%s", brokerLog())
                .hasSize(1_000).containsExactlyInAnyOrderElementsOf(committed);
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer("read_uncommitted")))
                .as("read_uncommitted reads all 1,500 records, the aborted ones too").hasSize(1_500)
                .containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aSecondProducerWithTheSameTransactionalIdFencesTheFirst() {
        KafkaProducer<String, String> zombie = producer("orders-app");
        zombie.initTransactions();
        zombie.beginTransaction();
        send(zombie, "zombie", 30, new ArrayList<>());
        zombie.flush();

        KafkaProducer<String, String> successor = producer("orders-app");
        successor.initTransactions(); // bumps the epoch: the zombie's open transaction is aborted
        assertThat(catchThrowable(zombie::commitTransaction)).as("the first producer's commit is refused PRODUCER_FENCED:"
                + " a newer producer holds its transactional id; broker log:%n%s", brokerLog())
                .isInstanceOf(ProducerFencedException.class);

        List<String> values = new ArrayList<>();
        successor.beginTransaction();
        send(successor, "successor", 30, values);
        successor.commitTransaction(); // its producer id's new epoch starts at sequence 0 on every partition
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer("read_committed"))).as("read_committed reads the"
                + " successor's 30 records; the zombie's transaction was aborted by the fence; broker log:%n%s",
                brokerLog()).containsExactlyInAnyOrderElementsOf(values);
    }

    @Test
    void whatAFencedProducerSendsAfterTheFenceIsRefusedAndNeverReadCommitted() throws Exception {
        KafkaProducer<String, String> zombie = producer("orders-app");
        zombie.initTransactions();
        zombie.beginTransaction();
        send(zombie, "before", 3, new ArrayList<>());
        zombie.flush(); // its three partitions are in its transaction: its next sends go straight to them

        KafkaProducer<String, String> successor = producer("orders-app");
        successor.initTransactions();
        List<Future<RecordMetadata>> late = send(zombie, "late", 3, new ArrayList<>());
        zombie.flush();
        for (Future<RecordMetadata> sent : late) {
            Throwable refused = catchThrowable(sent::get);
            assertThat(refused).as("a batch of the fenced epoch is refused by the partition (INVALID_PRODUCER_EPOCH):"
                    + " the fence's ABORT marker carries a newer epoch; broker log:%n%s", brokerLog())
                    .isInstanceOf(ExecutionException.class);
            assertThat(refused.getCause()).as("kafka-clients' error for INVALID_PRODUCER_EPOCH on a produce")
                    .isInstanceOf(InvalidProducerEpochException.class);
        }

        List<String> values = new ArrayList<>();
        successor.beginTransaction();
        send(successor, "successor", 3, values);
        successor.commitTransaction();
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer("read_committed"))).as("read_committed reads the"
                + " successor's records only: nothing the zombie sent, before the fence or after").containsExactlyInAnyOrderElementsOf(values);
    }

    @Test
    void aTransactionLeftOpenIsAbortedPastItsTimeoutByTheListenersTicker() throws Exception {
        KafkaProducer<String, String> gone = producer("orders-app"); // transaction.timeout.ms: 60000, the default
        gone.initTransactions();
        gone.beginTransaction();
        send(gone, "left-open", 30, new ArrayList<>());
        gone.flush();
        var p0 = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
        KafkaConsumer<String, String> consumer = consumer("read_committed");
        assertThat(consumer.endOffsets(Set.of(p0)).get(p0)).as("the open transaction holds read_committed's end offset"
                + " at its first offset").isZero();

        broker.advanceTime(60_001); // the broker's time; the listener's ticker hands it to the coordinator
        awaitEndOffsetPastZero(consumer, p0, "the listener's ticker aborted the transaction past its timeout");
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer)).as("the coordinator aborted it on the listener's"
                + " ticker: none of its records is read; broker log:%n%s", brokerLog()).isEmpty();
        assertThat(consumer.position(p0)).as("and read_committed moves on past its ABORT marker")
                .isEqualTo(broker.partition(TOPIC + "-0").locked(kaenlog.log.Log::highWatermark));
        assertThat(catchThrowable(gone::commitTransaction)).as("the abort fenced the producer: its commit comes too late")
                .isInstanceOf(ProducerFencedException.class);
    }

    @Test
    void aTransactionLeftOpenWhenTheBrokerStoppedIsAbortedAfterItsRestartWithNoClientBack() throws Exception {
        KafkaProducer<String, String> gone = producer("orders-app"); // transaction.timeout.ms: 60000, the default
        gone.initTransactions();
        gone.beginTransaction();
        send(gone, "left-open", 30, new ArrayList<>());
        gone.flush();
        gone.close(java.time.Duration.ZERO); // it never comes back
        long stoppedAtMs = broker.nowMs();
        listener.close();
        broker.close();

        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        var p0 = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
        KafkaConsumer<String, String> consumer = consumer("read_committed");
        assertThat(consumer.endOffsets(Set.of(p0)).get(p0)).as("after the restart the open transaction (rebuilt from"
                + " the partition's segments) still holds read_committed's end offset at its first offset").isZero();
        broker.advanceTimeTo(stoppedAtMs + 60_001); // the broker's time, past the transaction's timeout
        awaitEndOffsetPastZero(consumer, p0, "the restarted broker coordinates the transactions its __transaction_state"
                + " holds at its first tick, as a Kafka broker loads the partitions it leads when it starts: no"
                + " transactional client came back to make the coordinator, yet the transaction was aborted past its"
                + " timeout");
        assertThat(ReadCommittedConsumerTest.readToEnd(consumer)).as("none of the aborted transaction's records is"
                + " read; broker log:%n%s", brokerLog()).isEmpty();
    }
}
