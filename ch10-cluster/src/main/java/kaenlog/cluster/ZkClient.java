package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * One ZooKeeper session, synchronous (given code), as Kafka's {@code kafka.zookeeper.ZooKeeperClient}
 * wraps the plain client: no Curator, no retry loop hidden from the reader. A broker holds one for
 * its whole life; its ephemeral znodes ({@code /brokers/ids/N}, {@code /controller}) live exactly as
 * long as this session, which is how the cluster learns that a broker died: ZooKeeper ends the
 * session when the broker stops heartbeating for the session timeout, and deletes its ephemerals.
 * ZooKeeper's own exceptions ({@link KeeperException.NodeExistsException},
 * {@link KeeperException.BadVersionException}, ...) are thrown as they are: they are the protocol.
 */
public final class ZkClient implements Closeable {
    /** A znode's bytes with its {@link Stat}: version (the conditional writes' check), czxid, owner. */
    public record Node(byte[] data, Stat stat) {
    }

    private static final int CONNECT_SECONDS = 30;
    private final ZooKeeper zk;

    /** Over a session of one's own: {@link #connect}'s, or a test's that steps in between two calls. */
    ZkClient(ZooKeeper zk) {
        this.zk = zk;
    }

    /**
     * Opens a session on {@code connectString} ({@code host:port[,host:port...]}) and waits until
     * it is connected. {@code watcher} receives the session's events and every watch that fires
     * (ZooKeeper calls it on its one event thread, in order).
     */
    public static ZkClient connect(String connectString, int sessionTimeoutMs, Watcher watcher) throws IOException {
        return connect(connectString, sessionTimeoutMs, CONNECT_SECONDS * 1_000L, watcher);
    }

    /**
     * The same, giving up after {@code connectTimeoutMs} (an administrator's command, which must
     * answer "unreachable" within a bound); a connect string ZooKeeper cannot parse or resolve is an
     * {@link IOException} too.
     */
    public static ZkClient connect(String connectString, int sessionTimeoutMs, long connectTimeoutMs, Watcher watcher)
            throws IOException {
        CountDownLatch connected = new CountDownLatch(1);
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, sessionTimeoutMs, event -> {
                if (event.getType() == Watcher.Event.EventType.None
                        && event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
                watcher.process(event);
            }, config);
        } catch (IllegalArgumentException e) {
            throw new IOException("not a ZooKeeper address: " + connectString + " (" + e.getMessage() + ")", e);
        }
        try {
            if (!connected.await(connectTimeoutMs, TimeUnit.MILLISECONDS)) {
                zk.close();
                throw new IOException("no ZooKeeper answered at " + connectString + " within " + seconds(connectTimeoutMs));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to ZooKeeper", e);
        }
        return new ZkClient(zk);
    }

    private static String seconds(long ms) {
        return ms % 1_000 == 0 ? ms / 1_000 + " s" : ms + " ms";
    }

    /** The same, with no watcher. */
    public static ZkClient connect(String connectString, int sessionTimeoutMs) throws IOException {
        return connect(connectString, sessionTimeoutMs, event -> { });
    }

    /** False once the session expired or was closed: nothing more can be done with it. */
    public boolean alive() {
        return zk.getState().isAlive();
    }

    /** This session's id: the {@code ephemeralOwner} of every ephemeral znode it creates. */
    public long sessionId() {
        return zk.getSessionId();
    }

