package kaenlog.broker;

/**
 * What the broker holds at once, whatever its clients do: each limit a hostile client could reach is
 * bounded here, with Kafka's name where Kafka has one.
 *
 * @param maxConnections         connections open at once (Kafka's {@code max.connections}); one more is
 *                               accepted and closed at once, with a line in the log (Kafka's acceptor
 *                               waits for a free slot instead, and closes at once only over
 *                               {@code max.connections.per.ip}; closing keeps the accept queue draining)
 * @param connectionsMaxIdleMs   a connection that has not sent a whole request for this long, of the
 *                               broker's time, is closed (Kafka's {@code connections.max.idle.ms},
 *                               default 10 minutes). Kafka counts any byte as activity; kaen-log counts
 *                               whole requests, so a client that sends a frame one byte a second
 *                               (slowloris) is closed as well. A connection waiting for the broker (a
 *                               parked fetch, room in the pool) is never idle.
 * @param queuedMaxRequestBytes  bytes of requests held in memory at once, all connections together
 *                               (Kafka's {@code queued.max.request.bytes}; see {@link MemoryPool}); at
 *                               least one frame of the largest size
 * @param maxOpenPartitions      partitions open at once (their files, their place in every tick); the
 *                               one unused for the longest is closed, and reopened on its next request.
 *                               Kafka has no such limit (it keeps every log open); kaen-log's partitions
 *                               are created by clients, so it needs one.
 * @param writeStallMaxMs        a response write that moves no byte for this long, of the broker's time,
 *                               closes its connection: a client that stops reading holds a thread and a
 *                               socket, never the broker. Kafka has no separate setting: its selector
 *                               never blocks on one socket, and a connection whose writes stall is closed
 *                               by {@code connections.max.idle.ms} like any other.
 */
public record ConnectionLimits(int maxConnections, long connectionsMaxIdleMs, long queuedMaxRequestBytes,
                               int maxOpenPartitions, long writeStallMaxMs) {
    public static final int DEFAULT_MAX_CONNECTIONS = 1000;
    /** Kafka's default connections.max.idle.ms. */
    public static final long DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;
    /**
     * 16 MiB (Kafka's default is unbounded): two frames of the largest default size
     * ({@link BrokerConfig#DEFAULT_SOCKET_REQUEST_MAX_BYTES}), sixteen of the 1 MiB a producer sends by default.
     * Like Kafka's SimpleMemoryPool (whose largest single allocation is socket.request.max.bytes and
     * may not exceed the pool), the pool must hold one frame of the largest size: a frame the pool
     * could never hold would wait for ever, so the broker refuses to start with such a pair.
     */
    public static final long DEFAULT_QUEUED_MAX_REQUEST_BYTES = 16L << 20;
    public static final int DEFAULT_MAX_OPEN_PARTITIONS = 1000;
    /** 30 s: far beyond any client that reads, well before connections.max.idle.ms. */
    public static final long DEFAULT_WRITE_STALL_MAX_MS = 30_000;

    public ConnectionLimits(int maxConnections, long connectionsMaxIdleMs, long queuedMaxRequestBytes,
                            int maxOpenPartitions) {
        this(maxConnections, connectionsMaxIdleMs, queuedMaxRequestBytes, maxOpenPartitions, DEFAULT_WRITE_STALL_MAX_MS);
    }

    public ConnectionLimits {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, not " + maxConnections);
        }
        if (connectionsMaxIdleMs < 1) {
            throw new IllegalArgumentException("connectionsMaxIdleMs must be at least 1, not " + connectionsMaxIdleMs);
        }
        if (queuedMaxRequestBytes < 1) {
            throw new IllegalArgumentException("queuedMaxRequestBytes must be at least 1, not " + queuedMaxRequestBytes);
        }
        if (maxOpenPartitions < 1) {
            throw new IllegalArgumentException("maxOpenPartitions must be at least 1, not " + maxOpenPartitions);
        }
        if (writeStallMaxMs < 1) {
            throw new IllegalArgumentException("writeStallMaxMs must be at least 1, not " + writeStallMaxMs);
        }
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_CONNECTIONS_MAX_IDLE_MS,
                DEFAULT_QUEUED_MAX_REQUEST_BYTES, DEFAULT_MAX_OPEN_PARTITIONS);
    }

    public ConnectionLimits withMaxConnections(int n) {
        return new ConnectionLimits(n, connectionsMaxIdleMs, queuedMaxRequestBytes, maxOpenPartitions, writeStallMaxMs);
    }

    public ConnectionLimits withConnectionsMaxIdleMs(long ms) {
        return new ConnectionLimits(maxConnections, ms, queuedMaxRequestBytes, maxOpenPartitions, writeStallMaxMs);
    }

    public ConnectionLimits withQueuedMaxRequestBytes(long bytes) {
        return new ConnectionLimits(maxConnections, connectionsMaxIdleMs, bytes, maxOpenPartitions, writeStallMaxMs);
    }

    public ConnectionLimits withMaxOpenPartitions(int n) {
        return new ConnectionLimits(maxConnections, connectionsMaxIdleMs, queuedMaxRequestBytes, n, writeStallMaxMs);
    }

    public ConnectionLimits withWriteStallMaxMs(long ms) {
        return new ConnectionLimits(maxConnections, connectionsMaxIdleMs, queuedMaxRequestBytes, maxOpenPartitions, ms);
    }
}
