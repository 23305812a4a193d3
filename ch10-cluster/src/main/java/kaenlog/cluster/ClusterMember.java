package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Consumer;
import kaenlog.broker.Broker;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A broker's membership of a cluster (given code, on the tasks' pieces), for {@code klog serve
 * --broker-id N --zookeeper H:P}: its ZooKeeper session and its registration, and the three parts a
 * member runs on them, each on its own thread. Its {@link ControllerCandidate} runs for controller
 * and, while it holds the office, gives new topics their first states and elects leaders when
 * brokers come and go. Its {@link MetadataFollower} follows the cluster's metadata, and hands each
 * new state of a partition the assignment gives this broker to its replica of it
 * ({@link LocalReplicas}), which leads, or follows with a fetcher. Its {@link ReplicaHousekeeping}
 * runs the leaders' isr-expiration and writes the high watermarks, both by the broker's time.
 *
 * <p>When the session expires (the broker was stopped, or cut off, for longer than the session
 * timeout), ZooKeeper deleted the registration and the controller moved leadership away: the broker
 * stops leading at once (a zombie leader must acknowledge nothing), then joins again with a new
 * session and a new broker epoch, and the controller and the follower start again on it.
 */
public final class ClusterMember implements Closeable, Watcher {
    private final Broker broker;
    private final ClusterLeadership leadership;
    private final BrokerInfo info;
    private final String connectString;
    private final int sessionTimeoutMs;
    private final PrintStream log;
    private final Consumer<Throwable> failures;
    private final EventQueue sessions;
    private final ControllerCandidate controller;
    private final MetadataFollower follower;
    private final ReplicaHousekeeping housekeeping;
    private final ClusterGroupCoordination groups;
    /** A later chapter's parts of the member ({@link ClusterExtension}: chapter 11's transactions). */
    private final List<Closeable> extensions;
    private volatile ZkClient zk;
    private volatile boolean closed;

    private ClusterMember(Broker broker, ClusterLeadership leadership, BrokerInfo info, String connectString,
                          int sessionTimeoutMs, PrintStream log, Consumer<Throwable> failures) {
        this.broker = broker;
        this.leadership = leadership;
        this.info = info;
        this.connectString = connectString;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.log = log;
        this.failures = failures;
        ZNodeRefusals refusals = new ZNodeRefusals(log, "broker " + info.id());
        this.sessions = new EventQueue("klog-cluster-member-" + info.id(), "broker " + info.id(), log, this::failed);
        this.controller = new ControllerCandidate(info.id(), broker::nowMs, refusals::refused, log, this::failed);
        this.follower = new MetadataFollower(broker, leadership, log, refusals, this::failed);
        this.housekeeping = new ReplicaHousekeeping(broker, leadership, log, this::failed);
        this.groups = ClusterGroupCoordination.install(broker, leadership, log);
        this.extensions = ClusterExtension.load().stream().map(e -> e.install(broker, leadership, log)).toList();
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
        member.start();
        if (broker.config().tickMs() > 0) {
            member.housekeeping.start();
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
            if (leadership.replicas().isEmpty()) {
                deleteMarkedTopics(session);
            }
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

    /**
     * Before a starting broker registers, it deletes its logs of every topic marked for deletion: the
     * controller waits for every replica's broker to be live before it deletes a topic, and deletes it
     * as soon as this one registers, possibly before this broker has read the topics once, and then it
     * would never see the topic go (Kafka's controller sent the returning broker StopReplica with
     * deletePartitions instead). A marked topic is never unmarked: its logs are doomed.
     */
    private void deleteMarkedTopics(ZkClient session) throws KeeperException, InterruptedException, IOException {
        java.util.List<String> marked = session.children(ZNodes.DELETE_TOPICS);
        for (String partition : broker.clientPartitionNames()) {
            boolean doomed = kaenlog.wire.PartitionNames.parse(partition).map(p -> marked.contains(p.topic()))
                    .orElse(false);
            if (doomed) {
                broker.deletePartition(partition);
                log.println("cluster: broker " + info.id() + " deleted its log of " + partition
                        + ": its topic is marked for deletion");
            }
        }
    }

    /** The controller and the follower start on the session this broker registered with. */
    private void start() {
        controller.startup(zk);
        follower.startup(zk);
    }

    /** The session's own events: only its expiry matters here (each part watches its own znodes). */
    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.None && event.getState() == Event.KeeperState.Expired) {
            sessions.put(this::rejoin);
        }
    }

    /**
     * The session expired: this broker is no longer a member, whatever it still believes. Its
     * partitions stop leading and its term as controller ends, each on its own thread before it
     * reads anything of the new session; then it joins again.
     */
    private void rejoin() {
        if (closed || zk.alive()) {
            return;
        }
        log.println("cluster: broker " + info.id() + "'s ZooKeeper session expired: it stops leading and joins again");
        follower.sessionExpired();
        controller.sessionExpired();
        zk.close();
        try {
            connectAndRegister();
            start();
        } catch (IOException e) {
            log.println("cluster: broker " + info.id() + " cannot join again: " + e.getMessage()
                    + " (restart the broker)");
        }
    }

    /** One line in the broker's log; the failure itself to whoever asked to hear of failures. */
    private void failed(String where, Throwable failure) {
        log.println("cluster: " + where + ": " + failure.getClass().getSimpleName() + ": " + failure.getMessage());
        failures.accept(failure);
    }

    /**
     * Kafka's isr-expiration, once, at {@code nowMs}: the housekeeping thread runs it every
     * {@code replica.lag.time.max.ms / 2} of the broker's time; a test or the demo calls it with the
     * time it wants.
     */
    public void runIsrExpiration(long nowMs) {
        housekeeping.runIsrExpiration(nowMs);
    }

    /** The broker's leadership: its replicas and the cluster as it last read it. */
    public ClusterLeadership leadership() {
        return leadership;
    }

    /** True while this broker is the controller. */
    public boolean isController() {
        return controller.isController();
    }

    /**
     * Leaves the cluster: the threads stopped, the fetchers stopped, the leaders stopped, the high
     * watermarks written, the session closed (which deletes the registration at once: the controller
     * moves leadership away without waiting for a session timeout, Kafka's controlled shutdown in one
     * step).
     */
    @Override
    public void close() {
        closed = true;
        long waitMs = 2L * sessionTimeoutMs;
        sessions.close(waitMs);
        controller.close(waitMs);
        follower.close(waitMs);
        housekeeping.close();
        groups.close();
        for (Closeable extension : extensions) {
            try {
                extension.close();
            } catch (IOException | RuntimeException e) {
                log.println("cluster: closing " + extension + ": " + e.getMessage());
            }
        }
        for (PartitionReplica replica : leadership.replicas()) {
            try {
                replica.close();
            } catch (IOException | RuntimeException e) {
                log.println("cluster: closing " + replica.name() + ": " + e.getMessage());
            }
        }
        try {
            housekeeping.checkpointHighWatermarks();
        } catch (IOException | RuntimeException e) {
            log.println("cluster: writing " + Checkpoints.HIGH_WATERMARKS + ": " + e.getMessage());
        }
        if (zk != null) {
            zk.close();
        }
        leadership.replicas().forEach(replica -> broker.releasePartition(replica.name()));
    }
}
