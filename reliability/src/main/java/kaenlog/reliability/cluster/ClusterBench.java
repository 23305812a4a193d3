package kaenlog.reliability.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.client.IdempotentProducer;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.Deadline;
import kaenlog.reliability.Directories;
import kaenlog.wire.ProduceRequest;

/**
 * The figures of #28's "Performance": on one three-broker cluster (the harness's, three
 * {@code klog serve} processes and a ZooKeeper), acks=all throughput to a partition with
 * replication factor 3 (min.insync.replicas 2) against one with factor 1, both led by broker 1 and
 * written by the same client (chapter 7's idempotent producer, five requests in flight), rounds
 * interleaved; then the time from a SIGKILL of the leader to the first acknowledgement by its
 * successor, over {@code --kills} kills, split at the moment ZooKeeper names the new leader. The
 * brokers reach each other directly (no proxy), and run with the full JIT, as {@code klog serve} does.
 *
 * <p>{@code bench/cluster/run [--kills 10] [--rounds 5] [--batches 200] [--records 100] [--bytes 100]}
 */
public final class ClusterBench {
    private ClusterBench() {
    }

    public static void main(String[] args) {
        try {
            run(flags(args));
        } catch (IOException | RuntimeException e) {
            // said here: the ZooKeeper server in this JVM (NIOServerCnxnFactory) replaces the default
            // uncaught-exception handler with one that logs to slf4j, a no-op here
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(Map<String, Integer> flags) throws IOException {
        int kills = flags.getOrDefault("kills", 10);
        int rounds = flags.getOrDefault("rounds", 5);
        int batches = flags.getOrDefault("batches", 200);
        int records = flags.getOrDefault("records", 100);
        int bytes = flags.getOrDefault("bytes", 100);
        Path root = Files.createTempDirectory("kaenlog-cluster-bench");
        // the brokers as klog serve runs them: the full JIT and the JVM's own collector (the
        // reliability rows start theirs with C1 and the serial collector, to start fast)
        BrokerProcess.Options brokers = BrokerProcess.Options.ofThisClasspath().withMaxHeap("256m")
                .withJvmArgs(List.of("-XX:+ExitOnOutOfMemoryError"));
        try (ClusterHarness cluster = ClusterHarness.start(root, ClusterHarness.Config.standard().withDirectPeers(),
                brokers)) {
            cluster.createTopic(ClusterHarness.TOPIC, new TreeMap<>(Map.of(0, List.of(1, 2, 3))), 2);
            cluster.createTopic("solo", new TreeMap<>(Map.of(0, List.of(1))), 1);
            cluster.await("both topics led by broker 1, orders with its three replicas in sync", () ->
                    cluster.state().map(s -> s.isr().size() == 3 && s.leader() == 1).orElse(false)
                            && cluster.state("solo").map(s -> s.leader() == 1).orElse(false), ClusterRun.WAIT_MS);
            for (String partition : List.of(ClusterHarness.PARTITION, "solo-0")) {
                cluster.await("broker 1 leads " + partition, () -> cluster.node(1).process()
                        .awaitLog(l -> l.startsWith("cluster: broker 1 leads " + partition + " "), 100), ClusterRun.WAIT_MS);
            }
            throughput(cluster, rounds, batches, records, bytes);
            failovers(cluster, kills);
        } finally {
            Directories.deleteTree(root);
        }
    }

    /** Interleaved rounds, rf 3 then rf 1, each {@code batches} batches of {@code records} records; medians. */
    private static void throughput(ClusterHarness cluster, int rounds, int batches, int records, int bytes)
            throws IOException {
        String value = "x".repeat(bytes);
        List<List<String>> load = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            load.add(Collections.nCopies(records, value));
        }
        send(cluster, "orders-0", load); // a round each to warm the brokers' JIT up
        send(cluster, "solo-0", load);
        List<Double> rf3 = new ArrayList<>();
        List<Double> rf1 = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            rf3.add(send(cluster, "orders-0", load));
            rf1.add(send(cluster, "solo-0", load));
        }
        long total = (long) batches * records;
        System.out.printf("acks=all throughput, %,d records of %d bytes a round (%d batches of %d, 5 in flight),"
                + " %d rounds interleaved, records/s:%n", total, bytes, batches, records, rounds);
        System.out.printf("  rf 3 (min ISR 2): median %,.0f (range %,.0f..%,.0f)%n", median(rf3), min(rf3), max(rf3));
        System.out.printf("  rf 1           : median %,.0f (range %,.0f..%,.0f)%n", median(rf1), min(rf1), max(rf1));
        System.out.printf("  rf 3 / rf 1    : %.2f%n", median(rf3) / median(rf1));
    }

