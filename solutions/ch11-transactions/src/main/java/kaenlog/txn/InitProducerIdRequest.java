package kaenlog.txn;

import java.util.Optional;

/**
 * InitProducerId as the coordinator takes it: a producer with {@code transactional.id} starting
 * (initTransactions()), or asking again after an error with the producer id and epoch it had
 * ({@code expected}, KIP-360; InitProducerId v3 and later). A null transactional id is an
 * idempotent producer's: a new producer id at epoch 0, no state kept.
 */
public record InitProducerIdRequest(String transactionalId, int transactionTimeoutMs,
                                    Optional<ProducerIdAndEpoch> expected) {
    public InitProducerIdRequest(String transactionalId, int transactionTimeoutMs) {
        this(transactionalId, transactionTimeoutMs, Optional.empty());
    }
}
