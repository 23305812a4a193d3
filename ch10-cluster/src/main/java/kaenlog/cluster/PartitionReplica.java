package kaenlog.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.replication.EpochEndOffset;
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.OffsetsForLeaderEpoch;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.apache.zookeeper.KeeperException;

/**
 * This broker's replica of one partition of the cluster, the one owner of what the broker knows of
 * it (given code, on the tasks' pieces; Kafka's {@code Partition}): chapter 8's {@link Replica} on
 * the broker's own partition; the leader epoch it last acted on, kept by its {@link PartitionRole}
 * (task 6 (PartitionRoleTest)) and nowhere else; while it leads, its {@link PartitionLeader} of that
 * epoch, which keeps the ISR ({@link LeaderIsr}) and is the partition's replica gate; while it
 * follows, a {@link ReplicaFetcher}. Every new state of the partition comes through {@link #onState},
 * on the broker's metadata thread.
 *
 * <p>One lock, Kafka's {@code leaderIsrUpdateLock}: a change of role, of the ISR, or of what a
 * follower's fetch teaches the leader takes its write side; every produce runs its check and its
 * append under its read side. So a produce that was checked while this broker led is either written
 * before the broker stops leading or refused after, and the epoch it is written with is the one it
 * was checked at. The replica gate's questions take no lock (chapter 3's partition asks them while
 * it holds its own): they read only what is replaced whole.
 */
final class PartitionReplica {
    private final String topic;
    private final int partition;
    private final String name;
    private final Replica replica;
    private final PartitionRole role;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile PartitionLeader leader;
    private ReplicaFetcher fetcher;

    private PartitionReplica(String topic, int partition, String name, Replica replica) {
        this.topic = topic;
        this.partition = partition;
        this.name = name;
        this.replica = replica;
        this.role = new PartitionRole(replica.id(), replica);
    }

    /**
     * The replica on {@code held}, the broker's partition: its epochs read back from
     * {@code leader-epoch-checkpoint} (and written there at every change from now on), its high
     * watermark from {@code replication-offset-checkpoint} (task 12 (CheckpointsTest)), never its log end.
     * It takes no writes until a state makes it the leader.
     */
    static PartitionReplica open(int brokerId, String topic, int partition, Partition held, Path dir,
                                 OptionalLong checkpointedHw) throws IOException {
        Replica replica = Replica.of(brokerId, Role.FOLLOWER, held, Checkpoints.readLeaderEpochs(dir));
        replica.onEpochsChanged(epochs -> {
            try {
                Checkpoints.writeLeaderEpochs(dir, epochs);
            } catch (IOException e) {
                throw new UncheckedIOException("writing " + dir.resolve(Checkpoints.LEADER_EPOCHS), e);
            }
        });
        long[] bounds = held.locked(log -> new long[] {log.logStartOffset(), log.logEndOffset()});
        replica.updateHighWatermark(Checkpoints.restoredHighWatermark(checkpointedHw, bounds[0], bounds[1]));
        held.setReplicaGate(requiredOffset -> false); // no produce is taken before a state makes it the leader
        return new PartitionReplica(topic, partition, held.name(), replica);
    }

