package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Task 2: registration, an ephemeral /brokers/ids/N whose czxid is the broker epoch. */
@Order(2)
class RegistrationTest {
    @RegisterExtension
    static final ZooKeeperFixture ZK = new ZooKeeperFixture();
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void aRegistrationLivesExactlyAsLongAsItsSession() throws Exception {
        ZkClient broker = ZK.connect();
        ZkClient observer = ZK.connect();
        BrokerRegistration.register(broker, new BrokerInfo(1, "127.0.0.1", 9092, 9093), NOW_MS);
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
        long epoch = BrokerRegistration.register(first, new BrokerInfo(1, "h", 9092, 9093), NOW_MS);
        ZkClient observer = ZK.connect();
        assertThat(epoch).as("the broker epoch is the czxid of /brokers/ids/1 (KIP-380)")
                .isEqualTo(observer.exists(ZNodes.brokerPath(1)).orElseThrow().getCzxid());
        first.close();
        ZkClient again = ZK.connect();
        long next = BrokerRegistration.register(again, new BrokerInfo(1, "h", 9092, 9093), NOW_MS);
        assertThat(next).as("a broker that registers again must get a LARGER epoch (a new czxid; a version or a"
                + " counter of its own starts over)").isGreaterThan(epoch);
        assertThat(BrokerRegistration.read(observer, 1)).as("and what it registered reads back")
                .contains(new BrokerInfo(1, "h", 9092, 9093));
    }

    @Test
    void aSecondLiveBrokerWithTheSameIdIsRefused() throws Exception {
        ZkClient first = ZK.connect();
        BrokerRegistration.register(first, new BrokerInfo(5, "a", 1, 2), NOW_MS);
        ZkClient impostor = ZK.connect();
        Throwable refused = catchThrowable(() -> BrokerRegistration.register(impostor, new BrokerInfo(5, "b", 3, 4), NOW_MS));
        assertThat(refused).as("broker id 5 is already registered by another live session: refuse with"
                + " NodeExistsException, never take it over").isInstanceOf(KeeperException.NodeExistsException.class);
        assertThat(BrokerRegistration.read(ZK.connect(), 5)).as("the first registration stays")
                .contains(new BrokerInfo(5, "a", 1, 2));
    }

    @Test
    void registeringAgainOnTheSameSessionIsTheSameRegistration() throws Exception {
        ZkClient broker = ZK.connect();
        long epoch = BrokerRegistration.register(broker, new BrokerInfo(4, "a", 1, 2), NOW_MS);
        assertThat(BrokerRegistration.register(broker, new BrokerInfo(4, "a", 1, 2), NOW_MS))
                .as("a retry on the session that owns /brokers/ids/4 (its answer was lost) is the same registration,"
                        + " with the same epoch").isEqualTo(epoch);
    }

    @Test
    void theLiveBrokersAreListedByIdAsANumber() throws Exception {
        ZkClient observer = ZK.connect();
        long[] epochs = new long[11];
        for (int id : new int[] {10, 2, 9}) {
            epochs[id] = BrokerRegistration.register(ZK.connect(), new BrokerInfo(id, "h", 9000 + id, 9500 + id), NOW_MS);
        }
        assertThat(List.copyOf(BrokerRegistration.liveBrokers(observer).keySet()))
                .as("broker ids are numbers: 2, 9, 10, not the strings' order 10, 2, 9").containsExactly(2, 9, 10);
        assertThat(BrokerRegistration.liveBrokers(observer).get(9)).as("each with its broker epoch").isEqualTo(epochs[9]);
    }

    @Test
    void aClusterNobodyJoinedHasNoLiveBroker() throws Exception {
        assertThat(BrokerRegistration.liveBrokers(ZK.connect())).as("no /brokers/ids yet: no live broker, not an error")
                .isEmpty();
    }
}
