package kaenlog.reliability.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.cluster.Checkpoints;
import kaenlog.reliability.Deadline;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;

/**
 * What the cluster showed the outside while a scenario ran, for invariant 5 (a replica's high
 * watermark never goes back; a prefix served to a consumer is never lost):
 * <ul>
 * <li>a consumer that tails the partition on whoever leads, over kaen-log's port, and keeps every
 *     record it was served (offset and value) and each high watermark each broker's life told it;</li>
 * <li>every broker's {@code replication-offset-checkpoint}, read every few milliseconds: the high
 *     watermark each replica wrote, across its restarts.</li>
 * </ul>
 * Both run in threads of their own until {@link #close()}, each loop bounded in time.
 */
public final class ClusterObserver implements Closeable {
    private static final int FETCH_MAX_BYTES = 256 * 1024;
    private static final int FETCH_WAIT_MS = 200;
    private static final long POLL_MS = 20;

    private final ClusterHarness cluster;
    private final long maxMs;
    private final Map<Long, String> served = new HashMap<>();
    private final List<String> problems = new ArrayList<>();
    /** broker -> life -> every high watermark a consumer fetch was answered with, in order. */
    private final SortedMap<Integer, SortedMap<Integer, List<Long>>> servedHws = new TreeMap<>();
    /** broker -> every high watermark its checkpoint file held, in order (only the changes). */
    private final SortedMap<Integer, List<Long>> checkpointedHws = new TreeMap<>();
    private long fetches;
    private volatile boolean closed;
    private final Thread consumer;
    private final Thread checkpoints;

    private ClusterObserver(ClusterHarness cluster, long maxMs) {
        this.cluster = cluster;
        this.maxMs = maxMs;
        this.consumer = new Thread(this::consume, "cluster-observer-consumer");
        this.checkpoints = new Thread(this::readCheckpoints, "cluster-observer-checkpoints");
        consumer.setDaemon(true);
        checkpoints.setDaemon(true);
    }

    /** Starts watching; it stops by itself after {@code maxMs}. */
    public static ClusterObserver start(ClusterHarness cluster, long maxMs) {
        ClusterObserver observer = new ClusterObserver(cluster, maxMs);
        observer.consumer.start();
        observer.checkpoints.start();
        return observer;
    }

    private void consume() {
        Deadline deadline = Deadline.in(maxMs);
        long offset = 0;
        BrokerClient client = null;
        int broker = -1;
        int life = -1;
        while (!closed && !deadline.passed()) {
            try {
                if (client == null) {
                    broker = cluster.leader();
                    if (broker < 0) {
                        Deadline.pause(POLL_MS);
                        continue;
                    }
                    life = cluster.node(broker).lives();
                    client = BrokerClient.connect("127.0.0.1", cluster.node(broker).port(), 5_000);
                }
                FetchResponse response = client.fetch(FetchRequest.consumer(ClusterHarness.PARTITION, offset,
                        FETCH_MAX_BYTES, FETCH_WAIT_MS));
                if (response.error() == ErrorCode.OFFSET_OUT_OF_RANGE) {
                    problem("broker " + broker + " answered OFFSET_OUT_OF_RANGE to a consumer at offset " + offset
                            + ", below a high watermark served before: a served prefix is gone from its log");
                }
                if (response.error() != ErrorCode.NONE) {
                    client = close(client);
                    Deadline.pause(POLL_MS);
                    continue;
                }
                offset = take(response, offset, broker, life);
            } catch (IOException | RuntimeException e) {
                client = close(client);
                Deadline.pause(POLL_MS);
            }
        }
        close(client);
    }

    /** Keeps the response's records and its high watermark; the next fetch offset. */
    private synchronized long take(FetchResponse response, long offset, int broker, int life) {
        fetches++;
        servedHws.computeIfAbsent(broker, b -> new TreeMap<>()).computeIfAbsent(life, l -> new ArrayList<>())
                .add(response.highWatermark());
        long next = offset;
        for (RecordBatch batch : RecordBatch.decodeAll(response.records())) {
            for (Record r : batch.records()) {
                if (r.offset() < offset) {
                    continue;
                }
                String value = Record.show(r.value());
                String before = served.putIfAbsent(r.offset(), value);
                if (before != null && !before.equals(value)) {
                    problem("offset " + r.offset() + " was served as '" + before + "', then as '" + value + "' by broker "
                            + broker);
                }
            }
            next = Math.max(next, batch.nextOffset());
        }
        return next;
    }

    private void readCheckpoints() {
        Deadline deadline = Deadline.in(maxMs);
        while (!closed && !deadline.passed()) {
            readCheckpointsOnce();
            Deadline.pause(POLL_MS);
        }
    }

    private synchronized void record(int broker, long hw) {
        List<Long> seen = checkpointedHws.computeIfAbsent(broker, b -> new ArrayList<>());
        if (seen.isEmpty() || seen.get(seen.size() - 1) != hw) {
            seen.add(hw);
        }
    }

    private synchronized void problem(String what) {
        if (problems.size() < 20) {
            problems.add(what);
        }
    }

    private static BrokerClient close(BrokerClient client) {
        if (client != null) {
            try {
                client.close();
            } catch (IOException ignored) {
                // gone
            }
        }
        return null;
    }

    /** A record another consumer (kafka-clients) was served, kept as the tailing consumer's are. */
    public synchronized void served(long offset, String value, String who) {
        String before = served.putIfAbsent(offset, value);
        if (before != null && !before.equals(value)) {
            problem("offset " + offset + " was served as '" + before + "', then as '" + value + "' to " + who);
        }
    }

    /** Every record a consumer was served: offset to value. */
    public synchronized Map<Long, String> served() {
        return Map.copyOf(served);
    }

    public synchronized SortedMap<Integer, SortedMap<Integer, List<Long>>> servedHighWatermarks() {
        SortedMap<Integer, SortedMap<Integer, List<Long>>> copy = new TreeMap<>();
        servedHws.forEach((b, lives) -> {
            SortedMap<Integer, List<Long>> l = new TreeMap<>();
            lives.forEach((n, hws) -> l.put(n, List.copyOf(hws)));
            copy.put(b, l);
        });
        return copy;
    }

    public synchronized SortedMap<Integer, List<Long>> checkpointedHighWatermarks() {
        SortedMap<Integer, List<Long>> copy = new TreeMap<>();
        checkpointedHws.forEach((b, hws) -> copy.put(b, List.copyOf(hws)));
        return copy;
    }

    public synchronized List<String> problems() {
        return List.copyOf(problems);
    }

    public synchronized long fetches() {
        return fetches;
    }

    /** Stops both threads; after one last read of every checkpoint file (the brokers' final ones). */
    @Override
    public void close() {
        closed = true;
        try {
            consumer.join(10_000);
            checkpoints.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        readCheckpointsOnce(); // the last values the brokers wrote
    }

    /** Every broker's checkpointed high watermark of the partition, as it stands in its file now. */
    private void readCheckpointsOnce() {
        for (ClusterHarness.Node node : cluster.nodes()) {
            try {
                Long hw = Checkpoints.readHighWatermarks(node.dir()).get(ClusterHarness.PARTITION);
                if (hw != null) {
                    record(node.id(), hw);
                }
            } catch (IOException | RuntimeException notYet) {
                // no file yet, or caught between its write and its move: the next read sees it
            }
        }
    }
}
