package kaenlog.reliability.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.cluster.PartitionState;
import kaenlog.cluster.ZNodes;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.Txn;
import org.apache.zookeeper.txn.TxnHeader;

/**
 * Every state the cluster's metadata went through, read from ZooKeeper's own transaction log
 * ({@code dataDir/version-2/log.*}): each write of the partition's state znode, of
 * {@code /controller_epoch} and each creation of {@code /controller}, with the zxid and the time
 * ZooKeeper's leader stamped on it. A watch would miss a version written while it was being set
 * again; the transaction log misses nothing, so the checker can say which broker led every leader
 * epoch and what the ISR was at any instant. Writes inside a failed multi (a fenced controller's)
 * are not applied, and not listed.
 */
public final class ZkHistory {
    /** One version of the partition's state znode, and when ZooKeeper applied it. */
    public record StateVersion(long zxid, long timeMs, PartitionState state) {
    }

    /** A write of {@code /controller_epoch} (the election's multi), or who created {@code /controller}. */
    public record ControllerEvent(long zxid, long timeMs, int epoch, int controller) {
    }

    private final List<StateVersion> states;
    private final List<ControllerEvent> controllerEpochs;
    private final List<ControllerEvent> controllers;

    private ZkHistory(List<StateVersion> states, List<ControllerEvent> controllerEpochs,
                      List<ControllerEvent> controllers) {
        this.states = List.copyOf(states);
        this.controllerEpochs = List.copyOf(controllerEpochs);
        this.controllers = List.copyOf(controllers);
    }

    /**
     * Reads the transaction log of the server whose {@code klog zookeeper --dir} (or
     * {@code EmbeddedZooKeeper.start}'s dir) is {@code zookeeperDir}, for the state znode of
     * {@code topic}-{@code partition}.
     */
    public static ZkHistory read(Path zookeeperDir, String topic, int partition) throws IOException {
        File logs = zookeeperDir.resolve("data").resolve("version-2").toFile();
        String statePath = ZNodes.statePath(topic, partition);
        List<StateVersion> states = new ArrayList<>();
        List<ControllerEvent> epochs = new ArrayList<>();
        List<ControllerEvent> controllers = new ArrayList<>();
        FileTxnLog log = new FileTxnLog(logs);
        try (TxnLog.TxnIterator it = log.read(1)) {
            for (boolean more = it.getHeader() != null; more; more = it.next()) {
                TxnHeader header = it.getHeader();
                for (Record txn : applied(header.getType(), it.getTxn())) {
                    String path = pathOf(txn);
                    byte[] data = dataOf(txn);
                    if (statePath.equals(path)) {
                        states.add(new StateVersion(header.getZxid(), header.getTime(), ZNodes.decodeState(data)));
                    } else if (ZNodes.CONTROLLER_EPOCH.equals(path)) {
                        epochs.add(new ControllerEvent(header.getZxid(), header.getTime(),
                                ZNodes.decodeControllerEpoch(data), -1));
                    } else if (ZNodes.CONTROLLER.equals(path) && txn instanceof CreateTxn) {
                        controllers.add(new ControllerEvent(header.getZxid(), header.getTime(), -1,
                                ZNodes.decodeController(data)));
                    }
                }
            }
        } finally {
            log.close();
        }
        return new ZkHistory(states, epochs, controllers);
    }

