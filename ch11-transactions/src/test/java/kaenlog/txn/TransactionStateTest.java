package kaenlog.txn;

import static kaenlog.txn.TransactionState.COMPLETE_ABORT;
import static kaenlog.txn.TransactionState.COMPLETE_COMMIT;
import static kaenlog.txn.TransactionState.DEAD;
import static kaenlog.txn.TransactionState.EMPTY;
import static kaenlog.txn.TransactionState.ONGOING;
import static kaenlog.txn.TransactionState.PREPARE_ABORT;
import static kaenlog.txn.TransactionState.PREPARE_COMMIT;
import static kaenlog.txn.TransactionState.PREPARE_EPOCH_FENCE;
import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: the states of a transactional id, and which state may follow which (Kafka's TransactionState). */
@Order(1)
class TransactionStateTest {

    @Test
    void aTransactionBeginsOnlyFromAnIdAtRestOrGrowsWhileOpen() {
        assertThat(ONGOING.validPreviousStates()).as("Ongoing follows Empty and the Complete states (AddPartitions"
                + " begins a transaction) and Ongoing itself (AddPartitions adds to it); never a Prepare state: a"
                + " transaction being ended takes no new partition").containsExactlyInAnyOrder(EMPTY, COMPLETE_COMMIT,
                COMPLETE_ABORT, ONGOING);
    }

    @Test
    void onlyAnOpenTransactionIsPreparedForCommit() {
        assertThat(PREPARE_COMMIT.validPreviousStates()).as("PrepareCommit follows Ongoing alone: there is nothing"
                + " to commit in Empty, and a fenced producer's transaction may only be aborted").containsExactly(ONGOING);
    }

    @Test
    void anAbortIsPreparedFromAnOpenTransactionOrAFence() {
        assertThat(PREPARE_ABORT.validPreviousStates()).as("PrepareAbort follows Ongoing (EndTxn abort) and"
                + " PrepareEpochFence (the coordinator aborts the fenced producer's transaction); Kafka's table also"
                + " lists Empty and the Complete states, for KIP-890's aborts with nothing open")
                .containsExactlyInAnyOrder(ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
    }

    @Test
    void aCompleteStateFollowsOnlyItsOwnPrepareState() {
        assertThat(COMPLETE_COMMIT.validPreviousStates()).as("CompleteCommit only once PrepareCommit was written"
                + " (the promise comes before the markers)").containsExactly(PREPARE_COMMIT);
        assertThat(COMPLETE_ABORT.validPreviousStates()).as("CompleteAbort only after PrepareAbort")
                .containsExactly(PREPARE_ABORT);
    }

    @Test
    void aNewEpochIsGivenOnlyToAnIdAtRest() {
        assertThat(EMPTY.validPreviousStates()).as("InitProducerId moves to Empty from Empty or a Complete state;"
                + " with a transaction open it fences instead").containsExactlyInAnyOrder(EMPTY, COMPLETE_COMMIT,
                COMPLETE_ABORT);
        assertThat(PREPARE_EPOCH_FENCE.validPreviousStates()).as("the fence is for an open transaction only")
                .containsExactly(ONGOING);
    }

    @Test
    void anIdExpiresOnlyAtRest() {
        assertThat(DEAD.validPreviousStates()).as("an expired id is removed only with no transaction open or ending")
                .containsExactlyInAnyOrder(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
    }

    @Test
    void everyTransitionIsLegalExactlyWhenKafkasTableSaysSo() {
        TransactionState[] states = TransactionState.values();
        Property.forAll(Gens.elements(states).zip(Gens.elements(states), (from, to) -> new TransactionState[] {from, to}))
                .tries(300).show(pair -> pair[0] + " -> " + pair[1]).check(pair -> {
                    TransactionState from = pair[0];
                    TransactionState to = pair[1];
                    boolean kafkas = KafkaCoordinator.kafkas(to).validPreviousStates().contains(KafkaCoordinator.kafkas(from));
                    Judge.agree(from + " -> " + to, "answer", to.mayFollow(from),
                            "TransactionState.validPreviousStates says", kafkas,
                            "a transition is legal only from the states Kafka lists for its target");
                });
    }

    @Test
    @PassesOnSkeleton("the states' bytes and names are given with the enum")
    void eachStateHasKafkasByteAndName() {
        for (TransactionState state : TransactionState.values()) {
            org.apache.kafka.coordinator.transaction.TransactionState kafkas = KafkaCoordinator.kafkas(state);
            assertThat(state.id()).as("%s's status byte in __transaction_state", state).isEqualTo(kafkas.id());
            assertThat(state.stateName()).as("%s's name", state).isEqualTo(kafkas.stateName());
            assertThat(TransactionState.fromId(kafkas.id())).as("the state of byte %s", kafkas.id()).contains(state);
        }
        assertThat(TransactionState.fromId((byte) 8)).as("byte 8 names no state").isEmpty();
    }
}
