package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ID;
import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.PAYMENTS_0;
import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 4: AddPartitionsToTxn and AddOffsetsToTxn. The producer must be the id's, at its epoch; the
 * first partition begins the transaction, the others join it; a transaction being ended takes none.
 */
@Order(4)
class AddPartitionsTest {

    @Test
    void theFirstPartitionBeginsTheTransaction() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.add(ID, producer, T0 + 10, ORDERS_0)).isEqualTo(TxnError.NONE);
        TxnTransit state = f.state(ID);
        assertThat(state.state()).as("Empty -> Ongoing").isEqualTo(TransactionState.ONGOING);
        assertThat(state.partitions()).containsExactly(ORDERS_0);
        assertThat(state.txnStartTimestamp()).as("the transaction begins now: its timeout counts from here")
                .isEqualTo(T0 + 10);
        assertThat(f.logOf(ID).written()).as("written before answered").hasSize(2);
    }

    @Test
    void laterPartitionsJoinTheTransactionThatIsOpen() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        f.add(ID, producer, T0 + 10, ORDERS_0);
        assertThat(f.add(ID, producer, T0 + 20, ORDERS_1, PAYMENTS_0)).isEqualTo(TxnError.NONE);
        TxnTransit state = f.state(ID);
        assertThat(state.partitions()).as("the union: a partition added once stays until the transaction ends")
                .containsExactly(ORDERS_0, ORDERS_1, PAYMENTS_0);
        assertThat(state.txnStartTimestamp()).as("still the first partition's time: the transaction began then")
                .isEqualTo(T0 + 10);
        assertThat(state.txnLastUpdateTimestamp()).isEqualTo(T0 + 20);
    }

    @Test
    void partitionsAlreadyInTheTransactionAreAnsweredWithoutAWrite() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        f.add(ID, producer, T0 + 10, ORDERS_0, ORDERS_1);
        int records = f.logOf(ID).size();
        assertThat(f.add(ID, producer, T0 + 20, ORDERS_1)).isEqualTo(TxnError.NONE);
        assertThat(f.logOf(ID).size()).as("nothing new to write (Kafka answers at once)").isEqualTo(records);
        assertThat(f.state(ID).txnLastUpdateTimestamp()).as("nothing changed").isEqualTo(T0 + 10);
    }

    @Test
    void aNewTransactionAfterACompleteOneBeginsAgain() {
        TransactionMetadata md = new TransactionMetadata(ID, new TxnTransit(1000, 1000, (short) 2, (short) -1, 60_000,
                TransactionState.COMPLETE_COMMIT, TxnTransit.sorted(Set.of()), T0, T0 + 5));
        Decision d = md.prepareAddPartitions(1000, (short) 2, Set.of(PAYMENTS_0), T0 + 100);
        assertThat(d).isInstanceOf(Decision.Write.class);
        TxnTransit next = ((Decision.Write) d).next();
        assertThat(next.txnStartTimestamp()).as("after CompleteCommit a new transaction begins: a new start time,"
                + " not the last transaction's").isEqualTo(T0 + 100);
        assertThat(next.partitions()).containsExactly(PAYMENTS_0);
    }

    @Test
    void anotherProducerIdIsRefused() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.add(ID, InitProducerIdResult.of(producer.producerId() + 1, producer.producerEpoch()), T0, ORDERS_0))
                .as("the producer id is not the one this transactional id has").isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
        assertThat(f.coordinator.addPartitions(new AddPartitionsRequest("nobody", 1000, (short) 0, Set.of(ORDERS_0)), T0))
                .as("an id the coordinator never saw").isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
    }

    @Test
    void aFencedProducerIsRefused() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult zombie = f.init(ID, T0);
        f.init(ID, T0 + 1);
        assertThat(f.add(ID, zombie, T0 + 2, ORDERS_0)).as("epoch 0 after a new producer took epoch 1: the zombie's"
                + " records must not join any transaction").isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.EMPTY);
    }

    @Test
    void aTransactionBeingEndedTakesNoPartition() {
        for (TransactionState state : List.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)) {
            TransactionMetadata md = new TransactionMetadata(ID, new TxnTransit(1000, 1000, (short) 2, (short) -1, 60_000,
                    state, TxnTransit.sorted(Set.of(ORDERS_0)), T0, T0 + 5));
            assertThat(md.prepareAddPartitions(1000, (short) 2, Set.of(ORDERS_1), T0 + 100)).as("%s: the producer"
                    + " retries once the transaction is complete", state)
                    .isEqualTo(new Decision.Answer(TxnError.CONCURRENT_TRANSACTIONS));
        }
    }

    @Test
    void addOffsetsAddsTheGroupsOffsetsPartition() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.coordinator.addOffsets(new AddOffsetsRequest(ID, producer.producerId(), producer.producerEpoch(),
                "word-count"), T0 + 1)).isEqualTo(TxnError.NONE);
        TopicPartition offsets = new TopicPartition("__consumer_offsets", Math.abs("word-count".hashCode()) % 50);
        assertThat(f.state(ID).partitions()).as("the group's __consumer_offsets partition joins the transaction, so"
                + " its end reaches the offsets committed in it").containsExactly(offsets);
    }

    @Test
    @PassesOnSkeleton("Kafka's partitioning of groups is given code")
    void kafkasPartitionOfAnIdWhoseHashIsIntegerMinValueIsZero() {
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(TransactionCoordinator.kafkaOffsetsPartition("polygenelubricants").partition())
                .as("Kafka's Utils.abs(Integer.MIN_VALUE) is 0 (Math.abs would stay negative)").isEqualTo(0);
    }

    @Test
    void everyAddPartitionsOnAnyStateIsDecidedAsKafkasCoordinatorDecides() {
        Property.forAll(TxnGens.seeds().flatMap(seed -> c -> new Object[] {seed,
                TxnGens.producers(seed.state()).generate(c), TxnGens.partitions().generate(c)})).tries(150).check(input -> {
                    TxnGens.Seed seed = (TxnGens.Seed) input[0];
                    ProducerIdAndEpoch producer = (ProducerIdAndEpoch) input[1];
                    @SuppressWarnings("unchecked")
                    List<TopicPartition> partitions = (List<TopicPartition>) input[2];
                    KafkaCoordinator kafka = new KafkaCoordinator(2000);
                    seed.seed(kafka, ID);
                    String kafkas = TxnGens.kafkasOutcome(kafka, kafka.add(new AddPartitionsRequest(ID,
                            producer.producerId(), producer.epoch(), Set.copyOf(partitions)), T0));
                    TransactionMetadata md = seed.ours(ID);
                    String yours = TxnGens.ourOutcome(md, () -> md.prepareAddPartitions(producer.producerId(),
                            producer.epoch(), Set.copyOf(partitions), T0));
                    Judge.agree("AddPartitions(" + producer + ", " + partitions + ") on " + seed, "outcome", yours,
                            "TransactionCoordinator.handleAddPartitionsToTransaction gives", kafkas,
                            "the id's producer at its epoch, no transaction being ended; the union of the partitions,"
                                    + " the start time when the transaction begins");
                });
    }

    @Test
    void everySequenceOfAddsIsAnsweredAsKafkasCoordinatorAnswers() {
        Property.forAll(Differential.sequences(Differential.adds(), 8)).tries(60).check(ops -> Differential.run(ops,
                "the id's producer at its epoch; the first partition begins the transaction, the others join it"));
    }
}
