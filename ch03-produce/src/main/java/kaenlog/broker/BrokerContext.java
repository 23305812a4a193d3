package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** What a {@link RequestHandler} may use of the broker it runs in. */
public interface BrokerContext {
    /**
     * The partition called {@code name} (a directory under the data directory), opened on first
     * use; opening recovers its log. A name that is not {@code [A-Za-z0-9._-]+-[0-9]+} (topic,
     * dash, partition number) is a {@link kaenlog.wire.MalformedMessageException}.
     */
    Partition partition(String name) throws IOException;

    /**
     * The partition called {@code name} if it exists (open, or a directory under the data directory),
     * else empty: only a produce creates a partition. A fetch for a name nobody produced to must not
     * leave a directory and two open files behind, or a client could fill the disk's inodes and the
     * broker's file descriptors with 40-byte requests.
     */
    Optional<Partition> existingPartition(String name) throws IOException;

    /**
     * The broker's time. Chapter code reads no clock: the broker's ticker advances this virtual
     * time, and parked fetches and acks=all produces compare their deadlines with it.
     */
    long nowMs();

    /** The configs the broker runs with: every partition's (Kafka's topic configs) and its own. */
    PartitionConfigs configs();

    /** Which partitions this broker serves and as what ({@link Leadership#ALONE} for a broker on its own). */
    default Leadership leadership() {
        return Leadership.ALONE;
    }

    /**
     * Waits for a parked fetch or a pending acks=all produce to be answered. When the broker shuts
     * down, the wait is cancelled (a {@link java.util.concurrent.CancellationException}) and the
     * connection ends without an answer.
     */
    <T> T await(CompletableFuture<T> answer);

    /**
     * Removes the partition {@code name} if nothing was written to it and no other request uses it: a
     * produce that created it and failed leaves nothing on disk.
     */
    default void removeIfEmpty(String name) throws IOException {
    }

    /** A request was refused a new partition (max.partitions): one rate-limited line in the broker's log. */
    default void refusedCreation(String why) {
    }

    /**
     * The request on this thread is done with the partitions it used so far: they may be closed again
     * to stay under max.open.partitions (a request naming many partitions calls it after each).
     */
    default void partitionsDone() {
    }

    /** Client partitions the broker holds, open or only on disk (at most max.partitions). */
    default int heldPartitionCount() {
        throw new UnsupportedOperationException("this broker does not count its partitions");
    }

    /** The names of every client partition in the data directory ({@code __...} left out), sorted. */
    default java.util.List<String> clientPartitionNames() throws IOException {
        throw new UnsupportedOperationException("this broker does not list its partitions");
    }

    /**
     * Closes the partition {@code name} (whoever waits on it is told so) and removes its directory:
     * renamed first to a name that is no partition's, so a crash midway leaves no half partition,
     * then deleted. An I/O error is thrown at once: the caller stops there.
     */
    default void deletePartition(String name) throws IOException {
        throw new UnsupportedOperationException("this broker does not delete partitions");
    }

    /**
     * This broker's instance of a {@link BrokerExtension} (one per broker, made when it starts), for
     * a chapter whose handlers keep state for the broker's life in it (chapter 6: the group
     * coordinator's committed offsets, read from their log once); empty when it is not on the classpath.
     */
    default <T extends BrokerExtension> Optional<T> extension(Class<T> type) {
        return Optional.empty();
    }

    /**
     * Replaces the own configs of each topic named (Kafka's dynamic topic configs; an empty map: none
     * left), all or none, kept across a restart and in force at once ({@link Broker#alterTopicConfigs}).
     */
    default void alterTopicConfigs(java.util.Map<String, java.util.Map<String, String>> changes) throws IOException {
        throw new UnsupportedOperationException("this broker keeps no topic configs");
    }

    /**
     * Something a client's request ran into that the operator must hear of (a damaged internal log),
     * which every request can run into again: one line per {@code kind} per interval in the broker's log.
     */
    default void trouble(String kind, String line) {
    }
}
