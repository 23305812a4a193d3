package kaenlog.demo.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.Partition;
import kaenlog.broker.PartitionConfigs;
import kaenlog.broker.RequestHandler;
import kaenlog.cli.ClaimFailedException;
import kaenlog.cli.Services;
import kaenlog.client.BrokerClient;
import kaenlog.cluster.BrokerInfo;
import kaenlog.cluster.ClusterLeadership;
import kaenlog.cluster.ClusterMember;
import kaenlog.cluster.InterBrokerListener;
import kaenlog.cluster.PartitionLeader;
import kaenlog.cluster.ThreadFailures;
import kaenlog.log.FetchIsolation;
import kaenlog.wire.ProduceResponse;

/**
 * The demo's brokers, in its own process: each a chapter 3 {@link Broker} on a port the system
 * picks and on its own data directory, each a {@link ClusterMember} of the demo's ZooKeeper, their
 * followers fetching from their leader over TCP. A broker "dies" by leaving (its session closed: its
 * registration goes at once, which a crash would delay by the session timeout) and comes back on
 * the same directory. The broker's time is virtual and ticks as the real one; nothing printed
 * depends on it.
 *
 * <p>The demo drives a step, then waits for the state it leads to, never for a time: {@link #await}
 * polls, at most {@value #WAIT_MS} ms, and a wait in vain is a failed self-check. Whatever fails in a
 * broker's threads (a learner's TODO, in a member, a fetcher or a handler) is kept, and the next
 * wait throws it: the demo fails on the TODO, it never waits for ever.
 */
final class DemoCluster implements AutoCloseable {
    static final String PARTITION = "orders-0";
    static final int SESSION_MS = 4_000;
    /** Kafka's default replica.lag.time.max.ms: long enough that the brokers' own timers never shrink an ISR in a run. */
    static final long LAG_MS = 30_000;
    private static final long WAIT_MS = 15_000;
    private static final int POLL_MS = 10;

