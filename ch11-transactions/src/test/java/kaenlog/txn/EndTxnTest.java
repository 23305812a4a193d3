package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ID;
import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.PAYMENTS_0;
import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 5: EndTxn in two phases. PrepareCommit (PrepareAbort) is written and answered; then a marker
 * goes to every partition of the transaction; once all are written, CompleteCommit (CompleteAbort).
 * A coordinator that finds a Prepare state in the log it loads sends the markers again.
 */
@Order(5)
class EndTxnTest {

    /** An id with a transaction open on orders-0, orders-1 and payments-0. */
    private static InitProducerIdResult open(TxnFixture f) {
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.add(ID, producer, T0 + 10, ORDERS_0, ORDERS_1, PAYMENTS_0)).isEqualTo(TxnError.NONE);
        return producer;
    }

    private static List<TransactionState> written(TxnFixture f) {
        return f.logOf(ID).written().stream().map(e -> e.getValue().state()).toList();
    }

    @Test
    void aCommitIsAnsweredOnceItsPrepareStateIsWrittenBeforeAnyMarker() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 20)).isEqualTo(TxnError.NONE);
        assertThat(written(f)).as("EMPTY, ONGOING, then PREPARE_COMMIT: the outcome is decided and written before"
                + " the answer; COMPLETE_COMMIT waits for the markers").containsExactly(TransactionState.EMPTY,
                TransactionState.ONGOING, TransactionState.PREPARE_COMMIT);
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(f.coordinator.pendingState(ID)).as("the Complete state is in flight while the markers are")
                .contains(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void aMarkerGoesToEveryPartitionOfTheTransaction() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        f.end(ID, producer, TransactionResult.COMMIT, T0 + 20);
        assertThat(f.markers.sent).as("one COMMIT marker for each of the three partitions, with the producer's id and"
                + " epoch and the coordinator's epoch").containsExactly(new TxnMarker(ID, producer.producerId(),
                producer.producerEpoch(), 0, TransactionResult.COMMIT, TxnTransit.sorted(List.of(ORDERS_0, ORDERS_1,
                PAYMENTS_0))));
    }

    @Test
    void theCompleteStateIsWrittenOnceEveryMarkerIs() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        f.markers.failing.add(PAYMENTS_0);
        f.end(ID, producer, TransactionResult.COMMIT, T0 + 20);
        f.markers.deliverAll();
        assertThat(f.state(ID).state()).as("payments-0 has no marker yet: not complete").isEqualTo(
                TransactionState.PREPARE_COMMIT);
        f.markers.failing.clear();
        f.coordinator.retryMarkers(T0 + 30);
        assertThat(f.markers.sent.get(1).partitions()).as("only the failed partition's marker is sent again")
                .containsExactly(PAYMENTS_0);
        f.markers.deliverAll();
        TxnTransit state = f.state(ID);
        assertThat(state.state()).as("every partition has its marker: CompleteCommit written")
                .isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(state.partitions()).as("the transaction is over: no partitions").isEmpty();
        assertThat(written(f)).endsWith(TransactionState.PREPARE_COMMIT, TransactionState.COMPLETE_COMMIT);
        assertThat(f.coordinator.pendingState(ID)).isEmpty();
    }

    @Test
    void markersWrittenTheMomentTheyAreSentCompleteTheTransactionAtOnce() throws Exception {
        TxnFixture f = new TxnFixture();
        f.markers.autoDeliver = true; // one broker: every partition local, each report made inside send
        InitProducerIdResult producer = open(f);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 20)).isEqualTo(TxnError.NONE);
        assertThat(f.state(ID).state()).as("the channel reported every marker written before send returned: what is"
                + " owed must be recorded before the marker is sent, or those reports find nothing owed and the"
                + " Complete state is never written").isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(f.coordinator.pendingState(ID)).as("nothing left in flight").isEmpty();
    }

    @Test
    void aTransactionWithoutPartitionsIsCompleteAtOnce() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.add(ID, producer, T0 + 10)).as("an AddPartitionsToTxn naming no partition").isEqualTo(TxnError.NONE);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 20)).isEqualTo(TxnError.NONE);
        assertThat(f.markers.sent).as("no partition, no marker to send").isEmpty();
        assertThat(f.state(ID).state()).as("a transaction without partitions owes no marker: its Complete state is"
                + " written at once (nothing would ever report on an empty marker)")
                .isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void anAbortGoesTheSameWay() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        assertThat(f.end(ID, producer, TransactionResult.ABORT, T0 + 20)).isEqualTo(TxnError.NONE);
        assertThat(f.markers.sent.get(0).result()).isEqualTo(TransactionResult.ABORT);
        f.markers.deliverAll();
        assertThat(written(f)).endsWith(TransactionState.PREPARE_ABORT, TransactionState.COMPLETE_ABORT);
        assertThat(f.state(ID).producerEpoch()).as("the client's own abort keeps the epoch (transaction version 1)")
                .isEqualTo(producer.producerEpoch());
    }

    @Test
    void aRetriedEndOfATransactionEndedTheSameWayIsAnsweredNone() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        f.end(ID, producer, TransactionResult.COMMIT, T0 + 20);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 21)).as("its markers are still being written:"
                + " retry").isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        f.markers.deliverAll();
        int records = f.logOf(ID).size();
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 22)).as("committed already: the retry (its answer"
                + " was lost) is a success").isEqualTo(TxnError.NONE);
        assertThat(f.logOf(ID).size()).as("and writes nothing").isEqualTo(records);
        assertThat(f.end(ID, producer, TransactionResult.ABORT, T0 + 23)).as("abort after commit: the transaction"
                + " ended the other way").isEqualTo(TxnError.INVALID_TXN_STATE);
    }

    @Test
    void nothingOpenIsNothingToEnd() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = f.init(ID, T0);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, T0 + 1)).as("Empty: no transaction began")
                .isEqualTo(TxnError.INVALID_TXN_STATE);
    }

    @Test
    void onlyTheIdsProducerAtItsEpochEndsItsTransaction() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        assertThat(f.end(ID, InitProducerIdResult.of(producer.producerId(), (short) (producer.producerEpoch() + 1)),
                TransactionResult.COMMIT, T0 + 20)).as("a client's EndTxn carries the id's epoch exactly, not a higher one")
                .isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(f.end(ID, InitProducerIdResult.of(producer.producerId() + 1, producer.producerEpoch()),
                TransactionResult.COMMIT, T0 + 20)).isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.ONGOING);
    }

    @Test
    void aCoordinatorThatRestartsAfterPrepareSendsTheMarkersAgain() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult producer = open(f);
        f.end(ID, producer, TransactionResult.COMMIT, T0 + 20);
        f.markers.dropAll(); // the coordinator dies with its markers unsent
        f.markers.sent.clear();
        f.start();
        assertThat(f.markers.sent).as("the new coordinator replays PrepareCommit: a promise to keep, so the markers go"
                + " out again").extracting(TxnMarker::result).containsExactly(TransactionResult.COMMIT);
        assertThat(f.coordinator.endTxn(new EndTxnRequest(ID, producer.producerId(), producer.producerEpoch(),
                TransactionResult.ABORT), T0 + 30)).as("and the commit cannot be turned into an abort").isIn(
                TxnError.CONCURRENT_TRANSACTIONS, TxnError.INVALID_TXN_STATE);
        f.markers.deliverAll();
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void aNewProducerDuringATransactionAbortsItAtTheBumpedEpoch() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult zombie = open(f);
        InitProducerIdResult retry = f.init(ID, T0 + 30);
        assertThat(retry.error()).as("the open transaction is aborted first; the new producer retries")
                .isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        TxnTransit state = f.state(ID);
        assertThat(state.state()).isEqualTo(TransactionState.PREPARE_ABORT);
        assertThat(state.producerEpoch()).as("the abort is written at epoch + 1: the fence").isEqualTo((short) 1);
        assertThat(f.markers.sent.get(0).producerEpoch()).as("the ABORT markers carry the bumped epoch, so each"
                + " partition fences the zombie too").isEqualTo((short) 1);
        assertThat(f.add(ID, zombie, T0 + 31, ORDERS_0)).as("while the abort's markers are written, every request"
                + " waits").isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        f.markers.deliverAll();
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(f.add(ID, zombie, T0 + 32, ORDERS_0)).as("then the zombie at epoch 0 is fenced: its records join no"
                + " transaction").isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(f.end(ID, zombie, TransactionResult.COMMIT, T0 + 33)).as("nor can it commit")
                .isEqualTo(TxnError.PRODUCER_FENCED);
        InitProducerIdResult producer = f.init(ID, T0 + 40);
        assertThat(producer.producerEpoch()).as("the retry, once the abort is complete, bumps once more").isEqualTo(
                (short) 2);
    }

    @Test
    void everyEndTxnOnAnyStateIsDecidedAsKafkasCoordinatorDecides() {
        Property.forAll(TxnGens.seeds().flatMap(seed -> c -> new Object[] {seed,
                TxnGens.producers(seed.state()).generate(c),
                Gens.elements(TransactionResult.COMMIT, TransactionResult.ABORT).generate(c)})).tries(150).check(input -> {
                    TxnGens.Seed seed = (TxnGens.Seed) input[0];
                    ProducerIdAndEpoch producer = (ProducerIdAndEpoch) input[1];
                    TransactionResult result = (TransactionResult) input[2];
                    KafkaCoordinator kafka = new KafkaCoordinator(2000);
                    seed.seed(kafka, ID);
                    String kafkas = TxnGens.kafkasOutcome(kafka, kafka.end(new EndTxnRequest(ID, producer.producerId(),
                            producer.epoch(), result), T0));
                    TransactionMetadata md = seed.ours(ID);
                    String yours = TxnGens.ourOutcome(md, () -> md.prepareEndTxn(producer.producerId(), producer.epoch(),
                            result, true, T0));
                    Judge.agree("EndTxn(" + producer + ", " + result + ") on " + seed, "outcome", yours,
                            "TransactionCoordinator.handleEndTransaction gives", kafkas,
                            "the id's producer at its exact epoch; Ongoing -> Prepare; ended the same way: NONE; being"
                                    + " ended the same way: CONCURRENT_TRANSACTIONS; otherwise INVALID_TXN_STATE");
                });
    }

    @Test
    void everySequenceOfTransactionsIsAnsweredAsKafkasCoordinatorAnswers() {
        Property.forAll(Differential.sequences(Gens.oneOf(Differential.adds(), Differential.ends(), Differential.ends(),
                Differential.inits()), 12)).tries(80).check(ops -> Differential.run(ops,
                "two phases: Prepare written and answered, a marker to every partition, then Complete; a new producer"
                        + " aborts the open transaction at the bumped epoch first"));
    }
}
