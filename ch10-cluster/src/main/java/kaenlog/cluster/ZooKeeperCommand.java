package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog zookeeper --dir D --port 2181}: one ZooKeeper server (embedded in this process) for a
 * cluster of {@code klog serve --zookeeper 127.0.0.1:2181} brokers, until Ctrl-C. Standalone, or with
 * {@code --id N --servers 1=H:2888:3888,2=...,3=...} one member of an ensemble: ZooKeeper's own
 * {@code server.N=host:peerPort:electionPort} lines, one flag. Its data (transaction log, snapshots)
 * stays in {@code D}, so a restarted server remembers the topics; the brokers' ephemeral
 * registrations end with their sessions.
 */
public final class ZooKeeperCommand implements Subcommand {
    private static final int DEFAULT_PORT = 2181;
    /** ZooKeeper's default tick: sessions of 4 to 40 s. */
    private static final int DEFAULT_TICK_MS = 2_000;

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String usage() {
        return "--dir D [--port P (2181)] [--host H (127.0.0.1: where clients connect)] [--tick-ms MS (2000: sessions"
                + " of 2 to 20 ticks)] [--id N --servers ID=HOST:PEER_PORT:ELECTION_PORT,... (one member of an"
                + " ensemble, e.g. --id 1 --servers 1=127.0.0.1:2888:3888,2=127.0.0.1:2889:3889,3=127.0.0.1:2890:3890)]";
    }

    @Override
    public String summary() {
        return "chapter 10: one ZooKeeper server (embedded), standalone or an ensemble's member, for klog serve --zookeeper";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("dir", "port", "host", "tick-ms", "id", "servers"), Set.of()).noPositional();
        if (!flags.has("dir")) {
            throw new UsageException("--dir is required");
        }
        if (flags.has("id") != flags.has("servers")) {
            throw new UsageException("--id and --servers go together: this server's id among the ensemble's servers");
        }
        Path dir = Path.of(flags.string("dir", ""));
        int port = flags.intValue("port", DEFAULT_PORT, 0, 65_535);
        int tickMs = flags.intValue("tick-ms", DEFAULT_TICK_MS, 1, 60_000);
        Optional<EmbeddedZooKeeper.Quorum> quorum = flags.has("servers")
                ? Optional.of(EmbeddedZooKeeper.Quorum.parse(flags.intValue("id", 1, 1, 255), flags.string("servers", "")))
                : Optional.empty();
        EmbeddedZooKeeper server;
        try {
            server = EmbeddedZooKeeper.start(dir, flags.string("host", "127.0.0.1"), port, tickMs, quorum);
        } catch (IOException e) {
            err.println("klog zookeeper: " + e.getMessage());
            return Klog.FAILED;
        }
        out.println(quorum.map(q -> "zookeeper " + q.id() + " of ensemble " + q + " on ").orElse("zookeeper on ")
                + server.connectString() + " (data in " + dir + ")");
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread shutdown = new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "klog-zookeeper-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        try {
            stopped.await();
        } catch (InterruptedException stop) {
            // an in-process caller stops it by interrupting it
            Runtime.getRuntime().removeShutdownHook(shutdown);
            server.close();
        }
        return Klog.OK;
    }
}
