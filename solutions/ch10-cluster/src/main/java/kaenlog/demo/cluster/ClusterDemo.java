package kaenlog.demo.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.cluster.BrokerInfo;
import kaenlog.cluster.BrokerRegistration;
import kaenlog.cluster.Controller;
import kaenlog.cluster.ControllerElection;
import kaenlog.cluster.ControllerEpoch;
import kaenlog.cluster.ControllerMovedException;
import kaenlog.cluster.EmbeddedZooKeeper;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.PartitionStateStore;
import kaenlog.cluster.Versioned;
import kaenlog.cluster.ZNodes;
import kaenlog.cluster.ZkClient;
import org.apache.zookeeper.KeeperException;

/**
 * {@code klog cluster-demo}: a cluster's metadata in a real ZooKeeper (embedded, in this process),
 * step by step: three brokers register, one wins the controller, a topic is created, the leader
 * shrinks its ISR with a conditional write, the controller's broker dies and a zombie's write is
 * fenced, the new controller elects a leader, the last ISR member dies and the partition goes
 * offline rather than electing a replica outside the ISR, and comes back with it. Each broker is
 * a ZooKeeper session; a broker "dies" by closing its session, which deletes its ephemeral znodes
 * at once (a crash would take the session timeout). Nothing random, no clock: every step is
 * driven and read back, and every claim is checked before it exits.
 */
public final class ClusterDemo implements Subcommand {
    private static final String TOPIC = "orders";
    private static final int SESSION_MS = 4_000;

    @Override
    public String name() {
        return "cluster-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS (the registration timestamps)]";
    }

