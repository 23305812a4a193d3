package kaenlog.demo.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
import kaenlog.cluster.ControllerElection;
import kaenlog.cluster.ControllerEpoch;
import kaenlog.cluster.ControllerMovedException;
import kaenlog.cluster.EmbeddedZooKeeper;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.PartitionStateStore;
import kaenlog.cluster.Versioned;
import kaenlog.cluster.ZNodes;
import kaenlog.cluster.ZkClient;
import kaenlog.demo.cluster.DemoCluster.Batch;
import kaenlog.demo.cluster.DemoCluster.LogView;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.apache.zookeeper.KeeperException;

/**
 * {@code klog cluster-demo}: a cluster of three real brokers in this process (chapter 3's broker,
 * each on its own port and data directory, each a member of a ZooKeeper embedded here), driven step
 * by step: registration, the controller election, a topic, acks=all answered once both followers
 * have the records, the leader's isr-expiration and min.insync.replicas, a dead leader and
 * controller with no unclean election, a failover, a returning leader truncated by epoch, and
 * KIP-279's truncation in two rounds over TCP.
 *
 * <p>The demo drives each step and waits for the state it leads to (bounded: a wait in vain fails
 * the demo). It does three things by hand, and says so: it cuts a broker off from another at its
 * door (a network partition, both ZooKeeper sessions alive); it runs the leader's isr-expiration
 * itself, at a time it feeds; and it writes one preferred-replica election as the controller would.
 * Nothing printed depends on ports, paths, times or thread scheduling; every claim is checked
 * before it exits.
 */
public final class ClusterDemo implements Subcommand {
    private static final String TOPIC = "orders";
    private static final String PARTITION = DemoCluster.PARTITION;
    private static final List<Integer> ASSIGNMENT = List.of(1, 2, 3);
    private static final String REPLICA_ROW = "  %6s  %-9s %4s %4s%n";

    @Override
    public String name() {
        return "cluster-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS (the brokers' start time, the records' timestamps)] [--logs (each broker's log, on stderr)]";
    }

