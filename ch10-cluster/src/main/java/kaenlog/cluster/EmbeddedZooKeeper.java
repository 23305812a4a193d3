package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * One ZooKeeper server in this JVM (given code): {@code klog zookeeper}, the demo and the tests.
 * A standalone server, not an ensemble: one machine's worth of coordination, which is what a
 * learner's laptop has (three {@code klog zookeeper} processes with a {@code server.N} list would
 * be an ensemble; see the guide). ZooKeeper keeps its transaction log and snapshots under
 * {@code dir}, so a restarted server remembers every persistent znode.
 */
public final class EmbeddedZooKeeper implements Closeable {
    private static final long START_TIMEOUT_MS = 30_000;
    private final ZooKeeperServerEmbedded server;
    private final int port;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts a server on {@code port} (0: a free one) of the loopback address, keeping its data in
     * {@code dir}. {@code tickMs} is ZooKeeper's tick: a session's timeout is between 2 and 20 ticks.
     */
    public static EmbeddedZooKeeper start(Path dir, int port, int tickMs) throws IOException {
        Files.createDirectories(dir);
        int chosen = port != 0 ? port : freePort();
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(chosen));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("dataDir", dir.resolve("data").toAbsolutePath().toString());
        config.setProperty("tickTime", Integer.toString(tickMs));
        config.setProperty("admin.enableServer", "false");
        config.setProperty("maxClientCnxns", "0");
        try {
            ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder().baseDir(dir.toAbsolutePath())
                    .configuration(config).exitHandler(ExitHandler.LOG_ONLY).build();
            server.start(START_TIMEOUT_MS);
            return new EmbeddedZooKeeper(server, chosen);
        } catch (Exception e) {
            throw new IOException("ZooKeeper did not start on port " + chosen + ": " + e, e);
        }
    }

    /** The connect string for clients: {@code 127.0.0.1:port}. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        server.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
