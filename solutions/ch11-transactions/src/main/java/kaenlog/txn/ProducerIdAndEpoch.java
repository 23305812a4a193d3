package kaenlog.txn;

/** A producer id with one of its epochs, as a request names the producer it comes from. */
public record ProducerIdAndEpoch(long producerId, short epoch) {
}
