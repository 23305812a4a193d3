package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import kaenlog.broker.Broker;
import org.apache.zookeeper.KeeperException;

/**
 * The two tasks a broker of a cluster runs by its own time (given code; Kafka's
 * {@code ReplicaManager.startup} schedules them): {@code isr-expiration} every
 * {@code replica.lag.time.max.ms / 2}, which shrinks the ISR of every partition this broker leads,
 * and {@code highwatermark-checkpoint} every {@code replica.high.watermark.checkpoint.interval.ms},
 * which writes every replica's high watermark to {@value Checkpoints#HIGH_WATERMARKS}. The broker's
 * time is the only clock: a test or the demo may run either task itself, with the time it wants.
 */
final class ReplicaHousekeeping {
    private final Broker broker;
    private final ClusterLeadership leadership;
    private final PrintStream log;
    private final BiConsumer<String, Throwable> failed;
    private volatile boolean closed;
    private Thread thread;
    private long nextIsrExpirationMs;
    private long nextCheckpointMs;

    /** @param failed hears of what failed in a task that is no ZooKeeper weather (a bug, a learner's TODO) */
    ReplicaHousekeeping(Broker broker, ClusterLeadership leadership, PrintStream log,
                        BiConsumer<String, Throwable> failed) {
        this.broker = broker;
        this.leadership = leadership;
        this.log = log;
        this.failed = failed;
    }

    /**
     * Kafka's isr-expiration, once: every partition this broker leads shrinks its ISR by lag
     * (task 8 (LeaderIsrTest)).
     */
    void runIsrExpiration(long nowMs) {
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
                failed.accept(replica.name(), e);
            }
        }
    }

    /** Writes every replica's high watermark to {@value Checkpoints#HIGH_WATERMARKS}. */
    void checkpointHighWatermarks() throws IOException {
        SortedMap<String, Long> hws = new TreeMap<>(Checkpoints.readHighWatermarks(broker.config().dataDir()));
        hws.putAll(leadership.highWatermarks()); // a partition not held this run keeps its last line
        Checkpoints.writeHighWatermarks(broker.config().dataDir(), hws);
    }

    /** Starts the thread that runs both tasks when the broker's time says. */
    void start() {
        long now = broker.nowMs();
        nextIsrExpirationMs = now + replicaLagTimeMaxMs() / 2;
        nextCheckpointMs = now + checkpointIntervalMs();
        thread = new Thread(this::run, "klog-cluster-housekeeping");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
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
                nextCheckpointMs = now + checkpointIntervalMs();
            }
        }
    }

    /** Stops the thread at its next tick. */
    void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
    }

    private long replicaLagTimeMaxMs() {
        return broker.configs().brokerLong(ClusterConfigKeys.REPLICA_LAG_TIME_MAX_MS);
    }

    private long checkpointIntervalMs() {
        return broker.configs().brokerLong(ClusterConfigKeys.HW_CHECKPOINT_INTERVAL_MS);
    }
}
