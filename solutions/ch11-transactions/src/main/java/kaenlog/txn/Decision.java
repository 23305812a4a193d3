package kaenlog.txn;

/**
 * What the coordinator does with a request, decided from the transactional id's state alone (the
 * coordinator then does it): answer at once, write a transition and answer once it is written, or
 * (InitProducerId with a transaction open) fence the old producer by aborting its transaction.
 */
public sealed interface Decision {
    /** Nothing to write: the answer is {@code error} (NONE for a request already done). */
    record Answer(TxnError error) implements Decision {
    }

    /** Write {@code next} to {@code __transaction_state}, apply it, then answer. */
    record Write(TxnTransit next) implements Decision {
    }

    /**
     * A transaction is open: abort it at the bumped epoch of {@code fenced} (state PrepareEpochFence),
     * so the old producer's next request is refused, and answer CONCURRENT_TRANSACTIONS: the new
     * producer retries once the abort is complete.
     */
    record Fence(TxnTransit fenced) implements Decision {
    }

    static Decision answer(TxnError error) {
        return new Answer(error);
    }
}
