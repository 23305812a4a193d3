package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A broker's membership of a cluster (given code, on the tasks' pieces), for {@code klog serve
 * --broker-id N --zookeeper H:P}: it registers, runs for controller, and while it is the
 * controller it gives new topics their first states and elects leaders when brokers come and go.
 * Every ZooKeeper watch is one-shot, so each reaction reads again and sets its watches again; the
 * reactions run one at a time on one thread, never on ZooKeeper's event thread.
 */
public final class ClusterMember implements Closeable, Watcher {
    private final BrokerInfo info;
    private final PrintStream log;
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "klog-cluster-member");
        thread.setDaemon(true);
        return thread;
    });
    private final long nowMs;
    private ZkClient zk;
    private Optional<Controller> controller = Optional.empty();

    private ClusterMember(BrokerInfo info, long nowMs, PrintStream log) {
        this.info = info;
        this.nowMs = nowMs;
        this.log = log;
    }

    /** Connects, registers, and starts reacting; the broker epoch is logged. */
    public static ClusterMember join(String connectString, int sessionTimeoutMs, BrokerInfo info, long nowMs,
                                     PrintStream log) throws IOException {
        ClusterMember member = new ClusterMember(info, nowMs, log);
        member.zk = ZkClient.connect(connectString, sessionTimeoutMs, member);
        try {
            long epoch = BrokerRegistration.register(member.zk, info, nowMs);
            log.println("cluster: broker " + info.id() + " registered at " + connectString + ", broker epoch " + epoch);
        } catch (KeeperException e) {
            member.close();
            throw new IOException("cannot register broker " + info.id() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            member.close();
            throw new IOException("interrupted", e);
        }
        member.schedule();
        return member;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            schedule();
        } else if (event.getState() == Event.KeeperState.Expired) {
            log.println("cluster: broker " + info.id() + "'s ZooKeeper session expired: restart the broker to rejoin");
        }
    }

    private void schedule() {
        try {
            events.execute(this::react);
        } catch (RejectedExecutionException closing) {
            // closing: no more reactions
        }
    }

    private void react() {
        try {
            zk.children(ZNodes.BROKER_IDS, this);
            zk.children(ZNodes.TOPICS, this);
            zk.get(ZNodes.CONTROLLER, this);
            if (ControllerElection.controller(zk) == PartitionState.NO_LEADER) {
                ControllerElection.elect(zk, info.id(), nowMs).ifPresent(epoch -> {
                    log.println("cluster: broker " + info.id() + " is the controller, epoch " + epoch.epoch());
                    controller = Optional.of(new Controller(zk, epoch));
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
        }
    }

    private void report(List<Controller.Change> changes) {
        changes.forEach(change -> log.println("cluster: controller " + info.id() + ": " + change));
    }

    @Override
    public void close() {
        events.shutdownNow();
        if (zk != null) {
            zk.close();
        }
    }
}
