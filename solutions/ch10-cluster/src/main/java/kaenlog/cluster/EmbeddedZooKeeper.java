package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.cli.UsageException;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * One ZooKeeper server in this JVM (given code): {@code klog zookeeper}, the demo and the tests.
 * Standalone by default, one machine's worth of coordination, which is what a learner's laptop has;
 * or one member of an ensemble ({@link Quorum}): three {@code klog zookeeper --id N --servers ...}
 * processes, on three hosts or on loopback, keep serving while any two of them live. ZooKeeper keeps
 * its transaction log and snapshots under {@code dir}, so a restarted server remembers every
 * persistent znode.
 */
public final class EmbeddedZooKeeper implements Closeable {
    private static final long START_TIMEOUT_MS = 30_000;
    /** ZooKeeper's sample zoo.cfg: followers have 10 ticks to connect and sync to a leader, 5 to answer it. */
    private static final int INIT_LIMIT_TICKS = 10;
    private static final int SYNC_LIMIT_TICKS = 5;
    private final ZooKeeperServerEmbedded server;
    private final String host;
    private final int port;

    /**
     * This server's place in an ensemble: its id and every member's {@code host:peerPort:electionPort}
     * (ZooKeeper's {@code server.N=host:2888:3888} lines: followers talk to the leader on the peer
     * port, everyone votes on the election port).
     */
    public record Quorum(int id, SortedMap<Integer, String> servers) {
        private static final Pattern SERVER = Pattern.compile("([1-9][0-9]{0,8})=([^:,=\\s]+):([0-9]{1,5}):([0-9]{1,5})");

        public Quorum {
            servers = Collections.unmodifiableSortedMap(new TreeMap<>(servers));
        }

        /** {@code --servers 1=127.0.0.1:2888:3888,2=127.0.0.1:2889:3889,...}, with this server's {@code --id}. */
        public static Quorum parse(int id, String servers) throws UsageException {
            SortedMap<Integer, String> parsed = new TreeMap<>();
            for (String server : servers.split(",", -1)) {
                Matcher m = SERVER.matcher(server.trim());
                if (!m.matches() || port(m.group(3)) == 0 || port(m.group(4)) == 0) {
                    throw new UsageException("--servers takes ID=HOST:PEER_PORT:ELECTION_PORT,..., e.g."
                            + " 1=127.0.0.1:2888:3888,2=127.0.0.1:2889:3889,3=127.0.0.1:2890:3890, not '" + server + "'");
                }
                if (parsed.put(Integer.parseInt(m.group(1)), m.group(2) + ":" + m.group(3) + ":" + m.group(4)) != null) {
                    throw new UsageException("--servers names server " + m.group(1) + " twice");
                }
            }
            if (!parsed.containsKey(id)) {
                throw new UsageException("--id " + id + " is not one of --servers' ids " + parsed.keySet());
            }
            return new Quorum(id, parsed);
        }

        private static int port(String digits) {
            int port = Integer.parseInt(digits);
            return port <= 65_535 ? port : 0;
        }

        /** The members as {@code --servers} takes them: {@code 1=127.0.0.1:2888:3888,2=...}. */
        public static String serversFlag(SortedMap<Integer, String> servers) {
            StringBuilder text = new StringBuilder();
            servers.forEach((n, address) -> text.append(text.isEmpty() ? "" : ",").append(n).append('=').append(address));
            return text.toString();
        }

        @Override
        public String toString() {
            return serversFlag(servers);
        }
    }

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, String host, int port) {
        this.server = server;
        this.host = host;
        this.port = port;
    }

    /**
     * Starts a standalone server on {@code port} (0: a free one) of the loopback address, keeping its
     * data in {@code dir}. {@code tickMs} is ZooKeeper's tick: a session's timeout is between 2 and 20 ticks.
     */
    public static EmbeddedZooKeeper start(Path dir, int port, int tickMs) throws IOException {
        return start(dir, "127.0.0.1", port, tickMs, Optional.empty());
    }

    /**
     * Starts a server taking clients on {@code host:port}, standalone or, with a {@code quorum}, as
     * one member of that ensemble. A member returns once it listens: it serves clients only after a
     * majority of the members have elected a leader, and ZooKeeper's clients wait for that.
     */
    public static EmbeddedZooKeeper start(Path dir, String host, int port, int tickMs, Optional<Quorum> quorum)
            throws IOException {
        Files.createDirectories(dir);
        int chosen = port != 0 ? port : freePort();
        Path data = dir.resolve("data");
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(chosen));
        config.setProperty("clientPortAddress", host);
        config.setProperty("dataDir", data.toAbsolutePath().toString());
        config.setProperty("tickTime", Integer.toString(tickMs));
        config.setProperty("admin.enableServer", "false");
        config.setProperty("maxClientCnxns", "0");
        if (quorum.isPresent()) {
            config.setProperty("initLimit", Integer.toString(INIT_LIMIT_TICKS));
            config.setProperty("syncLimit", Integer.toString(SYNC_LIMIT_TICKS));
            quorum.get().servers().forEach((id, address) -> config.setProperty("server." + id, address));
            // a member learns which server.N it is from the file myid in its data directory
            Files.createDirectories(data);
            Files.writeString(data.resolve("myid"), quorum.get().id() + "\n", StandardCharsets.US_ASCII);
        }
        try {
            ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder().baseDir(dir.toAbsolutePath())
                    .configuration(config).exitHandler(ExitHandler.LOG_ONLY).build();
            server.start(START_TIMEOUT_MS);
            return new EmbeddedZooKeeper(server, host, chosen);
        } catch (Exception e) {
            throw new IOException("ZooKeeper did not start on port " + chosen + ": " + e, e);
        }
    }

    /** The connect string for clients: {@code host:port}. */
    public String connectString() {
        return host + ":" + port;
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
