package kaenlog.reliability.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.idem.Idempotence;
import kaenlog.reliability.Deadline;
import kaenlog.reliability.Ledger;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * An idempotent producer with acks=all over kaen-log's port that follows the partition's leader as
 * Kafka's producer follows its metadata: it asks ZooKeeper who leads (the harness's own session)
 * whenever the answer it got says it asked the wrong broker, or none came. One batch at a time;
 * a batch that was not acknowledged is sent again, byte for byte (same producer id, epoch and
 * sequence), to whoever leads now, until it is: the broker that already holds it answers with its
 * original offsets (chapter 7's duplicate), one that does not writes it. Every acknowledgement goes
 * to the {@link ClusterLedger} with the broker that gave it; a refusal before the append
 * (NOT_ENOUGH_REPLICAS) is counted, never acknowledged. Every wait is bounded.
 */
public final class ClusterProducer implements Closeable {
    /** The batches' timestamps: fixed, so that a run's bytes depend on the seed alone. */
    private static final long TIMESTAMP = 1_700_000_000_000L;
    private static final long RETRY_BACKOFF_MS = 50;

    private final ClusterHarness cluster;
    private final ClusterLedger ledger;
    private final int index;
    private final Random random;
    private final int maxBatchRecords;
    private final int requestTimeoutMs;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private long producerId = BatchHeader.NO_PRODUCER_ID;
    private short producerEpoch;
    private int nextSeq;
    private Pending pending;
    private BrokerClient client;
    private int clientBroker = -1;
    private volatile boolean stopped;
    private Thread background;
    private volatile Throwable backgroundFailure;

    /** The batch on its way: its bytes never change until it is acknowledged. */
    private record Pending(int firstSeq, int count, ByteBuffer bytes, int crc) {
    }

    /**
     * @param index            the producer's number in its records' values ({@code p<index>-<seq>})
     * @param requestTimeoutMs how long a leader may hold an acks=all write (the request's timeout);
     *                         the socket gives up 3 s later
     */
    public ClusterProducer(ClusterHarness cluster, ClusterLedger ledger, int index, long seed, int maxBatchRecords,
                           int requestTimeoutMs) {
        this.cluster = cluster;
        this.ledger = ledger;
        this.index = index;
        this.random = new Random(seed);
        this.maxBatchRecords = maxBatchRecords;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /**
     * Sends until {@code records} more records were acknowledged (a batch is never cut: it may go a
     * little over), or {@code timeoutMs} passed, or {@link #stop()}; true when the count was reached.
     */
    public boolean produce(long records, long timeoutMs) {
        Deadline deadline = Deadline.in(timeoutMs);
        long target = acked.get() + records;
        while (acked.get() < target && !stopped && !deadline.passed()) {
            sendPending(deadline);
        }
        return acked.get() >= target;
    }

    /** Produces in a thread of its own until {@link #stopBackground()} (at most {@code maxMs}). */
    public void startBackground(long maxMs) {
        stopped = false;
        background = new Thread(() -> {
            try {
                produce(Long.MAX_VALUE / 2, maxMs);
            } catch (RuntimeException | Error e) {
                backgroundFailure = e;
            }
        }, "cluster-producer-" + index);
        background.setDaemon(true);
        background.start();
    }

    /** Stops the background thread after its current attempt; the batch on its way stays pending. */
    public void stopBackground() {
        stopped = true;
        if (background != null) {
            try {
                background.join(2L * requestTimeoutMs + 10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (background.isAlive()) {
                throw new IllegalStateException("the producer did not stop");
            }
            background = null;
        }
        stopped = false;
        if (backgroundFailure != null) {
            throw new IllegalStateException("the producer failed", backgroundFailure);
        }
    }

    /** Stops sending (another thread may call it). */
    public void stop() {
        stopped = true;
    }

    /** Waits until at least {@code records} were acknowledged in all; false when the time ran out. */
    public boolean awaitAcked(long records, long timeoutMs) {
        return Deadline.in(timeoutMs).await(() -> acked.get() >= records || backgroundFailure != null);
    }

    public long acked() {
        return acked.get();
    }

    public long attempts() {
        return attempts.get();
    }

    /** Requests whose answer did not come within the socket's timeout. */
    public long timeouts() {
        return timeouts.get();
    }

    /** One attempt, or several, at the pending batch (made if there is none), until it is acknowledged or time is up. */
    private void sendPending(Deadline deadline) {
        int broker = cluster.leader();
        if (broker < 0) {
            Deadline.pause(RETRY_BACKOFF_MS);
            return;
        }
        try {
            connect(broker);
            if (producerId == BatchHeader.NO_PRODUCER_ID) {
                initProducerId();
            }
            if (pending == null) {
                pending = nextBatch();
            }
            attempts.incrementAndGet();
            long sentAt = System.currentTimeMillis();
            ProduceResponse response = client.produce(new ProduceRequest(ClusterHarness.PARTITION,
                    ProduceRequest.ACKS_ALL, requestTimeoutMs, pending.bytes().duplicate()));
            long answeredAt = System.currentTimeMillis();
            handle(response, broker, sentAt, answeredAt);
        } catch (java.net.SocketTimeoutException e) {
            timeouts.incrementAndGet();
            disconnect();
        } catch (IOException | RuntimeException e) {
            disconnect(); // the broker died, closed the connection, or is not there: ask who leads again
            if (!deadline.passed()) {
                Deadline.pause(RETRY_BACKOFF_MS);
            }
        }
    }

    private void handle(ProduceResponse response, int broker, long sentAt, long answeredAt) {
        ledger.answered(sentAt, answeredAt);
        ErrorCode error = response.error();
        if (error == ErrorCode.NONE) {
            ledger.acked(new ClusterLedger.Ack(index, producerId, pending.firstSeq(), pending.count(),
                    response.baseOffset(), response.lastOffset(), pending.crc(), broker, sentAt, answeredAt));
            acked.addAndGet(pending.count());
            pending = null;
            return;
        }
        switch (error) {
            case NOT_ENOUGH_REPLICAS -> ledger.refused(); // refused before the append: nothing written
            case NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT, UNKNOWN_LEADER_EPOCH,
                 FENCED_LEADER_EPOCH, UNKNOWN_PARTITION -> disconnect();
            default -> ledger.error(error + " for " + Ledger.value(index, pending.firstSeq()) + " x" + pending.count()
                    + " from broker " + broker);
        }
        Deadline.pause(RETRY_BACKOFF_MS);
    }

    private Pending nextBatch() {
        int count = 1 + random.nextInt(maxBatchRecords);
        List<String> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(Ledger.value(index, nextSeq + i));
        }
        ByteBuffer bytes = Idempotence.producerBatch(producerId, producerEpoch, nextSeq, values, TIMESTAMP + nextSeq);
        int crc = RecordBatch.decode(bytes.duplicate()).header().crc();
        Pending batch = new Pending(nextSeq, count, bytes, crc);
        nextSeq = BatchHeader.incrementSequence(nextSeq, count);
        return batch;
    }

    private void initProducerId() throws IOException {
        InitProducerId.Response response = InitProducerId.Response.decode(client.call(InitProducerId.API_KEY,
                InitProducerId.encodeRequest()));
        if (response.error() != ErrorCode.NONE) {
            throw new IOException("INIT_PRODUCER_ID: " + response.error());
        }
        producerId = response.producerId();
        producerEpoch = response.producerEpoch();
    }

    private void connect(int broker) throws IOException {
        if (client != null && clientBroker == broker) {
            return;
        }
        disconnect();
        client = BrokerClient.connect("127.0.0.1", cluster.node(broker).port(), requestTimeoutMs + 3_000);
        clientBroker = broker;
    }

    private void disconnect() {
        if (client != null) {
            try {
                client.close();
            } catch (IOException ignored) {
                // replaced
            }
        }
        client = null;
        clientBroker = -1;
    }

    /** The producer id the brokers issued it (-1 before the first batch). */
    public long producerId() {
        return producerId;
    }

    /** Stops; a batch that was never acknowledged goes to the ledger as in doubt (written or not). */
    @Override
    public void close() {
        stopped = true;
        if (background != null) {
            stopBackground();
        }
        if (pending != null) {
            ledger.inDoubt(index, pending.firstSeq(), pending.count());
            pending = null;
        }
        disconnect();
    }
}
