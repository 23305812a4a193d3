package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import kaenlog.broker.Broker;
import kaenlog.broker.Leadership;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.PartitionNames;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A broker's membership of a cluster (given code, on the tasks' pieces), for {@code klog serve
 * --broker-id N --zookeeper H:P}: it registers, runs for controller, and while it is the
 * controller it gives new topics their first states and elects leaders when brokers come and go.
 * As a broker it holds a replica of every partition the assignment gives it and acts on each new
 * state of those partitions (leads, or follows with a fetcher); it runs the leaders' isr-expiration
 * every {@code replica.lag.time.max.ms / 2} and writes the high watermarks every
 * {@code replica.high.watermark.checkpoint.interval.ms}, both by the broker's time.
 *
 * <p>Every ZooKeeper watch is one-shot, so each reaction reads again and sets its watches again;
 * the reactions run one at a time on one thread, never on ZooKeeper's event thread. When the
 * session expires (the broker was stopped, or cut off, for longer than the session timeout),
 * ZooKeeper deleted the registration and the controller moved leadership away: the broker stops
 * leading at once (a zombie leader must acknowledge nothing), then joins again with a new session
 * and a new broker epoch.
 */
public final class ClusterMember implements Closeable, Watcher, ClusterContext {
    private final Broker broker;
    private final ClusterLeadership leadership;
    private final BrokerInfo info;
    private final String connectString;
    private final int sessionTimeoutMs;
    private final PrintStream log;
    private final Consumer<Throwable> failures;
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "klog-cluster-member");
        thread.setDaemon(true);
        return thread;
    });
    private final Map<String, Integer> minIsrByTopic = new ConcurrentHashMap<>();
    private final ZNodeRefusals refusals;
    /** The live brokers as last read (registered, registration readable): Kafka's metadata cache's. */
    private volatile Set<Integer> liveIds = Set.of();
    private volatile ZkClient zk;
    private volatile boolean closed;
    private Optional<Controller> controller = Optional.empty();
    private Thread housekeeping;
    private long nextIsrExpirationMs;
    private long nextCheckpointMs;

    private ClusterMember(Broker broker, ClusterLeadership leadership, BrokerInfo info, String connectString,
                          int sessionTimeoutMs, PrintStream log, Consumer<Throwable> failures) {
        this.broker = broker;
        this.leadership = leadership;
        this.info = info;
        this.connectString = connectString;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.log = log;
        this.failures = failures;
        this.refusals = new ZNodeRefusals(log, "broker " + info.id());
    }

    /**
     * Connects, registers, and starts reacting; the broker epoch is logged. {@code leadership} is
     * the one the broker was started with ({@link kaenlog.broker.BrokerConfig#withLeadership}).
     * {@code failures} hears of anything that failed in the member's threads (a test fails on it).
     */
    public static ClusterMember join(Broker broker, ClusterLeadership leadership, String connectString,
                                     int sessionTimeoutMs, BrokerInfo info, PrintStream log,
                                     Consumer<Throwable> failures) throws IOException {
        ClusterMember member = new ClusterMember(broker, leadership, info, connectString, sessionTimeoutMs, log,
                failures);
        try {
            member.connectAndRegister();
        } catch (IOException e) {
            member.close();
            throw e;
        }
        member.schedule();
        if (broker.config().tickMs() > 0) {
            member.startHousekeeping();
        }
        return member;
    }

    /**
     * A new session and the broker's registration on it. The previous life of this broker (killed,
     * then restarted within the session timeout) may still own {@code /brokers/ids/N} until its session
     * expires: Kafka's broker fails to start then; this one waits for it, at most two session timeouts.
     */
    private void connectAndRegister() throws IOException {
        ZkClient session = ZkClient.connect(connectString, sessionTimeoutMs, this);
        long deadline = broker.nowMs() + 2L * sessionTimeoutMs;
        try {
            while (true) {
                try {
                    long epoch = BrokerRegistration.register(session, info, broker.nowMs());
                    zk = session;
                    leadership.joined(session);
                    log.println("cluster: broker " + info.id() + " registered in ZooKeeper at " + connectString
                            + ", broker epoch " + epoch);
                    log.flush();
                    return;
                } catch (KeeperException.NodeExistsException previousLife) {
                    if (broker.nowMs() > deadline) {
                        throw previousLife;
                    }
                    Thread.sleep(200); // the old session's znode goes when it expires
                }
            }
        } catch (KeeperException e) {
            session.close();
            throw new IOException("cannot register broker " + info.id() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            session.close();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            schedule();
        } else if (event.getState() == Event.KeeperState.Expired) {
            schedule(this::rejoin);
        }
    }

    private void schedule() {
        schedule(this::react);
    }

    private void schedule(Runnable reaction) {
        try {
            events.execute(reaction);
        } catch (RejectedExecutionException closing) {
            // closing: no more reactions
        }
    }

    /**
     * The session expired: this broker is no longer a member, whatever it still believes. It stops
     * leading now, before anything else (its followers follow someone else by now, and a produce it
     * acknowledged would be cut by the new leader), then joins again. ZooKeeper tells an expiry to
     * every watcher of the session, and this member is several (the session's own and each znode's
     * watch): only the first of those events finds the session dead; the next ones find the new,
     * live session, which must not be thrown away.
     */
    private void rejoin() {
        if (closed || zk.alive()) {
            return;
        }
        log.println("cluster: broker " + info.id() + "'s ZooKeeper session expired: it stops leading and joins again");
        for (PartitionReplica replica : leadership.replicas()) {
            try {
                replica.stopLeading();
            } catch (IOException | RuntimeException e) {
                failed(replica.name(), e);
            }
        }
        controller = Optional.empty();
        ZkClient expired = zk;
        expired.close();
        try {
            connectAndRegister();
            react();
        } catch (IOException e) {
            log.println("cluster: broker " + info.id() + " cannot join again: " + e.getMessage()
                    + " (restart the broker)");
        }
    }

    private void react() {
        if (closed) {
            return;
        }
        try {
            zk.children(ZNodes.BROKER_IDS, this);
            zk.children(ZNodes.TOPICS, this);
            zk.get(ZNodes.CONTROLLER, this);
            if (ControllerElection.controller(zk) == PartitionState.NO_LEADER) {
                ControllerElection.elect(zk, info.id(), broker.nowMs()).ifPresent(epoch -> {
                    log.println("cluster: broker " + info.id() + " is the controller, epoch " + epoch.epoch());
                    controller = Optional.of(new Controller(zk, epoch, refusals::refused));
                });
            }
            if (controller.isPresent()) {
                report(controller.get().onTopicChange());
                report(controller.get().onBrokerChange());
            }
        } catch (ControllerMovedException moved) {
            log.println("cluster: broker " + info.id() + " is no longer the controller: " + moved.getMessage());
            controller = Optional.empty();
        } catch (KeeperException e) {
            log.println("cluster: " + e.getMessage() + " (retried at the next change)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            failed("the controller", e);
        }
        try {
            followStates();
        } catch (KeeperException e) {
            log.println("cluster: " + e.getMessage() + " (retried at the next change)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            failed("the cluster member", e);
        }
        log.flush();
    }

    /**
     * Reads every topic's assignment and every partition's state, watching each: the states of the
     * partitions this broker holds a replica of go to those replicas, and all of it becomes the
     * cluster as the Kafka port's Metadata tells it.
     */
    private void followStates() throws KeeperException, InterruptedException, IOException {
        SortedMap<Integer, BrokerInfo> live = new TreeMap<>();
        for (int id : BrokerRegistration.liveBrokers(zk, refusals::refused).keySet()) {
            BrokerRegistration.read(zk, id).ifPresent(found -> live.put(id, found));
        }
        liveIds = Set.copyOf(live.keySet());
        SortedMap<String, List<Leadership.PartitionView>> byTopic = new TreeMap<>();
        for (String topic : PartitionStateStore.topics(zk)) {
            zk.get(ZNodes.topicPath(topic), this);
            Optional<SortedMap<Integer, List<Integer>>> assignment = PartitionStateStore.assignment(zk, topic,
                    refusals::refused);
            if (assignment.isEmpty()) {
                continue;
            }
            minIsrByTopic.put(topic, topicMinIsr(topic));
            List<Leadership.PartitionView> views = new ArrayList<>();
            for (Map.Entry<Integer, List<Integer>> p : assignment.get().entrySet()) {
                zk.get(ZNodes.statePath(topic, p.getKey()), this);
                Optional<Versioned<PartitionState>> state = trustedState(topic, p.getKey(), p.getValue());
                if (state.isEmpty()) {
                    // no state yet (the controller has not written the first one), or one this broker
                    // refuses: listed with no leader, so a client counts the topic's partitions right
                    // and asks again
                    views.add(view(p.getKey(), p.getValue(), PartitionState.NO_LEADER, PartitionRole.NO_EPOCH,
                            List.of(), live));
                    continue;
                }
                PartitionState now = state.get().value();
                views.add(view(p.getKey(), p.getValue(), now.leader(), now.leaderEpoch(), now.isr(), live));
                if (p.getValue().contains(info.id())) {
                    onState(topic, p.getKey(), p.getValue(), state.get());
                }
            }
            byTopic.put(topic, List.copyOf(views));
        }
        leadership.publish(new ClusterLeadership.Snapshot(info.id(), live.values().stream()
                .map(b -> new Leadership.BrokerEndpoint(b.id(), b.host(), b.port(), b.kafkaPort())).toList(),
                ControllerElection.controller(zk), byTopic));
    }

    /**
     * A partition's state, read like a request: empty when there is none, when it does not parse,
     * or when it is not a state any writer of this cluster writes ({@link StateCheck}); a refused
     * state gets one log line, and this broker keeps the role it had until the controller replaces it.
     */
    private Optional<Versioned<PartitionState>> trustedState(String topic, int partition, List<Integer> replicas)
            throws KeeperException, InterruptedException {
        String path = ZNodes.statePath(topic, partition);
        Optional<Versioned<PartitionState>> state;
        try {
            state = PartitionStateStore.read(zk, topic, partition);
        } catch (IllegalArgumentException e) { // ZNodeFormatException
            refusals.refused(path, e.getMessage());
            return Optional.empty();
        }
        Optional<String> problem = state.flatMap(s -> StateCheck.problem(s.value(), s.zkVersion(), replicas));
        if (problem.isPresent()) {
            refusals.refused(path, problem.get() + " (version " + state.get().zkVersion() + ")");
            return Optional.empty();
        }
        return state;
    }

    private static Leadership.PartitionView view(int partition, List<Integer> replicas, int leader, int leaderEpoch,
                                                 List<Integer> isr, SortedMap<Integer, BrokerInfo> live) {
        List<Integer> offline = replicas.stream().filter(id -> !live.containsKey(id)).toList();
        return new Leadership.PartitionView(partition, leader, leaderEpoch, replicas, isr, offline);
    }

    /** Hands a state to this broker's replica of the partition, opening the replica first if it is new. */
    private void onState(String topic, int partition, List<Integer> assignment, Versioned<PartitionState> state)
            throws IOException {
        String name = PartitionNames.name(topic, partition);
        PartitionReplica replica = leadership.replica(name).orElse(null);
        if (replica == null) {
            Path dir = PartitionNames.resolve(broker.config().dataDir(), name);
            OptionalLong hw = Optional.ofNullable(Checkpoints.readHighWatermarks(broker.config().dataDir()).get(name))
                    .map(OptionalLong::of).orElse(OptionalLong.empty());
            replica = PartitionReplica.open(info.id(), topic, partition, broker.holdPartition(name), dir, hw);
            leadership.add(replica);
        }
        PartitionRole.Decision decision = replica.onState(state, assignment, this);
        if (decision != PartitionRole.Decision.IGNORED) {
            log.println("cluster: broker " + info.id() + " " + describe(decision, state.value()) + " " + name
                    + " at leader epoch " + state.value().leaderEpoch() + ", ISR " + state.value().isr());
        }
    }

    private static String describe(PartitionRole.Decision decision, PartitionState state) {
        return switch (decision) {
            case LEADER -> "leads";
            case FOLLOWER -> "follows broker " + state.leader() + " in";
            case OFFLINE -> "has no leader to follow in";
            case IGNORED -> "ignores a state of";
        };
    }

    /** The topic's min.insync.replicas: its config in ZooKeeper, else the broker's (Kafka's default 1). */
    private int topicMinIsr(String topic) throws KeeperException, InterruptedException {
        String own = PartitionStateStore.configs(zk, topic).get(ClusterConfigKeys.MIN_INSYNC_REPLICAS);
        if (own != null) {
            try {
                return Math.max(1, Integer.parseInt(own));
            } catch (NumberFormatException e) {
                log.println("cluster: topic " + topic + " has min.insync.replicas '" + own + "': not a number, 1 used");
                return 1;
            }
        }
        return (int) broker.configs().brokerLong(ClusterConfigKeys.MIN_INSYNC_REPLICAS);
    }

    /**
     * Kafka's isr-expiration, once: every partition this broker leads shrinks its ISR by lag. The
     * housekeeping thread runs it every {@code replica.lag.time.max.ms / 2} of the broker's time; a
     * test or the demo calls it with the time it wants.
     */
    public void runIsrExpiration(long nowMs) {
        for (PartitionReplica replica : leadership.replicas()) {
            try {
                List<Integer> before = replica.leader().map(PartitionLeader::committedIsr).orElse(List.of());
                if (replica.maybeShrinkIsr(nowMs)) {
                    log.println("isr-expiration " + replica.name() + ": ISR " + before + " -> "
                            + replica.leader().map(PartitionLeader::committedIsr).orElse(List.of()));
                }
            } catch (KeeperException e) {
                log.println("isr-expiration " + replica.name() + ": " + e.getMessage() + " (again at the next tick)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException | RuntimeException e) {
                failed(replica.name(), e);
            }
        }
    }

    /** Writes every replica's high watermark to {@value Checkpoints#HIGH_WATERMARKS}. */
    public void checkpointHighWatermarks() throws IOException {
        SortedMap<String, Long> hws = new TreeMap<>(Checkpoints.readHighWatermarks(broker.config().dataDir()));
        hws.putAll(leadership.highWatermarks()); // a partition not held this run keeps its last line
        Checkpoints.writeHighWatermarks(broker.config().dataDir(), hws);
    }

    /** The housekeeping thread: isr-expiration and the HW checkpoint, when the broker's time says. */
    private void startHousekeeping() {
        long now = broker.nowMs();
        nextIsrExpirationMs = now + replicaLagTimeMaxMs() / 2;
        nextCheckpointMs = now + brokerLong(ClusterConfigKeys.HW_CHECKPOINT_INTERVAL_MS);
        housekeeping = new Thread(this::housekeep, "klog-cluster-housekeeping");
        housekeeping.setDaemon(true);
        housekeeping.start();
    }

    private void housekeep() {
        while (!closed) {
            synchronized (this) {
                try {
                    wait(broker.config().tickMs() * 10L);
                } catch (InterruptedException e) {
                    return;
                }
            }
            long now = broker.nowMs();
            if (now >= nextIsrExpirationMs) {
                runIsrExpiration(now);
                nextIsrExpirationMs = now + replicaLagTimeMaxMs() / 2;
            }
            if (now >= nextCheckpointMs && !closed) {
                try {
                    checkpointHighWatermarks();
                } catch (IOException e) {
                    log.println("cluster: writing " + Checkpoints.HIGH_WATERMARKS + ": " + e.getMessage());
                }
                nextCheckpointMs = now + brokerLong(ClusterConfigKeys.HW_CHECKPOINT_INTERVAL_MS);
            }
        }
    }

    private void report(List<Controller.Change> changes) {
        changes.forEach(change -> log.println("cluster: controller " + info.id() + ": " + change));
    }

    private long brokerLong(String key) {
        return broker.configs().brokerLong(key);
    }

    // ClusterContext: what this broker's replicas ask of it.

    @Override
    public ZkClient zk() {
        return zk;
    }

    @Override
    public long nowMs() {
        return broker.nowMs();
    }

    @Override
    public int minIsr(String topic) {
        return minIsrByTopic.getOrDefault(topic, 1);
    }

    @Override
    public long replicaLagTimeMaxMs() {
        return brokerLong(ClusterConfigKeys.REPLICA_LAG_TIME_MAX_MS);
    }

    @Override
    public boolean isAlive(int brokerId) {
        return liveIds.contains(brokerId);
    }

    @Override
    public ReplicaFetcher.FetcherConfig fetcherConfig() {
        PartitionConfigs configs = broker.configs();
        return new ReplicaFetcher.FetcherConfig((int) configs.brokerLong(ClusterConfigKeys.REPLICA_FETCH_MAX_BYTES),
                (int) configs.brokerLong(ClusterConfigKeys.REPLICA_FETCH_WAIT_MAX_MS),
                configs.brokerLong(ClusterConfigKeys.REPLICA_FETCH_BACKOFF_MS));
    }

    @Override
    public ReplicaFetcher.Connector connectorTo(int leaderId) {
        int timeoutMs = (int) brokerLong(ClusterConfigKeys.REPLICA_SOCKET_TIMEOUT_MS);
        return () -> {
            try {
                BrokerInfo leader = BrokerRegistration.read(zk, leaderId)
                        .orElseThrow(() -> new IOException("broker " + leaderId + " is not registered, or its"
                                + " registration does not parse"));
                return TcpLeaderEndpoint.connect(leader, timeoutMs);
            } catch (KeeperException e) {
                throw new IOException("reading broker " + leaderId + "'s registration: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        };
    }

    /**
     * A leader that cannot be reached, or refuses, is what a failover looks like from a follower: one
     * rate-limited line per partition. Anything else (a bug, a learner's TODO) is a failure.
     */
    @Override
    public void fetcherFailed(String partition, Throwable failure) {
        if (failure instanceof IOException) {
            broker.trouble("fetcher " + partition, "cluster: the fetcher of " + partition + " will try again: "
                    + failure.getClass().getSimpleName() + ": " + failure.getMessage());
        } else {
            failed(partition, failure);
        }
    }

    /** One line in the broker's log; the failure itself to whoever asked to hear of failures. */
    private void failed(String where, Throwable failure) {
        log.println("cluster: " + where + ": " + failure.getClass().getSimpleName() + ": " + failure.getMessage());
        failures.accept(failure);
    }

    /** The broker's leadership: its replicas and the cluster as it last read it. */
    public ClusterLeadership leadership() {
        return leadership;
    }

    /** True while this broker is the controller. */
    public boolean isController() {
        return controller.isPresent();
    }

    /**
     * Leaves the cluster: the fetchers stopped, the leaders stopped, the high watermarks written, the
     * session closed (which deletes the registration at once: the controller moves leadership away
     * without waiting for a session timeout, Kafka's controlled shutdown in one step).
     */
    @Override
    public void close() {
        closed = true;
        // Not shutdownNow: an interrupt would close a log's FileChannel under the reaction running now.
        events.shutdown();
        try {
            if (!events.awaitTermination(2L * sessionTimeoutMs, TimeUnit.MILLISECONDS)) {
                events.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            notifyAll();
        }
        for (PartitionReplica replica : leadership.replicas()) {
            try {
                replica.close();
            } catch (IOException | RuntimeException e) {
                log.println("cluster: closing " + replica.name() + ": " + e.getMessage());
            }
        }
        try {
            checkpointHighWatermarks();
        } catch (IOException | RuntimeException e) {
            log.println("cluster: writing " + Checkpoints.HIGH_WATERMARKS + ": " + e.getMessage());
        }
        if (zk != null) {
            zk.close();
        }
        leadership.replicas().forEach(replica -> broker.releasePartition(replica.name()));
    }
}
