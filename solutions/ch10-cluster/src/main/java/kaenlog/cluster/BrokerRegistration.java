package kaenlog.cluster;

import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A broker's membership of the cluster (Kafka's {@code KafkaZkClient.registerBroker}): an
 * EPHEMERAL znode {@code /brokers/ids/N}, alive exactly as long as the broker's ZooKeeper session.
 * Its czxid (the id of the transaction that created it) is the broker epoch: a broker that
 * restarts registers again and gets a larger one, so a message from its previous life (with the
 * older epoch) can be told apart and refused (KIP-380). KRaft's successor: the broker's heartbeat
 * to the controller quorum, and the broker epoch the controller gives its registration.
 */
public final class BrokerRegistration {
    private BrokerRegistration() {
    }

    /**
     * Registers {@code broker} on this session and returns its broker epoch (the znode's czxid).
     * Another live broker with the same id is refused with {@link KeeperException.NodeExistsException};
     * a znode this very session already owns (a retry after a lost answer) is this registration.
     */
    public static long register(ZkClient zk, BrokerInfo broker, long nowMs) throws KeeperException, InterruptedException {
        zk.ensurePersistent(ZNodes.BROKER_IDS);
        String path = ZNodes.brokerPath(broker.id());
        // BEGIN-SOLUTION ch10 task 2: an ephemeral /brokers/ids/N; its czxid is the broker epoch (RegistrationTest)
        try {
            Stat created = zk.create(path, ZNodes.encodeBroker(broker, nowMs), CreateMode.EPHEMERAL);
            return created.getCzxid();
        } catch (KeeperException.NodeExistsException e) {
            Stat existing = zk.exists(path).orElseThrow(() -> e);
            if (existing.getEphemeralOwner() == zk.sessionId()) {
                return existing.getCzxid();
            }
            throw e;
        }
        // END-SOLUTION
    }

    /** The live brokers, by broker id (a NUMBER: broker 10 after broker 9), each with its broker epoch. */
    public static SortedMap<Integer, Long> liveBrokers(ZkClient zk) throws KeeperException, InterruptedException {
        // BEGIN-SOLUTION ch10 task 2: the live brokers by id, with their epochs (RegistrationTest)
        SortedMap<Integer, Long> live = new TreeMap<>();
        for (String child : zk.children(ZNodes.BROKER_IDS)) {
            zk.exists(ZNodes.brokerPath(Integer.parseInt(child)))
                    .ifPresent(stat -> live.put(Integer.parseInt(child), stat.getCzxid()));
        }
        return live;
        // END-SOLUTION
    }

    /** A live broker's registration, read back (given). */
    public static java.util.Optional<BrokerInfo> read(ZkClient zk, int id) throws KeeperException, InterruptedException {
        return zk.get(ZNodes.brokerPath(id)).map(node -> ZNodes.decodeBroker(id, node.data()));
    }
}