    /**
     * Acts on a state read from the partition's state znode. A state whose leader epoch is not newer
     * than the last one acted on changes nothing (the role's rule, task 6 (PartitionRoleTest), asked
     * first so the old role is ended only for a state that starts a new one); otherwise the fetcher is
     * stopped and joined, the role decides, the new role starts, and the old leader, if any, stops:
     * its waiting produces are answered by the new gate, NOT_LEADER_OR_FOLLOWER unless this broker
     * leads again.
     */
    PartitionRole.Decision onState(Versioned<PartitionState> state, List<Integer> assignment, ClusterContext context)
            throws IOException {
        lock.writeLock().lock();
        try {
            if (!role.isNewer(state.value())) {
                return PartitionRole.Decision.IGNORED;
            }
            closeFetcher();
            PartitionLeader previous = leader;
            try {
                PartitionRole.Decision decision = role.onState(state.value());
                leader = decision == PartitionRole.Decision.LEADER ? lead(state, assignment, context) : null;
                stop(previous); // before a fetcher can truncate what its waiting writes wait for
                if (decision == PartitionRole.Decision.FOLLOWER) {
                    follow(state.value(), context);
                } // OFFLINE: no leader, nothing to fetch from (IGNORED cannot come here)
                return decision;
            } catch (IOException | RuntimeException e) {
                leader = null; // whatever the role became, the old leadership is over
                stop(previous);
                throw e;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * This broker's leadership of the state's epoch, installed as the partition's replica gate: the
     * writes still waiting on the old epoch's gate (the controller took a dead follower out of the
     * ISR, and this broker still leads) are this log's, and the new gate judges them.
     */
    private PartitionLeader lead(Versioned<PartitionState> state, List<Integer> assignment, ClusterContext context) {
        // Kafka's effectiveMinIsr: never more than the partition has replicas, so a topic of one
        // replica under a broker-wide min.insync.replicas=2 still commits
        int minIsr = Math.min(context.minIsr(topic), assignment.size());
        PartitionLeader next = new PartitionLeader(context.zk(), topic, partition, replica, state, assignment, minIsr,
                context.replicaLagTimeMaxMs(), context::isAlive, context.nowMs());
        replica.partition().setReplicaGate(next);
        return next;
    }

    private void follow(PartitionState state, ClusterContext context) {
        int epoch = state.leaderEpoch();
        fetcher = new ReplicaFetcher(replica, name, epoch, context.connectorTo(state.leader()),
                context.fetcherConfig(), context::fetcherFailed);
        fetcher.start("klog-fetcher-" + name + "-epoch-" + epoch);
    }

    /** A leader of an older epoch stops: its waiting writes are answered by whatever gate is installed now. */
    private static void stop(PartitionLeader previous) throws IOException {
        if (previous != null) {
            previous.stop();
        }
    }

    private void closeFetcher() {
        if (fetcher != null) {
            fetcher.close();
            fetcher = null;
        }
    }

    /**
     * Stops leading, keeping the epoch last acted on (the session expired: the controller has moved
     * leadership away, and the state that says so is newer than this one). A follower keeps fetching:
     * a stale follower is refused by its leader and harms no one. True when it led.
     */
    boolean stopLeading() throws IOException {
        lock.writeLock().lock();
        try {
            PartitionLeader current = leader;
            leader = null;
            stop(current);
            return current != null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Stops the role for good (the broker is shutting down). */
    void close() throws IOException {
        lock.writeLock().lock();
        try {
            closeFetcher();
            stop(leader);
            leader = null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The check (NOT_LEADER_OR_FOLLOWER unless this broker leads; for acks=all, min.insync.replicas
     * too) and the append under the read side of the lock: see the class comment. The append
     * runs at this leader's epoch, which the log stamps on the batch (chapter 3's
     * {@code Log.append(batch, leaderEpoch)}, Kafka's {@code appendAsLeader}): a batch without its
     * epoch would teach the followers that copy it none, and leave their truncation by epoch blind.
     * After the append the leader moves its high watermark if it can ({@link PartitionLeader#afterAppend}).
     */
    CompletableFuture<ProduceResponse> produce(ProduceRequest request, Leadership.Append append) throws IOException {
        lock.readLock().lock();
        try {
            PartitionLeader current = leader;
            ErrorCode refused = current == null ? ErrorCode.NOT_LEADER_OR_FOLLOWER
                    : current.produceRefusal(request.acks());
            if (refused != ErrorCode.NONE) {
                return CompletableFuture.completedFuture(ProduceResponse.error(name, refused));
            }
            CompletableFuture<ProduceResponse> answer = append.run(current.leaderEpoch());
            current.afterAppend();
            return answer;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * A fetch before it is read. Its epoch is checked against the last state learnt, leader or
     * not, as Kafka checks it first: a follower that names an epoch this broker has not learnt yet
     * is told UNKNOWN_LEADER_EPOCH (ask again soon), never NOT_LEADER_OR_FOLLOWER. Then only the
     * leader serves, and a follower's fetch teaches it that follower's LEO (task 9 (FollowerFetchTest)),
     * under the write side of the lock.
     */
    ErrorCode beforeFetch(FetchRequest request, long nowMs) throws IOException {
        ErrorCode epochError = PartitionLeader.checkLeaderEpoch(request.currentLeaderEpoch(), role.leaderEpoch());
        if (epochError != ErrorCode.NONE) {
            return epochError;
        }
        if (leader == null) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        if (request.replicaId() < 0) {
            return ErrorCode.NONE;
        }
        lock.writeLock().lock();
        try {
            PartitionLeader current = leader;
            return current == null ? ErrorCode.NOT_LEADER_OR_FOLLOWER : current.onFollowerFetch(request.replicaId(),
                    request.fetchOffset(), request.currentLeaderEpoch(), nowMs);
        } catch (KeeperException e) {
            // the ISR write failed: the fetch itself is still served; the next one tries again
            return ErrorCode.NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the ISR of " + name, e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Where {@code epoch} ends in this leader's log (KIP-279's {@code <=}), after the epoch check. */
    OffsetsForLeaderEpoch.Response endOffsetForEpoch(int currentLeaderEpoch, int epoch) {
        ErrorCode epochError = PartitionLeader.checkLeaderEpoch(currentLeaderEpoch, role.leaderEpoch());
        if (epochError != ErrorCode.NONE) {
            return OffsetsForLeaderEpoch.Response.error(epochError);
        }
        if (leader == null) {
            return OffsetsForLeaderEpoch.Response.error(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        EpochEndOffset.Wire wire = EpochEndOffset.toWire(replica.endOffsetForEpoch(epoch));
        return new OffsetsForLeaderEpoch.Response(ErrorCode.NONE, wire.leaderEpoch(), wire.endOffset());
    }

    /** The isr-expiration tick, if this broker leads the partition; true when the ISR shrank. */
    boolean maybeShrinkIsr(long nowMs) throws IOException, KeeperException, InterruptedException {
        lock.writeLock().lock();
        try {
            PartitionLeader current = leader;
            return current != null && current.maybeShrinkIsr(nowMs);
        } finally {
            lock.writeLock().unlock();
        }
    }

    Optional<PartitionLeader> leader() {
        return Optional.ofNullable(leader);
    }

    Replica replica() {
        return replica;
    }

    String name() {
        return name;
    }

    String topic() {
        return topic;
    }

    /** The leader epoch this broker last acted on (-1: none yet), for the epoch checks of requests. */
    int knownEpoch() {
        return role.leaderEpoch();
    }
}
