package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.KeeperException;
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
}
