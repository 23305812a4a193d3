package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.T0;
import static kaenlog.txn.TxnFixture.TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 2: InitProducerId with a transactional id: a producer id and an epoch, the epoch bumped at
 * each new producer so the old one is fenced, its open transaction aborted first, a new producer id
 * when the epochs run out.
 */
@Order(2)
class InitProducerIdTest {
    private static final String ID = TxnFixture.ID;
    private static final long PID = 1000;
    private long nextId = 2000;
    private final ProducerIdSource ids = () -> nextId++;

    private static TransactionMetadata at(TransactionState state, short epoch, short lastEpoch) {
        Set<kaenlog.wire.PartitionNames.TopicPartition> partitions = state == TransactionState.ONGOING
                || state == TransactionState.PREPARE_COMMIT || state == TransactionState.PREPARE_ABORT ? Set.of(ORDERS_0) : Set.of();
        long start = state == TransactionState.EMPTY ? TxnTransit.NO_TIMESTAMP : T0 - 5_000;
        return new TransactionMetadata(ID, new TxnTransit(PID, PID, epoch, lastEpoch, TIMEOUT_MS, state,
                TxnTransit.sorted(partitions), start, T0 - 1_000));
    }

    private Decision init(TransactionMetadata md, Optional<ProducerIdAndEpoch> expected) throws IOException {
        return md.prepareInitProducerId(30_000, expected, ids, T0);
    }

    private static TxnTransit written(Decision decision) {
        assertThat(decision).as("a transition to write (Decision.Write)").isInstanceOf(Decision.Write.class);
        return ((Decision.Write) decision).next();
    }

    @Test
    void aNewIdGetsEpochZero() throws Exception {
        TransactionMetadata md = TransactionMetadata.fresh(ID, PID, TIMEOUT_MS, T0);
        TxnTransit next = written(init(md, Optional.empty()));
        assertThat(next.producerEpoch()).as("a new id has no epoch (-1) until its first InitProducerId bumps it to 0")
                .isEqualTo((short) 0);
        assertThat(next.producerId()).as("the producer id the coordinator gave the new id").isEqualTo(PID);
        assertThat(next.state()).as("no transaction yet").isEqualTo(TransactionState.EMPTY);
        assertThat(next.txnTimeoutMs()).as("the timeout the producer asked for").isEqualTo(30_000);
    }

    @Test
    void eachNewProducerOfAnIdGetsTheNextEpoch() throws Exception {
        TxnTransit next = written(init(at(TransactionState.EMPTY, (short) 4, TxnTransit.NO_PRODUCER_EPOCH), Optional.empty()));
        assertThat(next.producerEpoch()).as("epoch 4 bumped: the producer at epoch 4 is fenced").isEqualTo((short) 5);
        assertThat(next.producerId()).as("the same producer id: only the epoch tells the two producers apart")
                .isEqualTo(PID);
        assertThat(next.lastProducerEpoch()).as("without an expected epoch no last epoch is kept")
                .isEqualTo(TxnTransit.NO_PRODUCER_EPOCH);
    }

    @Test
    void aCompletedTransactionIsForgottenAtTheBump() throws Exception {
        TxnTransit next = written(init(at(TransactionState.COMPLETE_COMMIT, (short) 2, (short) 1), Optional.empty()));
        assertThat(next.state()).as("after CompleteCommit, a new producer starts at Empty").isEqualTo(TransactionState.EMPTY);
        assertThat(next.producerEpoch()).isEqualTo((short) 3);
        assertThat(next.txnStartTimestamp()).as("no transaction, no start").isEqualTo(TxnTransit.NO_TIMESTAMP);
        assertThat(next.txnLastUpdateTimestamp()).as("the time of this InitProducerId").isEqualTo(T0);
    }

    @Test
    void anOpenTransactionIsFencedAtTheNextEpochFirst() throws Exception {
        Decision decision = init(at(TransactionState.ONGOING, (short) 4, TxnTransit.NO_PRODUCER_EPOCH), Optional.empty());
        assertThat(decision).as("a transaction is open: the old producer must be fenced and its transaction aborted"
                + " before the new one may start (Decision.Fence), not a plain bump").isInstanceOf(Decision.Fence.class);
        TxnTransit fenced = ((Decision.Fence) decision).fenced();
        assertThat(fenced.state()).isEqualTo(TransactionState.PREPARE_EPOCH_FENCE);
        assertThat(fenced.producerEpoch()).as("the abort is written at epoch 5, so the producer at epoch 4 is"
                + " refused from now on").isEqualTo((short) 5);
        assertThat(fenced.partitions()).as("the transaction to abort keeps its partitions").containsExactly(ORDERS_0);
    }

    @Test
    void aFenceWhoseAbortWasNotWrittenKeepsItsEpoch() {
        TransactionMetadata md = at(TransactionState.ONGOING, (short) 5, TxnTransit.NO_PRODUCER_EPOCH);
        md.failedEpochFence();
        assertThat(md.prepareFenceProducerEpoch().producerEpoch()).as("the failed fence bumped 4 to 5 already (never"
                + " told anyone): fencing again keeps 5").isEqualTo((short) 5);
    }

