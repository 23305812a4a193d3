package kaenlog.cluster;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
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
     * a znode this very session already owns (a retry after a lost answer) is this registration; one
     * that went away between the refused create and the look at it is created again (Kafka's
     * {@code KafkaZkClient.CheckedEphemeral}: NONODE after NODEEXISTS, {@code create()} again).
     */
    public static long register(ZkClient zk, BrokerInfo broker, long nowMs) throws KeeperException, InterruptedException {
        zk.ensurePersistent(ZNodes.BROKER_IDS);
        String path = ZNodes.brokerPath(broker.id());
        // BEGIN-SOLUTION ch10 task 2: an ephemeral /brokers/ids/N; its czxid is the broker epoch (RegistrationTest)
        try {
            Stat created = zk.create(path, ZNodes.encodeBroker(broker, nowMs), CreateMode.EPHEMERAL);
            return created.getCzxid();
        } catch (KeeperException.NodeExistsException e) {
            Optional<Stat> found = zk.exists(path);
            if (found.isEmpty()) {
                // gone between our create and our look (its session just ended): the id is free, create again
                return register(zk, broker, nowMs);
            }
            Stat existing = found.get();
            if (existing.getEphemeralOwner() == zk.sessionId()) {
                return existing.getCzxid();
            }
            throw e;
        }
        // END-SOLUTION
    }

    /** The live brokers, by broker id, each with its broker epoch ({@link #liveBrokers(ZkClient, BiConsumer)}, refusals unheard). */
    public static SortedMap<Integer, Long> liveBrokers(ZkClient zk) throws KeeperException, InterruptedException {
        return liveBrokers(zk, (znode, why) -> { });
    }

    /**
     * The live brokers, by broker id (a NUMBER: broker 10 after broker 9), each with its broker
     * epoch. A registration is read as a request is, since anyone who reaches ZooKeeper can write
     * it: a child of {@code /brokers/ids} that is not a broker id, or whose registration does not
     * parse ({@code decodeBroker}, task 1 (ZNodeCodecsTest)), is a broker that is absent: never elected, never let
     * into an ISR, never a leader to fetch from. {@code refused} hears of each such znode, with why.
     */
    public static SortedMap<Integer, Long> liveBrokers(ZkClient zk, BiConsumer<String, String> refused)
            throws KeeperException, InterruptedException {
        // BEGIN-SOLUTION ch10 task 2: the live brokers by id, with their epochs; one that does not parse is absent (RegistrationTest)
        SortedMap<Integer, Long> live = new TreeMap<>();
        for (String child : zk.children(ZNodes.BROKER_IDS)) {
            String path = ZNodes.BROKER_IDS + "/" + child;
            OptionalInt id = brokerId(child);
            if (id.isEmpty()) {
                refused.accept(path, "not a broker id");
                continue;
            }
            Optional<ZkClient.Node> node = zk.get(path);
            if (node.isEmpty()) {
                continue; // gone between the list and the read: that broker just left
            }
            try {
                ZNodes.decodeBroker(id.getAsInt(), node.get().data());
            } catch (ZNodeFormatException e) {
                refused.accept(path, e.getMessage());
                continue;
            }
            live.put(id.getAsInt(), node.get().stat().getCzxid());
        }
        return live;
        // END-SOLUTION
    }

    /**
     * A child of {@code /brokers/ids} as a broker id: the decimal digits of an int from 0, written
     * as Kafka writes them (no sign, no leading zero), or empty (given).
     */
    static OptionalInt brokerId(String child) {
        if (!child.matches("0|[1-9][0-9]{0,9}")) {
            return OptionalInt.empty();
        }
        long id = Long.parseLong(child);
        return id <= Integer.MAX_VALUE ? OptionalInt.of((int) id) : OptionalInt.empty();
    }

    /**
     * A live broker's registration, read back, or empty when there is none or it does not parse
     * (given: a broker whose registration cannot be read is no broker to connect to).
     */
    public static Optional<BrokerInfo> read(ZkClient zk, int id) throws KeeperException, InterruptedException {
        Optional<ZkClient.Node> node = zk.get(ZNodes.brokerPath(id));
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZNodes.decodeBroker(id, node.get().data()));
        } catch (ZNodeFormatException e) {
            return Optional.empty();
        }
    }
}
