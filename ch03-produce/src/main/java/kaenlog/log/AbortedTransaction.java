package kaenlog.log;

/**
 * An aborted transaction as a read_committed fetch answers it (Kafka's FetchResponse
 * {@code aborted_transactions}: producer id, first offset): the consumer drops that producer's
 * transactional batches from {@code firstOffset} on until it reads the producer's ABORT marker.
 * Chapter 11 keeps them; a log without transactions has none.
 */
public record AbortedTransaction(long producerId, long firstOffset) {
}
