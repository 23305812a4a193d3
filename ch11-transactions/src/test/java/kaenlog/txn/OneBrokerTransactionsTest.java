package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ID;
import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.idem.Idempotence;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator on one broker, in process: chapter 3's broker with every chapter's extensions,
 * the coordinator's log its {@code __transaction_state} partitions, its markers appended to its own
 * partitions through chapter 3's and chapter 7's append, its producer ids chapter 7's.
 */
@Order(20)
class OneBrokerTransactionsTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private Broker start() throws Exception {
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0).withStartNowMs(T0),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        return broker;
    }

    private void produce(TopicPartition partition, InitProducerIdResult producer, int firstSeq, String... values)
            throws Exception {
        broker.partition(partition.name()).locked(log -> log.append(Idempotence.producerBatch(producer.producerId(),
                producer.producerEpoch(), firstSeq, List.of(values), T0)));
    }

    private List<RecordBatch> batches(String partition) throws Exception {
        return RecordBatch.decodeAll(broker.partition(partition).locked(log -> log.read(log.logStartOffset(),
                Integer.MAX_VALUE, FetchIsolation.LOG_END)));
    }

    @Test
    void aCommitLeavesAMarkerInEachPartitionAndFourStatesInTheCoordinatorsLog() throws Exception {
        start();
        TransactionCoordinator coordinator = LocalTransactions.start(broker, TxnConfig.defaults());
        InitProducerIdResult producer = coordinator.initProducerId(new InitProducerIdRequest(ID, 60_000), T0);
        assertThat(producer.error()).isEqualTo(TxnError.NONE);
        assertThat(coordinator.addPartitions(new AddPartitionsRequest(ID, producer.producerId(), producer.producerEpoch(),
                Set.of(ORDERS_0, ORDERS_1)), T0 + 1)).isEqualTo(TxnError.NONE);
        produce(ORDERS_0, producer, 0, "a", "b");
        produce(ORDERS_1, producer, 0, "c");
        assertThat(coordinator.endTxn(new EndTxnRequest(ID, producer.producerId(), producer.producerEpoch(),
                TransactionResult.COMMIT), T0 + 2)).isEqualTo(TxnError.NONE);

        for (TopicPartition partition : List.of(ORDERS_0, ORDERS_1)) {
            List<RecordBatch> batches = batches(partition.name());
            RecordBatch marker = batches.get(batches.size() - 1);
            assertThat(marker.header().isControl()).as("%s ends with a control batch", partition.name()).isTrue();
            assertThat(marker.header().producerId()).isEqualTo(producer.producerId());
            assertThat(EndTransactionMarker.read(marker.records().get(0))).isEqualTo(new EndTransactionMarker(
                    ControlRecordType.COMMIT, 0));
        }
        String stateLog = TransactionStateExtension.stateLogPartition(coordinator.partitionFor(ID));
        List<TransactionState> states = batches(stateLog).stream().map(b -> TransactionLog.readValue(
                b.records().get(0).value()).state()).toList();
        assertThat(states).as("%s holds the id's four transitions", stateLog).containsExactly(TransactionState.EMPTY,
                TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.COMPLETE_COMMIT);
        produce(ORDERS_0, producer, 2, "d");
        assertThat(batches(ORDERS_0.name())).as("the marker took no sequence number: the producer's next batch,"
                + " sequence 2, is in sequence").hasSize(3);
    }

    @Test
    void aRestartedBrokersCoordinatorFinishesWhatItsLogPrepared() throws Exception {
        start();
        TransactionCoordinator first = LocalTransactions.start(broker, TxnConfig.defaults());
        InitProducerIdResult producer = first.initProducerId(new InitProducerIdRequest(ID, 60_000), T0);
        first.addOffsets(new AddOffsetsRequest(ID, producer.producerId(), producer.producerEpoch(), "word-count"), T0 + 1);
        first.addPartitions(new AddPartitionsRequest(ID, producer.producerId(), producer.producerEpoch(), Set.of(ORDERS_0)),
                T0 + 1);
        produce(ORDERS_0, producer, 0, "a");
        broker.partition(LocalTransactions.OFFSETS_PARTITION.name()); // there since the group's first commit
        assertThat(first.transaction(ID).orElseThrow().partitions()).as("on one broker a group's offsets are in"
                + " chapter 6's partition").contains(LocalTransactions.OFFSETS_PARTITION);
        // The coordinator wrote PrepareCommit and died before its markers: the record it left.
        TxnTransit prepared = first.transaction(ID).orElseThrow().next(TransactionState.PREPARE_COMMIT)
                .withTimes(T0 + 1, T0 + 2);
        String stateLog = TransactionStateExtension.stateLogPartition(first.partitionFor(ID));
        ByteBuffer record = TransactionLog.record(ID, prepared, T0 + 2);
        broker.partition(stateLog).locked(log -> log.append(record));
        broker.close();

        start();
        TransactionCoordinator second = LocalTransactions.start(broker, TxnConfig.defaults());
        assertThat(second.transaction(ID).orElseThrow().state()).as("the new coordinator finds PrepareCommit, sends"
                + " its markers and completes it").isEqualTo(TransactionState.COMPLETE_COMMIT);
        List<RecordBatch> orders = batches(ORDERS_0.name());
        assertThat(orders.get(orders.size() - 1).header().isControl()).as("orders-0 got its COMMIT marker").isTrue();
        List<RecordBatch> offsets = batches(LocalTransactions.OFFSETS_PARTITION.name());
        assertThat(offsets).as("and so did the group's offsets partition").hasSize(1);
        assertThat(EndTransactionMarker.read(offsets.get(0).records().get(0)).type()).isEqualTo(ControlRecordType.COMMIT);
    }
}
