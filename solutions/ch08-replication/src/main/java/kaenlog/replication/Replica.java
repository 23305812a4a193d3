package kaenlog.replication;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.broker.Partition;

/**
 * One broker's copy of the partition: chapter 3's {@link Partition} (a log behind a lock), the
 * broker's id, its role, and its leader epoch vector.
 *
 * <p>Both roles keep their high watermark in their own log. The leader moves it from what its
 * followers report; a follower moves it from what the leader's fetch responses say.
 */
public final class Replica implements Closeable {
    private final int id;
    private final Partition partition;
    /** The partition's log, kept only to read the HW from inside the partition's lock (see {@link #highWatermarkInsideLock}). */
    private final Log log;
    private final LeaderEpochCache epochs = new LeaderEpochCache();
    private Role role;
    private int leaderEpoch = BatchHeader.NO_PARTITION_LEADER_EPOCH;
    /** Told the epochs after every change (chapter 10 writes them to {@code leader-epoch-checkpoint}). */
    private Consumer<List<LeaderEpochCache.EpochEntry>> epochsChanged = entries -> { };

    private Replica(int id, Role role, Partition partition) throws IOException {
        this.id = id;
        this.role = role;
        this.partition = partition;
        this.log = partition.locked(l -> l);
    }

    /** Opens (or creates) this broker's copy of the partition in {@code dir}. */
    public static Replica open(int id, Role role, Path dir) throws IOException {
        if (id < 0) {
            throw new IllegalArgumentException("replica id must be >= 0 (a negative id is a consumer), got " + id);
        }
        Objects.requireNonNull(role, "role");
        return new Replica(id, role, Partition.open(dir.getFileName().toString(), dir, LogConfig.defaults()));
    }

    /**
     * This broker's copy of a partition the broker already holds (chapter 10: a broker of a cluster
     * is a replica of the partitions the controller assigned it), starting with the epochs
     * {@code epochs} (read back from a checkpoint; empty for a new replica). Its high watermark no
     * longer follows the log end: with other replicas it comes from the leader.
     */
    public static Replica of(int id, Role role, Partition partition, List<LeaderEpochCache.EpochEntry> epochs)
            throws IOException {
        if (id < 0) {
            throw new IllegalArgumentException("replica id must be >= 0 (a negative id is a consumer), got " + id);
        }
        Replica replica = new Replica(id, Objects.requireNonNull(role, "role"), partition);
        epochs.forEach(entry -> replica.epochs.assign(entry.epoch(), entry.startOffset()));
        // An epoch that starts at or past the log's end has no record here (a crash cut the tail, or a
        // leader wrote nothing in it): Kafka's UnifiedLog drops them from its cache at load the same way.
        replica.epochs.truncateFromEnd(replica.leo());
        replica.stopEagerHighWatermark();
        return replica;
    }

