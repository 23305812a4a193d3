package kaenlog.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog zookeeper-status --zookeeper H:P[,H:P...]}: each ZooKeeper server's mode, one line
 * each ({@code 127.0.0.1:2181	follower}), so that a learner knows which member of an ensemble to
 * kill to see the others elect a new leader. It asks each server ZooKeeper's {@code srvr}
 * four-letter word on its client port, as {@code zkServer.sh status} does: the one word ZooKeeper
 * 3.5+ always answers ({@code FourLetterCommands} adds it to any {@code 4lw.commands.whitelist}).
 * Exit 0 when every server answered, 1 otherwise (each line says why).
 */
public final class ZooKeeperStatusCommand implements Subcommand {
    /** A server that is not there is known at once on loopback; a remote host gets this long. */
    private static final int DEFAULT_TIMEOUT_MS = 2_000;
    private static final int MAX_REPLY_BYTES = 64 * 1024;
    /** The modes srvr names (ZooKeeperServer.State / QuorumPeer.ServerState, as it prints them). */
    private static final Set<String> SERVING = Set.of("leader", "follower", "observer", "standalone", "read-only");

    /** One server of a connect string. */
    public record Address(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    @Override
    public String name() {
        return "zookeeper-status";
    }

    @Override
    public String usage() {
        return "--zookeeper H:P[,H:P...] [--timeout-ms MS (2000)]";
    }

    @Override
    public String summary() {
        return "chapter 10: each ZooKeeper server's mode (leader, follower, standalone): which one to kill";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("zookeeper", "timeout-ms"), Set.of()).noPositional();
        if (!flags.has("zookeeper")) {
            throw new UsageException("--zookeeper is required");
        }
        int timeoutMs = flags.intValue("timeout-ms", DEFAULT_TIMEOUT_MS, 1, 600_000);
        boolean all = true;
        for (Address server : parse(flags.string("zookeeper", ""))) {
            String mode = mode(server, timeoutMs);
            all &= SERVING.contains(mode);
            out.println(server + "\t" + mode);
        }
        return all ? Klog.OK : Klog.FAILED;
    }

    /**
     * A connect string's servers, {@code host:port,host:port} (a chroot suffix, {@code /kafka},
     * is ZooKeeper's business and ignored here).
     */
    public static List<Address> parse(String connectString) throws UsageException {
        String servers = connectString.contains("/") ? connectString.substring(0, connectString.indexOf('/')) : connectString;
        List<Address> addresses = new ArrayList<>();
        for (String server : servers.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            int port = colon > 0 && server.substring(colon + 1).matches("[0-9]{1,5}")
                    ? Integer.parseInt(server.substring(colon + 1)) : 0;
            if (port < 1 || port > 65_535) {
                throw new UsageException("--zookeeper takes HOST:PORT[,HOST:PORT...], e.g. 127.0.0.1:2181, not '"
                        + connectString + "'");
            }
            addresses.add(new Address(server.substring(0, colon).trim(), port));
        }
        return addresses;
    }

    /**
     * {@code leader}, {@code follower}, {@code observer} or {@code standalone} (srvr's {@code Mode:}
     * line); else a word and why, e.g. {@code unreachable (Connection refused)}: a member that has not
     * joined a quorum yet answers that it is not serving.
     */
    static String mode(Address server, int timeoutMs) {
        String reply;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(server.host(), server.port()), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            OutputStream request = socket.getOutputStream();
            request.write("srvr".getBytes(StandardCharsets.US_ASCII));
            request.flush();
            reply = readAll(socket.getInputStream());
        } catch (IOException e) {
            return "unreachable (" + e.getMessage() + ")";
        }
        for (String line : reply.split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).trim();
            }
        }
        return "not serving (" + (reply.isBlank() ? "no answer to srvr" : reply.strip().lines().findFirst().orElse("")) + ")";
    }

    private static String readAll(InputStream in) throws IOException {
        // the server closes the connection after its reply
        return new String(in.readNBytes(MAX_REPLY_BYTES), StandardCharsets.UTF_8);
    }
}
