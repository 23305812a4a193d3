package kaenlog.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;

/**
 * The well-behaved client that runs while an attack does: on its own connection it produces a
 * small batch and reads it straight back, over and over, until stopped, and times each round (the
 * wall-clock latency an ordinary client of the broker saw meanwhile; the only times this suite
 * prints).
 */
final class SteadyClient implements Runnable {
    static final int SOCKET_TIMEOUT_MS = 10_000;

    private final BrokerProcess broker;
    private final LedgerProducer producer;
    private final Thread thread;
    private final List<Long> latenciesMicros = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong rounds = new AtomicLong();
    volatile boolean stop;
    volatile String failure;

    private SteadyClient(BrokerProcess broker, LedgerProducer producer) {
        this.broker = broker;
        this.producer = producer;
        this.thread = new Thread(this, "well-behaved-client");
        this.thread.setDaemon(true);
    }

    /** Starts producing and consuming on a thread of its own. */
    static SteadyClient start(BrokerProcess broker, LedgerProducer producer) {
        SteadyClient client = new SteadyClient(broker, producer);
        client.thread.start();
        return client;
    }

    @Override
    public void run() {
        AtomicLong acked = new AtomicLong();
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SOCKET_TIMEOUT_MS)) {
            while (!stop) {
                long start = System.nanoTime();
                if (!producer.sendOne(client, acked) || producer.rejected() > 0) {
                    failure = "produce failed: " + producer.lastRejection();
                    return;
                }
                Ledger.Batch b = producer.lastAcked();
                FetchResponse read = client.fetch(FetchRequest.consumer(producer.partition(), b.baseOffset(),
                        64 * 1024, 0));
                List<RecordBatch> batches = RecordBatch.decodeAll(read.records());
                String first = batches.isEmpty() || batches.get(0).records().isEmpty() ? null
                        : new String(batches.get(0).records().get(0).value(), StandardCharsets.UTF_8);
                if (read.error() != ErrorCode.NONE || !Ledger.value(b.producer(), b.firstSeq()).equals(first)) {
                    failure = "read back " + first + " (" + read.error() + ") instead of "
                            + Ledger.value(b.producer(), b.firstSeq());
                    return;
                }
                latenciesMicros.add((System.nanoTime() - start) / 1_000);
                rounds.incrementAndGet();
                Deadline.pause(1); // a steady client, not a flood: the attacks are the load here
            }
        } catch (IOException | RuntimeException e) {
            failure = e.toString();
        }
    }

    /** Waits (bounded) for {@code more} rounds; false when they did not come. */
    boolean awaitRounds(int more, long timeoutMs) {
        long target = rounds.get() + more;
        return Deadline.in(timeoutMs).await(() -> rounds.get() >= target || failure != null) && failure == null;
    }

    /** Stops after the round in progress. */
    void stop() {
        stop = true;
        try {
            thread.join(SOCKET_TIMEOUT_MS + 5_000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The slowest round, in milliseconds. */
    long maxLatencyMs() {
        synchronized (latenciesMicros) {
            return latenciesMicros.stream().mapToLong(Long::longValue).max().orElse(-1) / 1_000;
        }
    }

    /** "N rounds, latency median X ms, max Y ms" (or why it failed). */
    String summary() {
        List<Long> sorted;
        synchronized (latenciesMicros) {
            sorted = latenciesMicros.stream().sorted().toList();
        }
        String latency = sorted.isEmpty() ? "no round completed"
                : String.format("latency median %.1f ms, max %.1f ms", sorted.get(sorted.size() / 2) / 1000.0,
                sorted.get(sorted.size() - 1) / 1000.0);
        return "a well-behaved client did " + rounds.get() + " produce+consume rounds meanwhile, " + latency
                + (failure == null ? "" : "; it FAILED: " + failure);
    }
}
