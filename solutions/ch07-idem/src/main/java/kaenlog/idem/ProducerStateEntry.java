package kaenlog.idem;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import kaenlog.batch.BatchHeader;

/**
 * The broker's memory of one producer on one partition: its epoch and its last few batches.
 *
 * <p>Mirrors Kafka 4.1.1's {@code ProducerStateEntry}: a queue with the lowest sequence at the head
 * and the highest at the tail, holding at most {@link #NUM_BATCHES_TO_RETAIN} batches; when it is
 * full the head goes to make room. Unlike Kafka, kaen-log has no epoch fencing, no transactions and
 * no time-based expiry: the epoch is only a part of the duplicate comparison.
 */
public final class ProducerStateEntry {

    /**
     * Five BATCHES, not five records: a batch of any size takes one slot. Kafka 4.1.1 uses the same
     * constant, and it is the same 5 that caps {@code max.in.flight.requests.per.connection} when
     * idempotence is on: ProducerConfig explains the cap "because broker only retains at most 5
     * batches for each producer". More requests in flight and a batch can leave the window before
     * its ack returns, so its resend is no longer recognised.
     */
    public static final int NUM_BATCHES_TO_RETAIN = 5;

    /** Kafka's RecordBatch.NO_TIMESTAMP: nothing recorded yet. */
    public static final long NO_TIMESTAMP = -1L;

    private final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(NUM_BATCHES_TO_RETAIN);
    private short producerEpoch;
    private long lastTimestamp = NO_TIMESTAMP;

    public ProducerStateEntry(short producerEpoch) {
        this.producerEpoch = producerEpoch;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    /** Rebuilding state from the log sets the epoch the batch headers carry. */
    public void setProducerEpoch(short producerEpoch) {
        this.producerEpoch = producerEpoch;
    }

    /** The timestamp of the newest recorded batch, or {@link #NO_TIMESTAMP}. */
    public long lastTimestamp() {
        return lastTimestamp;
    }

    /** The retained batches, oldest first; a read-only copy. */
    public List<BatchMetadata> batches() {
        return List.copyOf(batches);
    }

    public boolean isEmpty() {
        return batches.isEmpty();
    }

    /**
     * Remembers a batch that was just written. When the window already holds
     * {@link #NUM_BATCHES_TO_RETAIN} batches the oldest is dropped first: from then on a resend of
     * that batch is judged against the sequence rule, not recognised as a duplicate.
     */
    public void record(BatchMetadata meta) {
        Objects.requireNonNull(meta, "meta");
        // BEGIN-SOLUTION ch07 task 2: keep the newest five batches (ProducerStateEntryTest)
        if (batches.size() == NUM_BATCHES_TO_RETAIN) {
            batches.removeFirst();
        }
        lastTimestamp = meta.timestamp();
        batches.addLast(meta);
        // END-SOLUTION
    }

    /**
     * The first sequence the next batch must carry: one past the newest batch's last sequence, or 0
     * for a producer that has written nothing yet (KIP-98: sequences start from zero).
     *
     * <p>After Integer.MAX_VALUE comes 0, not Integer.MIN_VALUE: Kafka's ProducerAppendInfo.inSequence
     * accepts {@code nextSeq == lastSeq + 1L} (computed in long, so no overflow) or
     * {@code nextSeq == 0 && lastSeq == Integer.MAX_VALUE}. A plain {@code lastSeq + 1} in int would
     * expect Integer.MIN_VALUE there; kaen-log follows Kafka, with chapter 1's
     * {@code BatchHeader.incrementSequence}.
     */
    public int expectedFirstSeq() {
        // BEGIN-SOLUTION ch07 task 2: the next expected sequence, 0 when empty (ProducerStateEntryTest)
        if (batches.isEmpty()) {
            return 0;
        }
        return BatchHeader.incrementSequence(batches.getLast().lastSeq(), 1);
        // END-SOLUTION
    }

    /** The window as the demo prints it: {@code [0..1 2..3]}, oldest first; {@code []} when empty. */
    public String window() {
        StringJoiner joiner = new StringJoiner(" ", "[", "]");
        for (BatchMetadata batch : batches) {
            joiner.add(batch.seqRange());
        }
        return joiner.toString();
    }

    @Override
    public String toString() {
        return "ProducerStateEntry(epoch=" + producerEpoch + ", window=" + batches + ")";
    }
}
