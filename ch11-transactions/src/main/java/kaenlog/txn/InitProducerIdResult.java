package kaenlog.txn;

/** InitProducerId's answer: the producer id and epoch to use, or an error with -1 and -1. */
public record InitProducerIdResult(TxnError error, long producerId, short producerEpoch) {
    public static InitProducerIdResult of(long producerId, short producerEpoch) {
        return new InitProducerIdResult(TxnError.NONE, producerId, producerEpoch);
    }

    public static InitProducerIdResult failed(TxnError error) {
        return new InitProducerIdResult(error, TxnTransit.NO_PRODUCER_ID, TxnTransit.NO_PRODUCER_EPOCH);
    }
}
