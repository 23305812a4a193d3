package kaenlog.broker;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Services;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.cli.WallClock;
import kaenlog.log.LogConfig;

/**
 * {@code klog serve --dir D}: a real broker on a real port, until Ctrl-C. Prints one line,
 * {@code listening on HOST:PORT} (with {@code --port 0} the port the system picked); the broker's
 * log goes to stderr: at start its time, which class answers each api key and the background tasks,
 * then why a connection was closed and what retention and the cleaner did.
 *
 * <p>Time is the wall clock, read at the edge (chapter 1's {@code WallClock}) and never backwards
 * across a restart; {@code --now-ms} pins the start and lets the broker's time tick virtually.
 * {@code --config KEY=VALUE} sets a config for every partition (or the broker: e.g.
 * {@code log.retention.check.interval.ms}), {@code --partition-config P:KEY=VALUE} for one partition.
 */
public final class ServeCommand implements Subcommand {
    public static final int DEFAULT_PORT = 9092;

    @Override
    public String name() {
        return "serve";
    }

    @Override
    public String usage() {
        return "--dir DIR [--port P (default 9092, 0 = any free port)] [--host 127.0.0.1] [--now-ms MS]"
                + " [--segment-bytes N] [--config KEY=VALUE]... [--partition-config PARTITION:KEY=VALUE]..."
                + " [--flush-messages N] [--flush-ms MS] (flush: default never, as in Kafka)"
                + " [--max-connections N] [--connections-max-idle-ms MS] [--queued-max-request-bytes N]"
                + " [--max-open-partitions N] [--write-stall-max-ms MS] [--accept-data-loss PARTITION]... (open a partition whose files"
                + " hold fewer offsets than it wrote, past the missing ones; without it, it stays offline)"
                + extensionUsage() + "   (klog configs shows every key)";
    }

    @Override
    public String summary() {
        return "chapter 3: run a broker on a TCP port until interrupted";
    }

