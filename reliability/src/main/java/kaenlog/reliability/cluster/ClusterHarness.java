package kaenlog.reliability.cluster;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import kaenlog.cluster.BrokerRegistration;
import kaenlog.cluster.ControllerElection;
import kaenlog.cluster.EmbeddedZooKeeper;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.PartitionStateStore;
import kaenlog.cluster.Versioned;
import kaenlog.cluster.ZkClient;
import kaenlog.cluster.ZooKeeperStatusCommand;
import kaenlog.reliability.BrokerProcess;
import kaenlog.reliability.Deadline;
import kaenlog.testkit.FaultInjectingProxy;
import org.apache.zookeeper.KeeperException;

/**
 * Three {@code klog serve --broker-id N --zookeeper ...} processes and their ZooKeeper, on
 * loopback, with a fault on every link the cluster has:
 * <ul>
 * <li>each broker registers (with {@code --advertised-replication-port}) the port of a
 *     {@link FaultInjectingProxy} in front of its inter-broker port, the one followers fetch on, so
 *     the other brokers' fetchers reach it through that proxy: {@link #cutOff} blackholes it and the
 *     broker's followers, or its leader's followers, go silent;</li>
 * <li>each broker reaches ZooKeeper through a proxy of its own: blackholed, the broker's session
 *     expires on the server while the broker lives on, unaware;</li>
 * <li>the processes themselves: SIGKILL, SIGTERM, SIGSTOP and SIGCONT, and a restart on the same
 *     directory and port.</li>
 * </ul>
 * The producer and the consumer of a scenario reach the brokers' own ports, not the proxies: a
 * leader cut off from its peers still hears its clients, the case that makes a zombie dangerous.
 * ZooKeeper is one server in this JVM ({@link EmbeddedZooKeeper}) or an ensemble of three
 * {@code klog zookeeper --id N --servers ...} processes (then without proxies: the ensemble's
 * own faults are the point). Each broker's stderr is kept, life by life.
 */
public final class ClusterHarness implements Closeable {
    public static final String TOPIC = "orders";
    public static final String PARTITION = "orders-0";
    public static final int BROKERS = 3;
    private static final Pattern ZOOKEEPER_READY = Pattern.compile("zookeeper \\d+ of ensemble \\S+ on (\\S+):(\\d+)");
    private static final long START_MS = 60_000;

    /**
     * How the cluster runs.
     *
     * @param sessionTimeoutMs the brokers' zookeeper.session.timeout.ms
     * @param zkTickMs         ZooKeeper's tick (sessions of 2 to 20 ticks)
     * @param ensemble         three ZooKeeper processes instead of one server in this JVM
     * @param kafkaPorts       each broker also listens on a Kafka port (chapter 9)
     * @param brokerConfigs    klog serve --config KEY=VALUE for every broker
     * @param peerProxies      brokers reach each other through the proxies (false: directly, for a
     *                         bench, which wants no hop the cluster does not have)
     */
    public record Config(int sessionTimeoutMs, int zkTickMs, boolean ensemble, boolean kafkaPorts,
                         List<String> brokerConfigs, boolean peerProxies) {
        public Config {
            brokerConfigs = List.copyOf(brokerConfigs);
        }

        /**
         * Short timeouts, so that a failover takes seconds: a 4 s session (Kafka: 18 s), a follower
         * silent for 3 s leaves the ISR (Kafka: 30 s), a follower gives up a silent leader after 3 s,
         * the high watermarks checkpointed every 100 ms (Kafka: 5 s; the checker reads them).
         */
        public static Config standard() {
            return new Config(4_000, 500, false, false, List.of("replica.lag.time.max.ms=3000",
                    "replica.socket.timeout.ms=3000", "replica.fetch.backoff.ms=100",
                    "replica.high.watermark.checkpoint.interval.ms=100"), true);
        }

        public Config withEnsemble() {
            return new Config(sessionTimeoutMs, zkTickMs, true, kafkaPorts, brokerConfigs, peerProxies);
        }

        public Config withKafkaPorts() {
            return new Config(sessionTimeoutMs, zkTickMs, ensemble, true, brokerConfigs, peerProxies);
        }

        public Config withDirectPeers() {
            return new Config(sessionTimeoutMs, zkTickMs, ensemble, kafkaPorts, brokerConfigs, false);
        }

        /** Every broker also takes {@code --config KEY=VALUE} for each of {@code more}. */
        public Config withBrokerConfigs(String... more) {
            List<String> all = new ArrayList<>(brokerConfigs);
            all.addAll(List.of(more));
            return new Config(sessionTimeoutMs, zkTickMs, ensemble, kafkaPorts, all, peerProxies);
        }
    }