    /** A condition the demo waits for (it may read a log, or ZooKeeper). */
    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }

    /** One broker of the cluster, while it runs. */
    record Node(int id, Broker broker, ClusterMember member) {
        Optional<PartitionLeader> leader() {
            return member.leadership().leaderOf(PARTITION).filter(leader -> !leader.stopped());
        }
    }

    /** One batch of a broker's log: its offsets, the leader epoch it was written in, its CRC. */
    record Batch(long baseOffset, long lastOffset, int leaderEpoch, int crc) {
    }

    /** A broker's replica as its log says: log end offset, high watermark, batches. */
    record LogView(long leo, long hw, List<Batch> batches) {
    }

    private final String zookeeper;
    private final Path root;
    private final long startNowMs;
    private final PartitionConfigs configs;
    private final Map<Integer, Node> nodes = new TreeMap<>();
    private final Map<Integer, Door> doors = new TreeMap<>();
    private final Map<Integer, ByteArrayOutputStream> logs = new TreeMap<>();
    private final ThreadFailures failures = new ThreadFailures();
    private final ExecutorService clients = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "klog-demo-client");
        thread.setDaemon(true);
        return thread;
    });

    DemoCluster(String zookeeper, Path root, long startNowMs) {
        this.zookeeper = zookeeper;
        this.root = root;
        this.startNowMs = startNowMs;
        // short fetch waits and back-offs: a round of replication takes tens of milliseconds
        this.configs = PartitionConfigs.load().with("replica.fetch.wait.max.ms=100")
                .with("replica.fetch.backoff.ms=50").with("replica.lag.time.max.ms=" + LAG_MS);
    }

    /** Starts broker {@code id} on {@code root/broker-id}, behind its door, and joins it to the cluster. */
    Node start(int id) throws IOException {
        Door door = doors.computeIfAbsent(id, k -> new Door(failures));
        ByteArrayOutputStream bytes = logs.computeIfAbsent(id, k -> new ByteArrayOutputStream());
        PrintStream log = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ClusterLeadership leadership = new ClusterLeadership(id);
        BrokerConfig config = BrokerConfig.of(root.resolve("broker-" + id)).withStartNowMs(startNowMs)
                .withConfigs(configs).withLeadership(leadership);
        Broker broker = Broker.start(config, log, door.guard(Services.load(RequestHandler.class)));
        try {
            int replicationPort = InterBrokerListener.start(broker, "127.0.0.1", 0).port();
            ClusterMember member = ClusterMember.join(broker, leadership, zookeeper, SESSION_MS,
                    new BrokerInfo(id, "127.0.0.1", broker.port(), BrokerInfo.NO_PORT, replicationPort), log, failures);
            Node node = new Node(id, broker, member);
            nodes.put(id, node);
            return node;
        } catch (IOException | RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** Broker {@code id} leaves: its replicas stopped, its session closed, its sockets closed. */
    void stop(int id) {
        Node node = nodes.remove(id);
        node.member().close();
        node.broker().close();
    }

    Node node(int id) {
        Node node = nodes.get(id);
        if (node == null) {
            throw new IllegalStateException("broker " + id + " is not running");
        }
        return node;
    }

    Door door(int id) {
        return doors.get(id);
    }

    /**
     * Waits until {@code check} holds, at most {@value #WAIT_MS} ms; a failure in a broker's threads
     * is thrown as soon as it is seen. A wait in vain fails the demo, naming what it waited for.
     */
    void await(String what, Check check) throws InterruptedException {
        for (long waitedMs = 0; waitedMs <= WAIT_MS; waitedMs += POLL_MS) {
            rethrowFailure();
            try {
                if (check.holds()) {
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception | Error e) {
                rethrowFailure();
                throw new ClaimFailedException("while waiting until " + what + ": " + e);
            }
            Thread.sleep(POLL_MS);
        }
        rethrowFailure();
        throw new ClaimFailedException("waited " + WAIT_MS + " ms in vain until " + what);
    }

    /** The first failure of a broker's threads, if any ({@link ThreadFailures}). */
    void rethrowFailure() {
        failures.rethrowFirst();
    }

    /** A produce of one batch of {@code values} to broker {@code id}, answered, or the demo fails. */
    ProduceResponse produce(int id, short acks, List<String> values, long timestampMs) throws InterruptedException {
        int port = node(id).broker().port();
        BatchBuilder builder = new BatchBuilder();
        values.forEach(value -> builder.append(timestampMs, "k", value));
        ByteBuffer batch = builder.build();
        CompletableFuture<ProduceResponse> answer = CompletableFuture.supplyAsync(() -> {
            try (BrokerClient client = BrokerClient.connect("127.0.0.1", port, (int) WAIT_MS)) {
                return client.produce(PARTITION, acks, batch);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, clients);
        await("broker " + id + " answers a produce", answer::isDone);
        if (answer.isCompletedExceptionally()) {
            rethrowFailure();
            throw new ClaimFailedException("the produce to broker " + id + " failed: "
                    + answer.handle((ok, failure) -> failure).join());
        }
        return answer.join();
    }

    /** Broker {@code id}'s replica of the partition, read from its log. */
    LogView log(int id) throws IOException {
        Partition partition = node(id).broker().existingPartition(PARTITION)
                .orElseThrow(() -> new IllegalStateException("broker " + id + " has no " + PARTITION));
        return partition.locked(log -> {
            List<Batch> batches = new ArrayList<>();
            for (RecordBatch batch : RecordBatch.decodeAll(log.read(0, 1 << 20, FetchIsolation.LOG_END))) {
                BatchHeader header = batch.header();
                batches.add(new Batch(header.baseOffset(), header.baseOffset() + header.lastOffsetDelta(),
                        header.partitionLeaderEpoch(), header.crc()));
            }
            return new LogView(log.logEndOffset(), log.highWatermark(), List.copyOf(batches));
        });
    }

    /** Every broker's log, for {@code --logs}. */
    String brokerLogs() {
        StringBuilder all = new StringBuilder();
        logs.forEach((id, bytes) -> all.append("---- broker ").append(id).append('\n')
                .append(bytes.toString(StandardCharsets.UTF_8)));
        return all.toString();
    }

    @Override
    public void close() {
        for (int id : List.copyOf(nodes.keySet())) {
            stop(id);
        }
        clients.shutdownNow();
    }
}