    /** Creates {@code path} (its parent must exist); the stat it was created with (its czxid). */
    public Stat create(String path, byte[] data, CreateMode mode) throws KeeperException, InterruptedException {
        Stat stat = new Stat();
        zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, mode, stat);
        return stat;
    }

    /** Creates {@code path} and each missing parent as persistent empty znodes; an existing one is kept. */
    public void ensurePersistent(String path) throws KeeperException, InterruptedException {
        StringBuilder at = new StringBuilder();
        for (String part : path.substring(1).split("/")) {
            at.append('/').append(part);
            if (zk.exists(at.toString(), false) == null) {
                try {
                    zk.create(at.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                } catch (KeeperException.NodeExistsException raced) {
                    // another broker created it between our exists and our create: what we wanted
                }
            }
        }
    }

    /** The znode's data and stat, or empty when it does not exist. */
    public Optional<Node> get(String path) throws KeeperException, InterruptedException {
        return get(path, null);
    }

    /**
     * The same, leaving a one-shot watch on it (fired once, at its next change, its deletion, or its
     * creation when it does not exist yet). A znode created between the read that missed it and the
     * exists() that sets the watch is read again: its creation fires no watch, so "empty" then would
     * leave the caller waiting for a change that may never come (a partition's first state).
     */
    public Optional<Node> get(String path, Watcher watch) throws KeeperException, InterruptedException {
        while (true) {
            Stat stat = new Stat();
            try {
                byte[] data = watch == null ? zk.getData(path, false, stat) : zk.getData(path, watch, stat);
                return Optional.of(new Node(data, stat));
            } catch (KeeperException.NoNodeException e) {
                if (watch == null || zk.exists(path, watch) == null) {
                    return Optional.empty();
                }
            }
        }
    }

    /** The znode's stat, or empty. */
    public Optional<Stat> exists(String path) throws KeeperException, InterruptedException {
        return Optional.ofNullable(zk.exists(path, false));
    }

    /** Sets the data if the znode's version is {@code expectedVersion} (-1: any); the new stat. */
    public Stat setData(String path, byte[] data, int expectedVersion) throws KeeperException, InterruptedException {
        refuseAVersionThatWraps(path, expectedVersion);
        return zk.setData(path, data, expectedVersion);
    }

    /**
     * A conditional write whose version could not grow (given). ZooKeeper 3.9 adds one to a
     * znode's version with no check ({@code PrepRequestProcessor.checkAndIncVersion}): a write at
     * version 2^31-1 leaves -2^31, and at -1 every conditional write of that znode would be
     * unconditional (-1 means "any version"). A state znode's version is Kafka's partition epoch,
     * and epochs never wrap: refused, as {@link EpochOverflowException}.
     */
    private static void refuseAVersionThatWraps(String path, int expectedVersion) {
        if (expectedVersion == Integer.MAX_VALUE || expectedVersion < -1) {
            throw new EpochOverflowException("the version " + expectedVersion + " of " + path
                    + " cannot grow: ZooKeeper would wrap it, and a version of -1 matches any");
        }
    }

    /** The names of the children, empty when the znode does not exist. */
    public List<String> children(String path) throws KeeperException, InterruptedException {
        return children(path, null);
    }

    /**
     * The same, leaving a one-shot child watch on it (or, when it does not exist, a watch that fires
     * at its creation). A znode created between the read that missed it and the exists() that sets
     * the watch is read again, as {@link #get(String, Watcher)} does: exists() on a znode that exists
     * sets a watch on its data, which no child's creation fires, so "no children" then would leave
     * the caller deaf to them (a broker that never hears of the first topic).
     */
    public List<String> children(String path, Watcher watch) throws KeeperException, InterruptedException {
        while (true) {
            try {
                return new ArrayList<>(watch == null ? zk.getChildren(path, false) : zk.getChildren(path, watch));
            } catch (KeeperException.NoNodeException e) {
                if (watch == null || zk.exists(path, watch) == null) {
                    return new ArrayList<>();
                }
            }
        }
    }

    /**
     * All of {@code ops} or none of them, atomically (ZooKeeper's multi). On failure the exception
     * is the first failing op's ({@code e.getResults()} has one result per op, the failed one an
     * {@link OpResult.ErrorResult}).
     */
    public List<OpResult> multi(List<Op> ops) throws KeeperException, InterruptedException {
        for (Op op : ops) {
            if (op.toRequestRecord() instanceof SetDataRequest set) {
                refuseAVersionThatWraps(op.getPath(), set.getVersion());
            }
        }
        return zk.multi(ops);
    }

    /** Deletes {@code path}, whatever its version. */
    public void delete(String path) throws KeeperException, InterruptedException {
        zk.delete(path, -1);
    }

    /**
     * The deletes of {@code path} and everything under it, the deepest first, for one multi (the
     * controller's deletion of a topic's znodes, fenced with its epoch); none when it does not exist.
     */
    public List<Op> deleteOps(String path) throws KeeperException, InterruptedException {
        List<Op> ops = new ArrayList<>();
        if (zk.exists(path, false) == null) {
            return ops;
        }
        for (String child : children(path)) {
            ops.addAll(deleteOps(path + "/" + child));
        }
        ops.add(Op.delete(path, -1));
        return ops;
    }

    /** Deletes {@code path} and everything under it (tests and tools). */
    public void deleteRecursive(String path) throws KeeperException, InterruptedException {
        if (path.equals("/zookeeper")) {
            return; // ZooKeeper's own (quotas, config): not ours to delete
        }
        for (String child : children(path)) {
            deleteRecursive(path.equals("/") ? "/" + child : path + "/" + child);
        }
        if (!path.equals("/")) {
            try {
                zk.delete(path, -1);
            } catch (KeeperException.NoNodeException gone) {
                // an ephemeral that went with its session: gone is what we wanted
            }
        }
    }

    /** Ends the session: ZooKeeper deletes its ephemeral znodes before this returns. */
    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