    /** What happened to a broker's process last. */
    public enum Life { RUNNING, PAUSED, KILLED, TERMINATED }

    /** One broker: its ports, its proxies, its current process and every earlier one. */
    public static final class Node {
        private final int id;
        private final Path dir;
        private final int port;
        private final int kafkaPort;
        private final int replicationPort;
        private final FaultInjectingProxy peers;
        private final FaultInjectingProxy zooKeeper;
        private final List<BrokerProcess> lives = new ArrayList<>();
        private Life life = Life.TERMINATED;

        Node(int id, Path dir, int port, int kafkaPort, int replicationPort, FaultInjectingProxy peers,
             FaultInjectingProxy zooKeeper) {
            this.id = id;
            this.dir = dir;
            this.port = port;
            this.kafkaPort = kafkaPort;
            this.replicationPort = replicationPort;
            this.peers = peers;
            this.zooKeeper = zooKeeper;
        }

        public int id() {
            return id;
        }

        /** The broker's data directory (its partitions, its checkpoint files). */
        public Path dir() {
            return dir;
        }

        /** Its own kaen-log port, for clients (not the proxy the other brokers use). */
        public int port() {
            return port;
        }

        public int kafkaPort() {
            return kafkaPort;
        }

        /** Its inter-broker port, where followers fetch (the peers' proxy is in front of it). */
        public int replicationPort() {
            return replicationPort;
        }

        public synchronized Life life() {
            return life;
        }

        /** The process of its current (or last) life. */
        public synchronized BrokerProcess process() {
            return lives.isEmpty() ? null : lives.get(lives.size() - 1);
        }

        /** How many times the broker was started. */
        public synchronized int lives() {
            return lives.size();
        }

        /** Every life's stderr, oldest first: what the checker reads the broker's own account from. */
        public synchronized List<List<String>> logs() {
            return lives.stream().map(BrokerProcess::log).toList();
        }
    }

    private final Path root;
    private final Config config;
    private final BrokerProcess.Options options;
    private final EmbeddedZooKeeper zookeeper;
    private final SortedMap<Integer, BrokerProcess> ensemble = new TreeMap<>();
    private final SortedMap<Integer, Integer> ensemblePorts = new TreeMap<>();
    private final String ensembleServers;
    private final SortedMap<Integer, Node> nodes = new TreeMap<>();
    private final List<Closeable> proxies = new ArrayList<>();
    private ZkClient observer;

    private ClusterHarness(Path root, Config config, BrokerProcess.Options options, EmbeddedZooKeeper zookeeper,
                           String ensembleServers) {
        this.root = root;
        this.config = config;
        this.options = options;
        this.zookeeper = zookeeper;
        this.ensembleServers = ensembleServers;
    }

