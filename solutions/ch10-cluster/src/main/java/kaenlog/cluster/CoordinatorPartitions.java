package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.OffsetsPlacement;
import kaenlog.wire.PartitionNames;

/**
 * Which broker coordinates a group, and what this broker does when it gains or loses an offsets
 * partition (Kafka 3.9's {@code GroupMetadataManager}: {@code partitionFor}, {@code ownedPartitions},
 * {@code loadingPartitions}, and the {@code GroupCoordinator}'s {@code onElection} and
 * {@code onResignation}). A group's commits live in one partition of the replicated
 * {@code __consumer_offsets} topic, {@code Utils.abs(groupId.hashCode()) % partitionCount}, and the
 * broker that leads that partition is the group's coordinator.
 *
 * <p>A broker that becomes the leader of an offsets partition reads its groups' offsets from the log
 * (chapter 6's {@code CommittedOffsets.load}: the replica it led or followed holds every committed
 * record) on a thread of its own, and answers the partition's groups
 * COORDINATOR_LOAD_IN_PROGRESS until it has; one that stops leading forgets them at once, and from
 * then on answers NOT_COORDINATOR, so the members find the new coordinator and join it again. A
 * load that ends after its leadership did (the broker resigned meanwhile, or leads again at a newer
 * epoch, whose own load is under way) changes nothing.
 *
 * <p>Chapter 11 places transactional ids the same way, in {@code __transaction_state}: its
 * coordinator is the leader of {@code Utils.abs(transactionalId.hashCode()) % partitionCount}
 * (Kafka's {@code TransactionStateManager.partitionFor}), loaded on election, dropped on resignation
 * ({@link #CoordinatorPartitions(String, IntSupplier, Executor, Offsets, PrintStream)}).
 */
public final class CoordinatorPartitions {
    /** What becoming and stopping being a coordinator does to an offsets partition's groups (chapter 6's coordinator). */
    public interface Offsets {
        /** Reads {@code partition}'s committed offsets from its log into memory (again, if they were there). */
        void load(String partition) throws IOException;

        /** Forgets {@code partition}'s committed offsets. */
        void unload(String partition);
    }

    /** The topic whose partitions this coordinates: {@code __consumer_offsets}, or chapter 11's {@code __transaction_state}. */
    private final String topic;
    private final IntSupplier partitionCount;
    private final Executor loads;
    private final Offsets offsets;
    private final PrintStream log;
    /** Offsets partition -> the leader epoch whose load is under way. */
    private final Map<String, Integer> loading = new TreeMap<>();
    /** Offsets partition -> the leader epoch it was loaded at: this broker coordinates its groups. */
    private final Map<String, Integer> owned = new TreeMap<>();

    /**
     * @param partitionCount the partitions of {@code __consumer_offsets}: the topic's own once it
     *                       exists, else {@code offsets.topic.num.partitions}
     * @param loads          where loads run, one after another (a thread of their own; a test runs them by hand)
     */
    public CoordinatorPartitions(IntSupplier partitionCount, Executor loads, Offsets offsets, PrintStream log) {
        this(GroupCoordinator.OFFSETS_TOPIC, partitionCount, loads, offsets, log);
    }

    /**
     * The same rule for another internal topic's keys (chapter 11: {@code __transaction_state}, keyed
     * by transactional id): {@code offsets} is what gaining and losing one of its partitions does.
     */
    public CoordinatorPartitions(String topic, IntSupplier partitionCount, Executor loads, Offsets offsets,
                                 PrintStream log) {
        this.topic = topic;
        this.partitionCount = partitionCount;
        this.loads = loads;
        this.offsets = offsets;
        this.log = log;
    }

    /**
     * The offsets partition of {@code groupId}: Kafka's {@code Utils.abs(groupId.hashCode()) %
     * partitionCount}, so that the same group lands on the same partition number as on Kafka.
     */
    public static int partitionFor(String groupId, int partitionCount) {
        // BEGIN-SOLUTION ch10 task 13: the group's offsets partition, as Kafka's Utils.abs picks it (CoordinatorPartitionsTest)
        int hash = groupId.hashCode();
        // Kafka's Utils.abs: Math.abs(Integer.MIN_VALUE) is Integer.MIN_VALUE, a negative partition;
        // Kafka maps it to 0 (not to 0x7fffffff's remainder, nor to the remainder's absolute value)
        int positive = hash == Integer.MIN_VALUE ? 0 : Math.abs(hash);
        return positive % partitionCount;
        // END-SOLUTION
    }

