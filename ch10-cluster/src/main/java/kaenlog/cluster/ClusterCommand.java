package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import kaenlog.broker.PartitionConfigs;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog cluster --brokers 3 --dir D}: a whole cluster on one machine, for a learner: one
 * ZooKeeper server in this process (or, with {@code --zookeeper-nodes 3}, an ensemble of three
 * {@code klog zookeeper} processes) and one {@code klog serve --broker-id N --zookeeper ...} process
 * per broker (real processes: {@code kill -9} one and the others notice when its session times
 * out; kill the ZooKeeper leader and the other two elect another). It prints each process's ports
 * and id, and stops every process on Ctrl-C.
 */
public final class ClusterCommand implements Subcommand {
    /** ZooKeeper's conventional ports for followers and for elections; member n takes base + n - 1. */
    private static final int PEER_BASE_PORT = 2888;
    private static final int ELECTION_BASE_PORT = 3888;
    private static final int SESSION_MS = 6_000;
    private static final int STOP_WAIT_SECONDS = 10;
    /** Kafka's offsets.topic.replication.factor default, which a cluster of fewer brokers lowers to its size. */
    private static final int OFFSETS_REPLICATION_FACTOR = 3;
    /** Chapter 11's settings of {@code __transaction_state} that a cluster of fewer brokers lowers the same way. */
    private static final List<String> TRANSACTION_STATE_FACTORS = List.of("transaction.state.log.replication.factor",
            "transaction.state.log.min.isr");

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public String usage() {
        return "--dir D [--brokers N (3)] [--zookeeper-nodes Z (1: in this process; 3: an ensemble of 3 processes)]"
                + " [--zookeeper-port P (2181: ZooKeeper n takes clients on P+n-1, its peers on 2888+n-1 and 3888+n-1)]"
                + " [--base-port P (9092: broker N listens on P+2(N-1), its Kafka port on the next)]";
    }

