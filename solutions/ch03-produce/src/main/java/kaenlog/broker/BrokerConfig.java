package kaenlog.broker;

import java.nio.file.Path;
import kaenlog.log.LogConfig;
import kaenlog.produce.Frames;

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
 * @param maxFrameBytes the largest request frame accepted (Kafka's socket.request.max.bytes)
 */
public record BrokerConfig(Path dataDir, String host, int port, long startNowMs, int tickMs, LogConfig logConfig,
                           int maxFrameBytes) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_TICK_MS = 10;

    public BrokerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, not " + port);
        }
        if (tickMs < 0) {
            throw new IllegalArgumentException("tickMs must not be negative, not " + tickMs);
        }
        if (maxFrameBytes < RequestEnvelope.HEADER_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes is too small: " + maxFrameBytes);
        }
    }

    /** Loopback, a free port, time 0 ticking every 10 ms, Kafka's log defaults, 1 MiB frames. */
    public static BrokerConfig of(Path dataDir) {
        return new BrokerConfig(dataDir, DEFAULT_HOST, 0, 0, DEFAULT_TICK_MS, LogConfig.defaults(),
                Frames.DEFAULT_MAX_FRAME_BYTES);
    }

    public BrokerConfig withHost(String newHost) {
        return new BrokerConfig(dataDir, newHost, port, startNowMs, tickMs, logConfig, maxFrameBytes);
    }

    public BrokerConfig withPort(int newPort) {
        return new BrokerConfig(dataDir, host, newPort, startNowMs, tickMs, logConfig, maxFrameBytes);
    }

    public BrokerConfig withStartNowMs(long nowMs) {
        return new BrokerConfig(dataDir, host, port, nowMs, tickMs, logConfig, maxFrameBytes);
    }

    public BrokerConfig withTickMs(int newTickMs) {
        return new BrokerConfig(dataDir, host, port, startNowMs, newTickMs, logConfig, maxFrameBytes);
    }

    public BrokerConfig withLogConfig(LogConfig newLogConfig) {
        return new BrokerConfig(dataDir, host, port, startNowMs, tickMs, newLogConfig, maxFrameBytes);
    }
}