    /**
     * ZooKeeper, then broker 1 (which becomes the controller: it registers first), then brokers 2
     * and 3; returns once all three are registered. {@code options} is how a broker's JVM starts.
     */
    public static ClusterHarness start(Path root, Config config, BrokerProcess.Options options) throws IOException {
        Files.createDirectories(root);
        EmbeddedZooKeeper zookeeper = null;
        String servers = null;
        if (!config.ensemble()) {
            zookeeper = EmbeddedZooKeeper.start(root.resolve("zookeeper"), 0, config.zkTickMs());
        } else {
            servers = ensembleServersFlag();
        }
        ClusterHarness cluster = new ClusterHarness(root, config, options, zookeeper, servers);
        try {
            if (config.ensemble()) {
                for (int id = 1; id <= BROKERS; id++) {
                    cluster.ensemblePorts.put(id, freePort());
                }
                for (int id = 1; id <= BROKERS; id++) {
                    cluster.startZooKeeperMember(id);
                }
            }
            cluster.observer = ZkClient.connect(cluster.connectString(), 30_000);
            for (int id = 1; id <= BROKERS; id++) {
                cluster.addNode(id);
            }
            cluster.restart(1);
            cluster.await("broker 1 is the controller", () -> cluster.controller() == 1, START_MS);
            cluster.restart(2);
            cluster.restart(3);
            cluster.await("three brokers registered", () -> cluster.liveBrokers().size() == BROKERS, START_MS);
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static String ensembleServersFlag() throws IOException {
        SortedMap<Integer, String> servers = new TreeMap<>();
        for (int id = 1; id <= BROKERS; id++) {
            servers.put(id, "127.0.0.1:" + freePort() + ":" + freePort());
        }
        return EmbeddedZooKeeper.Quorum.serversFlag(servers);
    }

    private void addNode(int id) throws IOException {
        int port = freePort();
        int kafkaPort = config.kafkaPorts() ? freePort() : -1;
        int replicationPort = freePort();
        FaultInjectingProxy peers = proxy(replicationPort);
        FaultInjectingProxy zk = config.ensemble() ? null : proxy(zookeeper.port());
        nodes.put(id, new Node(id, root.resolve("broker-" + id), port, kafkaPort, replicationPort, peers, zk));
    }

    /** A proxy that injects nothing until it is blackholed. */
    private FaultInjectingProxy proxy(int port) throws IOException {
        FaultInjectingProxy proxy = new FaultInjectingProxy("127.0.0.1", port,
                new FaultInjectingProxy.Faults(1, 0, 0, 0, 1, false));
        proxies.add(proxy);
        return proxy;
    }

    /** The ZooKeeper connect string the harness itself uses (never through a proxy). */
    public String connectString() {
        if (zookeeper != null) {
            return zookeeper.connectString();
        }
        StringBuilder all = new StringBuilder();
        ensemblePorts.values().forEach(p -> all.append(all.isEmpty() ? "" : ",").append("127.0.0.1:").append(p));
        return all.toString();
    }

    private List<String> serveArgs(Node node) {
        String zk = config.ensemble() ? connectString() : "127.0.0.1:" + node.zooKeeper.port();
        List<String> args = new ArrayList<>(List.of("--broker-id", Integer.toString(node.id), "--zookeeper", zk,
                "--zookeeper-session-timeout-ms", Integer.toString(config.sessionTimeoutMs())));
        args.addAll(List.of("--replication-port", Integer.toString(node.replicationPort)));
        if (config.peerProxies()) {
            args.addAll(List.of("--advertised-replication-port", Integer.toString(node.peers.port())));
        }
        if (config.kafkaPorts()) {
            args.addAll(List.of("--kafka-port", Integer.toString(node.kafkaPort)));
        }
        for (String c : config.brokerConfigs()) {
            args.addAll(List.of("--config", c));
        }
        return args;
    }

    // ---- the brokers' processes

    /** Starts broker {@code id} (again) on its directory and port: a new life, a new session. */
    public void restart(int id) throws IOException {
        Node node = nodes.get(id);
        synchronized (node) {
            if (node.life == Life.RUNNING || node.life == Life.PAUSED) {
                throw new IllegalStateException("broker " + id + " is still running");
            }
        }
        BrokerProcess process = BrokerProcess.start(node.dir, options.withPort(node.port)
                .withServeArgs(serveArgs(node)));
        synchronized (node) {
            node.lives.add(process);
            node.life = Life.RUNNING;
        }
    }

    /** SIGKILL: the broker stops between two instructions; its session lives on until it times out. */
    public void kill(int id) throws IOException {
        Node node = nodes.get(id);
        node.process().kill();
        setLife(node, Life.KILLED);
    }

    /** SIGTERM: klog serve closes the broker and its session (its registration goes at once). */
    public void terminate(int id) throws IOException {
        Node node = nodes.get(id);
        node.process().terminate();
        setLife(node, Life.TERMINATED);
    }

    /** SIGSTOP: the broker freezes, sockets open, its session no longer heartbeating. */
    public void pause(int id) throws IOException {
        Node node = nodes.get(id);
        node.process().signal("STOP");
        setLife(node, Life.PAUSED);
    }

    /** SIGCONT: the broker goes on where it stopped, unaware of the time that passed. */
    public void resume(int id) throws IOException {
        Node node = nodes.get(id);
        node.process().signal("CONT");
        setLife(node, Life.RUNNING);
    }

    private static void setLife(Node node, Life life) {
        synchronized (node) {
            node.life = life;
        }
    }

    /**
     * Cuts broker {@code id} off: its peers can no longer reach it (its followers, or the
     * followers of the partitions it leads, go silent), and with {@code fromZooKeeper} its ZooKeeper
     * session can no longer heartbeat either. The process runs on, and its clients still reach it.
     */
    public void cutOff(int id, boolean fromZooKeeper) {
        Node node = nodes.get(id);
        node.peers.blackhole();
        if (fromZooKeeper) {
            node.zooKeeper.blackhole();
        }
    }

    /** Ends every partition of broker {@code id}'s links. */
    public void heal(int id) {
        Node node = nodes.get(id);
        node.peers.heal();
        if (node.zooKeeper != null) {
            node.zooKeeper.heal();
        }
    }

    // ---- ZooKeeper

    private void startZooKeeperMember(int id) throws IOException {
        Path dir = root.resolve("zookeeper-" + id);
        BrokerProcess member = BrokerProcess.startKlog(List.of("zookeeper", "--dir", dir.toString(), "--port",
                Integer.toString(ensemblePorts.get(id)), "--tick-ms", Integer.toString(config.zkTickMs()), "--id",
                Integer.toString(id), "--servers", ensembleServers), options.withMaxHeap("96m"), ZOOKEEPER_READY);
        ensemble.put(id, member);
    }

    /** Each ensemble member's mode as {@code klog zookeeper-status} tells it: leader, follower, ... */
    public SortedMap<Integer, String> zooKeeperModes() {
        SortedMap<Integer, String> modes = new TreeMap<>();
        for (Map.Entry<Integer, Integer> member : ensemblePorts.entrySet()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            try {
                new ZooKeeperStatusCommand().run(List.of("--zookeeper", "127.0.0.1:" + member.getValue()), print,
                        print);
            } catch (kaenlog.cli.UsageException e) {
                throw new IllegalStateException(e);
            }
            String line = out.toString(StandardCharsets.UTF_8).trim();
            modes.put(member.getKey(), line.substring(line.indexOf('\t') + 1));
        }
        return modes;
    }

    /** SIGKILLs ensemble member {@code id}. */
    public void killZooKeeper(int id) throws IOException {
        ensemble.get(id).kill();
    }

    /** Starts ensemble member {@code id} again on its directory. */
    public void restartZooKeeper(int id) throws IOException {
        startZooKeeperMember(id);
    }

    /**
     * Every state the partition went through, from a ZooKeeper server's transaction log: the
     * standalone server's, or an ensemble member's that ran throughout ({@code member}).
     */
    public ZkHistory history(int member) throws IOException {
        Path dir = zookeeper != null ? root.resolve("zookeeper") : root.resolve("zookeeper-" + member);
        return ZkHistory.read(dir, TOPIC, 0);
    }

    // ---- what ZooKeeper says

    /** Creates a topic as an administrator does; the controller writes the first states. */
    public void createTopic(String topic, SortedMap<Integer, List<Integer>> assignment, int minIsr) throws IOException {
        try {
            PartitionStateStore.createAssignment(observer, topic, assignment,
                    Map.of("min.insync.replicas", Integer.toString(minIsr)));
        } catch (KeeperException e) {
            throw new IOException("creating " + topic + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The partition's state as ZooKeeper holds it now, or empty before the controller wrote one. */
    public Optional<PartitionState> state() {
        return state(TOPIC);
    }

    public Optional<PartitionState> state(String topic) {
        return state(topic, 0);
    }

    /** Partition {@code partition} of {@code topic}'s state as ZooKeeper holds it now, or empty. */
    public Optional<PartitionState> state(String topic, int partition) {
        try {
            return PartitionStateStore.read(observer, topic, partition).map(Versioned::value);
        } catch (KeeperException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Writes {@code data} to the znode {@code path} whatever its version, as any client of the
     * ensemble can (the znodes are OPEN_ACL_UNSAFE, as Kafka's are without zookeeper.set.acl): a
     * scenario that tampers with the cluster's metadata. The zxid of the write.
     */
    public long overwrite(String path, byte[] data) throws IOException {
        try {
            return observer.setData(path, data, -1).getMzxid();
        } catch (KeeperException e) {
            throw new IOException("writing " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The bytes of the znode {@code path} now, or empty. */
    public Optional<byte[]> read(String path) throws IOException {
        try {
            return observer.get(path).map(ZkClient.Node::data);
        } catch (KeeperException e) {
            throw new IOException("reading " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The partition's leader by ZooKeeper, or -1 (none, or no state yet). */
    public int leader() {
        return state().map(PartitionState::leader).orElse(PartitionState.NO_LEADER);
    }

    /** The controller by {@code /controller}, or -1. */
    public int controller() {
        try {
            return ControllerElection.controller(observer);
        } catch (KeeperException e) {
            return PartitionState.NO_LEADER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The brokers registered now. */
    public List<Integer> liveBrokers() {
        try {
            return List.copyOf(BrokerRegistration.liveBrokers(observer).keySet());
        } catch (KeeperException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits (bounded) until the partition's state satisfies {@code wanted}; the state, or empty when it did not come. */
    public Optional<PartitionState> awaitState(Predicate<PartitionState> wanted, long timeoutMs) {
        Deadline deadline = Deadline.in(timeoutMs);
        while (true) {
            Optional<PartitionState> now = state();
            if (now.isPresent() && wanted.test(now.get())) {
                return now;
            }
            if (deadline.passed()) {
                return Optional.empty();
            }
            Deadline.pause(20);
        }
    }

    /** Waits for {@code condition}, failing with what it waited for when it does not come. */
    public void await(String what, java.util.function.BooleanSupplier condition, long timeoutMs) throws IOException {
        if (!Deadline.in(timeoutMs).await(condition)) {
            throw new IOException("timed out after " + timeoutMs + " ms waiting for: " + what + " (state " + state()
                    + ", controller " + controller() + ", live " + liveBrokers() + ")");
        }
    }

    public Node node(int id) {
        return nodes.get(id);
    }

    public List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    public Config config() {
        return config;
    }

    /** The last lines of every broker's log, for a failure's message. */
    public String tails(int lines) {
        StringBuilder all = new StringBuilder();
        for (Node node : nodes.values()) {
            List<List<String>> logs = node.logs();
            List<String> last = logs.isEmpty() ? List.of() : logs.get(logs.size() - 1);
            all.append("---- broker ").append(node.id).append(" (life ").append(logs.size()).append(", ")
                    .append(node.life()).append(")\n");
            last.subList(Math.max(0, last.size() - lines), last.size()).forEach(l -> all.append(l).append('\n'));
        }
        return all.toString();
    }

    /** Stops every broker cleanly (a paused one is let go first), then the proxies and ZooKeeper; keeps every log in {@code root}. */
    @Override
    public void close() throws IOException {
        for (Node node : nodes.values()) {
            List<List<String>> logs = node.logs();
            for (int life = 0; life < logs.size(); life++) {
                Files.write(root.resolve("broker-" + node.id + ".life-" + (life + 1) + ".log"), logs.get(life));
            }
        }
        for (Node node : nodes.values()) {
            node.peers.heal();
            if (node.zooKeeper != null) {
                node.zooKeeper.heal();
            }
        }
        IOException first = null;
        for (Node node : nodes.values()) {
            try {
                stopQuietly(node);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (observer != null) {
            observer.close();
        }
        for (Closeable proxy : proxies) {
            proxy.close();
        }
        for (BrokerProcess member : ensemble.values()) {
            member.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (first != null) {
            throw first;
        }
    }

    private static void stopQuietly(Node node) throws IOException {
        BrokerProcess process = node.process();
        if (process == null || !process.isAlive()) {
            return;
        }
        if (node.life() == Life.PAUSED) {
            process.signal("CONT");
        }
        process.close();
        setLife(node, Life.TERMINATED);
    }

    /** Where {@link #freePort} looks next: below Linux's ephemeral range, apart for each JVM. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT = new java.util.concurrent.atomic.AtomicInteger(
            firstPort());
    private static final int PORTS_FROM = 20_000;
    private static final int PORTS = 12_000;
    /** The ports of one of surefire's test JVMs: far more than its cluster tests take one after another. */
    private static final int PORTS_PER_FORK = 2_000;

    /**
     * Surefire's test JVMs run at once (reliability/pom.xml): each starts in a block of its own,
     * numbered by surefire's fork number (kaenlog.surefire.fork, "fork N"), so two forks' clusters
     * never hand out the port of the other's broker while it is down between a kill and its restart
     * (their process ids, one apart, would start them 24 ports apart). Any other JVM
     * (reliability/run) starts apart by its process id.
     */
    private static int firstPort() {
        String fork = System.getProperty("kaenlog.surefire.fork", "");
        return fork.matches("fork \\d{1,2}") ? Integer.parseInt(fork.substring(5)) * PORTS_PER_FORK
                : (int) (ProcessHandle.current().pid() % 500) * 24;
    }

    /**
     * A port nothing listens on now, for a process started later on it (a broker, restarted on the
     * same port; an ensemble member's peer port). Not port 0's choice: that comes from the ephemeral
     * range (32768-60999 on Linux), which every outgoing connection on the machine draws from too,
     * so a port found free there can be taken by the time the process binds it (seen: a broker's
     * BindException). These ports are below that range.
     */
    static int freePort() throws IOException {
        for (int tries = 0; tries < PORTS; tries++) {
            int port = PORTS_FROM + Math.floorMod(NEXT_PORT.getAndIncrement(), PORTS);
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException taken) {
                // someone listens there: the next one
            }
        }
        throw new IOException("no free port in " + PORTS_FROM + ".." + (PORTS_FROM + PORTS - 1));
    }
}
