package kaenlog.txn;

import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The coordinator holds a bounded number of transactional ids (given code around task 2 (InitProducerIdTest)): Kafka keeps
 * every id until it has been idle for {@code transactional.id.expiration.ms} (7 days), so a client
 * that makes up new ids would fill the heap first. Past the budget a new id is answered
 * COORDINATOR_NOT_AVAILABLE (retriable: the producer waits), and the ids already held go on.
 */
@Order(24)
class TransactionalIdBudgetTest {

    @Test
    void aNewIdPastTheCountIsRefusedRetriablyAndTheHeldIdsGoOn() throws Exception {
        TxnFixture f = new TxnFixture(TxnConfig.defaults().withIdBudget(3, 1 << 20));
        for (String id : new String[] {"a", "b", "c"}) {
            assertThat(f.init(id, T0).error()).as("id %s fits in the budget of 3", id).isEqualTo(TxnError.NONE);
        }
        assertThat(f.init("d", T0).error()).as("a fourth id: COORDINATOR_NOT_AVAILABLE, which the producer retries")
                .isEqualTo(TxnError.COORDINATOR_NOT_AVAILABLE);
        assertThat(f.coordinator.transaction("d")).as("and nothing of it is held or written").isEmpty();
        assertThat(f.logOf("d").written()).as("its partition's log has no record of it")
                .noneMatch(e -> e.getKey().equals("d"));
        assertThat(f.init("a", T0 + 1).producerEpoch()).as("an id already held is served as before: bumped to 1")
                .isEqualTo((short) 1);
        assertThat(f.coordinator.heldIds()).isEqualTo(3);
    }

    @Test
    void theIdsBytesAreBoundedTooAndARestartCountsWhatItReplays() throws Exception {
        TxnFixture f = new TxnFixture(TxnConfig.defaults().withIdBudget(100, 2_000));
        String longId = "x".repeat(1_500);
        assertThat(f.init(longId, T0).error()).as("1,500 bytes of 2,000").isEqualTo(TxnError.NONE);
        assertThat(f.init("é".repeat(300), T0).error()).as("300 characters, but 600 bytes in UTF-8: over the 2,000")
                .isEqualTo(TxnError.COORDINATOR_NOT_AVAILABLE);
        assertThat(f.init("y".repeat(500), T0).error()).as("exactly the 500 bytes left").isEqualTo(TxnError.NONE);
        f.start();
        assertThat(f.init("z", T0 + 1).error()).as("a coordinator that replayed the log holds both ids again, and"
                + " counts their bytes").isEqualTo(TxnError.COORDINATOR_NOT_AVAILABLE);
        assertThat(f.init(longId, T0 + 1).producerEpoch()).as("while the ids it holds are served").isEqualTo((short) 1);
    }
}
