package kaenlog.client;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kaenlog.batch.BatchHeader;
import kaenlog.idem.Idempotence;
import kaenlog.idem.ProducerStateEntry;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * An idempotent producer over TCP: it asks the broker for a producer id (INIT_PRODUCER_ID), numbers
 * its records per partition from 0, keeps at most five requests in flight on its connection, and
 * when an answer does not come back (the connection broke) it reconnects and resends every
 * unanswered batch <b>byte for byte</b>: the same producer id, epoch and sequence numbers. The
 * broker writes the ones it never received and answers the others as duplicates with their
 * original offsets, so each batch is in the log exactly once.
 *
 * <p>Two rules make that true, and both are Kafka's: never more than
 * {@link ProducerStateEntry#NUM_BATCHES_TO_RETAIN} requests in flight (the broker only recognises
 * the last five batches: max.in.flight.requests.per.connection &lt;= 5), and never re-batch a resend
 * (a merged or split batch has a different sequence range, and the match is exact).
 *
 * <p>Not thread-safe. Time is not read: a retry waits {@code retryBackoffMs} of sleep, nothing else.
 */
public final class IdempotentProducer implements Closeable {
    public static final int MAX_IN_FLIGHT = ProducerStateEntry.NUM_BATCHES_TO_RETAIN;
    /** Kafka's retry.backoff.ms default. */
    public static final int DEFAULT_RETRY_BACKOFF_MS = 100;
    /**
     * How long an answer may take before it counts as lost and the request is resent (Kafka's
     * producer: request.timeout.ms, 30 s). Without it, an answer lost while the connection stays up
     * (a stuck broker, a middlebox) would be waited for forever.
     */
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

    private final String host;
    private final int port;
    private final int maxInFlight;
    private final int maxReconnects;
    private final int retryBackoffMs;
    private final int requestTimeoutMs;
    private final PrintStream log;
    private final Map<String, Integer> nextSequence = new HashMap<>();
    private BrokerClient connection;
    private long producerId = BatchHeader.NO_PRODUCER_ID;
    private short producerEpoch = BatchHeader.NO_PRODUCER_EPOCH;
    private int reconnects;
    private int resentRequests;

    /** One batch on its way: its bytes never change, whatever happens to the connection. */
    private record Pending(int index, ProduceRequest request, int firstSeq, int lastSeq) {
    }

    /** An in-flight request: which batch, under which correlation id on the current connection. */
    private record InFlight(Pending batch, int correlationId) {
    }

    /** What the producer did: the answer to each batch, in order, and how often it had to start over. */
    public record Report(List<ProduceResponse> responses, int reconnects, int resentRequests) {
        public Report {
            responses = List.copyOf(responses);
        }
    }

    /**
     * @param maxInFlight   requests sent before the first is answered, 1 to {@link #MAX_IN_FLIGHT}
     * @param maxReconnects connections opened after the first before giving up
     */
    public IdempotentProducer(String host, int port, int maxInFlight, int maxReconnects, int retryBackoffMs,
                              PrintStream log) {
        this(host, port, maxInFlight, maxReconnects, retryBackoffMs, DEFAULT_REQUEST_TIMEOUT_MS, log);
    }

