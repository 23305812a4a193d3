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
import kaenlog.replication.Replica;
import kaenlog.replication.Role;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.apache.zookeeper.KeeperException;

/**
 * This broker's replica of one partition of the cluster (given code, on the tasks' pieces):
 * chapter 8's {@link Replica} on the broker's own partition, the {@link PartitionRole} of
 * task 6 (PartitionRoleTest) deciding what it is, and what each role runs: a {@link PartitionLeader} (which is then the
 * partition's replica gate) or a {@link ReplicaFetcher}. Every new state of the partition comes
 * through {@link #onState}, on the cluster member's one thread.
 *
 * <p>A change of role and an append never overlap (Kafka's {@code leaderIsrUpdateLock}): every
 * produce runs its check and its append under the read side of {@link #roleChange}, a change of
 * role takes the write side. So a produce that was checked while this broker led is either written
 * before the broker stops leading or refused after.
 */
final class PartitionReplica {
    private final String topic;
    private final int partition;
    private final String name;
    private final Replica replica;
    private final PartitionRole role;
    private final ReentrantReadWriteLock roleChange = new ReentrantReadWriteLock();
    private volatile PartitionLeader leader;
    private ReplicaFetcher fetcher;
    /** The leader epoch of the last state acted on (-1: none yet), for the epoch checks of requests. */
    private volatile int knownEpoch = PartitionRole.NO_EPOCH;

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
     * Acts on a state read from the partition's state znode: a state whose leader epoch is not newer
     * than the last one acted on changes nothing (the rule of task 6 (PartitionRoleTest), asked here
     * first so the old role is ended before the new one begins); otherwise the fetcher is stopped and
     * joined, the role decides, the new role starts, and the old leader, if any, stops: its waiting
     * produces are answered by the new gate, NOT_LEADER_OR_FOLLOWER unless this broker leads again.
     */
    PartitionRole.Decision onState(Versioned<PartitionState> state, List<Integer> assignment, ClusterContext context)
            throws IOException {
        if (state.value().leaderEpoch() <= role.leaderEpoch()) {
            return PartitionRole.Decision.IGNORED;
        }
        roleChange.writeLock().lock();
        try {
            closeFetcher();
            PartitionLeader previous = leader;
            leader = null;
            PartitionRole.Decision decision = role.onState(state.value());
            int epoch = state.value().leaderEpoch();
            switch (decision) {
                case LEADER -> {
                    // Kafka's effectiveMinIsr: never more than the partition has replicas, so a topic of
                    // one replica under a broker-wide min.insync.replicas=2 still commits
                    int minIsr = Math.min(context.minIsr(topic), assignment.size());
                    leader = new PartitionLeader(context.zk(), topic, partition, replica, state, assignment,
                            minIsr, context.replicaLagTimeMaxMs(), context::isAlive, context.nowMs());
                    // Still the leader (the controller took a dead follower out of the ISR): the writes
                    // waiting on the old epoch's gate are this log's, and the new gate judges them.
                    replica.partition().setReplicaGate(leader);
                    stop(previous);
                }
                case FOLLOWER -> {
                    stop(previous); // before the fetcher can truncate what its waiting writes wait for
                    fetcher = new ReplicaFetcher(replica, name, epoch, context.connectorTo(state.value().leader()),
                            context.fetcherConfig(), context::fetcherFailed);
                    fetcher.start("klog-fetcher-" + name + "-epoch-" + epoch);
                }
                default -> stop(previous); // OFFLINE: no leader, nothing to fetch from (IGNORED cannot come here)
            }
            knownEpoch = epoch;
            return decision;
        } finally {
            roleChange.writeLock().unlock();
        }
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

    /** Ends whatever the last state started. */
    private void endRole() throws IOException {
        closeFetcher();
        if (leader != null) {
            leader.stop();
            leader = null;
        }
    }

    /**
     * Stops leading, keeping the epoch last acted on (the session expired: the controller has moved
     * leadership away, and the state that says so is newer than this one). A follower keeps fetching:
     * a stale follower is refused by its leader and harms no one.
     */
    void stopLeading() throws IOException {
        roleChange.writeLock().lock();
        try {
            if (leader != null) {
                leader.stop();
                leader = null;
            }
        } finally {
            roleChange.writeLock().unlock();
        }
    }

    /** Stops the role for good (the broker is shutting down). */
    void close() throws IOException {
        roleChange.writeLock().lock();
        try {
            endRole();
        } finally {
            roleChange.writeLock().unlock();
        }
    }

    /** NONE while this broker leads, else NOT_LEADER_OR_FOLLOWER; for acks=all, min.insync.replicas too. */
    ErrorCode produceRefusal(ProduceRequest request) {
        PartitionLeader current = leader;
        return current == null ? ErrorCode.NOT_LEADER_OR_FOLLOWER : current.produceRefusal(request.acks());
    }

    /**
     * The check and the append under the read side of the role lock: see the class comment. The
     * append runs at this leader's epoch, which the log stamps on the batch (chapter 3's
     * {@code Log.append(batch, leaderEpoch)}, Kafka's {@code appendAsLeader}): a batch without its
     * epoch would teach the followers that copy it none, and leave their truncation by epoch blind.
     * After the append the leader moves its high watermark if it can ({@link PartitionLeader#afterAppend}).
     */
    CompletableFuture<ProduceResponse> produce(ProduceRequest request, Leadership.Append append) throws IOException {
        roleChange.readLock().lock();
        try {
            ErrorCode refused = produceRefusal(request);
            if (refused != ErrorCode.NONE) {
                return CompletableFuture.completedFuture(ProduceResponse.error(name, refused));
            }
            PartitionLeader current = leader;
            CompletableFuture<ProduceResponse> answer = append.run(current.leaderEpoch());
            current.afterAppend();
            return answer;
        } finally {
            roleChange.readLock().unlock();
        }
    }

    /**
     * A fetch before it is read. Its epoch is checked against the last state learnt, leader or
     * not, as Kafka checks it first: a follower that names an epoch this broker has not learnt yet
     * is told UNKNOWN_LEADER_EPOCH (ask again soon), never NOT_LEADER_OR_FOLLOWER. Then only the
     * leader serves, and a follower's fetch teaches it that follower's LEO (task 9 (FollowerFetchTest)).
     */
    ErrorCode beforeFetch(FetchRequest request, long nowMs) throws IOException {
        ErrorCode epochError = PartitionLeader.checkLeaderEpoch(request.currentLeaderEpoch(), knownEpoch);
        if (epochError != ErrorCode.NONE) {
            return epochError;
        }
        PartitionLeader current = leader;
        if (current == null) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        if (request.replicaId() < 0) {
            return ErrorCode.NONE;
        }
        try {
            return current.onFollowerFetch(request.replicaId(), request.fetchOffset(), request.currentLeaderEpoch(),
                    nowMs);
        } catch (KeeperException e) {
            // the ISR write failed: the fetch itself is still served; the next one tries again
            return ErrorCode.NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the ISR of " + name, e);
        }
    }

    /** Where {@code epoch} ends in this leader's log (KIP-279's {@code <=}), after the epoch check. */
    kaenlog.wire.OffsetsForLeaderEpoch.Response endOffsetForEpoch(int currentLeaderEpoch, int epoch) {
        ErrorCode epochError = PartitionLeader.checkLeaderEpoch(currentLeaderEpoch, knownEpoch);
        if (epochError != ErrorCode.NONE) {
            return kaenlog.wire.OffsetsForLeaderEpoch.Response.error(epochError);
        }
        if (leader == null) {
            return kaenlog.wire.OffsetsForLeaderEpoch.Response.error(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        var wire = kaenlog.replication.EpochEndOffset.toWire(replica.endOffsetForEpoch(epoch));
        return new kaenlog.wire.OffsetsForLeaderEpoch.Response(ErrorCode.NONE, wire.leaderEpoch(), wire.endOffset());
    }

    /** The isr-expiration tick, if this broker leads the partition; true when the ISR shrank. */
    boolean maybeShrinkIsr(long nowMs) throws IOException, KeeperException, InterruptedException {
        PartitionLeader current = leader;
        return current != null && current.maybeShrinkIsr(nowMs);
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

    int knownEpoch() {
        return knownEpoch;
    }
}
