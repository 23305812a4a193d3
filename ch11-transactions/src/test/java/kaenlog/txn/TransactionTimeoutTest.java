package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ID;
import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.T0;
import static kaenlog.txn.TxnFixture.TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 7: the transaction timeout. A transaction open longer than its transaction.timeout.ms is
 * aborted by the coordinator, at the bumped epoch (so its producer, should it wake up, is fenced),
 * when the coordinator's tick comes; time is the tick's {@code nowMs}.
 */
@Order(7)
class TransactionTimeoutTest {
    private static final long START = T0 + 10;

    private TxnFixture f;
    /** The producer of ID, whose transaction on orders-0 began at START, timeout 60 s. */
    private InitProducerIdResult producer;

    @BeforeEach
    void openATransaction() throws Exception {
        f = new TxnFixture();
        producer = f.init(ID, T0);
        assertThat(f.add(ID, producer, START, ORDERS_0)).isEqualTo(TxnError.NONE);
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsAborted() {
        f.coordinator.abortTimedOutTransactions(START + TIMEOUT_MS);
        assertThat(f.state(ID).state()).as("at start + timeout exactly it is not past its timeout yet (Kafka: start +"
                + " timeout < now)").isEqualTo(TransactionState.ONGOING);
        f.coordinator.abortTimedOutTransactions(START + TIMEOUT_MS + 1);
        assertThat(f.state(ID).state()).as("one millisecond later the coordinator aborts it").isEqualTo(
                TransactionState.PREPARE_ABORT);
        assertThat(f.markers.sent).extracting(TxnMarker::result).containsExactly(TransactionResult.ABORT);
        f.markers.deliverAll();
        assertThat(f.state(ID).state()).isEqualTo(TransactionState.COMPLETE_ABORT);
    }

    @Test
    void theTimedOutProducerIsFenced() {
        f.coordinator.abortTimedOutTransactions(START + TIMEOUT_MS + 1);
        f.markers.deliverAll();
        assertThat(f.state(ID).producerEpoch()).as("the abort bumps the epoch, as a new producer's InitProducerId would")
                .isEqualTo((short) (producer.producerEpoch() + 1));
        assertThat(f.markers.sent.get(0).producerEpoch()).as("its markers carry the bumped epoch").isEqualTo(
                (short) (producer.producerEpoch() + 1));
        assertThat(f.add(ID, producer, START + TIMEOUT_MS + 2, ORDERS_1)).as("the producer wakes up and adds a"
                + " partition: it would begin a new transaction in its old one's place; it is fenced instead")
                .isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(f.end(ID, producer, TransactionResult.COMMIT, START + TIMEOUT_MS + 3)).as("nor may it commit what was"
                + " aborted").isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void theTimeoutCountsFromTheTransactionsStartNotItsLastChange() {
        f.add(ID, producer, START + 50_000, ORDERS_1);
        f.coordinator.abortTimedOutTransactions(START + TIMEOUT_MS + 1);
        assertThat(f.state(ID).state()).as("a partition added 50 s in does not extend the transaction's life")
                .isEqualTo(TransactionState.PREPARE_ABORT);
    }

    @Test
    void onlyAnOpenTransactionTimesOut() {
        String idle = "idle-app";
        InitProducerIdResult resting = f.init(idle, T0);
        f.end(ID, producer, TransactionResult.COMMIT, START + 1);
        assertThatCode(() -> f.coordinator.abortTimedOutTransactions(START + 10 * TIMEOUT_MS)).as("only Ongoing times"
                + " out: an Empty id has no transaction, a commit being written is decided").doesNotThrowAnyException();
        assertThat(f.state(idle).state()).as("Empty: nothing to abort").isEqualTo(TransactionState.EMPTY);
        assertThat(f.state(idle).producerEpoch()).as("and nobody is fenced").isEqualTo(resting.producerEpoch());
        assertThat(f.state(ID).state()).as("a commit whose markers are still being written is decided: the timeout"
                + " cannot turn it into an abort").isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(f.markers.sent).extracting(TxnMarker::result).containsExactly(TransactionResult.COMMIT);
        f.markers.deliverAll();
        assertThatCode(() -> f.coordinator.abortTimedOutTransactions(START + 20 * TIMEOUT_MS)).as("only Ongoing times"
                + " out: CompleteCommit has nothing open").doesNotThrowAnyException();
        assertThat(f.state(ID).state()).as("CompleteCommit stays").isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void everySequenceWithTimeGoingByIsAnsweredAsKafkasCoordinatorAnswers() {
        Property.forAll(Differential.sequences(Gens.oneOf(Differential.adds(), Differential.ends(), Differential.waits(),
                Differential.waits(), Differential.inits()), 12)).tries(80).check(ops -> Differential.run(ops,
                "Ongoing with start + timeout < now is aborted, its producer fenced at epoch + 1; nothing else times out"));
    }
}