    /** The writes a transaction applied: itself, or each op of a multi that succeeded (a failed one holds ErrorTxns). */
    private static List<Record> applied(int type, Record txn) throws IOException {
        if (type != ZooDefs.OpCode.multi) {
            return txn == null ? List.of() : List.of(txn);
        }
        List<Record> ops = new ArrayList<>();
        for (Txn op : ((MultiTxn) txn).getTxns()) {
            Record record = switch (op.getType()) {
                case ZooDefs.OpCode.setData -> new SetDataTxn();
                case ZooDefs.OpCode.create, ZooDefs.OpCode.create2 -> new CreateTxn();
                default -> null; // check, delete, error: nothing the history keeps
            };
            if (record != null) {
                ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(op.getData()), record);
                ops.add(record);
            }
        }
        return ops;
    }

    private static String pathOf(Record txn) {
        if (txn instanceof SetDataTxn set) {
            return set.getPath();
        }
        if (txn instanceof CreateTxn create) {
            return create.getPath();
        }
        return null;
    }

    private static byte[] dataOf(Record txn) {
        if (txn instanceof SetDataTxn set) {
            return set.getData();
        }
        if (txn instanceof CreateTxn create) {
            return create.getData();
        }
        return new byte[0];
    }

    /**
     * This history without the writes of {@code zxids} (a scenario that writes into ZooKeeper as
     * an attacker would: its forged states are not the cluster's, and the checker judges the
     * cluster's own).
     */
    public ZkHistory without(java.util.Set<Long> zxids) {
        return new ZkHistory(states.stream().filter(v -> !zxids.contains(v.zxid())).toList(),
                controllerEpochs.stream().filter(e -> !zxids.contains(e.zxid())).toList(),
                controllers.stream().filter(e -> !zxids.contains(e.zxid())).toList());
    }

    /** Every version of the partition's state, in the order ZooKeeper applied them. */
    public List<StateVersion> states() {
        return states;
    }

    /** Every value {@code /controller_epoch} was set to, in order. */
    public List<ControllerEvent> controllerEpochs() {
        return controllerEpochs;
    }

    /** Every creation of {@code /controller}: who won, in order. */
    public List<ControllerEvent> controllers() {
        return controllers;
    }

    /** The state in effect at {@code timeMs} (the last one applied at or before it), or null before the first. */
    public PartitionState stateAt(long timeMs) {
        PartitionState found = null;
        for (StateVersion v : states) {
            if (v.timeMs() > timeMs) {
                break;
            }
            found = v.state();
        }
        return found;
    }

    /** The states in effect at some instant of [fromMs, toMs]: the one at fromMs and every one applied up to toMs. */
    public List<PartitionState> statesDuring(long fromMs, long toMs) {
        List<PartitionState> during = new ArrayList<>();
        PartitionState first = stateAt(fromMs);
        if (first != null) {
            during.add(first);
        }
        for (StateVersion v : states) {
            if (v.timeMs() > fromMs && v.timeMs() <= toMs) {
                during.add(v.state());
            }
        }
        return during;
    }

    /** The leader of {@code epoch} by the state znode, or {@link PartitionState#NO_LEADER} if no state names one. */
    public int leaderOf(int epoch) {
        for (StateVersion v : states) {
            if (v.state().leaderEpoch() == epoch) {
                return v.state().leader();
            }
        }
        return PartitionState.NO_LEADER;
    }

    /**
     * The latest epoch {@code broker} was made leader of at or before {@code timeMs} (ZooKeeper's
     * time; the broker can only act on a state after it was written), or -1.
     */
    public int latestEpochLedBy(int broker, long timeMs) {
        int epoch = -1;
        for (StateVersion v : states) {
            if (v.timeMs() > timeMs) {
                break;
            }
            if (v.state().leader() == broker) {
                epoch = Math.max(epoch, v.state().leaderEpoch());
            }
        }
        return epoch;
    }

    /** The latest leader epoch written at or before {@code timeMs}, whoever leads it, or -1. */
    public int latestEpochAt(long timeMs) {
        PartitionState state = stateAt(timeMs);
        return state == null ? -1 : state.leaderEpoch();
    }

    /**
     * The first state written after {@code afterMs} whose leader is a broker other than
     * {@code oldLeader} (and not none): when a new leader was elected after a fault, or null.
     */
    public StateVersion firstNewLeaderAfter(long afterMs, int oldLeader) {
        for (StateVersion v : states) {
            if (v.timeMs() >= afterMs && v.state().leader() != oldLeader
                    && v.state().leader() != PartitionState.NO_LEADER) {
                return v;
            }
        }
        return null;
    }
}
