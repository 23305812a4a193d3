package kaenlog.broker;

import java.nio.file.Path;
import java.util.function.LongSupplier;
import kaenlog.log.LogConfig;
import kaenlog.wire.RequestEnvelope;

/**
 * How a {@link Broker} runs.
 *
 * @param dataDir       one directory per partition lives here
 * @param host          the address to listen on; loopback by default, so a learner's broker is not
 *                      reachable from the network
 * @param port          0 picks a free port ({@link Broker#port()} tells which)
 * @param startNowMs    the broker's virtual time when it starts
 * @param tickMs        how often (real milliseconds) the ticker advances the virtual time by as much;
 *                      0 = no ticker, time moves only by {@link Broker#advanceTime} (tests)
 * @param logConfig     segment.bytes and index.interval.bytes of every partition
 * @param maxFrameBytes the largest request frame accepted (Kafka's socket.request.max.bytes; {@code klog
 *                      serve --config socket.request.max.bytes=N}); default {@value #DEFAULT_SOCKET_REQUEST_MAX_BYTES}
 * @param clock         null: the broker's time is virtual (the ticker adds {@code tickMs}); otherwise the
 *                      ticker moves time to what this returns, never backwards ({@code klog serve} passes
 *                      chapter 1's wall clock: chapter code reads none)
 * @param configs       the partitions' and the broker's configs (Kafka's names); a partition's storage
 *                      settings set there win over {@code logConfig}
 * @param leadership    which partitions the broker serves and as what: {@link Leadership#ALONE} (it leads
 *                      every partition it holds) unless chapter 10 makes it a member of a cluster
 */
public record BrokerConfig(Path dataDir, String host, int port, long startNowMs, int tickMs, LogConfig logConfig,
                           int maxFrameBytes, LongSupplier clock, PartitionConfigs configs, Leadership leadership) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_TICK_MS = 10;
    /**
     * 8 MiB: room for a batch well over {@code message.max.bytes} (a producer whose max.request.size is
     * larger gets MESSAGE_TOO_LARGE, not a dropped connection), and two such frames in the default
     * request memory pool. Kafka's default is 100 MiB with no pool at all (queued.max.request.bytes -1).
     */
    public static final int DEFAULT_SOCKET_REQUEST_MAX_BYTES = 8 << 20;

    public BrokerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, not " + port);
        }
        if (tickMs < 0) {
            throw new IllegalArgumentException("tickMs must not be negative, not " + tickMs);
        }
        if (configs == null) {
            throw new IllegalArgumentException("configs must not be null: PartitionConfigs.load() has Kafka's defaults");
        }
        if (leadership == null) {
            throw new IllegalArgumentException("leadership must not be null: Leadership.ALONE is a broker on its own");
        }
        if (maxFrameBytes < RequestEnvelope.HEADER_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes is too small: " + maxFrameBytes);
        }
    }

    /** Loopback, a free port, time 0 ticking every 10 ms, Kafka's log defaults, frames up to 8 MiB. */
    public static BrokerConfig of(Path dataDir) {
        return new BrokerConfig(dataDir, DEFAULT_HOST, 0, 0, DEFAULT_TICK_MS, LogConfig.defaults(),
                DEFAULT_SOCKET_REQUEST_MAX_BYTES, null, PartitionConfigs.load(), Leadership.ALONE);
    }

    public BrokerConfig withHost(String newHost) {
        return new BrokerConfig(dataDir, newHost, port, startNowMs, tickMs, logConfig, maxFrameBytes, clock,
                configs, leadership);
    }

    public BrokerConfig withPort(int newPort) {
        return new BrokerConfig(dataDir, host, newPort, startNowMs, tickMs, logConfig, maxFrameBytes, clock,
                configs, leadership);
    }

    public BrokerConfig withStartNowMs(long nowMs) {
        return new BrokerConfig(dataDir, host, port, nowMs, tickMs, logConfig, maxFrameBytes, clock, configs,
                leadership);
    }

    public BrokerConfig withTickMs(int newTickMs) {
        return new BrokerConfig(dataDir, host, port, startNowMs, newTickMs, logConfig, maxFrameBytes, clock,
                configs, leadership);
    }

    public BrokerConfig withLogConfig(LogConfig newLogConfig) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, newLogConfig, maxFrameBytes, clock,
                configs, leadership);
    }

    public BrokerConfig withClock(LongSupplier newClock) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, logConfig, maxFrameBytes, newClock,
                configs, leadership);
    }

    /** socket.request.max.bytes: the largest request frame. */
    public BrokerConfig withMaxFrameBytes(int bytes) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, logConfig, bytes, clock, configs,
                leadership);
    }

    public BrokerConfig withConfigs(PartitionConfigs newConfigs) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, logConfig, maxFrameBytes, clock,
                newConfigs, leadership);
    }

    /** Chapter 10: the broker is a member of a cluster, serving what its leadership says. */
    public BrokerConfig withLeadership(Leadership newLeadership) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, logConfig, maxFrameBytes, clock, configs,
                newLeadership);
    }
}
