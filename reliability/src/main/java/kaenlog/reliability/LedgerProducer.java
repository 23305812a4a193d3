package kaenlog.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceResponse;

/**
 * A plain producer (no idempotence, no retries) that writes down in a {@link Ledger} what the broker
 * told it. It sends one batch at a time and waits for its answer; a batch whose answer does not
 * come (the broker died) is in doubt and is never sent again, so no record can be in the log twice
 * by the producer's doing. Its sequence numbers run on across broker restarts.
 */
final class LedgerProducer {
    static final int READ_TIMEOUT_MS = 20_000;

    private final int id;
    private final String partition;
    private final short acks;
    private final int maxBatchRecords;
    private final Random random;
    private final Ledger ledger;
    private long nextSeq;
    private long rejected;
    private String lastRejection;
    private Ledger.Batch lastAcked;

    LedgerProducer(int id, String partition, short acks, int maxBatchRecords, long seed, Ledger ledger) {
        this.id = id;
        this.partition = partition;
        this.acks = acks;
        this.maxBatchRecords = maxBatchRecords;
        this.random = new Random(seed);
        this.ledger = ledger;
    }

    /**
     * Sends batches on one connection until {@code maxBatches} were answered or the connection
     * breaks. Every acknowledged record is added to {@code ackedRecords}.
     */
    void runUntilBroken(String host, int port, int maxBatches, AtomicLong ackedRecords) {
        try (BrokerClient client = BrokerClient.connect(host, port, READ_TIMEOUT_MS)) {
            for (int sent = 0; sent < maxBatches; sent++) {
                if (!sendOne(client, ackedRecords)) {
                    return;
                }
            }
        } catch (IOException cannotConnect) {
            // the broker is gone before the first batch: nothing was sent, nothing is in doubt
        }
    }

    /** One batch; false when its answer did not come (the batch is then in doubt). */
    boolean sendOne(BrokerClient client, AtomicLong ackedRecords) {
        int count = 1 + random.nextInt(maxBatchRecords);
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < count; i++) {
            builder.append(0L, null, Ledger.value(id, nextSeq + i));
        }
        ByteBuffer batch = builder.build();
        long first = nextSeq;
        nextSeq += count;
        ProduceResponse response;
        try {
            response = client.produce(partition, acks, batch);
        } catch (IOException | RuntimeException noAnswer) {
            ledger.inDoubt(partition, id, first, count);
            return false;
        }
        if (response.error() == ErrorCode.NONE) {
            ledger.acked(partition, id, first, count, response.baseOffset(), response.lastOffset());
            lastAcked = new Ledger.Batch(partition, id, first, count, response.baseOffset(), response.lastOffset());
            ackedRecords.addAndGet(count);
        } else {
            rejected++;
            lastRejection = response.error() + " for " + Ledger.value(id, first) + " x" + count;
        }
        return true;
    }

    int id() {
        return id;
    }

    String partition() {
        return partition;
    }

    long rejected() {
        return rejected;
    }

    String lastRejection() {
        return lastRejection;
    }

    /** The batch most recently acknowledged, or null. */
    Ledger.Batch lastAcked() {
        return lastAcked;
    }
}
