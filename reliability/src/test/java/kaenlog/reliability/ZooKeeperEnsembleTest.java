package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import kaenlog.cli.Klog;
import kaenlog.cluster.BrokerInfo;
import kaenlog.cluster.BrokerRegistration;
import kaenlog.cluster.Controller;
import kaenlog.cluster.ControllerElection;
import kaenlog.cluster.ZkClient;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.WaitsFor;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code klog zookeeper --id N --servers ...} processes, an ensemble: what is written through
 * one member is read through another, and when the leader dies (SIGKILL) the two left elect another
 * and go on serving reads and writes, the brokers' sessions (and so their registrations) included.
 * The cluster's metadata goes through chapter 10's pieces, as a running cluster's does. (Here, not in
 * chapter 10's tests: three processes electing under a loaded machine are an operator's concern, and
 * the progressive gate runs a chapter's tests once per task.)
 */
@WaitsFor("three klog zookeeper processes to elect a leader, then the two left to elect another")
class ZooKeeperEnsembleTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    /** Quick elections and sessions of at most 20 ticks: 6 s, ample for a session to move to a survivor. */
    private static final int TICK_MS = 300;
    private static final int SESSION_MS = 6_000;
    private static final long WAIT_SECONDS = 15;
    private static final List<String> QUICK_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx96m");
    private final List<Process> members = new ArrayList<>();
    private final List<ZkClient> sessions = new ArrayList<>();

    @AfterEach
    void closeTheSessionsThenKillTheMembers() throws InterruptedException {
        sessions.forEach(ZkClient::close); // while a quorum is there to end them
        for (Process member : members) {
            member.destroyForcibly().waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWriteThroughOneMemberIsReadThroughAnotherAndTheQuorumOutlivesItsLeader(@TempDir Path dir) throws Exception {
        List<String> clients = startEnsemble(dir);
        String all = String.join(",", clients);
        Predicate<Map<String, String>> oneLeaderTwoFollowers = m -> count(m.values(), "leader") == 1
                && count(m.values(), "follower") == 2;
        Map<String, String> modes = awaitModes(all, oneLeaderTwoFollowers);
        assertThat(modes).as("klog zookeeper-status: three members elect one leader, the two others follow it")
                .matches(oneLeaderTwoFollowers);
        List<ZkClient> brokers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            brokers.add(session(all));
            BrokerRegistration.register(brokers.get(id - 1), new BrokerInfo(id, "127.0.0.1", 9090 + 2 * id, 9091, 9190 + id), NOW_MS);
        }
        ZkClient controllerSession = session(all);
        Controller controller = new Controller(controllerSession,
                ControllerElection.elect(controllerSession, 1, NOW_MS).orElseThrow());

        CliRun created = topics(clients.get(0), "--create", "--topic", "orders", "--partitions", "3",
                "--replication-factor", "3", "--config", "min.insync.replicas=2");
        assertThat(created.status()).as("create through member 1 (stderr: %s)", created.err()).isZero();
        controller.onTopicChange();
        List<String> orders = List.of(
                "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: min.insync.replicas=2",
                "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3,1\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1,2\tIsr: 3,1,2\tElr: N/A\tLastKnownElr: N/A");
        assertThat(awaitDescribe(clients.get(1), orders)).as("member 2 serves what was written through member 1")
                .isEqualTo(orders);

        String leader = modes.entrySet().stream().filter(e -> e.getValue().equals("leader")).findFirst().orElseThrow()
                .getKey();
        members.get(clients.indexOf(leader)).destroyForcibly().waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
        List<String> survivors = clients.stream().filter(c -> !c.equals(leader)).toList();
        Predicate<Map<String, String>> newLeader = m -> m.get(leader).startsWith("unreachable")
                && count(survivors.stream().map(m::get).toList(), "leader") == 1
                && count(survivors.stream().map(m::get).toList(), "follower") == 1;
        assertThat(awaitModes(all, newLeader)).as("the leader is gone, and the two left elect a new leader among"
                + " themselves").matches(newLeader);

        CliRun afterDeath = topics(survivors.get(0), "--create", "--topic", "payments", "--partitions", "2",
                "--replication-factor", "3");
        assertThat(afterDeath.status()).as("two of three still make a quorum: a write through a survivor, with the"
                + " three brokers' sessions moved to the survivors (stderr: %s)", afterDeath.err()).isZero();
        untilConnected(controller::onTopicChange);
        List<String> both = new ArrayList<>(orders);
        both.addAll(List.of("Topic: payments\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: ",
                "\tTopic: payments\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: N/A\tLastKnownElr: N/A",
                "\tTopic: payments\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3,1\tElr: N/A\tLastKnownElr: N/A"));
        assertThat(awaitDescribe(survivors.get(1), both)).as("the other survivor reads both topics, the controller's"
                + " states included: the controller's session lived through the leader's death too").isEqualTo(both);
    }

    /** A ZooKeeper request of the test's own sessions. */
    private interface Request {
        void send() throws Exception;
    }

    /**
     * Sends {@code request} again after a connection loss (a session whose server died loses what it
     * had queued while it finds another), as Kafka's ZooKeeperClient retried until connected; bounded.
     */
    private static void untilConnected(Request request) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            try {
                request.send();
                return;
            } catch (KeeperException.ConnectionLossException lost) {
                if (System.nanoTime() > deadline) {
                    throw lost;
                }
                Thread.sleep(100);
            }
        }
    }

    /** Three members on free loopback ports; their client addresses, member 1 first. */
    private List<String> startEnsemble(Path dir) throws IOException {
        int[] ports = freePorts(9);
        StringBuilder servers = new StringBuilder();
        List<String> clients = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            servers.append(n == 1 ? "" : ",").append(n).append("=127.0.0.1:").append(ports[3 + n - 1]).append(':')
                    .append(ports[6 + n - 1]);
            clients.add("127.0.0.1:" + ports[n - 1]);
        }
        for (int n = 1; n <= 3; n++) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString()));
            command.addAll(QUICK_JVM);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), Klog.class.getName(), "zookeeper",
                    "--dir", dir.resolve("zk-" + n).toString(), "--port", Integer.toString(ports[n - 1]),
                    "--id", Integer.toString(n), "--servers", servers.toString(), "--tick-ms", Integer.toString(TICK_MS)));
            members.add(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("zk-" + n + ".log").toFile()).start());
        }
        return clients;
    }

    /** {@code klog zookeeper-status}'s answer, server to mode, once {@code wanted} holds, or the last after the bound. */
    private static Map<String, String> awaitModes(String connectString, Predicate<Map<String, String>> wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        Map<String, String> modes;
        do {
            modes = new TreeMap<>();
            for (String line : CliRun.of(Klog::run, "zookeeper-status", "--zookeeper", connectString,
                    "--timeout-ms", "1000").lines()) {
                modes.put(line.substring(0, line.indexOf('\t')), line.substring(line.indexOf('\t') + 1));
            }
            if (wanted.test(modes)) {
                return modes;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return modes;
    }

    private static long count(Collection<String> modes, String mode) {
        return modes.stream().filter(mode::equals).count();
    }

    /**
     * {@code klog topics --describe} through one member until it shows {@code expected} (bounded): a
     * member applies a write a moment after a majority acknowledged it, so another member's client
     * may read the state just before it.
     */
    private static List<String> awaitDescribe(String member, List<String> expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        List<String> lines;
        do {
            lines = topics(member, "--describe").lines();
            if (lines.equals(expected)) {
                return lines;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return lines;
    }

    private static CliRun topics(String member, String... flags) {
        List<String> args = new ArrayList<>(List.of("topics", "--zookeeper", member, "--connect-timeout-ms", "10000"));
        args.addAll(List.of(flags));
        return CliRun.of(Klog::run, args.toArray(String[]::new));
    }

    private ZkClient session(String connectString) {
        try {
            ZkClient session = ZkClient.connect(connectString, SESSION_MS);
            sessions.add(session);
            return session;
        } catch (IOException e) {
            throw new AssertionError("no session on the ensemble " + connectString + ": " + e.getMessage(), e);
        }
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> open = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                open.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return open.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } finally {
            for (ServerSocket socket : open) {
                socket.close();
            }
        }
    }
}
