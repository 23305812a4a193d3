package kaenlog.coordinator;

import java.io.IOException;
import kaenlog.groups.CommittedOffsets;
import kaenlog.groups.GroupOffsetsLog;
import kaenlog.groups.OffsetCommitKey;

/**
 * How the coordinator reads an offsets partition into memory when it takes it over, and what a later
 * chapter keeps beside the committed offsets. Chapter 6's own is {@link #PLAIN}: the replay of
 * {@link GroupOffsetsLog#committedOffsets}. Chapter 11 registers one
 * ({@code META-INF/services/kaenlog.coordinator.OffsetsLoader}) that also understands a transaction's
 * offsets: pending until their transaction's marker, as Kafka's {@code OffsetMetadataManager} replays
 * them. The coordinator makes one instance of it per broker ({@link GroupCoordinator#loader}).
 */
public interface OffsetsLoader {
    /** Chapter 6's: every record is a commit or a tombstone of its key, the last one wins. */
    OffsetsLoader PLAIN = (partition, log) -> CommittedOffsets.load(log);

    /** Reads {@code partition}'s log once into memory (called under the partition's lock). */
    CommittedOffsets load(String partition, GroupOffsetsLog log) throws IOException;

    /**
     * Whether {@code key} has an offset waiting for something before it counts (chapter 11: a
     * transaction's, until its marker), so that OffsetFetch with {@code require_stable} answers
     * UNSTABLE_OFFSET_COMMIT for it. Called under the partition's lock.
     */
    default boolean isPending(String partition, OffsetCommitKey key) {
        return false;
    }

    /** The coordinator stopped coordinating {@code partition}: what was kept of it goes. */
    default void unloaded(String partition) {
    }
}
