package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Task 2: registration, an ephemeral /brokers/ids/N whose czxid is the broker epoch; a registration
 * that does not parse is a broker that is absent.
 */
@Order(2)
class RegistrationTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void aRegistrationLivesExactlyAsLongAsItsSession() throws Exception {
        ZkClient broker = ZK.connect();
        ZkClient observer = ZK.connect();
        BrokerRegistration.register(broker, new BrokerInfo(1, "127.0.0.1", 9092, 9093, 9094), NOW_MS);
        Stat stat = observer.exists(ZNodes.brokerPath(1)).orElseThrow();
        assertThat(stat.getEphemeralOwner())
                .as("/brokers/ids/1 must be EPHEMERAL, owned by the broker's session: that is how the cluster learns"
                        + " that a broker died").isEqualTo(broker.sessionId());
        broker.close();
        assertThat(observer.exists(ZNodes.brokerPath(1)))
                .as("the session ended, so ZooKeeper deleted its ephemeral registration").isEmpty();
    }

    @Test
    void theBrokerEpochIsTheCzxidAndGrowsWithEachRegistration() throws Exception {
        ZkClient first = ZK.connect();
        long epoch = BrokerRegistration.register(first, new BrokerInfo(1, "h", 9092, 9093, 9094), NOW_MS);
        ZkClient observer = ZK.connect();
        assertThat(epoch).as("the broker epoch is the czxid of /brokers/ids/1 (KIP-380)")
                .isEqualTo(observer.exists(ZNodes.brokerPath(1)).orElseThrow().getCzxid());
        first.close();
        ZkClient again = ZK.connect();
        long next = BrokerRegistration.register(again, new BrokerInfo(1, "h", 9092, 9093, 9094), NOW_MS);
        assertThat(next).as("a broker that registers again must get a LARGER epoch (a new czxid; a version or a"
                + " counter of its own starts over)").isGreaterThan(epoch);
        assertThat(BrokerRegistration.read(observer, 1)).as("and what it registered reads back")
                .contains(new BrokerInfo(1, "h", 9092, 9093, 9094));
    }

    @Test
    void aSecondLiveBrokerWithTheSameIdIsRefused() throws Exception {
        ZkClient first = ZK.connect();
        BrokerRegistration.register(first, new BrokerInfo(5, "a", 1, 2, 3), NOW_MS);
        ZkClient impostor = ZK.connect();
        Throwable refused = catchThrowable(() -> BrokerRegistration.register(impostor, new BrokerInfo(5, "b", 3, 4, 5), NOW_MS));
        assertThat(refused).as("broker id 5 is already registered by another live session: refuse with"
                + " NodeExistsException, never take it over").isInstanceOf(KeeperException.NodeExistsException.class);
        assertThat(BrokerRegistration.read(ZK.connect(), 5)).as("the first registration stays")
                .contains(new BrokerInfo(5, "a", 1, 2, 3));
    }

    @Test
    void registeringAgainOnTheSameSessionIsTheSameRegistration() throws Exception {
        ZkClient broker = ZK.connect();
        long epoch = BrokerRegistration.register(broker, new BrokerInfo(4, "a", 1, 2, 3), NOW_MS);
        assertThat(BrokerRegistration.register(broker, new BrokerInfo(4, "a", 1, 2, 3), NOW_MS))
                .as("a retry on the session that owns /brokers/ids/4 (its answer was lost) is the same registration,"
                        + " with the same epoch").isEqualTo(epoch);
    }

    @Test
    void aRegistrationThatWentAwayBetweenTheRefusalAndTheLookIsCreatedAgain() throws Exception {
        ZkClient previous = ZK.connect();
        BrokerRegistration.register(previous, new BrokerInfo(6, "old", 1, 2, 3), NOW_MS);
        try (ZkClient broker = sessionWhoseLookAt(ZNodes.brokerPath(6), previous::close)) {
            AtomicLong epoch = new AtomicLong(-1);
            Throwable refused = catchThrowable(() -> epoch.set(BrokerRegistration.register(broker,
                    new BrokerInfo(6, "new", 4, 5, 6), NOW_MS)));
            Optional<Stat> now = ZK.connect().exists(ZNodes.brokerPath(6));
            assertThat(refused == null && now.isPresent() && now.get().getEphemeralOwner() == broker.sessionId())
                    .as("/brokers/ids/6 existed when your create ran (NodeExistsException) and was gone when you looked"
                            + " at it (its session ended in between), so the id is free: create it again, as Kafka's"
                            + " checkedEphemeralCreate does; yours " + (refused == null ? "returned without registering"
                            + " (the znode is " + now.map(s -> "owned by session " + s.getEphemeralOwner()).orElse("absent")
                            + ")" : "threw " + refused)).isTrue();
            assertThat(epoch.get()).as("the broker epoch returned is the czxid of the znode created again")
                    .isEqualTo(now.get().getCzxid());
            assertThat(BrokerRegistration.read(ZK.connect(), 6)).as("and the registration read back is the new broker's")
                    .contains(new BrokerInfo(6, "new", 4, 5, 6));
        }
    }

    /**
     * A session like {@link ZooKeeperFixture#connect}'s, on which {@code meanwhile} runs just before its
     * first exists() of {@code path}: what another session does between two calls of this one.
     */
    private static ZkClient sessionWhoseLookAt(String path, Runnable meanwhile) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        ZooKeeper zk = new ZooKeeper(ZK.connectString(), ZooKeeperFixture.SESSION_MS, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }) {
            @Override
            public Stat exists(String at, boolean watch) throws KeeperException, InterruptedException {
                if (at.equals(path) && done.compareAndSet(false, true)) {
                    meanwhile.run();
                }
                return super.exists(at, watch);
            }
        };
        assertThat(connected.await(30, TimeUnit.SECONDS)).as("the test's session connected").isTrue();
        return new ZkClient(zk);
    }

    @Test
    void theLiveBrokersAreListedByIdAsANumber() throws Exception {
        ZkClient observer = ZK.connect();
        long[] epochs = new long[11];
        for (int id : new int[] {10, 2, 9}) {
            epochs[id] = BrokerRegistration.register(ZK.connect(), new BrokerInfo(id, "h", 9000 + id, 9500 + id, 9700 + id), NOW_MS);
        }
        assertThat(List.copyOf(BrokerRegistration.liveBrokers(observer).keySet()))
                .as("broker ids are numbers: 2, 9, 10, not the strings' order 10, 2, 9").containsExactly(2, 9, 10);
        assertThat(BrokerRegistration.liveBrokers(observer).get(9)).as("each with its broker epoch").isEqualTo(epochs[9]);
    }

    @Test
    void aRegistrationThatDoesNotParseIsABrokerThatIsAbsent() throws Exception {
        for (int id = 1; id <= 3; id++) {
            BrokerRegistration.register(ZK.connect(), new BrokerInfo(id, "h", 9000 + id, 9500 + id, 9700 + id), NOW_MS);
        }
        ZkClient anyone = ZK.connect();
        anyone.setData(ZNodes.brokerPath(2), "{\"version\":5,\"endpoints\":[\"KAEN".getBytes(StandardCharsets.UTF_8), -1);
        Map<String, String> refused = new TreeMap<>();

        Throwable thrown = catchThrowable(() -> listed(anyone, refused));
        assertThat(thrown)
                .as("one broken registration must not make the list of live brokers fail: it is that broker that is"
                        + " absent, the others are live")
                .isNull();
        assertThat(List.copyOf(BrokerRegistration.liveBrokers(anyone).keySet()))
                .as("anyone who reaches ZooKeeper can overwrite /brokers/ids/2: a registration that does not parse"
                        + " (decodeBroker throws ZNodeFormatException) is a broker that is absent, never elected")
                .containsExactly(1, 3);
        assertThat(refused)
                .as("and the refusal is told, naming the znode and why (the member logs it)")
                .containsOnlyKeys(ZNodes.brokerPath(2));
        assertThat(refused.get(ZNodes.brokerPath(2))).as("why: the decoder's own message").contains("bad JSON");
    }

    @Test
    void aChildOfBrokerIdsThatIsNoBrokerIdIsNoBroker() throws Exception {
        BrokerRegistration.register(ZK.connect(), new BrokerInfo(1, "h", 9001, 9501, 9701), NOW_MS);
        ZkClient anyone = ZK.connect();
        byte[] valid = ZNodes.encodeBroker(new BrokerInfo(7, "h", 9007, 9507, 9707), NOW_MS);
        for (String child : List.of("seven", "-7", "07", "99999999999")) {
            anyone.create(ZNodes.BROKER_IDS + "/" + child, valid, org.apache.zookeeper.CreateMode.PERSISTENT);
        }
        Map<String, String> refused = new TreeMap<>();

        Throwable thrown = catchThrowable(() -> listed(anyone, refused));
        assertThat(thrown)
                .as("a child of /brokers/ids named 'seven', '-7', '07' or '99999999999' is no broker id (Kafka writes"
                        + " ids as an int's digits): it is no broker, and no reason to fail the whole list")
                .isNull();
        assertThat(List.copyOf(BrokerRegistration.liveBrokers(anyone).keySet())).as("only broker 1 is live")
                .containsExactly(1);
        assertThat(refused.keySet()).as("each such child is told, by its znode")
                .containsExactlyInAnyOrder("/brokers/ids/seven", "/brokers/ids/-7", "/brokers/ids/07",
                        "/brokers/ids/99999999999");
    }

    /** The live brokers, every refusal put in {@code refused} (znode to why). */
    private static Map<String, String> listed(ZkClient zk, Map<String, String> refused) throws Exception {
        BrokerRegistration.liveBrokers(zk, refused::put);
        return refused;
    }

    @Test
    void aClusterNobodyJoinedHasNoLiveBroker() throws Exception {
        assertThat(BrokerRegistration.liveBrokers(ZK.connect())).as("no /brokers/ids yet: no live broker, not an error")
                .isEmpty();
    }

    // ---- Kafka judges: models of KafkaZkClient.registerBroker and getAllBrokerAndEpochsInCluster ----

    static final String LIVE_RULE = "the live brokers are the children of /brokers/ids that are broker ids, by NUMBER,"
            + " each with the czxid of its registration as its broker epoch; a child that is no id, or whose"
            + " registration does not parse, is a broker that is absent, and told";

    /** A child of /brokers/ids: its name, and what it holds (a registration, Kafka's, damaged, or none at all). */
    record Child(String name, String kind, BrokerInfo broker, Gens.Faults faults, boolean rewritten) {
        byte[] data() {
            byte[] ours = ZNodes.encodeBroker(broker, NOW_MS);
            return switch (kind) {
                case "ours" -> ours;
                case "kafka's" -> KafkaZk.kafkaWritesBroker(broker.host(), new LinkedHashMap<>(Map.of(
                        BrokerInfo.REPLICATION_LISTENER, 9_001, BrokerInfo.KAENLOG_LISTENER, broker.port())), null, -1);
                case "no KAENLOG listener" -> KafkaZk.kafkaWritesBroker(broker.host(),
                        new LinkedHashMap<>(Map.of(BrokerInfo.KAFKA_LISTENER, broker.port())), null, -1);
                default -> faults.apply(ours);
            };
        }

        @Override
        public String toString() {
            return name + " (" + kind + (kind.equals("damaged") ? " " + faults.faults() : "")
                    + (rewritten ? ", written again since its creation" : "") + ")";
        }
    }

    static final Gen<List<Child>> CHILDREN = c -> {
        Map<String, Child> children = new LinkedHashMap<>();
        for (int n = Gens.ints(0, 5).generate(c); n > 0; n--) {
            String name = Gens.oneOf(Gens.ints(0, 12).map(String::valueOf),
                    Gens.elements("07", "-1", "x", "99999999999", "2147483647", "2147483648", " 3")).generate(c);
            int id = BrokerRegistration.brokerId(name).orElse(0);
            BrokerInfo broker = new BrokerInfo(id, KafkaZk.hosts().generate(c), KafkaZk.ports().generate(c), 9_002, 9_001);
            children.put(name, new Child(name, Gens.elements("ours", "ours", "kafka's", "no KAENLOG listener", "damaged")
                    .generate(c), broker, Gens.faults().generate(c), c.oneIn(3)));
        }
        return new ArrayList<>(children.values());
    };

    @Test
    void everyClusterOfRegistrationsIsListedAsKafkasGetAllBrokerAndEpochsInClusterListsIt() throws Exception {
        ZkClient admin = ZK.connect();
        Property.forAll(CHILDREN).tries(12).shrinkBudget(200).check(children -> {
            admin.deleteRecursive("/brokers");
            admin.ensurePersistent(ZNodes.BROKER_IDS);
            for (Child child : children) {
                admin.create(ZNodes.BROKER_IDS + "/" + child.name(), child.data(), CreateMode.PERSISTENT);
            }
            for (Child child : children) { // written again: its mzxid moves on, its czxid (the epoch) stays
                if (child.rewritten()) {
                    admin.setData(ZNodes.BROKER_IDS + "/" + child.name(), child.data(), -1);
                }
            }
            Map<String, String> refused = new TreeMap<>();
            Judge.Outcome yours = Judge.Outcome.of(() -> BrokerRegistration.liveBrokers(admin, refused::put));
            // getAllBrokerAndEpochsInCluster: each child of /brokers/ids read with its stat, BrokerIdZNode.decode'd,
            // its epoch the stat's czxid, sorted by broker id; kaen-log's documented difference: a child that is no
            // id or a registration that does not parse (ZNodes.decodeBroker, task 1 (ZNodeCodecsTest)) is absent
            SortedMap<Integer, Long> live = new TreeMap<>();
            List<String> absent = new ArrayList<>();
            for (Child child : children) {
                String path = ZNodes.BROKER_IDS + "/" + child.name();
                OptionalInt id = BrokerRegistration.brokerId(child.name());
                Optional<ZkClient.Node> node = admin.get(path);
                if (id.isEmpty() || !parses(id.getAsInt(), node.orElseThrow().data())) {
                    absent.add(path);
                } else {
                    live.put(id.getAsInt(), node.orElseThrow().stat().getCzxid());
                }
            }
            absent.sort(null);
            Judge.agree("/brokers/ids holding " + children, "live brokers (id to epoch), and the znodes told absent",
                    List.of(yours.refused() ? yours : yours.value(), List.copyOf(refused.keySet())),
                    "KafkaZkClient.getAllBrokerAndEpochsInCluster (with kaen-log's refusal of what does not parse) gives",
                    List.of(live, absent), LIVE_RULE);
        });
    }

    private static boolean parses(int id, byte[] data) {
        try {
            ZNodes.decodeBroker(id, data);
            return true;
        } catch (ZNodeFormatException e) {
            return false;
        }
    }

    static final String REGISTER_RULE = "a broker registers with an EPHEMERAL /brokers/ids/N, owned by its session, its"
            + " epoch the czxid (larger at each new registration); a znode its own session owns is the same"
            + " registration; one another live session owns is refused with NodeExistsException, never taken over;"
            + " one gone by the time you look is created again";

    /** A broker (1 or 2) registers on one of three sessions, or a registration's znode goes. */
    record Registration(int session, int broker, boolean gone) {
        @Override
        public String toString() {
            return gone ? "/brokers/ids/" + broker + " goes (its session ended)"
                    : "broker " + broker + " registers on session " + session;
        }
    }

    @Test
    void everySequenceOfRegistrationsAgreesWithKafkasRegisterBroker() throws Exception {
        List<ZkClient> sessions = List.of(ZK.connect(), ZK.connect(), ZK.connect());
        ZkClient admin = ZK.connect();
        Gen<List<Registration>> histories = Gens.lists(c -> new Registration(Gens.ints(0, 2).generate(c),
                Gens.ints(1, 2).generate(c), c.oneIn(4)), 1, 8);
        Property.forAll(histories).tries(12).shrinkBudget(200).check(history -> {
            admin.deleteRecursive("/brokers");
            long latest = 0;
            for (int i = 0; i < history.size(); i++) {
                Registration r = history.get(i);
                String path = ZNodes.brokerPath(r.broker());
                Optional<org.apache.zookeeper.data.Stat> before = admin.exists(path);
                if (r.gone()) {
                    if (before.isPresent()) {
                        admin.delete(path);
                    }
                    continue;
                }
                ZkClient session = sessions.get(r.session());
                Judge.Outcome yours = Judge.Outcome.of(() -> BrokerRegistration.register(session,
                        new BrokerInfo(r.broker(), "h", 9_000 + r.broker(), 9_500, 9_700), NOW_MS));
                Optional<org.apache.zookeeper.data.Stat> after = admin.exists(path);
                // registerBroker: createOrSet of an EPHEMERAL znode (KafkaZkClient.checkedEphemeralCreate: on
                // NodeExists, the znode is ours when its ephemeralOwner is this session, gone: create again, else
                // NodeExistsException);
                // the broker epoch is the znode's czxid
                String kafkas;
                String mine;
                if (before.isEmpty()) {
                    kafkas = "a new registration: ephemeral, owned by session " + r.session() + ", its epoch the czxid,"
                            + " above " + latest;
                    mine = after.isPresent() && !yours.refused() && after.get().getEphemeralOwner() == session.sessionId()
                            && yours.value().equals(after.get().getCzxid()) && after.get().getCzxid() > latest
                            ? kafkas : "epoch " + yours + ", znode " + (after.isEmpty() ? "absent" : "owned by "
                            + owner(sessions, after.get().getEphemeralOwner()) + " with czxid " + after.get().getCzxid());
                    latest = after.map(org.apache.zookeeper.data.Stat::getCzxid).orElse(latest);
                } else if (before.get().getEphemeralOwner() == session.sessionId()) {
                    kafkas = "the same registration, epoch " + before.get().getCzxid();
                    mine = yours.refused() ? String.valueOf(yours) : "the same registration, epoch " + yours.value();
                } else {
                    kafkas = "a refusal (NodeExistsException), the znode still owned by "
                            + owner(sessions, before.get().getEphemeralOwner());
                    mine = (yours.refused() ? "a refusal (" + yours.refusal().getClass().getSimpleName() + ")"
                            : "epoch " + yours.value()) + ", the znode " + (after.isEmpty() ? "gone"
                            : "still owned by " + owner(sessions, after.get().getEphemeralOwner()));
                }
                Judge.agree("step " + (i + 1) + " (" + r + ") of " + history, "registration", mine,
                        "KafkaZkClient.registerBroker gives", kafkas, REGISTER_RULE);
            }
        });
    }

    private static String owner(List<ZkClient> sessions, long owner) {
        for (int i = 0; i < sessions.size(); i++) {
            if (sessions.get(i).sessionId() == owner) {
                return "session " + i;
            }
        }
        return owner == 0 ? "no session (persistent)" : "session id " + owner;
    }
}