    /** The kaen-log name of {@code groupId}'s offsets partition ({@code __consumer_offsets-N}; of a transactional id, {@code __transaction_state-N}). */
    public String partitionName(String groupId) {
        return PartitionNames.name(topic, partitionFor(groupId, partitionCount.getAsInt()));
    }

    /** Whether {@code partition} is one of this topic's (the other partitions are not this class's business). */
    private boolean ofThisTopic(String partition) {
        return PartitionNames.parse(partition).map(p -> p.topic().equals(topic)).orElse(false);
    }

    /**
     * Whether this broker answers {@code groupId}'s requests now (Kafka's {@code validateGroupStatus}):
     * its partition still loading first, then not this broker's.
     */
    public synchronized OffsetsPlacement.Status status(String groupId) {
        // BEGIN-SOLUTION ch10 task 13: loading first, then owned, else not the coordinator (CoordinatorPartitionsTest)
        String partition = partitionName(groupId);
        if (loading.containsKey(partition)) {
            return OffsetsPlacement.Status.LOAD_IN_PROGRESS;
        }
        return owned.containsKey(partition) ? OffsetsPlacement.Status.NONE : OffsetsPlacement.Status.NOT_COORDINATOR;
        // END-SOLUTION
    }

    /**
     * This broker leads {@code partition} from {@code leaderEpoch} on: its groups are loading until
     * their offsets are read, which happens on the loads' thread (the metadata thread that calls this
     * must not read a log). A broker that coordinates the partition already (its leader epoch grew
     * because its ISR changed, say) keeps its groups and reads nothing (Kafka's
     * {@code addLoadingPartition}).
     */
    public void onElection(String partition, int leaderEpoch) {
        if (!ofThisTopic(partition)) {
            return;
        }
        // BEGIN-SOLUTION ch10 task 13: loading at once, the log read on the loads' thread (CoordinatorPartitionsTest)
        synchronized (this) {
            if (owned.containsKey(partition)) {
                owned.put(partition, leaderEpoch); // led on at a newer epoch: its groups are here already
                return;
            }
            loading.put(partition, leaderEpoch);
        }
        loads.execute(() -> load(partition, leaderEpoch));
        // END-SOLUTION
    }

    /** The load of {@code partition} for the leadership of {@code leaderEpoch}: owned only if that leadership still loads it. */
    private void load(String partition, int leaderEpoch) {
        // BEGIN-SOLUTION ch10 task 13: a load counts only for the leadership that asked for it (CoordinatorPartitionsTest)
        if (!loadingAt(partition, leaderEpoch)) {
            return; // resigned, or elected again, before the load began
        }
        try {
            offsets.load(partition);
        } catch (IOException e) {
            log.println("cluster: the offsets of " + partition + " cannot be read: " + e.getMessage()
                    + "; its groups are answered NOT_COORDINATOR");
            synchronized (this) {
                loading.remove(partition, leaderEpoch);
            }
            return;
        }
        synchronized (this) {
            if (loading.remove(partition, leaderEpoch)) {
                owned.put(partition, leaderEpoch);
            }
        }
        // END-SOLUTION
    }

    private synchronized boolean loadingAt(String partition, int leaderEpoch) {
        Integer epoch = loading.get(partition);
        return epoch != null && epoch == leaderEpoch;
    }

    /** This broker no longer leads {@code partition}: its groups are forgotten at once, loaded or loading. */
    public void onResignation(String partition, int leaderEpoch) {
        if (!ofThisTopic(partition)) {
            return;
        }
        // BEGIN-SOLUTION ch10 task 13: not the coordinator any more, the offsets forgotten (CoordinatorPartitionsTest)
        synchronized (this) {
            loading.remove(partition);
            owned.remove(partition);
        }
        offsets.unload(partition);
        // END-SOLUTION
    }

    /** Whether this broker coordinates {@code partition}'s groups now (loaded). */
    public synchronized boolean owns(String partition) {
        return owned.containsKey(partition);
    }

    /** The offsets partitions this broker coordinates now. */
    public synchronized Set<String> owned() {
        return new TreeSet<>(owned.keySet());
    }
}
