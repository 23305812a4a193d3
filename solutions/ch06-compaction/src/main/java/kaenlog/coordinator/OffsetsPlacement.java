package kaenlog.coordinator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.Partition;

/**
 * Where a group's offsets live and who may answer for the group: the seam between this chapter's
 * coordinator and chapter 10's cluster. A broker alone ({@link #ALONE}) keeps every group's offsets
 * in its one internal partition {@value GroupCoordinator#OFFSETS_PARTITION} and coordinates every
 * group. In chapter 10's cluster, Kafka's rule: {@code __consumer_offsets} is a replicated topic, a
 * group's partition is {@code Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions}, and the
 * leader of that partition is the group's coordinator; its commits are appended as that leader and
 * answered once the in-sync replicas have them.
 */
public interface OffsetsPlacement {
    /** One broker, one offsets partition, every group coordinated here. */
    OffsetsPlacement ALONE = new OffsetsPlacement() {
    };

    /**
     * A cluster member that has not joined yet coordinates no group: chapter 10 places the groups'
     * offsets once it has, and its ports may already listen (klog serve starts the Kafka port first:
     * its port is the one the member registers). Meanwhile FindCoordinator answers
     * COORDINATOR_NOT_AVAILABLE and a group's requests NOT_COORDINATOR, on either port; a Kafka broker
     * answers no request before its group coordinator has started (Kafka 3.9's
     * {@code KafkaServer.startup} enables request processing after {@code GroupCoordinator.startup}).
     * Without it, a restarted member named itself the coordinator of every group for a moment, and
     * its expiry would have written to its copy of {@code __consumer_offsets-0} as if alone.
     */
    OffsetsPlacement NOT_JOINED = new OffsetsPlacement() {
        @Override
        public boolean alone() {
            return false;
        }

        @Override
        public int coordinatorId(String group, int self) {
            return -1;
        }

        @Override
        public Status status(String group) {
            return Status.NOT_COORDINATOR;
        }

        @Override
        public boolean owns(String partition) {
            return false;
        }

        @Override
        public Set<String> owned() {
            return Set.of();
        }
    };

    /** Why this broker does not answer a group's requests now, or {@link #NONE} when it does. */
    enum Status {
        NONE,
        /** It leads the group's offsets partition and is still reading it (Kafka: COORDINATOR_LOAD_IN_PROGRESS). */
        LOAD_IN_PROGRESS,
        /** It does not lead the group's offsets partition (Kafka: NOT_COORDINATOR). */
        NOT_COORDINATOR
    }

    /** A replicated append's outcome: NONE with the log offset of its first record, or the error. */
    record Appended(OffsetCommitError error, long firstOffset) {
    }

    /** True for a broker alone: commits are appended to its own log directly, by chapter 6's coordinator. */
    default boolean alone() {
        return true;
    }

    /** The kaen-log name of the offsets partition that keeps {@code group}'s offsets. */
    default String partitionFor(String group) {
        return GroupCoordinator.OFFSETS_PARTITION;
    }

    /**
     * The id of the broker that coordinates {@code group} (Kafka's FindCoordinator), or -1 when none
     * does now (Kafka: COORDINATOR_NOT_AVAILABLE); {@code self} is the asking broker's id. A broker
     * alone coordinates every group.
     */
    default int coordinatorId(String group, int self) {
        return self;
    }

    /** Whether this broker answers {@code group}'s requests now (Kafka's {@code validateGroupStatus}). */
    default Status status(String group) {
        return Status.NONE;
    }

    /** Whether this broker coordinates the groups of offsets partition {@code partition} now (loaded). */
    default boolean owns(String partition) {
        return GroupCoordinator.OFFSETS_PARTITION.equals(partition);
    }

    /** The offsets partitions this broker coordinates now. */
    default Set<String> owned() {
        return Set.of(GroupCoordinator.OFFSETS_PARTITION);
    }

    /**
     * Appends {@code batch} (a commit's records, or tombstones) to {@code partition} as its leader and
     * answers once it is committed. A broker alone appends to its log: there is nothing to wait for.
     */
    default Appended append(BrokerContext broker, Partition partition, ByteBuffer batch) throws IOException {
        return new Appended(OffsetCommitError.NONE, partition.locked(log -> log.append(batch)).firstOffset());
    }

    /**
     * Appends {@code batch} to {@code partition} as its leader without waiting for any follower: an
     * expiry's tombstones (Kafka's {@code cleanupGroupMetadata} appends them with requiredAcks 0, after
     * its cache forgot the offsets). A broker alone appends to its log.
     */
    default void appendUnacknowledged(Partition partition, ByteBuffer batch) throws IOException {
        partition.locked(log -> log.append(batch));
    }
}