    public IdempotentProducer(String host, int port, int maxInFlight, int maxReconnects, int retryBackoffMs,
                              int requestTimeoutMs, PrintStream log) {
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("max in flight must be 1.." + MAX_IN_FLIGHT
                    + " (the broker remembers five batches per producer), not " + maxInFlight);
        }
        this.host = host;
        this.port = port;
        this.maxInFlight = maxInFlight;
        this.maxReconnects = maxReconnects;
        this.retryBackoffMs = retryBackoffMs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.log = log;
    }

    public long producerId() {
        return producerId;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    /**
     * Sends the batches to {@code partition}, in order, each batch's values as its records, and
     * returns once every batch was answered: NONE with its offsets (written now or before), or an
     * error that a resend cannot fix (then it throws).
     */
    public Report send(String partition, List<List<String>> batches, short acks, long nowMs) throws IOException {
        if (acks == ProduceRequest.ACKS_NONE) {
            throw new IllegalArgumentException("an idempotent producer needs answers: acks=0 would never know "
                    + "what to resend (Kafka requires acks=all for enable.idempotence)");
        }
        ensureProducerId();
        Deque<Pending> unsent = new ArrayDeque<>();
        for (int i = 0; i < batches.size(); i++) {
            unsent.add(pending(i, partition, batches.get(i), acks, nowMs));
        }
        ProduceResponse[] answers = new ProduceResponse[batches.size()];
        Deque<InFlight> inFlight = new ArrayDeque<>();
        while (!unsent.isEmpty() || !inFlight.isEmpty()) {
            try {
                while (!unsent.isEmpty() && inFlight.size() < maxInFlight) {
                    // Peek, write, then move it: a batch whose write fails must stay queued, or the next
                    // one would leave a gap the broker answers with OUT_OF_ORDER_SEQUENCE_NUMBER.
                    Pending next = unsent.peek();
                    int correlationId = write(ApiKeys.PRODUCE, next.request().encode());
                    inFlight.add(new InFlight(unsent.poll(), correlationId));
                }
                InFlight oldest = inFlight.peek();
                ProduceResponse response = ProduceResponse.decode(read(oldest.correlationId()));
                inFlight.poll();
                if (response.error() != ErrorCode.NONE) {
                    throw new IOException("batch " + oldest.batch().index() + " (sequences "
                            + oldest.batch().firstSeq() + ".." + oldest.batch().lastSeq() + ") to " + partition
                            + " failed: " + response.error() + " (a resend cannot fix it)");
                }
                answers[oldest.batch().index()] = response;
            } catch (EOFException | java.net.SocketException | java.net.SocketTimeoutException e) {
                // The answers did not come back: resend every unanswered batch unchanged, oldest first.
                List<InFlight> lost = new ArrayList<>(inFlight);
                inFlight.clear();
                for (int i = lost.size() - 1; i >= 0; i--) {
                    unsent.addFirst(lost.get(i).batch());
                }
                resentRequests += lost.size();
                reconnect(e);
            }
        }
        return new Report(List.of(answers), reconnects, resentRequests);
    }

    /** The batch of {@code values} with this producer's id, epoch and the partition's next sequences. */
    private Pending pending(int index, String partition, List<String> values, short acks, long nowMs) {
        int first = nextSequence.getOrDefault(partition, 0);
        ByteBuffer batch = Idempotence.producerBatch(producerId, producerEpoch, first, values, nowMs);
        int last = BatchHeader.incrementSequence(first, values.size() - 1);
        nextSequence.put(partition, BatchHeader.incrementSequence(last, 1));
        return new Pending(index, new ProduceRequest(partition, acks, 30_000, batch), first, last);
    }

    /** INIT_PRODUCER_ID, retried on a new connection until it is answered. */
    private void ensureProducerId() throws IOException {
        while (producerId == BatchHeader.NO_PRODUCER_ID) {
            try {
                connectIfNeeded();
                int correlationId = write(InitProducerId.API_KEY, InitProducerId.encodeRequest());
                InitProducerId.Response response = InitProducerId.Response.decode(read(correlationId));
                if (response.error() != ErrorCode.NONE) {
                    throw new IOException("INIT_PRODUCER_ID failed: " + response.error());
                }
                producerId = response.producerId();
                producerEpoch = response.producerEpoch();
            } catch (EOFException | java.net.SocketException | java.net.SocketTimeoutException e) {
                // A lost answer only costs an id: nothing was written with it.
                reconnect(e);
            }
        }
    }

    private void connectIfNeeded() throws IOException {
        if (connection == null) {
            connection = BrokerClient.connect(host, port, requestTimeoutMs);
        }
    }

    private void reconnect(IOException why) throws IOException {
        closeSocket();
        if (reconnects >= maxReconnects) {
            throw new IOException("gave up after " + reconnects + " reconnects: " + why.getMessage(), why);
        }
        reconnects++;
        log.println("connection lost (" + why.getMessage() + "); reconnect " + reconnects + ", resending unanswered"
                + " batches with the same sequence numbers");
        sleep();
        while (true) {
            try {
                connectIfNeeded();
                return;
            } catch (IOException e) {
                if (reconnects >= maxReconnects) {
                    throw new IOException("gave up after " + reconnects + " reconnects: " + e.getMessage(), e);
                }
                reconnects++;
                sleep();
            }
        }
    }

    private int write(short apiKey, byte[] body) throws IOException {
        connectIfNeeded();
        return connection.send(apiKey, body);
    }

    private byte[] read(int correlationId) throws IOException {
        return connection.receive(correlationId);
    }

    private void sleep() throws IOException {
        try {
            Thread.sleep(retryBackoffMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting to reconnect", e);
        }
    }

    private void closeSocket() {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException ignored) {
                // it is being replaced
            }
        }
        connection = null;
    }

    @Override
    public void close() {
        closeSocket();
    }
}
