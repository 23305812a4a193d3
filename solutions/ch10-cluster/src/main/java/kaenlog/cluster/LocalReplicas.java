package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import kaenlog.broker.Broker;
import kaenlog.broker.PartitionConfigs;
import kaenlog.wire.PartitionNames;
import org.apache.zookeeper.KeeperException;

/**
 * This broker's replicas of the cluster's partitions, as its {@link MetadataFollower} hands them
 * their states (given code; Kafka's {@code ReplicaManager.becomeLeaderOrFollower}): a replica is
 * opened the first time a state names this broker among a partition's replicas, each new state goes
 * to it ({@link PartitionReplica#onState}), and a broker that comes to lead a partition, or stops,
 * tells the {@link LeadershipListener}s. It is also what the replicas ask of the cluster
 * ({@link ClusterContext}): the session, the brokers and configs as the follower last read them,
 * and the broker's own configs and time.
 */
final class LocalReplicas implements ClusterContext {
    private final Broker broker;
    private final ClusterLeadership leadership;
    private final PrintStream log;
    private final BiConsumer<String, Throwable> failed;
    private volatile ZkClient zk;
    /** The live brokers as last read (registered, registration readable): Kafka's metadata cache's. */
    private volatile Set<Integer> liveIds = Set.of();
    private final Map<String, Integer> minIsrByTopic = new ConcurrentHashMap<>();

    /** @param failed hears of what failed in a fetcher that is no I/O weather (a bug, a learner's TODO) */
    LocalReplicas(Broker broker, ClusterLeadership leadership, PrintStream log, BiConsumer<String, Throwable> failed) {
        this.broker = broker;
        this.leadership = leadership;
        this.log = log;
        this.failed = failed;
    }

    /** The session the broker (re)joined with: leaders write their ISRs with it. */
    void joined(ZkClient session) {
        zk = session;
    }

    /** The live brokers as just read. */
    void liveBrokers(Set<Integer> ids) {
        liveIds = Set.copyOf(ids);
    }

    /** {@code topic}'s {@code min.insync.replicas} as just read: it applies from the next time this broker leads. */
    void minIsr(String topic, int minIsr) {
        minIsrByTopic.put(topic, minIsr);
    }

    /**
     * Hands a state to this broker's replica of the partition, opening the replica first if it is
     * new; a broker that comes to lead it, or stops leading it, tells the listeners. A replica that
     * cannot be opened or act (its storage failed) is told, and the other partitions go on: its
     * state's watch is set, and its next state is handed to it again.
     */
    void onState(String topic, int partition, List<Integer> assignment, Versioned<PartitionState> state) {
        String name = PartitionNames.name(topic, partition);
        Optional<PartitionLeader> before;
        PartitionRole.Decision decision;
        try {
            PartitionReplica replica = leadership.replica(name).orElse(null);
            if (replica == null) {
                replica = open(topic, partition, name);
                leadership.add(replica);
            }
            before = replica.leader();
            decision = replica.onState(state, assignment, this);
        } catch (IOException e) {
            failed.accept(name, e);
            return;
        }
        if (decision == PartitionRole.Decision.IGNORED) {
            return;
        }
        log.println("cluster: broker " + leadership.brokerId() + " " + describe(decision, state.value()) + " " + name
                + " at leader epoch " + state.value().leaderEpoch() + ", ISR " + state.value().isr());
        if (decision == PartitionRole.Decision.LEADER) {
            leadership.elected(name, state.value().leaderEpoch());
        } else if (before.isPresent()) {
            leadership.resigned(name, before.get().leaderEpoch());
        }
    }

    /** The replica on the broker's partition, its high watermark from the checkpoint (task 12 (CheckpointsTest)). */
    private PartitionReplica open(String topic, int partition, String name) throws IOException {
        Path dataDir = broker.config().dataDir();
        OptionalLong hw = Optional.ofNullable(Checkpoints.readHighWatermarks(dataDir).get(name))
                .map(OptionalLong::of).orElse(OptionalLong.empty());
        return PartitionReplica.open(leadership.brokerId(), topic, partition, broker.holdPartition(name),
                PartitionNames.resolve(dataDir, name), hw);
    }

    private static String describe(PartitionRole.Decision decision, PartitionState state) {
        return switch (decision) {
            case LEADER -> "leads";
            case FOLLOWER -> "follows broker " + state.leader() + " in";
            case OFFLINE -> "has no leader to follow in";
            case IGNORED -> "ignores a state of";
        };
    }

    /**
     * {@code topic} was deleted (the controller deleted its znodes): each replica of it on this broker
     * is stopped (its fetcher, its leadership, the listeners told) and its log deleted, and the topic's
     * configs go with it (Kafka's StopReplica with deletePartitions). A log that cannot be deleted is
     * told, and the other replicas go on.
     */
    void deleteTopic(String topic) {
        for (PartitionReplica replica : List.copyOf(leadership.replicas())) {
            if (!PartitionNames.parse(replica.name()).map(p -> p.topic().equals(topic)).orElse(false)) {
                continue;
            }
            Optional<PartitionLeader> led = replica.leader();
            leadership.remove(replica.name());
            try {
                replica.close();
                led.ifPresent(leader -> leadership.resigned(replica.name(), leader.leaderEpoch()));
                broker.deletePartition(replica.name());
                log.println("cluster: broker " + leadership.brokerId() + " deleted its replica of " + replica.name()
                        + ": topic " + topic + " was deleted");
            } catch (IOException e) {
                log.println("cluster: broker " + leadership.brokerId() + " could not delete its replica of "
                        + replica.name() + " (topic " + topic + " was deleted): " + e.getMessage());
            }
        }
        minIsrByTopic.remove(topic);
        try {
            broker.alterTopicConfigs(Map.of(topic, Map.of()));
        } catch (IOException e) {
            log.println("cluster: broker " + leadership.brokerId() + " could not forget the configs of deleted topic "
                    + topic + ": " + e.getMessage());
        }
    }

    /** The session expired: every partition this broker leads stops leading, and the listeners hear it. */
    void stopLeading() throws IOException {
        for (PartitionReplica replica : leadership.replicas()) {
            if (replica.stopLeading()) {
                leadership.resigned(replica.name(), replica.knownEpoch());
            }
        }
    }

    // ClusterContext: what this broker's replicas ask of the cluster.

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
        return broker.configs().brokerLong(ClusterConfigKeys.REPLICA_LAG_TIME_MAX_MS);
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
        int timeoutMs = (int) broker.configs().brokerLong(ClusterConfigKeys.REPLICA_SOCKET_TIMEOUT_MS);
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
            failed.accept(partition, failure);
        }
    }
}