    /**
     * --segment-bytes (chapter 3's flag, kept) is --config segment.bytes=N; --flush-messages and
     * --flush-ms are --config flush.messages=N and flush.ms=MS.
     */
    static PartitionConfigs configs(Flags flags) throws UsageException {
        PartitionConfigs configs = PartitionConfigs.load();
        try {
            if (flags.has("segment-bytes")) {
                configs = configs.with(LogConfigKeys.SEGMENT_BYTES + "="
                        + flags.intValue("segment-bytes", LogConfig.DEFAULT_SEGMENT_BYTES, 1024, Integer.MAX_VALUE));
            }
            if (flags.has("flush-messages")) {
                configs = configs.with(LogConfigKeys.FLUSH_MESSAGES + "="
                        + flags.longValue("flush-messages", LogConfig.NEVER, 1, Long.MAX_VALUE));
            }
            if (flags.has("flush-ms")) {
                configs = configs.with(LogConfigKeys.FLUSH_MS + "=" + flags.longValue("flush-ms", LogConfig.NEVER, 0,
                        Long.MAX_VALUE));
            }
            for (String assignment : flags.all("config")) {
                configs = configs.with(assignment);
            }
            for (String assignment : flags.all("partition-config")) {
                configs = configs.withPartition(assignment);
            }
            for (String partition : flags.all("accept-data-loss")) {
                configs = configs.withPartition(partition + ":" + LogConfigKeys.ACCEPT_DATA_LOSS + "=true");
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return configs;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        List<ServeExtension> extensions = extensions();
        Set<String> valued = new HashSet<>(Set.of("dir", "port", "host", "now-ms", "segment-bytes", "flush-messages",
                "flush-ms", "max-connections", "connections-max-idle-ms", "queued-max-request-bytes",
                "max-open-partitions", "write-stall-max-ms"));
        extensions.forEach(extension -> valued.addAll(extension.flags()));
        Flags flags = Flags.parse(args, valued, Set.of(), Set.of("config", "partition-config",
                "accept-data-loss")).noPositional();
        if (!flags.has("dir")) {
            throw new UsageException("--dir is required: the directory the partitions live in");
        }
        LongSupplier time = WallClock.of(flags);
        BrokerConfig config = BrokerConfig.of(Path.of(flags.string("dir", "")))
                .withHost(flags.string("host", BrokerConfig.DEFAULT_HOST))
                .withPort(flags.intValue("port", DEFAULT_PORT, 0, 65535))
                .withStartNowMs(time.getAsLong())
                .withClock(flags.has("now-ms") ? null : time)
                .withConfigs(configs(flags));
        // socket.request.max.bytes is a --config key; the pool (--queued-max-request-bytes) must hold one such frame.
        config = config.withMaxFrameBytes((int) config.configs().brokerLong(LogConfigKeys.SOCKET_REQUEST_MAX_BYTES));
        ConnectionLimits limits = limits(flags, config);
        for (ServeExtension extension : extensions) {
            config = extension.configure(config, flags);
        }
        Broker broker;
        try {
            broker = Broker.start(config, limits, err);
        } catch (IOException e) {
            err.println("klog serve: cannot start on " + config.host() + ":" + config.port() + " with --dir "
                    + config.dataDir() + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return Klog.FAILED;
        }
        out.println("listening on " + broker.address());
        out.flush();
        List<Closeable> started = new ArrayList<>();
        try {
            for (ServeExtension extension : extensions) {
                extension.start(broker, flags, out, err).ifPresent(started::add);
            }
        } catch (IOException e) {
            err.println("klog serve: " + e.getMessage());
            closeAll(started, broker);
            return Klog.FAILED;
        } catch (UsageException e) {
            closeAll(started, broker);
            throw e;
        }
        Thread shutdown = new Thread(() -> closeAll(started, broker), "klog-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(FatalErrors.halting(err));
        try {
            broker.awaitClosed();
        } catch (InterruptedException stop) {
            // an in-process caller (a test) stops serve by interrupting it
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
            closeAll(started, broker);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdown);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is what closed the broker
            }
        }
        return Klog.OK;
    }

    /** The limits on what clients may hold, with Kafka's names; the pool must hold one frame of the largest size. */
    private static ConnectionLimits limits(Flags flags, BrokerConfig config) throws UsageException {
        ConnectionLimits defaults = ConnectionLimits.defaults();
        return new ConnectionLimits(
                flags.intValue("max-connections", defaults.maxConnections(), 1, Integer.MAX_VALUE),
                flags.longValue("connections-max-idle-ms", defaults.connectionsMaxIdleMs(), 1, Long.MAX_VALUE),
                flags.longValue("queued-max-request-bytes", defaults.queuedMaxRequestBytes(), config.maxFrameBytes(),
                        Long.MAX_VALUE),
                flags.intValue("max-open-partitions", defaults.maxOpenPartitions(), 1, Integer.MAX_VALUE),
                flags.longValue("write-stall-max-ms", defaults.writeStallMaxMs(), 1, Long.MAX_VALUE));
    }

    /** The extensions later chapters registered (none in chapter 3 alone). */
    private static List<ServeExtension> extensions() {
        List<ServeExtension> extensions = new ArrayList<>(Services.load(ServeExtension.class));
        extensions.sort(java.util.Comparator.comparingInt(ServeExtension::startOrder)); // stable: class names next
        return extensions;
    }

    private static String extensionUsage() {
        StringBuilder usage = new StringBuilder();
        extensions().forEach(extension -> usage.append(' ').append(extension.usage()));
        return usage.toString();
    }

    /** Extensions first (they call into the broker), then the broker. */
    private static void closeAll(List<Closeable> started, Broker broker) {
        for (Closeable closeable : started) {
            try {
                closeable.close();
            } catch (IOException ignored) {
                // shutting down: nothing left to tell anyone
            }
        }
        broker.close();
    }
}