    /** Records per second for one round to {@code partition}, led by broker 1. */
    private static double send(ClusterHarness cluster, String partition, List<List<String>> load) throws IOException {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try (IdempotentProducer producer = new IdempotentProducer("127.0.0.1", cluster.node(1).port(),
                IdempotentProducer.MAX_IN_FLIGHT, 3, 100, quiet)) {
            long start = System.nanoTime();
            producer.send(partition, load, ProduceRequest.ACKS_ALL, 1_700_000_000_000L);
            double seconds = (System.nanoTime() - start) / 1e9;
            return load.stream().mapToInt(List::size).sum() / seconds;
        }
    }

    /**
     * {@code kills} times: the ISR whole, the producer writing, SIGKILL of the leader; the time until
     * ZooKeeper names a new leader and until its first acknowledgement; the killed broker restarted.
     */
    private static void failovers(ClusterHarness cluster, int kills) throws IOException {
        ClusterLedger ledger = new ClusterLedger();
        List<Long> elected = new ArrayList<>();
        List<Long> acked = new ArrayList<>();
        try (ClusterProducer producer = new ClusterProducer(cluster, ledger, 0, 1, 10, ClusterRun.REQUEST_TIMEOUT_MS)) {
            producer.startBackground(kills * 3L * ClusterRun.WAIT_MS);
            for (int kill = 0; kill < kills; kill++) {
                cluster.await("every replica in the ISR", () -> cluster.state()
                        .map(s -> s.isr().size() == 3 && s.leader() >= 0).orElse(false), ClusterRun.WAIT_MS);
                long before = producer.acked();
                if (!producer.awaitAcked(before + 200, ClusterRun.WAIT_MS)) {
                    throw new IOException("the producer is stuck before kill " + (kill + 1));
                }
                int leader = cluster.leader();
                long killedAt = System.currentTimeMillis();
                cluster.kill(leader);
                long ackedAt = firstAckNotBy(ledger, leader, killedAt);
                long newLeaderAt = newLeaderAt(cluster, leader, killedAt);
                elected.add(newLeaderAt - killedAt);
                acked.add(ackedAt - killedAt);
                cluster.restart(leader);
            }
            producer.stopBackground();
        }
        int session = cluster.config().sessionTimeoutMs();
        System.out.printf("SIGKILL of the leader, %d kills (session %d ms, ZooKeeper tick %d ms), ms:%n", kills, session,
                cluster.config().zkTickMs());
        System.out.printf("  to ZooKeeper naming a new leader : median %,d, max %,d%n", median(elected), max(elected));
        System.out.printf("  to its first acknowledgement     : median %,d, max %,d (goal: session + one tick = %,d)%n",
                median(acked), max(acked), session + cluster.config().zkTickMs());
        System.out.println("  each kill: " + acked);
    }

    private static long firstAckNotBy(ClusterLedger ledger, int leader, long afterMs) throws IOException {
        Deadline deadline = Deadline.in(ClusterRun.WAIT_MS);
        while (!deadline.passed()) {
            for (ClusterLedger.Ack ack : ledger.acks()) {
                if (ack.broker() != leader && ack.sentAtMs() >= afterMs) {
                    return ack.ackedAtMs();
                }
            }
            Deadline.pause(5);
        }
        throw new IOException("no acknowledgement by a new leader within " + ClusterRun.WAIT_MS + " ms");
    }

    /** When ZooKeeper named a leader other than {@code old} after {@code afterMs}, by its transaction log. */
    private static long newLeaderAt(ClusterHarness cluster, int old, long afterMs) throws IOException {
        ZkHistory.StateVersion next = cluster.history(1).firstNewLeaderAfter(afterMs, old);
        if (next == null) {
            throw new IOException("ZooKeeper never named a leader other than " + old);
        }
        return next.timeMs();
    }

    private static Map<String, Integer> flags(String[] args) {
        Map<String, Integer> flags = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("usage: bench/cluster/run [--kills N] [--rounds N] [--batches N]"
                        + " [--records N] [--bytes N], not " + args[i]);
            }
            flags.put(args[i].substring(2), Integer.parseInt(args[i + 1]));
        }
        return flags;
    }

    private static <T extends Comparable<T>> T median(List<T> values) {
        List<T> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static <T extends Comparable<T>> T max(List<T> values) {
        return Collections.max(values);
    }

    private static <T extends Comparable<T>> T min(List<T> values) {
        return Collections.min(values);
    }
}
