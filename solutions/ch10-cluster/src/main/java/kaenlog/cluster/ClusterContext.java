package kaenlog.cluster;

/** What a broker's replicas need of the cluster, as their broker last read it ({@link LocalReplicas}). */
interface ClusterContext {
    /** The broker's ZooKeeper session: a leader writes its ISR with it. */
    ZkClient zk();

    /** The broker's time. */
    long nowMs();

    /** The topic's {@code min.insync.replicas}: its own config in ZooKeeper, else the broker's. */
    int minIsr(String topic);

    /** Kafka's {@code replica.lag.time.max.ms}. */
    long replicaLagTimeMaxMs();

    /** How followers fetch: Kafka's {@code replica.fetch.*}. */
    ReplicaFetcher.FetcherConfig fetcherConfig();

    /**
     * Whether broker {@code brokerId} is live, by the cluster as this broker last read it: registered,
     * and its registration readable (Kafka's metadata cache, {@code hasAliveBroker}).
     */
    boolean isAlive(int brokerId);

    /** Connects to broker {@code leaderId}'s inter-broker port, found in its registration when the fetcher connects. */
    ReplicaFetcher.Connector connectorTo(int leaderId);

    /** A fetcher's thread failed: the broker's log hears of it (and a test may fail on it). */
    void fetcherFailed(String partition, Throwable failure);
}