    @Override
    public String summary() {
        return "chapter 10: ZooKeeper (one, or an ensemble) and N klog serve processes on this machine, until Ctrl-C";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("dir", "brokers", "zookeeper-nodes", "zookeeper-port", "base-port"),
                Set.of()).noPositional();
        if (!flags.has("dir")) {
            throw new UsageException("--dir is required");
        }
        Path dir = Path.of(flags.string("dir", ""));
        int brokers = flags.intValue("brokers", 3, 1, 99);
        int nodes = flags.intValue("zookeeper-nodes", 1, 1, 9);
        int zookeeperPort = flags.intValue("zookeeper-port", 2181, nodes == 1 ? 0 : 1, 65_535 - nodes);
        int basePort = flags.intValue("base-port", 9092, 1, 65_000);
        List<Process> processes = new ArrayList<>();
        List<AutoCloseable> zookeepers = new ArrayList<>();
        Runnable stopAll = () -> {
            // the brokers first, so that their sessions end while ZooKeeper is there to end them
            processes.forEach(Process::destroy);
            processes.forEach(ClusterCommand::awaitEnd);
            zookeepers.forEach(ClusterCommand::closeQuietly);
        };
        try {
            String connectString = nodes == 1 ? startInProcess(dir, zookeeperPort, zookeepers, out)
                    : startEnsemble(dir, nodes, zookeeperPort, zookeepers, out);
            for (int id = 1; id <= brokers; id++) {
                int port = basePort + 2 * (id - 1);
                Path log = dir.resolve("broker-" + id + ".log");
                List<String> serve = new ArrayList<>(List.of("serve", "--broker-id", Integer.toString(id),
                        "--zookeeper", connectString, "--dir", dir.resolve("broker-" + id).toString(),
                        "--port", Integer.toString(port), "--kafka-port", Integer.toString(port + 1)));
                if (brokers < OFFSETS_REPLICATION_FACTOR) {
                    // __consumer_offsets is not created while fewer brokers live than its replication
                    // factor (3): a smaller cluster asks for as many as it has, as Kafka's own
                    // config/server.properties asks for 1 on its one-broker quickstart
                    serve.addAll(List.of("--config", ClusterConfigKeys.OFFSETS_TOPIC_REPLICATION_FACTOR + "=" + brokers));
                    // and so is a later chapter's __transaction_state (chapter 11: its replication factor 3,
                    // its min ISR 2), when that chapter is on the classpath to declare them
                    for (String factor : TRANSACTION_STATE_FACTORS) {
                        if (PartitionConfigs.load().isBrokerKey(factor)) {
                            serve.addAll(List.of("--config", factor + "=" + brokers));
                        }
                    }
                }
                Process process = startKlog(log, serve.toArray(String[]::new));
                processes.add(process);
                out.println("broker " + id + ": kaen-log port " + port + ", kafka port " + (port + 1) + ", pid "
                        + process.pid() + ", log " + log);
            }
            out.println("klog topics --zookeeper " + connectString + " --describe   # from another shell;"
                    + " Ctrl-C stops them all");
            if (nodes > 1) {
                out.println("klog zookeeper-status --zookeeper " + connectString + "   # which ZooKeeper leads");
            }
        } catch (IOException e) {
            err.println("klog cluster: " + e.getMessage());
            stopAll.run();
            return Klog.FAILED;
        }
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopAll.run();
            stopped.countDown();
        }, "klog-cluster-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            stopAll.run();
        }
        return Klog.OK;
    }

    /** One standalone ZooKeeper in this process; its connect string. */
    private static String startInProcess(Path dir, int port, List<AutoCloseable> started, PrintStream out)
            throws IOException {
        EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), port, 2_000);
        started.add(zookeeper);
        out.println("zookeeper on " + zookeeper.connectString());
        return zookeeper.connectString();
    }

    /**
     * {@code nodes} {@code klog zookeeper --id n --servers ...} processes on loopback; returns the
     * ensemble's connect string once a majority of them has elected a leader and serves.
     */
    private static String startEnsemble(Path dir, int nodes, int clientBasePort, List<AutoCloseable> started,
                                        PrintStream out)
            throws IOException {
        SortedMap<Integer, String> servers = new TreeMap<>();
        List<String> clients = new ArrayList<>();
        for (int n = 1; n <= nodes; n++) {
            servers.put(n, "127.0.0.1:" + (PEER_BASE_PORT + n - 1) + ":" + (ELECTION_BASE_PORT + n - 1));
            clients.add("127.0.0.1:" + (clientBasePort + n - 1));
        }
        String quorum = EmbeddedZooKeeper.Quorum.serversFlag(servers);
        Files.createDirectories(dir);
        for (int n = 1; n <= nodes; n++) {
            Path log = dir.resolve("zookeeper-" + n + ".log");
            Process process = startKlog(log, "zookeeper", "--dir", dir.resolve("zookeeper-" + n).toString(),
                    "--port", Integer.toString(clientBasePort + n - 1), "--id", Integer.toString(n), "--servers", quorum);
            started.add(() -> {
                process.destroy();
                awaitEnd(process);
            });
            out.println("zookeeper " + n + ": client port " + (clientBasePort + n - 1) + ", pid " + process.pid()
                    + ", log " + log);
        }
        String connectString = String.join(",", clients);
        // a client connects only once the ensemble serves: a majority has elected a leader
        ZkClient.connect(connectString, SESSION_MS).close();
        out.println("zookeeper ensemble serving at " + connectString);
        return connectString;
    }

    /** {@code klog ARGS} in a JVM of its own, on this one's classpath, its output in {@code log}. */
    private static Process startKlog(Path log, String... klogArgs) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), Klog.class.getName()));
        command.addAll(List.of(klogArgs));
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IOException("cannot start klog " + klogArgs[0] + ": " + e.getMessage(), e);
        }
    }

    /** A bounded wait for a process told to stop (SIGTERM: its shutdown hook closes what it holds). */
    private static void awaitEnd(Process process) {
        try {
            process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // stopping: nothing more to do with it
        }
    }
}