    @Override
    public String summary() {
        return "chapter 10: brokers, a controller and a failover, in a real (embedded) ZooKeeper";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms"), Set.of()).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        Claims claims = new Claims();
        try (ScratchDir scratch = ScratchDir.create("klog-cluster-demo");
             EmbeddedZooKeeper server = EmbeddedZooKeeper.start(scratch.resolve("zookeeper"), 0, 200)) {
            String connect = server.connectString();
            ZkClient[] brokers = new ZkClient[4];
            try (ZkClient admin = ZkClient.connect(connect, SESSION_MS)) {
                long[] epochs = register(connect, brokers, nowMs, out, claims);
                ControllerEpoch first = electFirst(admin, brokers, nowMs, out, claims);
                createTopic(admin, brokers[1], first, out, claims);
                shrinkAsLeader(brokers[1], out, claims);
                ControllerEpoch second = failOver(admin, brokers, first, nowMs, out, claims);
                ControllerEpoch third = lastIsrMemberDies(admin, brokers, second, nowMs, out, claims);
                comesBack(connect, admin, brokers, third, epochs, nowMs, out, claims);
            } finally {
                for (ZkClient broker : brokers) {
                    if (broker != null) {
                        broker.close();
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (KeeperException | ControllerMovedException e) {
            throw new IllegalStateException("the demo's ZooKeeper step failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    private static long[] register(String connect, ZkClient[] brokers, long nowMs, PrintStream out, Claims claims)
            throws IOException, KeeperException, InterruptedException {
        out.println("== 1. Three brokers register: an ephemeral /brokers/ids/N each ==");
        long[] epochs = new long[4];
        for (int id = 1; id <= 3; id++) {
            brokers[id] = ZkClient.connect(connect, SESSION_MS);
            epochs[id] = BrokerRegistration.register(brokers[id], new BrokerInfo(id, "127.0.0.1", 9090 + id * 10,
                    9091 + id * 10), nowMs);
        }
        byte[] one = brokers[1].get(ZNodes.brokerPath(1)).orElseThrow().data();
        out.println("/brokers/ids/1 = " + text(one));
        SortedMap<Integer, Long> live = BrokerRegistration.liveBrokers(brokers[1]);
        out.println("live brokers: " + live.keySet() + " · broker epochs (czxids) rise with each registration: "
                + (epochs[1] < epochs[2] && epochs[2] < epochs[3]));
        claims.check(live.keySet().equals(Set.of(1, 2, 3)), "three brokers are live");
        claims.check(epochs[1] < epochs[2] && epochs[2] < epochs[3], "each registration has a larger broker epoch");
        claims.check(live.get(2) == epochs[2], "the broker epoch is the znode's czxid");
        out.println();
        return epochs;
    }

    private static ControllerEpoch electFirst(ZkClient admin, ZkClient[] brokers, long nowMs, PrintStream out,
                                              Claims claims) throws KeeperException, InterruptedException {
        out.println("== 2. Controller election: the first to create /controller wins ==");
        ControllerEpoch won = ControllerElection.elect(brokers[1], 1, nowMs).orElseThrow();
        Optional<ControllerEpoch> lost = ControllerElection.elect(brokers[2], 2, nowMs);
        out.println("broker 1 wins: /controller = " + text(admin.get(ZNodes.CONTROLLER).orElseThrow().data()));
        out.println("/controller_epoch = " + text(admin.get(ZNodes.CONTROLLER_EPOCH).orElseThrow().data())
                + " (bumped from 0 in the same multi that created /controller)");
        out.println("broker 2 tries too: " + (lost.isEmpty() ? "lost" : "won") + ", and /controller_epoch is still "
                + text(admin.get(ZNodes.CONTROLLER_EPOCH).orElseThrow().data()));
        claims.check(won.epoch() == 1 && ControllerElection.controller(admin) == 1, "broker 1 is the controller, epoch 1");
        claims.check(lost.isEmpty(), "a second candidate loses while /controller exists");
        out.println();
        return won;
    }

    private static void createTopic(ZkClient admin, ZkClient controllerSession, ControllerEpoch epoch, PrintStream out,
                                    Claims claims) throws ControllerMovedException, KeeperException, InterruptedException {
        out.println("== 3. A topic: the administrator writes the assignment, the controller the first state ==");
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>(Map.of(0, List.of(1, 2, 3)));
        PartitionStateStore.createAssignment(admin, TOPIC, assignment, Map.of("min.insync.replicas", "2"));
        List<Controller.Change> changes = new Controller(controllerSession, epoch).onTopicChange();
        out.println("/brokers/topics/orders = " + text(admin.get(ZNodes.topicPath(TOPIC)).orElseThrow().data()));
        out.println("/config/topics/orders = " + text(admin.get(ZNodes.topicConfigPath(TOPIC)).orElseThrow().data()));
        Versioned<PartitionState> state = PartitionStateStore.read(admin, TOPIC, 0).orElseThrow();
        out.println("/brokers/topics/orders/partitions/0/state = "
                + text(admin.get(ZNodes.statePath(TOPIC, 0)).orElseThrow().data()) + " · zkVersion " + state.zkVersion());
        claims.check(changes.size() == 1 && state.value().equals(new PartitionState(1, 0, List.of(1, 2, 3), 1)),
                "the first live replica of the assignment leads, every live replica is in the ISR, leader epoch 0");
        out.println();
    }

    private static void shrinkAsLeader(ZkClient leaderSession, PrintStream out, Claims claims)
            throws KeeperException, InterruptedException {
        out.println("== 4. The leader shrinks its ISR itself: a write conditional on the zkVersion it read ==");
        Versioned<PartitionState> read = PartitionStateStore.read(leaderSession, TOPIC, 0).orElseThrow();
        PartitionState shrunk = new PartitionState(1, read.value().leaderEpoch(), List.of(1, 2),
                read.value().controllerEpoch());
        OptionalInt written = PartitionStateStore.updateAsLeader(leaderSession, TOPIC, 0, shrunk, read.zkVersion());
        out.println("broker 3 stopped fetching: ISR [1, 2], written at zkVersion " + read.zkVersion() + " -> "
                + written.orElse(-1));
        OptionalInt stale = PartitionStateStore.updateAsLeader(leaderSession, TOPIC, 0, read.value(), read.zkVersion());
        out.println("the same write again, still naming zkVersion " + read.zkVersion() + ": "
                + (stale.isEmpty() ? "refused (BadVersion): re-read before deciding again" : "accepted"));
        claims.check(written.equals(OptionalInt.of(read.zkVersion() + 1)), "the conditional write lands and bumps the zkVersion");
        claims.check(stale.isEmpty(), "a write naming an old zkVersion is refused");
        out.println();
    }

    private static ControllerEpoch failOver(ZkClient admin, ZkClient[] brokers, ControllerEpoch old, long nowMs,
                                            PrintStream out, Claims claims)
            throws ControllerMovedException, KeeperException, InterruptedException {
        out.println("== 5. Broker 1 (leader and controller) dies: its session ends ==");
        brokers[1].close();
        brokers[1] = null;
        out.println("gone with its session: /brokers/ids/1 " + (admin.exists(ZNodes.brokerPath(1)).isEmpty() ? "deleted" : "still there")
                + ", /controller " + (admin.exists(ZNodes.CONTROLLER).isEmpty() ? "deleted" : "still there"));
        ControllerEpoch won = ControllerElection.elect(brokers[2], 2, nowMs).orElseThrow();
        out.println("broker 2 wins the controller: epoch " + won.epoch());
        String zombie;
        try {
            PartitionStateStore.updateAsController(admin, old, TOPIC, 0, new PartitionState(3, 9, List.of(3), old.epoch()),
                    PartitionStateStore.read(admin, TOPIC, 0).orElseThrow().zkVersion());
            zombie = "accepted";
        } catch (ControllerMovedException fenced) {
            zombie = "refused: " + fenced.getMessage();
        }
        out.println("a write still carrying epoch " + old.epoch() + "'s fence (a zombie controller): " + zombie);
        List<Controller.Change> changes = new Controller(brokers[2], won).onBrokerChange();
        Versioned<PartitionState> state = PartitionStateStore.read(admin, TOPIC, 0).orElseThrow();
        out.println("controller 2 elects: " + changes + " · zkVersion " + state.zkVersion());
        claims.check(won.epoch() == 2, "the new controller's epoch is 2");
        claims.check(zombie.startsWith("refused"), "the old controller's write is fenced");
        claims.check(state.value().equals(new PartitionState(2, 1, List.of(2), 2)),
                "the first live ISR member (in assignment order) leads, with leader epoch + 1");
        out.println();
        return won;
    }

    private static ControllerEpoch lastIsrMemberDies(ZkClient admin, ZkClient[] brokers, ControllerEpoch old, long nowMs,
                                          PrintStream out, Claims claims)
            throws ControllerMovedException, KeeperException, InterruptedException {
        out.println("== 6. Broker 2, the last ISR member, dies: no unclean election ==");
        brokers[2].close();
        brokers[2] = null;
        ControllerEpoch won = ControllerElection.elect(brokers[3], 3, nowMs).orElseThrow();
        List<Controller.Change> changes = new Controller(brokers[3], won).onBrokerChange();
        PartitionState state = PartitionStateStore.read(admin, TOPIC, 0).orElseThrow().value();
        out.println("broker 3 wins the controller (epoch " + won.epoch() + ") and decides: " + changes);
        out.println("broker 3 is live but was not in the ISR: it may lack committed records, so it does not lead;"
                + " orders-0 is offline");
        claims.check(won.epoch() == old.epoch() + 1, "each election bumps the controller epoch");
        claims.check(state.leader() == PartitionState.NO_LEADER && state.isr().equals(List.of(2)),
                "leader -1, and the ISR keeps its last member");
        out.println();
        return won;
    }

    private static void comesBack(String connect, ZkClient admin, ZkClient[] brokers, ControllerEpoch controller,
                                  long[] epochs, long nowMs,
                                  PrintStream out, Claims claims)
            throws IOException, ControllerMovedException, KeeperException, InterruptedException {
        out.println("== 7. Broker 2 comes back: a new session, a new broker epoch, and it leads again ==");
        brokers[2] = ZkClient.connect(connect, SESSION_MS);
        long epoch = BrokerRegistration.register(brokers[2], new BrokerInfo(2, "127.0.0.1", 9110, 9111), nowMs);
        List<Controller.Change> changes = new Controller(brokers[3], controller).onBrokerChange();
        out.println("broker 2's new epoch is larger than its first: " + (epoch > epochs[2]));
        out.println("controller 3 decides: " + changes);
        PartitionState state = PartitionStateStore.read(admin, TOPIC, 0).orElseThrow().value();
        claims.check(epoch > epochs[2], "a broker that registers again gets a larger broker epoch");
        claims.check(state.equals(new PartitionState(2, 3, List.of(2), 3)), "the returning ISR member leads, epoch + 1");
    }

    private static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }
}
