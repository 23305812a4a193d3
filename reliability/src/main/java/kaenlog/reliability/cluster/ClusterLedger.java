package kaenlog.reliability.cluster;

import java.util.ArrayList;
import java.util.List;
import kaenlog.reliability.Ledger;

/**
 * The producers' ledger ({@link Ledger}, which audits a partition's records against it) and, for
 * every acknowledgement, what the cluster checker needs besides: the producer id and sequence of
 * the batch, its CRC (the broker writes the producer's bytes and only sets the base offset and the
 * leader epoch, which the CRC does not cover: the batch at the acknowledged offset must carry the
 * same CRC), which broker answered, and when the request left and the answer came (this machine's
 * wall clock, the one ZooKeeper stamps its transactions with). Thread-safe.
 */
public final class ClusterLedger {
    /**
     * One acknowledgement.
     *
     * @param producer   the producer's index in the records' values ({@code p<producer>-<seq>})
     * @param producerId the broker-issued producer id (-1 for a producer without idempotence)
     * @param firstSeq   the batch's first sequence (and the first record's number in its value)
     * @param broker     the broker that answered (-1 when the client does not say, as kafka-clients)
     */
    public record Ack(int producer, long producerId, long firstSeq, int count, long baseOffset, long lastOffset,
                      int crc, int broker, long sentAtMs, long ackedAtMs) {
    }

    private final Ledger ledger = new Ledger();
    private final List<Ack> acks = new ArrayList<>();
    private long refused;
    private long errors;
    private final List<String> errorSamples = new ArrayList<>();
    private final List<long[]> answers = new ArrayList<>();

    public synchronized void acked(Ack ack) {
        acks.add(ack);
        ledger.acked(ClusterHarness.PARTITION, ack.producer(), ack.firstSeq(), ack.count(), ack.baseOffset(),
                ack.lastOffset());
    }

    /** A batch whose fate is unknown at the end: it may be in the log, whole, or absent. */
    public synchronized void inDoubt(int producer, long firstSeq, int count) {
        ledger.inDoubt(ClusterHarness.PARTITION, producer, firstSeq, count);
    }

    /** An acks=all produce refused before the append (NOT_ENOUGH_REPLICAS): nothing written. */
    public synchronized void refused() {
        refused++;
    }

    /** An answer that is neither a success nor one of the retriable answers of a failover. */
    public synchronized void error(String what) {
        errors++;
        if (errorSamples.size() < 5) {
            errorSamples.add(what);
        }
    }

    /** Any answer the producer got (an acknowledgement, a refusal, an error): when it sent, when it heard. */
    public synchronized void answered(long sentAtMs, long answeredAtMs) {
        answers.add(new long[] {sentAtMs, answeredAtMs});
    }

    /** How long each request sent in [fromMs, toMs] waited for its answer, in ms, in the order sent. */
    public synchronized List<Long> latenciesMs(long fromMs, long toMs) {
        return answers.stream().filter(a -> a[0] >= fromMs && a[0] <= toMs).map(a -> a[1] - a[0]).toList();
    }

    public synchronized List<Ack> acks() {
        return List.copyOf(acks);
    }

    public synchronized long ackedRecords() {
        return acks.stream().mapToLong(Ack::count).sum();
    }

    public synchronized long refusedCount() {
        return refused;
    }

    public synchronized long errorCount() {
        return errors;
    }

    public synchronized List<String> errorSamples() {
        return List.copyOf(errorSamples);
    }

    /** The audit of {@link Ledger}: lost, misplaced (renumbered), duplicated, out of order, partial, strangers. */
    public Ledger ledger() {
        return ledger;
    }
}