    @Override
    public String summary() {
        return "chapter 10: three real brokers on an embedded ZooKeeper: ISR, failovers, truncation by epoch";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms"), Set.of("logs")).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        Claims claims = new Claims();
        try (ScratchDir scratch = ScratchDir.create("klog-cluster-demo");
             EmbeddedZooKeeper server = EmbeddedZooKeeper.start(scratch.resolve("zookeeper"), 0, 200);
             ZkClient admin = ZkClient.connect(server.connectString(), DemoCluster.SESSION_MS)) {
            DemoCluster cluster = new DemoCluster(server.connectString(), scratch.resolve("brokers"), nowMs);
            try {
                new Story(cluster, admin, nowMs, out, claims).run();
            } finally {
                cluster.close();
                if (flags.has("logs")) {
                    err.print(cluster.brokerLogs());
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

    /** The steps, in order, on one cluster. */
    private static final class Story {
        private final DemoCluster cluster;
        private final ZkClient admin;
        private final long nowMs;
        private final PrintStream out;
        private final Claims claims;
        private int produced;

        Story(DemoCluster cluster, ZkClient admin, long nowMs, PrintStream out, Claims claims) {
            this.cluster = cluster;
            this.admin = admin;
            this.nowMs = nowMs;
            this.out = out;
            this.claims = claims;
        }

        void run() throws IOException, KeeperException, ControllerMovedException, InterruptedException {
            SortedMap<Integer, Long> brokerEpochs = register();
            ControllerEpoch first = electFirst();
            createTopic();
            acksAll();
            isrExpiration();
            secondFollowerSilent();
            noUncleanElection(first);
            comesBackAndLeads(brokerEpochs.get(1));
            LogView stopped = failover();
            truncatedByEpoch(stopped);
            twoRounds();
            byHand();
        }

        private SortedMap<Integer, Long> register() throws IOException, KeeperException, InterruptedException {
            out.println("== 1. Three brokers start, each on its own port and data directory, and register ==");
            cluster.start(1);
            // broker 1 wins the controller before the others start: who wins is then no race
            cluster.await("broker 1 is the controller", () -> ControllerElection.controller(admin) == 1);
            cluster.start(2);
            cluster.start(3);
            int port = cluster.node(1).broker().port();
            out.println("/brokers/ids/1 = " + masked(text(ZNodes.brokerPath(1)), port));
            out.println("  (an ephemeral znode: it lives as long as broker 1's ZooKeeper session; the ports the");
            out.println("  broker listens on, for clients and for the other brokers, and its time at registration");
            out.println("  change from run to run: <port>, <replication-port>, <ms>)");
            SortedMap<Integer, Long> epochs = BrokerRegistration.liveBrokers(admin);
            boolean rising = epochs.get(1) < epochs.get(2) && epochs.get(2) < epochs.get(3);
            out.println("live brokers: " + epochs.keySet() + " · broker epochs (czxids) rise with each registration: "
                    + rising);
            claims.check(epochs.keySet().equals(Set.of(1, 2, 3)), "three brokers are live");
            claims.check(rising, "each registration has a larger broker epoch");
            out.println();
            return epochs;
        }

        private ControllerEpoch electFirst() throws KeeperException, InterruptedException {
            out.println("== 2. Controller election: the first to create /controller wins ==");
            out.println("broker 1 started first and won: /controller = " + maskedTime(text(ZNodes.CONTROLLER)));
            ZkClient.Node epochNode = admin.get(ZNodes.CONTROLLER_EPOCH).orElseThrow();
            int epoch = ZNodes.decodeControllerEpoch(epochNode.data());
            out.println("/controller_epoch = " + epoch + " (bumped from 0 in the same multi that created /controller)");
            Optional<ControllerEpoch> lost = ControllerElection.elect(admin, 2, nowMs);
            out.println("brokers 2 and 3 found /controller taken: they watch it");
            out.println("a candidate now: " + (lost.isEmpty() ? "lost" : "won") + ", and /controller_epoch is still "
                    + text(ZNodes.CONTROLLER_EPOCH));
            claims.check(epoch == 1 && ControllerElection.controller(admin) == 1, "broker 1 is the controller, epoch 1");
            claims.check(lost.isEmpty(), "a second candidate loses while /controller exists");
            out.println();
            return new ControllerEpoch(1, epoch, epochNode.stat().getVersion());
        }

        private void createTopic() throws IOException, KeeperException, InterruptedException {
            out.println("== 3. A topic: replication factor 3, min.insync.replicas 2 ==");
            PartitionStateStore.createAssignment(admin, TOPIC, new TreeMap<>(Map.of(0, ASSIGNMENT)),
                    Map.of("min.insync.replicas", "2"));
            awaitFollowing(1, 0, 2, 3);
            out.println("the administrator writes the assignment and the configs:");
            out.println("  /brokers/topics/orders = " + text(ZNodes.topicPath(TOPIC)));
            out.println("  /config/topics/orders = " + text(ZNodes.topicConfigPath(TOPIC)));
            out.println("the controller, told by its watch, writes the first state:");
            printState();
            out.println("every broker watches the state: broker 1 leads orders-0, brokers 2 and 3 follow it,");
            out.println("fetching from it over TCP with chapter 3's fetch (their broker id in it, their leader epoch 0)");
            claims.check(state().value().equals(new PartitionState(1, 0, ASSIGNMENT, 1)),
                    "the first live replica of the assignment leads, every live replica is in the ISR, leader epoch 0");
            out.println();
        }

        private void acksAll() throws IOException, InterruptedException {
            out.println("== 4. acks=all: answered once both followers have the records ==");
            ProduceResponse answer = produce(1, ProduceRequest.ACKS_ALL, 3);
            Map<Integer, Long> learnt = cluster.node(1).leader().orElseThrow().followerLeos();
            out.println("produce 3 records to broker 1, acks=all -> base offset " + answer.baseOffset() + " · "
                    + answer.error());
            out.println("when it answered, broker 1 had learnt from their fetches that brokers 2 and 3 hold offsets 0-2");
            claims.check(answer.error() == ErrorCode.NONE && answer.baseOffset() == 0, "acks=all is answered at offset 0");
            claims.check(learnt.get(2) >= 3 && learnt.get(3) >= 3,
                    "acks=all was answered only after both followers had fetched past the records");
            awaitReplicas(1, Map.of(1, new long[] {3, 3}, 2, new long[] {3, 3}, 3, new long[] {3, 3}));
            out.println("the leader's HW is the smallest LEO of its ISR; a follower learns it in its next fetch's answer");
            out.println();
        }

        private void isrExpiration() throws IOException, KeeperException, InterruptedException {
            out.println("== 5. Followers fall silent: the leader's isr-expiration shrinks the ISR ==");
            long heardSince = cutOff(1, 3);
            cluster.await("broker 1 hears broker 2 fetch after broker 3's last fetch", () -> cluster.door(1).lastFetch(2)
                    .filter(fetch -> fetch.arrivedAtMs() > heardSince && fetch.leaderEpoch() == 0).isPresent());
            long fedMs = cluster.door(1).lastFetch(2).orElseThrow().arrivedAtMs() + DemoCluster.LAG_MS;
            out.println("the demo cuts broker 3 off from broker 1 (it refuses broker 3's fetches at broker 1's door):");
            out.println("  a network partition between the two; broker 3's ZooKeeper session lives on,");
            out.println("  so the controller sees nothing: only the leader can notice, by the fetches it no longer gets");
            out.println("isr-expiration runs on broker 1's timer every replica.lag.time.max.ms / 2 (" + DemoCluster.LAG_MS / 2
                    + " ms of its time);");
            out.println("  the demo calls it itself, at a time it feeds: " + DemoCluster.LAG_MS
                    + " ms after broker 2's last fetch, so broker 3,");
            out.println("  silent since before that fetch, is past the lag and broker 2 is not (exact, and no "
                    + DemoCluster.LAG_MS / 1000 + " s wait;");
            out.println("  a short lag instead would let a slow machine's pause drop a healthy follower too)");
            Versioned<PartitionState> before = state();
            cluster.node(1).member().runIsrExpiration(fedMs);
            Versioned<PartitionState> after = state();
            out.println("broker 1 writes ISR " + after.value().isr() + " itself, conditionally: zkVersion "
                    + before.zkVersion() + " -> " + after.zkVersion());
            OptionalInt stale = PartitionStateStore.updateAsLeader(admin, TOPIC, 0, before.value(), before.zkVersion());
            out.println("the same write again, still naming zkVersion " + before.zkVersion() + ": "
                    + (stale.isEmpty() ? "refused (BadVersion)" : "accepted"));
            out.println("  a writer whose write is refused re-reads the state before it decides again");
            claims.check(after.value().isr().equals(List.of(1, 2)) && after.zkVersion() == before.zkVersion() + 1,
                    "isr-expiration removes the silent follower, written at the next zkVersion");
            claims.check(stale.isEmpty(), "a write naming an old zkVersion is refused");
            ProduceResponse enough = produce(1, ProduceRequest.ACKS_ALL, 1);
            out.println("acks=all -> base offset " + enough.baseOffset() + " · " + enough.error()
                    + ": ISR [1, 2] holds min.insync.replicas 2, enough");
            out.println("  answered once broker 2 had it; broker 3, out of the ISR, is not waited for");
            claims.check(enough.error() == ErrorCode.NONE && enough.baseOffset() == 3,
                    "an ISR of exactly min.insync.replicas takes acks=all");
        }

        /** Broker 2 falls silent too: ISR [1], acks=all refused under min.insync.replicas, acks=1 written. */
        private void secondFollowerSilent() throws IOException, KeeperException, InterruptedException {
            long silentSince = cutOff(1, 2);
            cluster.node(1).member().runIsrExpiration(silentSince + DemoCluster.LAG_MS + 1);
            Versioned<PartitionState> alone = state();
            out.println("broker 2 is cut off too; isr-expiration fed " + (DemoCluster.LAG_MS + 1)
                    + " ms after its last fetch: ISR " + alone.value().isr() + ", zkVersion " + alone.zkVersion());
            long leoBefore = cluster.log(1).leo();
            ProduceResponse refused = produce(1, ProduceRequest.ACKS_ALL, 1);
            long leoAfter = cluster.log(1).leo();
            out.println("acks=all -> " + refused.error() + ", checked before the append: broker 1's LEO stays "
                    + leoAfter);
            ProduceResponse one = produce(1, ProduceRequest.ACKS_LEADER, 1);
            out.println("acks=1 -> base offset " + one.baseOffset() + " · " + one.error()
                    + ": acks=1 waits for no follower, the leader alone writes it");
            claims.check(alone.value().isr().equals(List.of(1)), "the second silent follower leaves too: ISR [1]");
            claims.check(refused.error() == ErrorCode.NOT_ENOUGH_REPLICAS && leoAfter == leoBefore,
                    "acks=all under min.insync.replicas is refused NOT_ENOUGH_REPLICAS and nothing is written");
            claims.check(one.error() == ErrorCode.NONE && one.baseOffset() == 4, "acks=1 is written at offset 4");
            awaitReplicas(1, Map.of(1, new long[] {5, 4}, 2, new long[] {4, 4}, 3, new long[] {3, 3}));
            out.println("broker 1's HW stays at 4: under min.insync.replicas it does not move (chapter 8's rule)");
            out.println("  offset 4 is written, not committed");
            out.println();
        }

        private void noUncleanElection(ControllerEpoch first)
                throws KeeperException, InterruptedException, ControllerMovedException {
            out.println("== 6. Broker 1, leader and controller, dies with ISR [1]: no unclean election ==");
            cluster.stop(1);
            cluster.await("the new controller takes orders-0 offline", () -> state().value().leaderEpoch() == 1);
            out.println("its session is closed: /brokers/ids/1 " + gone(ZNodes.brokerPath(1)) + ", /controller "
                    + (ControllerElection.controller(admin) == 1 ? "still there" : "deleted") + " with it");
            int controller = ControllerElection.controller(admin);
            String epoch = text(ZNodes.CONTROLLER_EPOCH);
            out.println("brokers 2 and 3 race to create /controller: one wins, controller epoch " + epoch);
            out.println("  (ZooKeeper takes the first create; which of the two won is the race's, so it is not printed)");
            String zombie;
            try {
                PartitionStateStore.updateAsController(admin, first, TOPIC, 0,
                        new PartitionState(3, 9, List.of(3), first.epoch()), state().zkVersion());
                zombie = "accepted";
            } catch (ControllerMovedException fenced) {
                zombie = "refused: " + fenced.getMessage();
            }
            out.println("a write still carrying epoch 1's fence (broker 1 as a zombie controller):");
            out.println("  " + zombie);
            out.println("the new controller decides:");
            printState();
            out.println("brokers 2 and 3 are live but out of the ISR: broker 3 lacks offset 3, committed by ISR [1, 2]");
            out.println("  electing either needs unclean.leader.election.enable; orders-0 stays offline instead,");
            out.println("  its ISR kept [1]: the one replica known to hold every committed record");
            claims.check(controller == 2 || controller == 3, "a live broker is the new controller");
            claims.check("2".equals(epoch), "the new controller's epoch is 2");
            claims.check(zombie.startsWith("refused"), "the old controller's write is fenced");
            claims.check(state().value().equals(new PartitionState(PartitionState.NO_LEADER, 1, List.of(1), 2)),
                    "leader -1, leader epoch + 1, and the ISR keeps its last member");
            out.println();
        }

        private void comesBackAndLeads(long firstBrokerEpoch) throws IOException, KeeperException, InterruptedException {
            out.println("== 7. Broker 1 comes back: a new broker epoch; it leads again; its followers rejoin ==");
            cluster.start(1);
            cluster.await("broker 1 leads at leader epoch 2", () -> leads(1, 2));
            long epoch = BrokerRegistration.liveBrokers(admin).get(1);
            LogView restarted = cluster.log(1);
            out.println("broker 1 registers again, on the same data directory: a new session, a larger broker epoch: "
                    + (epoch > firstBrokerEpoch));
            out.println("the controller elects it, the ISR's last member:");
            printState();
            out.println("its HW is " + restarted.hw() + ", read back from replication-offset-checkpoint, never its LEO "
                    + restarted.leo());
            out.println("  offset 4 is still not committed");
            claims.check(epoch > firstBrokerEpoch, "a broker that registers again gets a larger broker epoch");
            claims.check(state().value().equals(new PartitionState(1, 2, List.of(1), 2)),
                    "the returning ISR member leads, leader epoch + 1");
            claims.check(restarted.hw() == 4 && restarted.leo() == 5, "the restarted leader's HW is its checkpoint's, 4");
            rejoin(1, 2, 2, List.of(1, 2), 4);
            rejoin(1, 3, 2, List.of(1, 2, 3), 3);
            awaitReplicas(1, Map.of(1, new long[] {5, 5}, 2, new long[] {5, 5}, 3, new long[] {5, 5}));
            out.println("offset 4, written with acks=1 while the ISR was [1], is committed now: every ISR member has it");
            out.println();
        }

        /** Heals the partition between the leader and a follower, and waits for the follower to join the ISR. */
        private void rejoin(int leader, int follower, int leaderEpoch, List<Integer> isr, long fetchesFrom)
                throws KeeperException, InterruptedException {
            int zkVersion = state().zkVersion();
            cluster.door(leader).heal(follower);
            cluster.await("broker " + follower + " is in the ISR " + isr, () -> state().value().isr().equals(isr)
                    && cluster.door(leader).firstFetch(follower, leaderEpoch).isPresent());
            Door.FirstFetch first = cluster.door(leader).firstFetch(follower, leaderEpoch).orElseThrow();
            out.println("the demo heals broker " + follower + "'s partition; it asks where epoch 0 ends: "
                    + answers(first.questions()));
            out.println("  it holds epoch 0 up to " + first.fetchOffset() + ": nothing to cut; its first fetch asks from "
                    + first.fetchOffset());
            out.println("  a fetch that reaches the HW lets it in: broker " + leader + " writes ISR " + isr
                    + ", zkVersion " + zkVersion + " -> " + state().zkVersion());
            claims.check(first.questions().equals(List.of(new Door.Question(0, 0, 5))) && first.fetchOffset() == fetchesFrom,
                    "broker " + follower + " asked about epoch 0 once, cut nothing and fetched from " + fetchesFrom);
        }

        private LogView failover() throws IOException, KeeperException, InterruptedException {
            out.println("== 8. Broker 1 dies as the leader: the controller elects broker 2 at leader epoch 3 ==");
            cutOff(1, 2);
            cutOff(1, 3);
            ProduceResponse lost = produce(1, ProduceRequest.ACKS_LEADER, 2);
            out.println("broker 1 writes 2 records with acks=1 (offsets " + lost.baseOffset() + " and "
                    + lost.lastOffset() + ") and dies before its followers fetch them");
            out.println("  (the demo holds their fetches at broker 1's door: the window a crash hits by chance)");
            LogView beforeDeath = cluster.log(1);
            cluster.stop(1);
            cluster.await("broker 2 leads at leader epoch 3 and broker 3 follows it", () -> leads(2, 3)
                    && fetchedAt(2, 3, 3));
            out.println("the controller: the first live ISR member in assignment order leads, with leader epoch + 1:");
            printState();
            awaitReplicas(2, Map.of(2, new long[] {5, 5}, 3, new long[] {5, 5}));
            out.println("offsets 5 and 6 were never committed (HW 5): acks=1 answered them, the failover loses them");
            claims.check(lost.error() == ErrorCode.NONE && lost.baseOffset() == 5 && beforeDeath.leo() == 7
                    && beforeDeath.hw() == 5, "broker 1 held offsets 5 and 6 above its HW 5 when it died");
            claims.check(state().value().equals(new PartitionState(2, 3, List.of(2, 3), 2)),
                    "broker 2, first live ISR member in assignment order, leads at leader epoch 3");
            out.println();
            return beforeDeath;
        }

        private void truncatedByEpoch(LogView stopped) throws IOException, KeeperException, InterruptedException {
            out.println("== 9. Broker 1 comes back as a follower: truncated by leader epoch, then in the ISR again ==");
            cluster.start(1);
            cluster.await("broker 1 fetches from broker 2 at leader epoch 3",
                    () -> cluster.door(2).firstFetch(1, 3).isPresent());
            cluster.await("broker 1 is in the ISR again", () -> state().value().isr().equals(List.of(2, 3, 1)));
            Door.FirstFetch first = cluster.door(2).firstFetch(1, 3).orElseThrow();
            out.println("broker 1's log when it stopped: LEO " + stopped.leo() + " · " + epochs(stopped.batches()));
            out.println("it asks broker 2 where its latest epoch, 2, ends: " + answers(first.questions()));
            out.println("  broker 2 never had epoch 2: it answers the largest epoch it has at or below it");
            out.println("broker 1 holds epoch 0 up to 5 too: it cuts to min(5, 5) = 5 · one round");
            out.println("its first fetch asks from " + first.fetchOffset() + ": LEO " + stopped.leo() + " -> "
                    + first.fetchOffset() + ", the acks=1 records gone");
            out.println("it reaches the HW and rejoins the ISR:");
            printState();
            awaitReplicas(2, Map.of(1, new long[] {5, 5}, 2, new long[] {5, 5}, 3, new long[] {5, 5}));
            claims.check(first.questions().equals(List.of(new Door.Question(2, 0, 5))),
                    "broker 1 asked about epoch 2 once and was answered epoch 0, ending at 5");
            claims.check(first.fetchOffset() == 5, "broker 1 truncated to 5 before its first fetch");
            out.println();
        }

        private void twoRounds() throws IOException, KeeperException, InterruptedException, ControllerMovedException {
            out.println("== 10. KIP-279: an epoch the new leader never had, reconciled in two rounds over TCP ==");
            LogView diverged = divergeAtEpoch4();
            LogView leader = leadsAtEpoch5();
            cluster.start(1);
            cluster.await("broker 1 fetches from broker 2 at leader epoch 5, and is in the ISR again",
                    () -> cluster.door(2).firstFetch(1, 5).isPresent() && state().value().isr().equals(List.of(2, 3, 1)));
            Door.FirstFetch first = cluster.door(2).firstFetch(1, 5).orElseThrow();
            out.println("broker 1 comes back with LEO " + diverged.leo() + " · " + epochs(diverged.batches()));
            out.println("           broker 2 has LEO " + leader.leo() + " · " + epochs(leader.batches()));
            List<Door.Question> asked = first.questions();
            for (int round = 1; round <= asked.size(); round++) {
                Door.Question question = asked.get(round - 1);
                out.println("round " + round + ": it asks where epoch " + question.askedEpoch() + " ends: "
                        + answers(List.of(question)));
                out.println(round == 1
                        ? "  broker 1 never had epoch 3: its own epochs below 3 end at 5 (epoch 0); it cuts to 5, asks again"
                        : "  both hold epoch 0 up to 5: it stays at 5");
            }
            out.println("its first fetch asks from " + first.fetchOffset() + "; it copies 5-7 and rejoins the ISR:");
            printState();
            out.println("chapter 8's one round would have cut to min(7, LEO 8) = 7, keeping offsets 5-6 of epoch 4");
            out.println("  where broker 2 has epoch 3's: two replicas differing below the HW");
            awaitReplicas(2, Map.of(1, new long[] {8, 8}, 2, new long[] {8, 8}, 3, new long[] {8, 8}));
            boolean same = cluster.log(1).batches().equals(cluster.log(2).batches())
                    && cluster.log(3).batches().equals(cluster.log(2).batches());
            out.println("every replica holds the same batches, CRC for CRC: " + same);
            claims.check(asked.equals(List.of(new Door.Question(4, 3, 7), new Door.Question(0, 0, 5))),
                    "two rounds: epoch 4 answered (3, 7), then epoch 0 answered (0, 5)");
            claims.check(first.fetchOffset() == 5, "broker 1 truncated to 5 before its first fetch");
            claims.check(batchAt(diverged, 5).crc() != batchAt(leader, 5).crc(),
                    "offset 5 differed: one round would have kept a record broker 2 never had");
            claims.check(same, "the logs are identical, batch for batch");
            out.println();
        }

        /**
         * Broker 2 writes at epoch 3 what broker 1 never gets; broker 1 leads at epoch 4 and writes
         * what nobody gets. Returns broker 1's log then.
         */
        private LogView divergeAtEpoch4() throws IOException, KeeperException, InterruptedException,
                ControllerMovedException {
            cutOff(2, 1);
            ProduceResponse epoch3 = produce(2, ProduceRequest.ACKS_LEADER, 2);
            cluster.await("broker 3 copies offsets 5 and 6", () -> cluster.log(3).leo() == 7);
            out.println("broker 1 is cut off from broker 2; broker 2 writes 2 records at epoch 3 with acks=1");
            out.println("  (offsets " + epoch3.baseOffset() + "-" + epoch3.lastOffset()
                    + "): broker 3 copies them, broker 1 cannot");
            int readAt = preferredElection();
            out.println("Kafka's controller hands leadership back to the preferred replica, the first of the assignment,");
            out.println("  when it is in the ISR (auto.leader.rebalance.enable); kaen-log's controller does not, so the");
            out.println("  demo writes that state as the controller would: fenced by controller epoch "
                    + state().value().controllerEpoch() + ",");
            out.println("  conditional on zkVersion " + readAt + ":");
            printState();
            ProduceResponse epoch4 = produce(1, ProduceRequest.ACKS_LEADER, 3);
            out.println("broker 1 leads at epoch 4 without broker 2's offsets 5-6 (never committed: HW 5); cut off from");
            out.println("  brokers 2 and 3, it writes 3 records at epoch 4 with acks=1: offsets " + epoch4.baseOffset()
                    + "-" + epoch4.lastOffset());
            claims.check(epoch3.baseOffset() == 5 && epoch4.baseOffset() == 5,
                    "offsets 5-6 written at epoch 3 on broker 2, 5-7 at epoch 4 on broker 1");
            return cluster.log(1);
        }

        /** Broker 1 dies; broker 2 leads at epoch 5 and takes an acks=all write. Returns broker 2's log then. */
        private LogView leadsAtEpoch5() throws IOException, KeeperException, InterruptedException {
            cluster.stop(1);
            cluster.door(2).heal(1);
            cluster.await("broker 2 leads at leader epoch 5 and broker 3 follows it", () -> leads(2, 5)
                    && fetchedAt(2, 3, 5));
            ProduceResponse epoch5 = produce(2, ProduceRequest.ACKS_ALL, 1);
            out.println("broker 1 dies: the controller elects broker 2 at epoch " + state().value().leaderEpoch()
                    + ", ISR " + state().value().isr());
            out.println("  acks=all to broker 2 -> base offset " + epoch5.baseOffset() + " · " + epoch5.error());
            claims.check(epoch5.baseOffset() == 7 && epoch5.error() == ErrorCode.NONE,
                    "broker 2 writes offset 7 at epoch 5, answered once broker 3 has it");
            return cluster.log(2);
        }

        /**
         * The controller's preferred-replica election, written by the demo as the controller would,
         * with broker 1 cut off from its followers first; returns the zkVersion the write was conditional on.
         */
        private int preferredElection()
                throws KeeperException, InterruptedException, ControllerMovedException {
            cutOff(1, 2);
            cutOff(1, 3);
            Versioned<PartitionState> read = state();
            ZkClient.Node epochNode = admin.get(ZNodes.CONTROLLER_EPOCH).orElseThrow();
            ControllerEpoch controller = new ControllerEpoch(ControllerElection.controller(admin),
                    ZNodes.decodeControllerEpoch(epochNode.data()), epochNode.stat().getVersion());
            PartitionState next = new PartitionState(ASSIGNMENT.get(0), read.value().leaderEpoch() + 1,
                    read.value().isr(), controller.epoch());
            OptionalInt written = PartitionStateStore.updateAsController(admin, controller, TOPIC, 0, next,
                    read.zkVersion());
            claims.check(written.isPresent(), "the preferred-replica election's conditional write lands");
            cluster.await("broker 1 leads at leader epoch 4, brokers 2 and 3 follow it (cut off)", () -> leads(1, 4)
                    && cluster.door(1).refused(2, 4) && cluster.door(1).refused(3, 4));
            return read.zkVersion();
        }

        private void byHand() {
            out.println("== What the demo did by hand ==");
            out.println("it cut brokers off from each other at a broker's door (a network partition, sessions alive),");
            out.println("fed the leader's isr-expiration its time, and wrote one preferred-replica election as the");
            out.println("controller would; the rest is the brokers' own doing: registrations, elections, ISR writes,");
            out.println("fetches over TCP, truncations, acks");
        }

        /**
         * Cuts {@code follower} off from {@code leader} and waits until no fetch of it let in before is
         * still parked there; returns the leader's time then, after every fetch of it the leader heard.
         */
        private long cutOff(int leader, int follower) throws InterruptedException {
            Door door = cluster.door(leader);
            door.cut(follower);
            cluster.await("broker " + follower + "'s last fetch at broker " + leader + " is answered",
                    () -> !door.busyWith(follower));
            return cluster.node(leader).broker().nowMs();
        }

        private ProduceResponse produce(int leader, short acks, int records) throws InterruptedException {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                values.add("m" + produced++);
            }
            return cluster.produce(leader, acks, values, nowMs);
        }

        /** True when broker {@code id} leads, at {@code leaderEpoch}. */
        private boolean leads(int id, int leaderEpoch) {
            return cluster.node(id).leader().filter(leader -> leader.leaderEpoch() == leaderEpoch).isPresent();
        }

        /** True once {@code leader} answered a fetch of {@code follower} naming {@code leaderEpoch}. */
        private boolean fetchedAt(int leader, int follower, int leaderEpoch) {
            return cluster.door(leader).lastFetch(follower).filter(f -> f.leaderEpoch() == leaderEpoch).isPresent();
        }

        private void awaitFollowing(int leader, int leaderEpoch, int... followers) throws InterruptedException {
            cluster.await("broker " + leader + " leads at leader epoch " + leaderEpoch + ", followed", () -> {
                boolean all = leads(leader, leaderEpoch);
                for (int follower : followers) {
                    all &= fetchedAt(leader, follower, leaderEpoch);
                }
                return all;
            });
        }

        /** Waits until every broker named has the LEO and HW given ({LEO, HW}), then prints them. */
        private void awaitReplicas(int leader, Map<Integer, long[]> expected) throws IOException, InterruptedException {
            cluster.await("the replicas settle at " + describe(expected), () -> {
                for (Map.Entry<Integer, long[]> e : expected.entrySet()) {
                    LogView view = cluster.log(e.getKey());
                    if (view.leo() != e.getValue()[0] || view.hw() != e.getValue()[1]) {
                        return false;
                    }
                }
                return true;
            });
            printReplicas(leader, expected);
        }

        private void printReplicas(int leader, Map<Integer, long[]> views) throws IOException {
            out.printf(REPLICA_ROW, "broker", "role", "LEO", "HW");
            for (int id : new TreeMap<>(views).keySet()) {
                LogView view = cluster.log(id);
                out.printf(REPLICA_ROW, id, id == leader ? "leader" : "follower", view.leo(), view.hw());
            }
        }

        private static String describe(Map<Integer, long[]> expected) {
            StringBuilder text = new StringBuilder();
            new TreeMap<>(expected).forEach((id, v) -> text.append(text.length() == 0 ? "" : ", ").append("broker ")
                    .append(id).append(" LEO ").append(v[0]).append(" HW ").append(v[1]));
            return text.toString();
        }

        private void printState() throws KeeperException, InterruptedException {
            out.println("  " + ZNodes.statePath(TOPIC, 0) + " = " + text(ZNodes.statePath(TOPIC, 0)) + " · zkVersion "
                    + state().zkVersion());
        }

        private Versioned<PartitionState> state() throws KeeperException, InterruptedException {
            return PartitionStateStore.read(admin, TOPIC, 0).orElseThrow();
        }

        private String text(String path) throws KeeperException, InterruptedException {
            return new String(admin.get(path).orElseThrow().data(), StandardCharsets.UTF_8);
        }

        private String gone(String path) throws KeeperException, InterruptedException {
            return admin.exists(path).isEmpty() ? "deleted" : "still there";
        }
    }

    /** The answers to a follower's questions, as "epoch E, ending at O". */
    private static String answers(List<Door.Question> questions) {
        List<String> parts = new ArrayList<>();
        questions.forEach(q -> parts.add("epoch " + q.answeredEpoch() + ", ending at " + q.endOffset()));
        return parts.isEmpty() ? "(no answer)" : String.join("; ", parts);
    }

    /** A log's offsets by the leader epoch they were written in: "0-4 epoch 0, 5-7 epoch 4". */
    private static String epochs(List<Batch> batches) {
        List<String> ranges = new ArrayList<>();
        long start = -1;
        long end = -1;
        int epoch = -1;
        for (Batch batch : batches) {
            if (batch.leaderEpoch() != epoch && start >= 0) {
                ranges.add(range(start, end) + " epoch " + epoch);
                start = -1;
            }
            if (start < 0) {
                start = batch.baseOffset();
                epoch = batch.leaderEpoch();
            }
            end = batch.lastOffset();
        }
        if (start >= 0) {
            ranges.add(range(start, end) + " epoch " + epoch);
        }
        return "offsets " + String.join(", ", ranges);
    }

    private static String range(long from, long to) {
        return from == to ? Long.toString(from) : from + "-" + to;
    }

    private static Batch batchAt(LogView view, long offset) {
        return view.batches().stream().filter(b -> b.baseOffset() <= offset && offset <= b.lastOffset()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no batch holds offset " + offset));
    }

    /** A registration with its ports and time masked: they change from run to run. */
    private static String masked(String registration, int port) {
        return maskedTime(registration.replace("127.0.0.1:" + port + "\"", "127.0.0.1:<port>\"")
                .replace("\"port\":" + port + ",", "\"port\":<port>,")
                .replaceAll(BrokerInfo.REPLICATION_LISTENER + "://127\\.0\\.0\\.1:\\d+",
                        BrokerInfo.REPLICATION_LISTENER + "://127.0.0.1:<replication-port>"));
    }

    private static String maskedTime(String json) {
        return json.replaceAll("\"timestamp\":\"\\d+\"", "\"timestamp\":\"<ms>\"");
    }
}
