package kaenlog.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kaenlog.workbook.Todo;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;

/**
 * Who is the controller (Kafka's {@code KafkaZkClient.registerControllerAndIncrementControllerEpoch}):
 * the first broker to create the EPHEMERAL {@code /controller} wins, and in the same multi it bumps
 * {@code /controller_epoch}, conditional on the version it read, so that two winners can never
 * share an epoch. Every later controller write carries the epoch's version check
 * ({@link ControllerEpoch#fence()}): a zombie is fenced by ZooKeeper itself. KRaft's successor:
 * the controller quorum's Raft leader, its epoch the Raft epoch, its writes the metadata log's.
 */
public final class ControllerElection {
    /** Kafka's {@code KafkaController.InitialControllerEpoch}: the first controller's epoch is 1. */
    public static final int INITIAL_CONTROLLER_EPOCH = 0;

    private ControllerElection() {
    }

    /**
     * Tries to become the controller: the epoch won, or empty when another broker is the controller
     * (or won the race), in which case {@code /controller_epoch} is left as it was.
     */
    public static Optional<ControllerEpoch> elect(ZkClient zk, int brokerId, long nowMs)
            throws KeeperException, InterruptedException {
        ZkClient.Node epochNode = epochNode(zk);
        int epoch = nextControllerEpoch(epochNode);
        throw new Todo("ch10 task 3: create /controller and bump /controller_epoch in one multi (ControllerElectionTest)");
    }

    /**
     * A controller write: {@code ops} all applied, or none, and none at all once {@code /controller_epoch}
     * is no longer at {@code epoch}'s version ({@link ControllerMovedException}). Other failures of
     * an op are thrown as ZooKeeper's exception (a stale partition state: {@code BadVersionException}).
     * The results are {@code ops}' own, without the fence's.
     */
    public static List<OpResult> write(ZkClient zk, ControllerEpoch epoch, List<Op> ops)
            throws ControllerMovedException, KeeperException, InterruptedException {
        throw new Todo("ch10 task 3: every controller write carries the epoch fence (ControllerElectionTest)");
    }

    /**
     * The epoch the next controller takes: one more than {@code /controller_epoch} holds (given).
     * Its bytes are read like a request: when they are not an epoch a new one can follow (not
     * digits, negative, at the largest int) or are above the znode's own version, the version is
     * taken instead. No client can forge the version, and every election of this cluster bumps the
     * epoch and the version together, from epoch 0 at version 0, so it is the epoch whenever the
     * znode was written by controllers alone. Past the largest int, no epoch: it never wraps.
     */
    static int nextControllerEpoch(ZkClient.Node epochNode) {
        int version = epochNode.stat().getVersion();
        int stored;
        try {
            stored = ZNodes.decodeControllerEpoch(epochNode.data());
        } catch (IllegalArgumentException notAnEpoch) { // NumberFormatException
            stored = version;
        }
        if (!Epochs.canGrow(stored) || stored > version) {
            stored = version;
        }
        return Epochs.next(stored, "controller epoch");
    }

    /** The current controller's broker id, or -1 when there is none (given). */
    public static int controller(ZkClient zk) throws KeeperException, InterruptedException {
        return zk.get(ZNodes.CONTROLLER).map(node -> ZNodes.decodeController(node.data())).orElse(-1);
    }

    /** {@code /controller_epoch}, created at the initial epoch the first time (given). */
    private static ZkClient.Node epochNode(ZkClient zk) throws KeeperException, InterruptedException {
        try {
            zk.create(ZNodes.CONTROLLER_EPOCH, ZNodes.encodeControllerEpoch(INITIAL_CONTROLLER_EPOCH),
                    CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException exists) {
            // every election after the first finds it
        }
        return zk.get(ZNodes.CONTROLLER_EPOCH).orElseThrow();
    }
}
