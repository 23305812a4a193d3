package kaenlog.txn;

/** EndTxn: commitTransaction() or abortTransaction(). */
public record EndTxnRequest(String transactionalId, long producerId, short producerEpoch, TransactionResult result) {
}
