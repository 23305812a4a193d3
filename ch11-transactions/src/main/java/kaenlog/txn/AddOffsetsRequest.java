package kaenlog.txn;

/**
 * AddOffsetsToTxn: a producer about to commit a consumer group's offsets inside its transaction
 * (sendOffsetsToTransaction) adds the group's {@code __consumer_offsets} partition to it, so that
 * the transaction's end reaches the offsets too.
 */
public record AddOffsetsRequest(String transactionalId, long producerId, short producerEpoch, String groupId) {
}