    @Test
    void aTransactionBeingEndedMakesTheNewProducerRetry() throws Exception {
        for (TransactionState state : List.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)) {
            Decision decision = init(at(state, (short) 4, TxnTransit.NO_PRODUCER_EPOCH), Optional.empty());
            assertThat(decision).as("%s: the end is decided and under way; the new producer retries", state)
                    .isEqualTo(new Decision.Answer(TxnError.CONCURRENT_TRANSACTIONS));
        }
    }

    @Test
    void aTransitionInFlightMakesTheNewProducerRetry() throws Exception {
        TransactionMetadata md = at(TransactionState.COMPLETE_ABORT, (short) 4, TxnTransit.NO_PRODUCER_EPOCH);
        md.prepareTransitionTo(md.current().next(TransactionState.ONGOING).withPartitions(Set.of(ORDERS_0)));
        assertThat(init(md, Optional.empty())).as("another transition is being written: decide once it is")
                .isEqualTo(new Decision.Answer(TxnError.CONCURRENT_TRANSACTIONS));
    }

    @Test
    void theLastUsableEpochMovesToANewProducerIdAtEpochZero() throws Exception {
        TxnTransit next = written(init(at(TransactionState.EMPTY, (short) (Short.MAX_VALUE - 1),
                TxnTransit.NO_PRODUCER_EPOCH), Optional.empty()));
        assertThat(next.producerId()).as("epoch 32766 is used up (32767 is kept for fencing): a new producer id")
                .isEqualTo(2000);
        assertThat(next.producerEpoch()).as("a new producer id starts at epoch 0").isEqualTo((short) 0);
        assertThat(next.prevProducerId()).as("the producer id it replaces is remembered (for a retry)").isEqualTo(PID);
    }

    @Test
    void theEpochBeforeTheLastIsStillBumped() throws Exception {
        TxnTransit next = written(init(at(TransactionState.EMPTY, (short) (Short.MAX_VALUE - 2),
                TxnTransit.NO_PRODUCER_EPOCH), Optional.empty()));
        assertThat(next.producerId()).as("32765 is not used up: same producer id").isEqualTo(PID);
        assertThat(next.producerEpoch()).isEqualTo((short) (Short.MAX_VALUE - 1));
    }

    @Test
    void aProducerThatNamesItsEpochIsBumpedAndItsEpochRemembered() throws Exception {
        TxnTransit next = written(init(at(TransactionState.EMPTY, (short) 4, TxnTransit.NO_PRODUCER_EPOCH),
                Optional.of(new ProducerIdAndEpoch(PID, (short) 4))));
        assertThat(next.producerEpoch()).as("the producer at epoch 4 asks again after an error (KIP-360): epoch 5")
                .isEqualTo((short) 5);
        assertThat(next.lastProducerEpoch()).as("4 is remembered, so that a retry of this request is recognised")
                .isEqualTo((short) 4);
    }

    @Test
    void aRetryWithTheLastEpochIsAnsweredWithoutAnotherBump() throws Exception {
        TxnTransit next = written(init(at(TransactionState.EMPTY, (short) 5, (short) 4),
                Optional.of(new ProducerIdAndEpoch(PID, (short) 4))));
        assertThat(next.producerEpoch()).as("the bump to 5 succeeded but its answer was lost: the retry gets 5 again,"
                + " not 6").isEqualTo((short) 5);
    }

    @Test
    void aZombieThatNamesAnOlderEpochIsFenced() throws Exception {
        assertThat(init(at(TransactionState.EMPTY, (short) 5, (short) 4), Optional.of(new ProducerIdAndEpoch(PID, (short) 3))))
                .as("epoch 3 is neither the current 5 nor the last 4: a producer that was fenced")
                .isEqualTo(new Decision.Answer(TxnError.PRODUCER_FENCED));
    }

    @Test
    void anotherProducerIdIsFenced() throws Exception {
        assertThat(init(at(TransactionState.EMPTY, (short) 5, TxnTransit.NO_PRODUCER_EPOCH),
                Optional.of(new ProducerIdAndEpoch(777, (short) 5))))
                .as("producer 777 never had this transactional id").isEqualTo(new Decision.Answer(TxnError.PRODUCER_FENCED));
    }

    @Test
    void aRetryAfterTheMoveToANewProducerIdIsRecognised() throws Exception {
        TransactionMetadata md = new TransactionMetadata(ID, new TxnTransit(2000, PID, (short) 0, (short) (Short.MAX_VALUE - 1),
                TIMEOUT_MS, TransactionState.EMPTY, TxnTransit.sorted(Set.of()), TxnTransit.NO_TIMESTAMP, T0));
        TxnTransit next = written(init(md, Optional.of(new ProducerIdAndEpoch(PID, (short) (Short.MAX_VALUE - 1)))));
        assertThat(next.producerId()).as("the old producer id at its used-up epoch is the retry of the move: it gets"
                + " the new id").isEqualTo(2000);
        assertThat(next.producerEpoch()).as("epoch 0, not bumped again").isEqualTo((short) 0);
    }

    @Test
    void aTimeoutIsFromOneMillisecondToTheMaximum() {
        int max = TxnConfig.DEFAULT_MAX_TIMEOUT_MS;
        assertThat(TransactionMetadata.isValidTimeout(1, max)).as("1 ms").isTrue();
        assertThat(TransactionMetadata.isValidTimeout(max, max)).as("transaction.max.timeout.ms itself").isTrue();
        assertThat(TransactionMetadata.isValidTimeout(max + 1, max)).as("past the maximum: INVALID_TRANSACTION_TIMEOUT")
                .isFalse();
        assertThat(TransactionMetadata.isValidTimeout(0, max)).as("0 ms: a transaction that times out at once").isFalse();
        assertThat(TransactionMetadata.isValidTimeout(-1, max)).as("a negative timeout").isFalse();
    }

    @Test
    void anEpochIsUsedUpFromShortMaxValueMinusOne() {
        assertThat(TransactionMetadata.isEpochExhausted((short) (Short.MAX_VALUE - 2))).isFalse();
        assertThat(TransactionMetadata.isEpochExhausted((short) (Short.MAX_VALUE - 1))).as("32766: the last epoch a"
                + " producer may hold").isTrue();
        assertThat(TransactionMetadata.isEpochExhausted(Short.MAX_VALUE)).isTrue();
    }

    @Test
    void shortMaxValueCannotBeFenced() {
        TransactionMetadata md = at(TransactionState.ONGOING, Short.MAX_VALUE, TxnTransit.NO_PRODUCER_EPOCH);
        assertThat(catchThrowable(md::prepareFenceProducerEpoch)).as("32767 + 1 overflows a short").isInstanceOf(
                IllegalStateException.class);
    }

    @Test
    void everyInitProducerIdIsDecidedAsKafkasCoordinatorDecides() {
        Property.forAll(TxnGens.seeds().flatMap(seed -> c -> new Object[] {seed,
                Gens.oneOf(Gens.constant(Optional.<ProducerIdAndEpoch>empty()),
                        TxnGens.producers(seed.state()).map(Optional::of)).generate(c),
                Gens.elements(1, 30_000, TxnConfig.DEFAULT_MAX_TIMEOUT_MS).generate(c)}))
                .tries(150).check(input -> {
                    TxnGens.Seed seed = (TxnGens.Seed) input[0];
                    @SuppressWarnings("unchecked")
                    Optional<ProducerIdAndEpoch> expected = (Optional<ProducerIdAndEpoch>) input[1];
                    int timeoutMs = (Integer) input[2];
                    KafkaCoordinator kafka = new KafkaCoordinator(2000);
                    seed.seed(kafka, ID);
                    InitProducerIdResult answer = kafka.init(new InitProducerIdRequest(ID, timeoutMs, expected), T0);
                    String kafkas = describe(answer, kafka.written.stream().map(KafkaCoordinator.Written::transit).toList());
                    long[] next = {2000};
                    String yours = describe(Judge.Outcome.of(() -> seed.ours(ID).prepareInitProducerId(timeoutMs, expected,
                            () -> next[0]++, T0)));
                    Judge.agree("InitProducerId(" + expected.map(Object::toString).orElse("no expected producer")
                                    + ", timeout " + timeoutMs + ") on " + seed, "outcome", yours,
                            "TransactionCoordinator.handleInitProducerId gives", kafkas,
                            "bump at rest, fence an open transaction, retry while one ends, a new producer id when the"
                                    + " epochs run out, PRODUCER_FENCED for a producer that is not the id's");
                });
    }

    /** Kafka's outcome: its answer and what it wrote (a fence writes the abort at the bumped epoch). */
    private static String describe(InitProducerIdResult answer, List<TxnTransit> written) {
        if (answer.error() == TxnError.CONCURRENT_TRANSACTIONS && !written.isEmpty()
                && written.get(0).state() == TransactionState.PREPARE_ABORT) {
            TxnTransit abort = written.get(0);
            return "fence: abort at producer " + abort.producerId() + " epoch " + abort.producerEpoch();
        }
        if (answer.error() != TxnError.NONE) {
            return "answer " + answer.error() + (written.isEmpty() ? "" : " after writing " + written);
        }
        return "write " + (written.size() == 1 ? written.get(0) : written) + ", answer producer " + answer.producerId()
                + " epoch " + answer.producerEpoch();
    }

    /** Our decision, told the same way. */
    private static String describe(Judge.Outcome outcome) {
        if (outcome.refused()) {
            return "answer " + TxnError.UNKNOWN_SERVER_ERROR;
        }
        Decision decision = (Decision) outcome.value();
        if (decision instanceof Decision.Fence fence) {
            return "fence: abort at producer " + fence.fenced().producerId() + " epoch " + fence.fenced().producerEpoch();
        }
        if (decision instanceof Decision.Write write) {
            return "write " + write.next() + ", answer producer " + write.next().producerId() + " epoch "
                    + write.next().producerEpoch();
        }
        return "answer " + ((Decision.Answer) decision).error();
    }
}