    /** Tells {@code listener} the epochs after every change of them (a new leader epoch, a copied batch, a truncation). */
    public void onEpochsChanged(Consumer<List<LeaderEpochCache.EpochEntry>> listener) {
        this.epochsChanged = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Takes over as leader at {@code epoch}: from now on every batch it appends carries the epoch,
     * and the epoch starts at the current log end offset (Kafka's leader adds that entry to its
     * cache as it becomes leader, so it can answer for the epoch even before writing to it). Within one
     * life of the replica the epoch only grows; a replica opened again may take up the epoch its log
     * ends with (a leader restarted before any controller saw it go: nothing bumped the epoch), as
     * Kafka's new {@code Partition} starts at no epoch and {@code LeaderEpochFileCache.assign} keeps
     * an epoch it already holds at its first offset.
     */
    public void becomeLeader(int epoch) {
        int latest = epochs.latestEpoch().orElse(-1);
        if (epoch <= leaderEpoch || epoch < latest) {
            throw new IllegalArgumentException("a new leader epoch must be above the one this replica led ("
                    + leaderEpoch + ") and not below any its log holds (" + latest + "), got " + epoch);
        }
        role = Role.LEADER;
        leaderEpoch = epoch;
        epochs.assign(epoch, leo());
        epochsChanged.accept(epochs.entries());
    }

    /** Stops taking writes: a follower copies the leader's batches with the leader's epochs in them. */
    public void becomeFollower() {
        role = Role.FOLLOWER;
    }

    /**
     * From now on the high watermark moves only when someone sets it: with a second replica it is
     * no longer "my own log end" (chapter 3's eager rule) but the smallest LEO of the ISR.
     */
    public void stopEagerHighWatermark() throws IOException {
        partition.locked(log -> {
            log.stopEagerHighWatermark();
            return null;
        });
    }

    /** True while the high watermark still follows this log's end on every append (chapter 3). */
    public boolean eagerHighWatermark() {
        return read(log -> log.eagerHighWatermark());
    }

    /** A producer's batch, appended as the leader: offsets assigned, the leader epoch stamped. */
    public AppendInfo appendAsLeader(ByteBuffer batch) throws IOException {
        if (role != Role.LEADER) {
            throw new IllegalStateException("replica " + id + " is a follower: only the leader takes produce requests");
        }
        return partition.locked(log -> log.append(batch, leaderEpoch));
    }

    /**
     * The leader's batches, appended as they are (no offset is assigned), and each batch's epoch
     * recorded where it starts, as Kafka's follower does on every append. Returns how many records
     * arrived.
     */
    public int appendAsFollower(ByteBuffer batches) throws IOException {
        int records = 0;
        List<LeaderEpochCache.EpochEntry> before = epochs.entries();
        // Headers only: the log validates every batch as it writes it, and a follower never
        // decompresses or decodes the leader's records (neither does Kafka's).
        for (ByteBuffer batch : RecordBatch.sliceAll(batches)) {
            BatchHeader header = BatchHeader.readFrom(batch.duplicate());
            records += header.recordCount();
            if (header.partitionLeaderEpoch() >= 0) {
                epochs.assign(header.partitionLeaderEpoch(), header.baseOffset());
            }
        }
        partition.locked(log -> {
            log.appendAsFollower(batches);
            return null;
        });
        if (!before.equals(epochs.entries())) {
            epochsChanged.accept(epochs.entries());
        }
        return records;
    }

    /** Cuts the log back to {@code offset}; epochs that start at or after it go too. */
    public void truncateTo(long offset) throws IOException {
        partition.locked(log -> {
            log.truncateTo(offset);
            return null;
        });
        List<LeaderEpochCache.EpochEntry> before = epochs.entries();
        epochs.truncateFromEnd(leo());
        if (!before.equals(epochs.entries())) {
            epochsChanged.accept(epochs.entries());
        }
    }

    /** This replica's answer to "where does epoch {@code epoch} end?" (KIP-279: the largest epoch {@code <=} it). */
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        return epochs.endOffsetForEpoch(epoch, leo());
    }

    /** The log end offset: the offset the next record will get (0 for an empty log). */
    public long leo() {
        return read(log -> log.logEndOffset());
    }

    /** The log start offset: the first offset still held (0 until retention or compaction moved it). */
    public long logStartOffset() {
        return read(log -> log.logStartOffset());
    }

    /** The high watermark, exclusive: records below it are committed. */
    public long highWatermark() {
        return read(log -> log.highWatermark());
    }

    /**
     * The HW for a {@link kaenlog.broker.ReplicaGate}. The partition asks its gate while it holds
     * its own lock, after every change; {@link #highWatermark()} would take the lock again, and
     * {@code Partition.locked} would ask the gate again, forever. So this one reads the log directly.
     */
    public LongSupplier highWatermarkInsideLock() {
        return log::highWatermark;
    }

    /** Moves the high watermark (never past the log end offset: the log refuses that). */
    public void updateHighWatermark(long hw) throws IOException {
        partition.updateHighWatermark(hw);
    }

    public int id() {
        return id;
    }

    public Role role() {
        return role;
    }

    /** The epoch this replica leads with, or -1 if it never led. */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    public LeaderEpochCache epochs() {
        return epochs;
    }

    /** Chapter 3's partition, for what this class does not wrap (the lock, the replica gate). */
    public Partition partition() {
        return partition;
    }

    @Override
    public void close() throws IOException {
        partition.close();
    }

    private <T> T read(Partition.LogAction<T> action) {
        try {
            return partition.locked(action);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
